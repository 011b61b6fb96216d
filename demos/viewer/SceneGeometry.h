#pragma once
// The scene's shapes on the GPU: the ground (the track's OBJ, a large quad for planes and
// inclines, the height field sampled by rays against the static ground) and one model per vehicle
// script (visual hull parts, wheels, suspension parts), shared by every copy of that vehicle.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "GpuMesh.h"
#include "LitMeshShader.h"
#include "SceneRunner.h"

namespace raycar::viewer {

struct GroundPiece {
  GpuMesh mesh;
  Color color;
  float checkerContrast = 0;  // 5 m checker on driving surfaces
};

// A vehicle's outline on the ground plane, in its chassis frame (m).
struct Footprint {
  double length = 4, width = 2;              // along forward, along left
  double centreForward = 0, centreLeft = 0;  // the outline's centre
  double rearAxleForward = -1.4;             // the rear-most wheel's forward coordinate
};

struct VehicleModel {
  std::vector<GpuMesh> parts;        // LoadedVehicle::visualParts, chassis frame
  std::vector<GpuMesh> wheels;       // per wheel, about its centre, chassis axes
  std::vector<GpuMesh> suspensions;  // per part, rest chassis frame
  std::vector<double> wheelRadii;    // m, per wheel (the top-down view's rectangles)
  std::vector<double> wheelWidths;   // m
  Footprint footprint;
};

Footprint footprintOf(const LoadedVehicle& vehicle);

class SceneGeometry {
 public:
  // Builds the ground from the runner's scene (needs a current GL context).
  explicit SceneGeometry(sim::SceneRunner& runner);
  const std::vector<GroundPiece>& ground() const { return ground_; }
  // The model of a vehicle, built on first use; keyed by its script.
  const VehicleModel& model(const LoadedVehicle& vehicle);
  // Forgets a script's model (after the script was reloaded from disk).
  void forget(const std::string& scriptPath) { models_.erase(scriptPath); }

 private:
  void buildGround(sim::SceneRunner& runner);
  std::vector<GroundPiece> ground_;
  std::map<std::string, std::unique_ptr<VehicleModel>> models_;
};

}  // namespace raycar::viewer
