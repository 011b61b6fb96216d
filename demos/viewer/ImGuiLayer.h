#pragma once
// Dear ImGui on a GLFW window with the OpenGL 3 backend (both in Debian's libimgui.a): set up
// on construction, shut down on destruction (before the GL context goes).

#include "Gl.h"

namespace raycar::viewer {

class ImGuiLayer {
 public:
  explicit ImGuiLayer(GLFWwindow* window);  // throws std::runtime_error if a backend fails
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  void beginFrame() const;
  void endFrame() const;  // renders what the frame's ImGui calls built
  bool wantsKeyboard() const;

 private:
  bool glfwBackend_ = false;
  bool openGlBackend_ = false;
};

}  // namespace raycar::viewer
