#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// A Wavefront OBJ file as named objects (seed 001's parts, with OBJ standing in for CGF).
//
// Parsed with tinyobjloader. Every `o` or `g` object keeps its name (trailing spaces trimmed), its
// triangles and its points, with vertices welded per object. Helpers such as `wheel1_upper` are
// objects of any kind - one bare vertex (what Blender writes for a one-vertex mesh), a `p` point,
// an `l` edge, a small marker mesh; their position is the centroid of their vertices. An object
// with no element at all holds the `v` lines written between its `o` statement and the next.

#include <LinearMath/btVector3.h>

#include <array>
#include <string>
#include <vector>

namespace raycar {

struct ObjObject {
  std::string name;
  int line = 0;                              // line of its `o` / `g` statement (0: unnamed)
  std::vector<btVector3> vertices;           // welded: each position once
  std::vector<std::array<int, 3>> triangles;  // indices into vertices; faces of more corners cut
                                             // in their planes (PolygonTriangulation.h)
  std::vector<int> triangleLines;            // the line of each triangle's `f` statement
  std::vector<int> points;                   // indices into vertices, from `p` statements

  bool empty() const { return vertices.empty(); }
  btVector3 centroid() const;                // of the vertices (m)
};

struct ObjModel {
  std::string path;
  std::vector<ObjObject> objects;
  // Names declared with `o` / `g` that hold no vertex of their own, with why: a missing helper's
  // error can say so.
  struct DroppedObject {
    std::string name;
    int line = 0;         // of its `o` / `g` statement (1-based)
    int vertexLines = 0;  // `v` lines before the next statement, every one used by another
                          // object's elements (0: it has none)
  };
  std::vector<DroppedObject> droppedObjects;
  const ObjObject* find(const std::string& name) const;  // exact name, nullptr if absent
};

// Loads and checks the file: it exists and parses, has at least one object, no two objects share
// a name, every line is a statement of the format, every vertex has three finite coordinates,
// every face, edge and point has its corners and refers to vertices the file has. Throws
// raycar::Error naming file, line and object.
ObjModel loadObjModel(const std::string& path);
// The same from text in memory (`path` only names it in errors).
ObjModel parseObjModel(const std::string& text, const std::string& path);

}  // namespace raycar
