#include "raycar/io/ObjModel.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>

#include "io/PolygonTriangulation.h"
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
  std::vector<int> faceLines;    // line of each `f` statement, in the file's order
  std::vector<Declared> objects;  // in order
  // The text as tinyobjloader is given it: line for line the file's, with a comment after an
  // element (`f 1 2 3  # rear`) cut off, which tinyobjloader would read as a vertex number.
  std::string parsedText;
};

// The statements of Wavefront's OBJ format. tinyobjloader skips any other line without a word,
// so a mistyped `v` would drop a vertex and move every later face onto the wrong corners.
bool isObjStatement(const std::string& keyword) {
  static const char* const kStatements[] = {
      "v", "vt", "vn", "vp", "f", "l", "p", "o", "g", "s", "mg", "usemtl", "mtllib", "usemap",
      "maplib", "cstype", "deg", "bmat", "step", "curv", "curv2", "surf", "parm", "trim", "hole",
      "scrv", "sp", "end", "con", "bevel", "c_interp", "d_interp", "lod", "shadow_obj",
      "trace_obj", "ctech", "stech", "call", "csh",
      "t", "vw"};  // the last two: tinyobjloader's crease tags and skin weights
  for (const char* statement : kStatements)
    if (keyword == statement) return true;
  return false;
}

// A line's words, apart where tinyobjloader parts them (spaces and tabs only), up to a comment
// (`#` to the line's end; exporters write them after elements too).
std::vector<std::string> words(const std::string& content) {
  std::vector<std::string> result;
  size_t begin = content.find_first_not_of(" \t");
  while (begin != std::string::npos && content[begin] != '#') {
    const size_t end = std::min(content.find_first_of(" \t", begin), content.size());
    result.push_back(content.substr(begin, end - begin));
    begin = content.find_first_not_of(" \t", end);
  }
  return result;
}

// The file's lines as tinyobjloader splits them: at "\n", "\r\n" or a lone "\r".
std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = std::min(text.find_first_of("\r\n", begin), text.size());
    lines.push_back(text.substr(begin, end - begin));
    begin = end + (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n' ? 2 : 1);
  }
  return lines;
}

// A coordinate as tinyobjloader reads one: [sign] digits [. digits] [e [sign] digits], read
// whatever the program's locale. Anything else it would read as 0 or stop early in.
enum class Coordinate { Number, NotANumber, NotFinite };
Coordinate readCoordinate(const std::string& text) {
  const size_t sign = text[0] == '+' || text[0] == '-' ? 1 : 0;
  size_t at = sign;
  // What is not a decimal number: the words for the non-finite values, or no number at all.
  auto notANumber = [&]() {
    std::string word;
    for (size_t i = sign; i < text.size(); ++i) word += char(std::tolower(static_cast<unsigned char>(text[i])));
    return word == "inf" || word == "infinity" || word == "nan" ? Coordinate::NotFinite : Coordinate::NotANumber;
  };
  auto digits = [&]() {
    const size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
    return at - start;
  };
  size_t mantissa = digits();
  if (at < text.size() && text[at] == '.') {
    ++at;
    mantissa += digits();
  }
  if (mantissa == 0) return notANumber();
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (digits() == 0) return notANumber();
  }
  if (at != text.size()) return notANumber();
  double value = 0;
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);  // from_chars takes no '+'
  const std::from_chars_result read = std::from_chars(first, text.data() + text.size(), value);
  if (read.ec == std::errc::result_out_of_range || !std::isfinite(value)) return Coordinate::NotFinite;
  return Coordinate::Number;
}

