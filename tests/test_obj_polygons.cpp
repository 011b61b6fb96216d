// OBJ faces of more than three corners, as modellers write them (Blender keeps a car body's side,
// its wheel arches cut out, as one concave face): the loader cuts each into triangles that cover
// the face exactly. Checked against the face itself: its area by the shoelace formula, whether
// each triangle lies inside it, and a prism's volume and centre of mass from its outline.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "Tolerance.h"
#include "raycar/io/MassProperties.h"
#include "raycar/io/ObjModel.h"

using namespace raycar;
using raycar::test::within;

namespace {

struct Point {
  double u, v;
};

// A car's side profile (u forward, v up, m): sill at 0.3 m with two wheel arches of radius 0.35
// m, each a half polygon of `archSegments` segments, roof line at 1.2 m. Counter-clockwise.
std::vector<Point> carSide(int archSegments) {
  std::vector<Point> outline;
  outline.push_back({-2.1, 0.3});
  for (const double centre : {-1.3, 1.3}) {
    for (int i = 0; i <= archSegments; ++i) {
      const double angle = M_PI - M_PI * i / archSegments;  // from the arch's rear foot over its top
      outline.push_back({centre + 0.35 * std::cos(angle), 0.3 + 0.35 * std::sin(angle)});
    }
  }
  outline.push_back({2.1, 0.3});
  outline.push_back({2.1, 1.2});
  outline.push_back({-2.1, 1.2});
  return outline;
}

double shoelaceArea(const std::vector<Point>& outline) {  // > 0 counter-clockwise
  double twice = 0;
  for (size_t i = 0; i < outline.size(); ++i) {
    const Point& a = outline[i];
    const Point& b = outline[(i + 1) % outline.size()];
    twice += a.u * b.v - b.u * a.v;
  }
  return twice / 2;
}

Point centroid(const std::vector<Point>& outline) {
  double u = 0, v = 0;
  for (size_t i = 0; i < outline.size(); ++i) {
    const Point& a = outline[i];
    const Point& b = outline[(i + 1) % outline.size()];
    const double cross = a.u * b.v - b.u * a.v;
    u += (a.u + b.u) * cross;
    v += (a.v + b.v) * cross;
  }
  const double area = shoelaceArea(outline);
  return {u / (6 * area), v / (6 * area)};
}

bool inside(const std::vector<Point>& outline, const Point& p) {  // even-odd rule
  bool in = false;
  for (size_t i = 0, j = outline.size() - 1; i < outline.size(); j = i++) {
    const Point& a = outline[i];
    const Point& b = outline[j];
    if ((a.v > p.v) != (b.v > p.v) && p.u < (b.u - a.u) * (p.v - a.v) / (b.v - a.v) + a.u) in = !in;
  }
  return in;
}

// The outline as one face of an OBJ object, in the plane x = 0.9 (a car's right side, u along
// -y as Blender's cars face, v along z).
ObjObject loadFace(const std::vector<Point>& outline) {
  std::ostringstream obj;
  obj << "o side\n";
  for (const Point& p : outline) obj << "v 0.9 " << -p.u << " " << p.v << "\n";
  obj << "f";
  for (size_t i = 0; i < outline.size(); ++i) obj << " " << i + 1;
  obj << "\n";
  const ObjModel model = parseObjModel(obj.str(), "face.obj");
  REQUIRE(model.objects.size() == 1);
  return model.objects[0];
}

Point planar(const btVector3& vertex) { return {-double(vertex.y()), double(vertex.z())}; }

}  // namespace

TEST_CASE("a face of any number of corners is cut into triangles that cover it exactly, none of zero area") {
  struct Case {
    const char* name;
    std::vector<Point> outline;
  };
  const std::vector<Case> cases = {
      {"a car's side with two wheel arches", carSide(6)},
      {"the same with arches of one segment each side (collinear feet)", carSide(2)},
      {"an L", {{0, 0}, {2, 0}, {2, 0.5}, {0.5, 0.5}, {0.5, 2}, {0, 2}}},
      {"a rectangle with corners along its bottom edge", {{0, 0}, {0.5, 0}, {1, 0}, {1.5, 0}, {2, 0}, {2, 1}, {0, 1}}},
      {"a dart (a concave quad)", {{0, 0}, {1, 0.4}, {2, 0}, {1, 2}}},
      {"a comb", {{0, 0}, {3, 0}, {3, 2}, {2.5, 2}, {2.5, 0.5}, {2, 0.5}, {2, 2}, {1.5, 2}, {1.5, 0.5}, {1, 0.5}, {1, 2}, {0, 2}}},
      {"a convex 24-gon (a wheel's cap)", [] {
         std::vector<Point> circle;
         for (int i = 0; i < 24; ++i) circle.push_back({0.32 * std::cos(2 * M_PI * i / 24), 0.32 * std::sin(2 * M_PI * i / 24)});
         return circle;
       }()},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const ObjObject face = loadFace(c.outline);
    CHECK(face.triangles.size() == c.outline.size() - 2);
    double area = 0;
    for (const std::array<int, 3>& triangle : face.triangles) {
      const Point a = planar(face.vertices[size_t(triangle[0])]);
      const Point b = planar(face.vertices[size_t(triangle[1])]);
      const Point d = planar(face.vertices[size_t(triangle[2])]);
      const double signedArea = ((b.u - a.u) * (d.v - a.v) - (b.v - a.v) * (d.u - a.u)) / 2;
      // Wound as the face (counter-clockwise), of some area, and inside the face.
      CHECK(signedArea > 1e-4);
      CHECK(inside(c.outline, {(a.u + b.u + d.u) / 3, (a.v + b.v + d.v) / 3}));
      area += signedArea;
    }
    // The vertices are single precision: 1e-6 relative.
    CHECK(area == within(shoelaceArea(c.outline), 1e-6));
    for (const int line : face.triangleLines) CHECK(line == int(c.outline.size()) + 2);  // the `f` line
  }
}

