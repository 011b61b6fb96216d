#pragma once
// Everything a game needs to drive raycar vehicles, the loader (OBJ models and vehicle scripts)
// included.

#include "raycar/Aero.h"
#include "raycar/ChaseCamera.h"
#include "raycar/DriverInput.h"
#include "raycar/Error.h"
#include "raycar/FrictionCurve.h"
#include "raycar/ObjModel.h"
#include "raycar/Powertrain.h"
#include "raycar/RaycastVehicle.h"
#include "raycar/SettingsFields.h"
#include "raycar/SingleTrack.h"
#include "raycar/StaticLoads.h"
#include "raycar/Suspension.h"
#include "raycar/Tire.h"
#include "raycar/VehicleGroup.h"
#include "raycar/VehicleLoader.h"
#include "raycar/VehicleScript.h"
#include "raycar/VehicleSettings.h"
#include "raycar/Wheel.h"
