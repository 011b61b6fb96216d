#pragma once
// Everything a game uses to drive raycar vehicles, the loader (OBJ models and vehicle scripts)
// included, layer by layer as the folders are.

#include "raycar/Error.h"
// tire/: how much force a tire gives
#include "raycar/tire/ContactFriction.h"
#include "raycar/tire/SurfaceTable.h"
#include "raycar/tire/TireTemperature.h"
#include "raycar/vehicle/StabilityControl.h"
#include "raycar/tire/FrictionCurve.h"
#include "raycar/tire/Tire.h"
// vehicle/: the vehicle, its settings and the laws of its parts
#include "raycar/vehicle/Aero.h"
#include "raycar/vehicle/Brakes.h"
#include "raycar/vehicle/Differential.h"
#include "raycar/vehicle/DriverInput.h"
#include "raycar/vehicle/Engine.h"
#include "raycar/vehicle/Gearbox.h"
#include "raycar/vehicle/Powertrain.h"
#include "raycar/vehicle/RaycastVehicle.h"
#include "raycar/vehicle/SettingsFields.h"
#include "raycar/vehicle/StaticLoads.h"
#include "raycar/vehicle/Steering.h"
#include "raycar/vehicle/Suspension.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "raycar/vehicle/Wheel.h"
// parallel/: many vehicles on several threads
#include "raycar/parallel/VehicleGroup.h"
// io/: OBJ models, vehicle scripts, the loader, script keys set from outside, a body's state
#include "raycar/io/KeyOverride.h"
#include "raycar/io/MassProperties.h"
#include "raycar/io/ObjModel.h"
#include "raycar/io/RigidBodyState.h"
#include "raycar/io/VehicleLoader.h"
#include "raycar/io/VehicleScript.h"
// extras/: the chase camera, seed 002's fixed-step clock and interpolation, the kinematic
// bicycle, the single-track model
#include "raycar/extras/ChaseCamera.h"
#include "raycar/extras/FixedStepClock.h"
#include "raycar/extras/KinematicBicycle.h"
#include "raycar/extras/SingleTrack.h"
