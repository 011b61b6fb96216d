#pragma once
// The velocity-level solve of one vehicle's wheel contacts (DESIGN.md steps 6-8).
//
// Per wheel in contact there are four rows, swept Gauss-Seidel style over all wheels:
//   suspension    along the contact normal: lambda = (k x + anti-roll + c dx/dt) dt, >= 0. The
//                 spring term uses the compression after Bullet's integration (semi-implicit,
//                 so the static sag is exactly N / k and an undamped spring keeps its energy);
//                 the damper term uses the compression speed the impulses themselves produce
//                 (implicit), so no damping rate or light ground body can make it overshoot;
//   bump stop     unilateral, along the normal, speculative: the suspension may not close more
//                 than its remaining travel in one step, so a hard landing stops at full
//                 compression instead of overlapping by one step's travel;
//   longitudinal  tire surface slip Vx - R w, coupling chassis, ground body and wheel spin, solved
//                 together with the wheel's brake: the brake either holds the wheel (w = 0, brake
//                 impulse within (T_brake + T_rolling) dt) or turns against it at that limit. The
//                 block solve matters: a wheel is ~50x lighter than its share of the chassis, so
//                 alternating brake and friction rows would move the chassis a few % per sweep;
//   lateral       side slip Vy;
// and per locked or limited-slip differential a row between two wheels' spins.
// The two friction rows follow the tire model's force law through Newton steps on
// lambda = F(u) dt (u: the row's slip velocity), which is implicit in the slip and therefore
// stable at any step, and are clamped so that friction never reverses a slip within one step
// (on the curve's falling branch an explicit step would throw a light wheel's spin past the
// ground speed). The impulses are then projected onto the friction ellipse (or, for a handbraked
// wheel, onto seed 001's independent box). A row whose contact speed and slip speed are both
// below ContactSolverSettings::stickSpeed is static friction instead: target u = 0 up to the
// friction limit, which a slip law cannot give (its force needs slip, so a parked car would
// creep, and with the slip epsilons a launching wheel's slip ratio swings by 100% per step).
//
// Velocities are worked on as copies and include the velocity change the bodies' current forces
// (gravity) will add in the next substep, so that friction cancels the slope's pull before it
// moves the car: a parked car on a slope stays put rather than creeping g sin(theta) dt^2 a step.

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <vector>

#include "raycar/Tire.h"

namespace raycar {

// A rigid body as the solver sees it. A null body is static or kinematic: infinite mass, fixed
// velocity field.
struct SolverBody {
  btRigidBody* body = nullptr;
  btVector3 linearVelocity{0, 0, 0};
  btVector3 angularVelocity{0, 0, 0};
  btVector3 predictedLinearChange{0, 0, 0};   // from the body's forces over the next step
  btVector3 predictedAngularChange{0, 0, 0};
  btScalar inverseMass = 0;
  btMatrix3x3 inverseInertia = btMatrix3x3::getIdentity();
  btVector3 centerOfMass{0, 0, 0};

