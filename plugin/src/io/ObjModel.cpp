#include "raycar/io/ObjModel.h"

#include <tiny_obj_loader.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include "raycar/Error.h"

namespace raycar {
namespace {

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const size_t last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// What tinyobjloader does not keep: the line of every `v` and of every `o`/`g` statement, and
// which vertices were declared under which statement.
struct LineIndex {
  struct Declared {
    std::string name;
    int line = 0;
    size_t firstVertex = 0;  // the `v` lines between this statement and the next
    size_t endVertex = 0;
  };
  std::vector<int> vertexLines;  // line of vertex i (1-based)
  std::vector<Declared> objects;  // in order
};

// tinyobjloader reads what is not a number (or "nan") as 0; the coordinates are checked here.
void checkVertexLine(const std::string& content, int line, size_t index, const std::string& path) {
  const char* cursor = content.c_str() + 1;
  for (int axis = 0; axis < 3; ++axis) {
    char* end = nullptr;
    const double value = std::strtod(cursor, &end);
    if (end == cursor || !std::isfinite(value))
      throw Error({path, line, "vertex " + std::to_string(index + 1)},
                  "vertex coordinate is not a finite number");
    cursor = end;
  }
}

LineIndex indexLines(const std::string& text, const std::string& path) {
  LineIndex index;
  std::istringstream stream(text);
  std::string line;
  int number = 0;
  while (std::getline(stream, line)) {
    ++number;
    const std::string content = trim(line);
    if (content.size() > 2 && content[0] == 'v' && (content[1] == ' ' || content[1] == '\t')) {
      checkVertexLine(content, number, index.vertexLines.size(), path);
      index.vertexLines.push_back(number);
      if (!index.objects.empty()) index.objects.back().endVertex = index.vertexLines.size();
    } else if (content.size() > 2 && (content[0] == 'o' || content[0] == 'g') &&
               (content[1] == ' ' || content[1] == '\t')) {
      const size_t next = index.vertexLines.size();
      index.objects.push_back({trim(content.substr(2)), number, next, next});
    }
  }
  return index;
}

}  // namespace

btVector3 ObjObject::centroid() const {
  btVector3 sum(0, 0, 0);
  for (const btVector3& vertex : vertices) sum += vertex;
  return vertices.empty() ? sum : sum / btScalar(vertices.size());
}

const ObjObject* ObjModel::find(const std::string& name) const {
  for (const ObjObject& object : objects)
    if (object.name == name) return &object;
  return nullptr;
}

ObjModel parseObjModel(const std::string& text, const std::string& path) {
  ObjModel model;
  model.path = path;
  if (trim(text).empty()) throw Error({path, 0, ""}, "the OBJ file is empty");
  const LineIndex lines = indexLines(text, path);

  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromString(text, "", config))
    throw Error({path, 0, ""}, "cannot parse the OBJ file: " + trim(reader.Error()));
  const std::vector<tinyobj::real_t>& positions = reader.GetAttrib().vertices;
  for (size_t i = 0; i * 3 + 2 < positions.size(); ++i) {
    if (!std::isfinite(positions[i * 3]) || !std::isfinite(positions[i * 3 + 1]) ||
        !std::isfinite(positions[i * 3 + 2])) {
      const int line = i < lines.vertexLines.size() ? lines.vertexLines[i] : 0;
      throw Error({path, line, "vertex " + std::to_string(i + 1)}, "vertex coordinate is not a finite number");
    }
  }

  std::map<std::string, int> seen;  // name -> line
  for (const LineIndex::Declared& declared : lines.objects) {
    const std::string& name = declared.name;
    const int line = declared.line;
    if (name.empty()) continue;
    const auto previous = seen.find(name);
    if (previous != seen.end())
      throw Error({path, line, name}, "duplicate object name (first at line " +
                                          std::to_string(previous->second) + ")");
    seen.emplace(name, line);
  }

  for (const tinyobj::shape_t& shape : reader.GetShapes()) {
    ObjObject object;
    object.name = trim(shape.name);
    const auto where = seen.find(object.name);
    object.line = where != seen.end() ? where->second : 0;
    std::map<int, int> welded;  // OBJ vertex index -> object vertex index
    const int vertexCount = int(positions.size() / 3);
    auto vertexOf = [&](int objIndex) {
      if (objIndex < 0 || objIndex >= vertexCount)
        throw Error({path, object.line, object.name},
                    "refers to vertex " + std::to_string(objIndex + 1) + ", but the file has " +
                        std::to_string(vertexCount));
      const auto found = welded.find(objIndex);
      if (found != welded.end()) return found->second;
      const int local = int(object.vertices.size());
      object.vertices.emplace_back(positions[3 * objIndex], positions[3 * objIndex + 1],
                                   positions[3 * objIndex + 2]);
      welded.emplace(objIndex, local);
      return local;
    };
    const std::vector<tinyobj::index_t>& indices = shape.mesh.indices;
    for (size_t i = 0; i + 2 < indices.size(); i += 3)
      object.triangles.push_back({vertexOf(indices[i].vertex_index), vertexOf(indices[i + 1].vertex_index),
                                  vertexOf(indices[i + 2].vertex_index)});
    // Point indices can repeat (after usemtl): one point per vertex.
    std::map<int, bool> pointSeen;
    for (const tinyobj::index_t& point : shape.points.indices) {
      if (pointSeen.emplace(point.vertex_index, true).second)
        object.points.push_back(vertexOf(point.vertex_index));
    }
    // `l` polylines (Blender writes an edge helper so) add their vertices; the object's position
    // is still the centroid of what it holds.
    for (const tinyobj::index_t& lineVertex : shape.lines.indices) vertexOf(lineVertex.vertex_index);
    if (!object.empty()) model.objects.push_back(std::move(object));
  }
  // An `o` object of bare `v` lines (Blender's export of a one-vertex mesh) makes no shape in the
  // reader; it holds the vertices declared under it that no element of any object uses. (Writers
  // that put an object's `v` lines before its `g` line, or a material `g` inside an `o`, leave
  // vertices under a statement that belong to another object's faces: those are not taken.)
  std::vector<bool> used(positions.size() / 3, false);
  auto markUsed = [&used](const std::vector<tinyobj::index_t>& indices) {
    for (const tinyobj::index_t& index : indices)
      if (index.vertex_index >= 0 && size_t(index.vertex_index) < used.size()) used[size_t(index.vertex_index)] = true;
  };
  for (const tinyobj::shape_t& shape : reader.GetShapes()) {
    markUsed(shape.mesh.indices);
    markUsed(shape.lines.indices);
    markUsed(shape.points.indices);
  }
  for (const LineIndex::Declared& declared : lines.objects) {
    if (declared.name.empty() || model.find(declared.name) != nullptr) continue;
    ObjObject object;
    object.name = declared.name;
    object.line = declared.line;
    for (size_t v = declared.firstVertex; v < declared.endVertex && v < used.size(); ++v)
      if (!used[v]) object.vertices.emplace_back(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
    if (object.empty()) {
      model.droppedObjects.emplace_back(declared.name, declared.line);
      continue;
    }
    model.objects.push_back(std::move(object));
  }
  if (model.objects.empty())
    throw Error({path, 0, ""}, "the OBJ file has no objects with vertices");
  return model;
}

ObjModel loadObjModel(const std::string& path) {
  return parseObjModel(readTextFile(path, "OBJ file"), path);
}

}  // namespace raycar
