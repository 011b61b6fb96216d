#include "raycar/extras/SingleTrack.h"

#include <algorithm>
#include <cmath>

#include "raycar/Error.h"
#include "raycar/vehicle/StaticLoads.h"
#include "raycar/tire/Tire.h"

namespace raycar {

btScalar SingleTrackModel::understeerGradient(btScalar speed) const {
  const btScalar factor = speedFactor(speed);
  return mass * (rearArm / (frontStiffness * factor) - frontArm / (rearStiffness * factor)) / wheelbase();
}

btScalar SingleTrackModel::yawRateGain(btScalar speed) const {
  return speed / (wheelbase() + understeerGradient(speed) * speed * speed);
}

btScalar SingleTrackModel::sideslipGain(btScalar speed) const {
  const btScalar rear = rearStiffness * speedFactor(speed);
  return (rearArm - mass * frontArm * speed * speed / (wheelbase() * rear)) /
         (wheelbase() + understeerGradient(speed) * speed * speed);
}

btScalar SingleTrackModel::steerOnCircle(btScalar radius, btScalar lateral) const {
  const btScalar speed = std::sqrt(std::max(btScalar(0), lateral * radius));
  return wheelbase() / radius + understeerGradient(std::max(speed, btScalar(1e-3))) * lateral;
}

btScalar wheelCorneringStiffness(const WheelSettings& wheel, btScalar load, btScalar groundFriction) {
  TireContact contact;
  contact.normalLoad = load;
  // 0 asks for the wheel's static load as the nominal one: the load given here.
  const btScalar referenceLoad = wheel.tire.referenceLoad > 0 ? wheel.tire.referenceLoad : load;
  contact.friction = std::clamp((wheel.tire.friction + groundFriction) / 2, wheel.minFriction, wheel.maxFriction) *
                     loadSensitivityFactor(wheel.tire.loadSensitivity, load, referenceLoad);
  return makeTireModel(wheel.tire)->slipStiffness(contact, false);
}

SingleTrackModel singleTrackModel(const VehicleSettings& settings, btScalar mass, btScalar gravity,
                                  btScalar groundFriction) {
  std::vector<std::string> problems = validateVehicleSettings(settings);
  if (!(mass > 0) || !(gravity > 0)) problems.push_back("single-track model: mass and gravity must be > 0");
  if (!problems.empty()) throw SettingsError(problems);
  // The loads the vehicle itself rests on (WheelState::staticLoad): with every spring rate
  // given, what the springs carry.
  const std::vector<SupportPoint> support = supportPoints(settings);
  const std::vector<btScalar> loads = staticWheelLoads(support, mass * gravity);
  SingleTrackModel model;
  model.mass = mass;
  btScalar frontPosition = 0, rearPosition = 0, epsilon = 0;
  int frontCount = 0, rearCount = 0;
  for (size_t i = 0; i < settings.wheels.size(); ++i) {
    const WheelSettings& wheel = settings.wheels[i];
    const btScalar stiffness = wheelCorneringStiffness(wheel, loads[i], groundFriction);
    epsilon += wheel.tire.slipAngleEpsilon / btScalar(settings.wheels.size());
    if (support[i].forward > 0) {
      model.frontStiffness += stiffness;
      frontPosition += support[i].forward;
      ++frontCount;
    } else {
      model.rearStiffness += stiffness;
      rearPosition += support[i].forward;
      ++rearCount;
    }
  }
  if (frontCount == 0 || rearCount == 0)
    throw SettingsError({"single-track model: needs wheels ahead of and behind the centre of mass"});
  model.frontArm = frontPosition / btScalar(frontCount);
  model.rearArm = -rearPosition / btScalar(rearCount);
  model.slipAngleEpsilon = epsilon;
  return model;
}

}  // namespace raycar