// tinyobjloader reads what is not a number (or "nan") as 0, and a missing coordinate as 0; the
// coordinates are checked here.
void checkVertexLine(const std::vector<std::string>& fields, int line, size_t index, const std::string& path) {
  const ErrorLocation where{path, line, "vertex " + std::to_string(index + 1)};
  if (fields.size() < 4)
    throw Error(where, "a vertex needs three coordinates (v x y z); this line has " +
                           std::to_string(fields.size() - 1));
  for (size_t axis = 1; axis <= 3; ++axis) {
    switch (readCoordinate(fields[axis])) {
      case Coordinate::Number: break;
      case Coordinate::NotANumber:
        throw Error(where, "vertex coordinate '" + fields[axis] + "' is not a number (digits, a point, an exponent)");
      case Coordinate::NotFinite: throw Error(where, "vertex coordinate is not a finite number");
    }
  }
}

// A normal (vn x y z) or texture coordinate (vt u [v [w]]) line. raycar reads neither, but a
// line cut short or garbled there is a file cut short or garbled: an exporter that crashed, a
// copy that stopped. Named with the object it belongs to, as the elements are.
void checkAttributeLine(const std::vector<std::string>& fields, const ErrorLocation& where) {
  const bool normal = fields[0] == "vn";
  const size_t fewest = normal ? 3 : 1, most = 3;
  const size_t count = fields.size() - 1;
  const char* form = normal ? "a normal needs three numbers (vn x y z)"
                            : "a texture coordinate needs one to three numbers (vt u v w)";
  if (count < fewest || count > most)
    throw Error(where, std::string(form) + "; this line has " + std::to_string(count));
  for (size_t i = 1; i <= count; ++i)
    if (readCoordinate(fields[i]) != Coordinate::Number)
      throw Error(where, "'" + fields[0] + "' number '" + fields[i] +
                             "' is not a finite number (digits, a point, an exponent)");
}

// One of an element's vertex references: v, v/vt, v//vn or v/vt/vn, each a nonzero integer
// (negative counts back from the last vertex so far). False when it is none of those forms.
bool readVertexReference(const std::string& reference, long& vertex) {
  std::vector<std::string> numbers(1);
  for (char c : reference) {
    if (c == '/') numbers.emplace_back();
    else numbers.back() += c;
  }
  if (numbers.size() > 3) return false;
  for (size_t part = 0; part < numbers.size(); ++part) {
    // Only the texture number of v//vn may be left out; a trailing slash is no form.
    if (numbers[part].empty() && part == 1 && numbers.size() == 3) continue;
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(numbers[part].c_str(), &end, 10);
    if (numbers[part].empty() || *end != '\0' || value == 0 || errno == ERANGE) return false;
    if (part == 0) vertex = value;  // texture and normal numbers are not read
  }
  return true;
}

// An element's (`f`, `l`, `p`) vertex references. Returns the largest vertex number it names,
// which the caller checks against the file's count once every `v` line is read.
long checkElementLine(const std::vector<std::string>& fields, size_t minimumVertices,
                      size_t verticesSoFar, const ErrorLocation& where) {
  const std::string& kind = fields[0];
  if (fields.size() - 1 < minimumVertices)
    throw Error(where, "'" + kind + "' needs at least " + std::to_string(minimumVertices) +
                           (minimumVertices == 1 ? " vertex" : " vertices") + "; this line has " +
                           std::to_string(fields.size() - 1));
  long largest = 0;
  for (size_t i = 1; i < fields.size(); ++i) {
    long value = 0;
    if (!readVertexReference(fields[i], value))
      throw Error(where, "'" + fields[i] + "' is not a vertex reference (v, v/vt, v//vn or v/vt/vn: "
                                          "numbers from 1, or negative back from the last vertex)");
    const long vertex = value > 0 ? value : long(verticesSoFar) + value + 1;
    if (vertex < 1)
      throw Error(where, "refers to vertex " + std::to_string(value) + ", before the first (" +
                             std::to_string(verticesSoFar) + " vertices so far)");
    largest = std::max(largest, vertex);
  }
  return largest;
}

