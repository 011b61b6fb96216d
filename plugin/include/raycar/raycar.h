#pragma once
// Everything a game needs to drive raycar vehicles.

#include "raycar/Aero.h"
#include "raycar/Error.h"
#include "raycar/FrictionCurve.h"
#include "raycar/RaycastVehicle.h"
#include "raycar/SingleTrack.h"
#include "raycar/StaticLoads.h"
#include "raycar/Suspension.h"
#include "raycar/Tire.h"
#include "raycar/VehicleGroup.h"
#include "raycar/VehicleSettings.h"
#include "raycar/Wheel.h"