  void load(btRigidBody* rigidBody, btScalar dt);   // copies velocity and mass properties
  btVector3 velocityAt(const btVector3& arm) const {
    return linearVelocity + angularVelocity.cross(arm);
  }
  void applyImpulse(const btVector3& impulse, const btVector3& arm) {
    linearVelocity += impulse * inverseMass;
    angularVelocity += inverseInertia * arm.cross(impulse);
  }
  // 1 / effective mass of a unit impulse along `direction` at `arm`.
  btScalar inverseEffectiveMass(const btVector3& direction, const btVector3& arm) const {
    const btVector3 angular = arm.cross(direction);
    return inverseMass + angular.dot(inverseInertia * angular);
  }
};

// One wheel's contact, filled by the vehicle before the solve; the impulses are the results.
struct WheelContact {
  bool active = false;             // the wheel touches the ground
  int groundBody = -1;             // index into the ground bodies, -1: static or kinematic
  btVector3 groundVelocity{0, 0, 0};  // contact point velocity of a static/kinematic ground
  btVector3 chassisArm{0, 0, 0};   // contact point - chassis centre of mass (m)
  btVector3 groundArm{0, 0, 0};    // contact point - ground centre of mass (m)
  btVector3 normal{0, 0, 0};       // contact normal, up from the ground
  btVector3 longitudinal{0, 0, 0};  // wheel forward, in the contact plane
  btVector3 lateral{0, 0, 0};      // wheel right, in the contact plane
  btScalar radius = 0;             // m
  btScalar inverseSpinInertia = 0;  // 1 / (kg m^2); 0 while the handbrake locks the wheel
  btScalar angularSpeed = 0;       // rad/s, in and out
  btScalar brakeImpulseLimit = 0;  // N m s: (footbrake + rolling resistance torque) dt
  // Suspension
  btScalar springForce = 0;        // N: k x + anti-roll, from positions alone
  btScalar damping = 0;            // N s/m
  btScalar rayCosine = 1;          // cosine between the ray and the normal (compression speed
                                   // = normal approach speed / rayCosine)
  bool bumpStopActive = false;     // full compression is within reach this step
  btScalar bumpStopGap = 0;        // m along the normal to full compression, < 0 when past it
  // Tire
  const TireModel* tire = nullptr;
  TireContact tireContact;         // normalLoad follows the solved suspension and bump stop
  btScalar coulombScale = 1;       // static and box rows' limits relative to the tire's
                                   // (dyn_friction_ratio, the handbrake's 0.85 and cap)
  bool boxFriction = false;        // handbraked: seed 001's independent directions
  bool staticLongitudinal = false;  // below stickSpeed: the row sticks up to the limit
  bool staticLateral = false;
  // Results (impulses over the step)
  btScalar suspensionImpulse = 0;  // N s along the normal
  btScalar bumpStopImpulse = 0;    // N s along the normal
  btScalar longitudinalImpulse = 0;  // N s on the chassis along `longitudinal`
  btScalar lateralImpulse = 0;     // N s on the chassis along `lateral`
  btScalar brakeImpulse = 0;       // N m s on the wheel
  btScalar forwardSpeed = 0;       // m/s after the solve: contact over ground along `longitudinal`
  btScalar lateralSpeed = 0;       // m/s after the solve, along `lateral`
  btScalar longitudinalLimit = 0;  // N s: friction ellipse semi-axes (or box half-widths)
  btScalar lateralLimit = 0;
  btScalar normalImpulse() const { return suspensionImpulse + bumpStopImpulse; }
};

// A locked or limited-slip differential between two wheels: their spins are driven together up
// to `limit` (N m s over the step; infinite when locked).
struct SpinCoupling {
  int wheelA = 0;
  int wheelB = 0;
  btScalar limit = 0;
  btScalar impulse = 0;  // result: N m s from B to A
};

class ContactSolver {
 public:
  // Reserves room for `wheelCount` wheels, so that solve() never allocates.
  void reserve(size_t wheelCount);

  // Ground bodies the contacts refer to by index (dynamic bodies only).
  std::vector<SolverBody>& groundBodies() { return groundBodies_; }

  // Solves and leaves the new velocities in `chassis` and the ground bodies (predicted changes
  // removed again) and the impulses in `contacts`.
  void solve(SolverBody& chassis, std::vector<WheelContact>& contacts,
             std::vector<SpinCoupling>& couplings, btScalar dt, int iterations,
             btScalar bumpStopErrorReduction);

 private:
  void applyContactImpulse(SolverBody& chassis, WheelContact& contact, const btVector3& impulse);
  btVector3 relativeVelocity(const SolverBody& chassis, const WheelContact& contact) const;
  void solveSuspension(SolverBody& chassis, WheelContact& contact, size_t index, btScalar dt);
  void solveBumpStop(SolverBody& chassis, WheelContact& contact, size_t index, btScalar dt,
                     btScalar errorReduction);
  void setFrictionLimits(WheelContact& contact, btScalar dt);
  void solveAirborneBrake(WheelContact& contact);
  void solveCoupling(SpinCoupling& coupling, std::vector<WheelContact>& contacts);
  // Impulse change of one friction row with slip velocity `slip` and inverse mass.
  btScalar rowStep(const FrictionLaw& law, bool sticks, btScalar impulse, btScalar slip,
                   btScalar inverseMass, btScalar dt) const;
  // The wheel's spin without its brake and friction impulses of this step (drive torque only).
  btScalar freeSpin(const WheelContact& contact) const;
  // New total impulses the rows ask for, before the friction limits.
  btScalar longitudinalCandidate(const SolverBody& chassis, const WheelContact& contact,
                                 size_t index, btScalar dt) const;
  btScalar lateralCandidate(const SolverBody& chassis, const WheelContact& contact, size_t index,
                            btScalar dt) const;
  // Applies the friction limits, settles the wheel's spin against its brake, and applies the
  // change of impulse to the bodies.
  void commit(SolverBody& chassis, WheelContact& contact, btScalar longitudinal, btScalar lateral);

  std::vector<SolverBody> groundBodies_;
  std::vector<btScalar> longitudinalInverseMass_;  // chassis and ground only, not the wheel
  std::vector<btScalar> lateralInverseMass_;
  std::vector<btScalar> normalInverseMass_;
};

}  // namespace raycar
