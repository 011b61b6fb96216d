#include "KeyboardDriver.h"

namespace raycar::viewer {
namespace {
bool down(GLFWwindow* window, int key) { return glfwGetKey(window, key) == GLFW_PRESS; }
}  // namespace

DrivingKeys readDrivingKeys(GLFWwindow* window) {
  DrivingKeys keys;
  keys.forward = down(window, GLFW_KEY_UP) || down(window, GLFW_KEY_W);
  keys.back = down(window, GLFW_KEY_DOWN) || down(window, GLFW_KEY_S);
  keys.left = down(window, GLFW_KEY_LEFT) || down(window, GLFW_KEY_A);
  keys.right = down(window, GLFW_KEY_RIGHT) || down(window, GLFW_KEY_D);
  keys.brake = down(window, GLFW_KEY_B);
  keys.handbrake = down(window, GLFW_KEY_SPACE);
  keys.shiftUp = down(window, GLFW_KEY_E);
  keys.shiftDown = down(window, GLFW_KEY_Q);
  return keys;
}

}  // namespace raycar::viewer
