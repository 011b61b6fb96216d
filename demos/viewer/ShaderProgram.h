#pragma once
// A linked GLSL program (OpenGL 3.3 core). Compile and link errors throw std::runtime_error with
// the driver's log.

#include <string>

#include "Gl.h"
#include "Matrix4.h"

namespace raycar::viewer {

class ShaderProgram {
 public:
  ShaderProgram(const char* name, const char* vertexSource, const char* fragmentSource);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  void use() const { glUseProgram(program_); }
  GLint uniform(const char* name) const;  // location; throws if the program has no such uniform
  void set(GLint location, float value) const { glUniform1f(location, value); }
  void set(GLint location, float x, float y) const { glUniform2f(location, x, y); }
  void set(GLint location, float x, float y, float z) const { glUniform3f(location, x, y, z); }
  void set(GLint location, float x, float y, float z, float w) const { glUniform4f(location, x, y, z, w); }
  void set(GLint location, const Matrix4& matrix) const {
    glUniformMatrix4fv(location, 1, GL_FALSE, matrix.data());
  }

 private:
  std::string name_;
  GLuint program_ = 0;
};

}  // namespace raycar::viewer
