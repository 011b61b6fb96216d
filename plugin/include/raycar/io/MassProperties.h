#pragma once
#include "raycar/Config.h"  // first: the Bullet precision check
// Mass properties of solid parts from their closed triangle meshes (seed 001: parts with mass
// must be closed surfaces without degenerate triangles).
//
// Volume integrals by signed tetrahedra from the origin to each triangle: a tetrahedron (0, a, b, c)
// has volume det(a, b, c) / 6, centroid (a + b + c) / 4 and second moment
// det / 120 (a a^T + b b^T + c c^T + (a + b + c)(a + b + c)^T). Summed over a closed surface they
// give the solid's volume, centre and second moment C; the inertia tensor about the centre is
// trace(C') I - C' with C' = C - m c c^T. Exact for the polyhedron the mesh describes; the
// density is the part's mass over its volume.

#include <LinearMath/btMatrix3x3.h>

#include <array>
#include <string>
#include <vector>

namespace raycar {

struct MassProperties {
  btScalar mass = 0;                 // kg
  btScalar volume = 0;               // m^3
  btVector3 centerOfMass{0, 0, 0};   // m
  btMatrix3x3 inertia = btMatrix3x3(0, 0, 0, 0, 0, 0, 0, 0, 0);  // kg m^2, about centerOfMass
};

// Why the mesh cannot bound a solid (an open edge, an edge shared by more than two triangles,
// inconsistent winding, a triangle with a corner twice, no volume), or empty when it can. A
// triangle of three distinct corners on one line is no problem: it bounds nothing, adds nothing to
// the volume, and its edges still close the surface (Blender's own triangulation makes them
// where a face has collinear corners). `triangleLines` (optional): the OBJ line of each
// triangle's face, for the message.
std::string closedMeshProblem(const std::vector<btVector3>& vertices,
                              const std::vector<std::array<int, 3>>& triangles,
                              const std::vector<int>& triangleLines = {});

// Uniform solid of `mass` bounded by the mesh (either winding). Expects a closed mesh.
MassProperties solidMassProperties(const std::vector<btVector3>& vertices,
                                   const std::vector<std::array<int, 3>>& triangles, btScalar mass);

// The parts together (parallel axis theorem).
MassProperties combineMassProperties(const std::vector<MassProperties>& parts);

// Principal axes: rotation whose columns are the axes (a right-handed basis), and the moments.
struct PrincipalAxes {
  btMatrix3x3 rotation = btMatrix3x3::getIdentity();
  btVector3 moments{0, 0, 0};  // kg m^2
};
PrincipalAxes principalAxes(const btMatrix3x3& inertia);

}  // namespace raycar