TEST_CASE("a convex quad is cut along its shorter diagonal, as models of quads have always loaded") {
  // Corners 0 1 2 3: the diagonal 1-3 (1.2 m) is shorter than 0-2 (2.9 m) in the first, longer in the second.
  const ObjObject kite = loadFace({{0, 0}, {1.4, -0.6}, {2.8, 0}, {1.4, 0.6}});
  REQUIRE(kite.triangles.size() == 2);
  CHECK(kite.triangles[0] == std::array<int, 3>{0, 1, 3});
  CHECK(kite.triangles[1] == std::array<int, 3>{1, 2, 3});
  const ObjObject tall = loadFace({{0, 0}, {0.6, -1.4}, {1.2, 0}, {0.6, 1.4}});
  REQUIRE(tall.triangles.size() == 2);
  CHECK(tall.triangles[0] == std::array<int, 3>{0, 1, 2});
  CHECK(tall.triangles[1] == std::array<int, 3>{0, 2, 3});
}

TEST_CASE("a body extruded from a concave side face has the prism's volume and centre of mass") {
  // The car side with its arches as two n-gons 1.8 m apart, joined by quads: a closed prism whose
  // volume is the face's area x 1.8 and whose centre of mass lies over the face's centroid, at
  // x = 0 (the loader's mass properties against the outline's own formulas). Before the faces
  // were cut in their planes, such a body was refused: "a degenerate triangle" or "not closed".
  const std::vector<Point> outline = carSide(6);
  const size_t n = outline.size();
  std::ostringstream obj;
  obj << "o hull1\n";
  for (const double x : {0.9, -0.9})
    for (const Point& p : outline) obj << "v " << x << " " << -p.u << " " << p.v << "\n";
  // Outward normals: the right side (x = 0.9) is wound counter-clockwise seen from +x.
  obj << "f";
  for (size_t i = 0; i < n; ++i) obj << " " << i + 1;
  obj << "\nf";
  for (size_t i = n; i > 0; --i) obj << " " << n + i;
  obj << "\n";
  for (size_t i = 0; i < n; ++i) {
    const size_t j = (i + 1) % n;
    obj << "f " << j + 1 << " " << i + 1 << " " << n + i + 1 << " " << n + j + 1 << "\n";
  }
  const ObjModel model = parseObjModel(obj.str(), "prism.obj");
  REQUIRE(model.objects.size() == 1);
  const ObjObject& hull = model.objects[0];
  CHECK(closedMeshProblem(hull.vertices, hull.triangles, hull.triangleLines) == "");
  const MassProperties mass = solidMassProperties(hull.vertices, hull.triangles, 1000);
  const Point centre = centroid(outline);
  CHECK(double(mass.volume) == within(shoelaceArea(outline) * 1.8, 1e-5));
  CHECK(std::fabs(mass.centerOfMass.x()) < 1e-5);
  CHECK(std::fabs(double(mass.centerOfMass.y()) + centre.u) < 1e-5);  // 0: the arches are symmetric
  CHECK(double(mass.centerOfMass.z()) == within(centre.v, 1e-5));
}

TEST_CASE("a triangle of three distinct corners on one line closes a surface, one with a corner twice does not") {
  // A tetrahedron (volume 1/6 m^3) with a vertex 5 in the middle of its edge 1-2, triangulated as
  // Blender triangulates faces with collinear corners: the bottom face 1 3 2 5 as 1 3 2 and the
  // sliver 2 5 1, the side face 1 5 2 4 as 1 5 4 and 5 2 4. Every edge then has its partner, the
  // sliver's included, and the sliver adds no volume.
  const ObjModel sliver = parseObjModel(
      "o solid\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0.5 0 0\n"
      "f 1 3 2\nf 2 5 1\nf 1 5 4\nf 5 2 4\nf 1 4 3\nf 2 3 4\n",
      "sliver.obj");
  const ObjObject& solid = sliver.objects[0];
  CHECK(closedMeshProblem(solid.vertices, solid.triangles, solid.triangleLines) == "");
  CHECK(double(solidMassProperties(solid.vertices, solid.triangles, 1).volume) == within(1.0 / 6, 1e-6));
  // A triangle naming one corner twice is no triangle: the error gives its face's line.
  const ObjModel repeated = parseObjModel(
      "o solid\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 1 1 2\n", "twice.obj");
  const ObjObject& twice = repeated.objects[0];
  const std::string problem = closedMeshProblem(twice.vertices, twice.triangles, twice.triangleLines);
  CAPTURE(problem);
  CHECK(problem.find("a corner twice") != std::string::npos);
  CHECK(problem.find("the face at line 10") != std::string::npos);
}
