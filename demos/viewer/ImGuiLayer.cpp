#include "ImGuiLayer.h"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <stdexcept>

namespace raycar::viewer {

ImGuiLayer::ImGuiLayer(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini in the working directory
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4;
  glfwBackend_ = ImGui_ImplGlfw_InitForOpenGL(window, true);
  if (glfwBackend_) openGlBackend_ = ImGui_ImplOpenGL3_Init("#version 330 core");
  if (!glfwBackend_ || !openGlBackend_) {
    if (glfwBackend_) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    throw std::runtime_error(glfwBackend_ ? "Dear ImGui's OpenGL 3 backend failed to start"
                                          : "Dear ImGui's GLFW backend failed to start");
  }
}

ImGuiLayer::~ImGuiLayer() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

void ImGuiLayer::beginFrame() const {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void ImGuiLayer::endFrame() const {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool ImGuiLayer::wantsKeyboard() const { return ImGui::GetIO().WantCaptureKeyboard; }

}  // namespace raycar::viewer
