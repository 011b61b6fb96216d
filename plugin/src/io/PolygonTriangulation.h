#pragma once
// An OBJ face of any number of corners cut into triangles.
//
// Modellers write n-gons: Blender's exporters keep a car body's side, wheel arches cut out of it,
// as one concave face of a dozen corners. A fan from the first corner, or an ear clipper that
// misjudges which corners are convex, lays triangles across the arches (outside the face) and
// leaves holes elsewhere: the part then draws wrong, and a part with mass fails the closed-mesh
// check with an edge or a zero-area triangle the file does not have. So each face is cut in its
// own plane (Newell's normal) by ear clipping, taking only corners that are strictly convex and
// hold no other corner in their ear; corners on a straight run (cross product zero) are never
// clipped as ears, so no zero-area triangle is made where the face has area.

#include <LinearMath/btVector3.h>

#include <array>
#include <vector>

namespace raycar {

// The triangles of the face whose corners are `corners` (positions, in order), as indices into
// `corners`, appended to `triangles`: corners.size() - 2 of them for a simple face, wound as the
// face is. A convex quad is cut along its shorter diagonal (as tinyobjloader has always cut it, so
// that models of triangles and quads load exactly as before); a convex face of more corners as a
// fan from its first corner. A face with no area (all corners on one line), one whose outline
// crosses itself, and one of more than 512 corners are cut as a fan (zero-area or overlapping
// triangles, whose signed areas still add up to the face's).
void triangulatePolygon(const std::vector<btVector3>& corners, std::vector<std::array<int, 3>>& triangles);

}  // namespace raycar
