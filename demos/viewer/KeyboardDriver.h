#pragma once
// Keyboard driving of vehicle 1: arrows or WASD for pedal and steering, B footbrake, space
// handbrake, Q / E shift down / up (manual gearboxes). The pedal follows CryEngine's convention:
// 'back' brakes while rolling forward, then engages reverse.

#include "Gl.h"
#include "raycar/vehicle/DriverInput.h"

namespace raycar::viewer {

struct DrivingKeys {
  bool forward = false, back = false, left = false, right = false;
  bool brake = false, handbrake = false, shiftUp = false, shiftDown = false;
  bool any() const { return forward || back || left || right || brake || handbrake || shiftUp || shiftDown; }
};

DrivingKeys readDrivingKeys(GLFWwindow* window);

inline DriverInput inputFromKeys(const DrivingKeys& keys) {
  DriverInput input;
  input.pedal = btScalar((keys.forward ? 1 : 0) - (keys.back ? 1 : 0));
  input.steer = btScalar((keys.left ? 1 : 0) - (keys.right ? 1 : 0));  // > 0 steers left
  input.brake = keys.brake ? 1 : 0;
  input.handbrake = keys.handbrake;
  input.shiftUp = keys.shiftUp;      // the vehicle shifts on the press, not while held
  input.shiftDown = keys.shiftDown;
  return input;
}

}  // namespace raycar::viewer