LineIndex indexLines(const std::string& text, const std::string& path) {
  LineIndex index;
  int number = 0;
  struct Reference {
    int line;
    std::string object;
    long vertex;
  };
  std::vector<Reference> largestReferences;  // per element line, checked once the count is known
  index.parsedText.reserve(text.size());
  for (std::string& line : splitLines(text)) {
    ++number;
    // A UTF-8 byte order mark (some Windows tools write one) is no part of the first statement.
    if (number == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    const std::string content = trim(line);
    // A line of whitespace alone, of kinds tinyobjloader does not part words at (a form feed), is
    // as blank to it as to the checks here.
    if (std::all_of(content.begin(), content.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
      index.parsedText += '\n';
      continue;
    }
    const std::vector<std::string> fields = words(content);
    const bool element = !fields.empty() && (fields[0] == "f" || fields[0] == "l" || fields[0] == "p");
    index.parsedText += element ? line.substr(0, line.find('#')) : line;
    index.parsedText += '\n';
    if (fields.empty()) continue;  // a comment
    const std::string& keyword = fields[0];
    const std::string object = index.objects.empty() ? "" : index.objects.back().name;
    if (!isObjStatement(keyword))
      throw Error({path, number, object},
                  "unknown OBJ statement '" + keyword + "' (a vertex is 'v x y z', a face 'f a b c', an object 'o name')");
    if (keyword == "v") {
      checkVertexLine(fields, number, index.vertexLines.size(), path);
      index.vertexLines.push_back(number);
      if (!index.objects.empty()) index.objects.back().endVertex = index.vertexLines.size();
    } else if (keyword == "vn" || keyword == "vt") {
      checkAttributeLine(fields, {path, number, object});
    } else if (keyword == "f" || keyword == "l" || keyword == "p") {
      const size_t minimum = keyword == "f" ? 3 : keyword == "l" ? 2 : 1;
      const long largest = checkElementLine(fields, minimum, index.vertexLines.size(), {path, number, object});
      largestReferences.push_back({number, object, largest});
      if (keyword == "f") index.faceLines.push_back(number);
    } else if ((keyword == "o" || keyword == "g") && fields.size() > 1) {
      const size_t next = index.vertexLines.size();
      index.objects.push_back({trim(content.substr(2)), number, next, next});
    }
  }
  for (const Reference& reference : largestReferences)
    if (size_t(reference.vertex) > index.vertexLines.size())
      throw Error({path, reference.line, reference.object},
                  "refers to vertex " + std::to_string(reference.vertex) + ", but the file has " +
                      std::to_string(index.vertexLines.size()));
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
  config.triangulate = false;  // faces of more than three corners: triangulatePolygon
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromString(lines.parsedText, "", config))
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

  size_t faceCount = 0;  // faces read so far, in the file's order: their lines
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
    size_t firstCorner = 0;
    std::vector<btVector3> corners;
    std::vector<int> cornerVertices;
    std::vector<std::array<int, 3>> faceTriangles;
    for (const unsigned int cornerCount : shape.mesh.num_face_vertices) {
      corners.clear();
      cornerVertices.clear();
      for (size_t c = firstCorner; c < firstCorner + cornerCount && c < indices.size(); ++c) {
        cornerVertices.push_back(vertexOf(indices[c].vertex_index));
        corners.push_back(object.vertices[size_t(cornerVertices.back())]);
      }
      firstCorner += cornerCount;
      faceTriangles.clear();
      triangulatePolygon(corners, faceTriangles);
      const int faceLine = faceCount < lines.faceLines.size() ? lines.faceLines[faceCount] : 0;
      ++faceCount;
      for (const std::array<int, 3>& triangle : faceTriangles) {
        object.triangles.push_back({cornerVertices[size_t(triangle[0])], cornerVertices[size_t(triangle[1])],
                                    cornerVertices[size_t(triangle[2])]});
        object.triangleLines.push_back(faceLine);
      }
    }
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
      model.droppedObjects.push_back({declared.name, declared.line, int(declared.endVertex - declared.firstVertex)});
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
