#pragma once
// Everything a game needs to drive raycar vehicles, the loader (OBJ models and vehicle scripts)
// included.

#include "raycar/vehicle/Aero.h"
#include "raycar/extras/ChaseCamera.h"
#include "raycar/vehicle/DriverInput.h"
#include "raycar/Error.h"
#include "raycar/tire/FrictionCurve.h"
#include "raycar/io/ObjModel.h"
#include "raycar/vehicle/Powertrain.h"
#include "raycar/vehicle/RaycastVehicle.h"
#include "raycar/vehicle/SettingsFields.h"
#include "raycar/extras/SingleTrack.h"
#include "raycar/vehicle/StaticLoads.h"
#include "raycar/vehicle/Suspension.h"
#include "raycar/tire/Tire.h"
#include "raycar/parallel/VehicleGroup.h"
#include "raycar/io/VehicleLoader.h"
#include "raycar/io/VehicleScript.h"
#include "raycar/vehicle/VehicleSettings.h"
#include "raycar/vehicle/Wheel.h"
