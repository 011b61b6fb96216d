#include "ShaderProgram.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace raycar::viewer {
namespace {

std::string shaderLog(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::vector<char> log(size_t(std::max(length, 1)), '\0');
  glGetShaderInfoLog(shader, GLsizei(log.size()), nullptr, log.data());
  return log.data();
}

GLuint compile(const std::string& name, GLenum type, const char* source) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint compiled = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &compiled);
  if (compiled != GL_TRUE) {
    const std::string log = shaderLog(shader);
    glDeleteShader(shader);
    throw std::runtime_error("shader '" + name + "' (" +
                             (type == GL_VERTEX_SHADER ? "vertex" : "fragment") +
                             ") does not compile: " + log);
  }
  return shader;
}

}  // namespace

ShaderProgram::ShaderProgram(const char* name, const char* vertexSource, const char* fragmentSource)
    : name_(name) {
  const GLuint vertex = compile(name_, GL_VERTEX_SHADER, vertexSource);
  GLuint fragment = 0;
  try {
    fragment = compile(name_, GL_FRAGMENT_SHADER, fragmentSource);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vertex);
  glAttachShader(program_, fragment);
  glLinkProgram(program_);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint linked = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &linked);
  if (linked != GL_TRUE) {
    GLint length = 0;
    glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(size_t(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program_, GLsizei(log.size()), nullptr, log.data());
    glDeleteProgram(program_);
    throw std::runtime_error("shader program '" + name_ + "' does not link: " + log.data());
  }
}

ShaderProgram::~ShaderProgram() { glDeleteProgram(program_); }

GLint ShaderProgram::uniform(const char* name) const {
  const GLint location = glGetUniformLocation(program_, name);
  if (location < 0) throw std::runtime_error("shader program '" + name_ + "' has no uniform " + name);
  return location;
}

}  // namespace raycar::viewer
