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
// and per locked or limited-slip differential a row between two wheels' spins. Behind a locked
// clutch the driving wheels' longitudinal rows also take one joint step a sweep, after their pass:
// they share the engine's spin, which rows solved one at a time meet only slowly
// (solveSharedSpin).
// The two friction rows follow the tire model's force law through Newton steps on
// lambda = F(u) dt (u: the row's slip velocity), which is implicit in the slip and therefore
// stable at any step, and are clamped so that friction never reverses a slip within one step
// (on the curve's falling branch an explicit step would throw a light wheel's spin past the
// ground speed). The impulses are then projected onto the friction ellipse (or, for a handbraked
// wheel whose contact barely moves, onto seed 001's independent box; one that slides is a locked
// tire on its laws and the ellipse). A row whose contact speed and slip speed are both
// below ContactSolverSettings::stickSpeed is static friction instead: target u = 0 up to the
// friction limit, which a slip law cannot give (its force needs slip, so a parked car would
// creep, and with the slip epsilons a launching wheel's slip ratio swings by 100% per step).
//
// Each step starts from the previous step's suspension and tire impulses (warm start) and sweeps
// until the impulses are estimated within ContactSolverSettings::tolerance x dt of where more
// sweeps would take them (the last sweep's change and how fast the changes shrink: solve()), at
// most `iterations` times. The rows' Jacobians are computed once per step (ContactRow).
//
// Velocities are worked on as copies and include the velocity change the bodies' current forces
// (gravity) will add in the next substep, so that friction cancels the slope's pull before it
// moves the car: a parked car on a slope stays put rather than creeping g sin(theta) dt^2 a step.

#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <type_traits>
#include <vector>

#include "Inline.h"
#include "raycar/tire/Tire.h"
#include "raycar/vehicle/VehicleSettings.h"

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
  // Bullet's linear factor: the world axes the body moves along (a game that keeps a car in a
  // plane sets one to 0). A factor of 1 multiplies exactly, so a body without factors is solved
  // bit for bit as before they counted; `linearFactored` unless it is (1, 1, 1).
  btVector3 linearFactor{1, 1, 1};
  bool linearFactored = false;
  // World inverse inertia, its rows and columns scaled by Bullet's angular factor (D I^-1 D, D
  // the factor's diagonal): an axis the game locks (setAngularFactor(0, 1, 0): no roll or pitch)
  // neither turns nor passes a turn on, and the rows' joint inverse mass stays symmetric.
  btMatrix3x3 inverseInertia = btMatrix3x3::getIdentity();
  btVector3 centerOfMass{0, 0, 0};

  void load(btRigidBody* rigidBody, btScalar dt);   // copies velocity and mass properties
  btVector3 velocityAt(const btVector3& arm) const {
    return linearVelocity + angularVelocity.cross(arm);
  }
  // The velocity an impulse (N s) along `direction` gives the centre of mass (m/s).
  btVector3 linearResponse(const btVector3& direction, btScalar impulse) const {
    return direction * linearFactor * (impulse * inverseMass);
  }
  // How far an impulse along `b` moves the centre of mass along `a` (m/s per N s); along a unit
  // direction and itself, the inverse mass.
  btScalar linearCoupling(const btVector3& a, const btVector3& b) const {
    return a.dot(b * linearFactor) * inverseMass;
  }
  btScalar inverseMassAlong(const btVector3& unitDirection) const {
    // (Without factors, the inverse mass itself: d.d of a unit direction is 1 only to rounding.)
    return linearFactored ? unitDirection.dot(unitDirection * linearFactor) * inverseMass : inverseMass;
  }
  void applyImpulse(const btVector3& impulse, const btVector3& arm) {
    linearVelocity += impulse * linearFactor * inverseMass;
    angularVelocity += inverseInertia * arm.cross(impulse);
  }
  void applyAngularImpulse(const btVector3& angularImpulse) {  // N m s
    angularVelocity += inverseInertia * angularImpulse;
  }
};

// How the chassis moves beyond what the last solve predicted (ContactSolver::unpredictedMotion);
// zero after a step without a solve.
struct UnpredictedMotion {
  btVector3 linearVelocity{0, 0, 0};   // m/s
  btScalar dt = 0;                     // s: the step it moved over
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
  // m/s added to the lateral slip velocity the tire's laws see: camber thrust as the slip
  // angle's shift S = C_gamma gamma / C_alpha (Wheel::measureContact), so Fy(alpha - S) makes
  // C_gamma gamma rolling straight and stays inside the friction ellipse. 0 without camber.
  btScalar lateralSlipOffset = 0;
  // Slip lag (TireSettings::slipLag): the tire's lateral deflection y (m) follows
  // dy/dt = Vy - |Vx| y / sigma, taken implicitly over the step, and its law reads the slip
  // velocity whose angle is y / sigma: lateralSlipScale x Vy + lateralSlipOffset, with Vy the
  // contact's lateral speed at the step's end. Scale 1 and no deflection without a lag.
  btScalar lateralSlipScale = 1;
  btScalar lateralDeflection = 0;  // state: m
  btScalar radius = 0;             // m
  btScalar inverseSpinInertia = 0;  // 1 / (kg m^2); 0 while the handbrake locks the wheel
  btScalar angularSpeed = 0;       // rad/s, in and out
  btScalar brakeImpulseLimit = 0;  // N m s: (footbrake + rolling resistance torque) dt
  // Suspension
  btScalar springForce = 0;        // N: k x + anti-roll, from positions alone
  btScalar damping = 0;            // N s/m
  btScalar springStiffness = 0;    // N/m: k (1 + anti-roll share), for the stiff-spring rule
  btScalar rayCosine = 1;          // cosine between the ray and the normal (compression speed
                                   // = normal approach speed / rayCosine)
  bool bumpStopActive = false;     // full compression is within reach this step
  btScalar bumpStopGap = 0;        // m along the normal to full compression, < 0 when past it
  // Tire
  const TireModel* tire = nullptr;
  TireContact tireContact;         // normalLoad follows the solved suspension and bump stop
  btScalar coulombScale = 1;       // static and box rows' limits relative to the tire's
                                   // (the handbrake's 0.85 and cap)
  bool boxFriction = false;        // handbraked and barely moving: seed 001's independent directions
  bool staticLongitudinal = false;  // below stickSpeed: the row sticks up to the limit
  bool staticLateral = false;
  // A sticking row is the tire's carcass as a spring-damper anchored on the ground (stiffness
  // N/m, 0: a rigid row), its anchor `stickDisplacement` (m of slip since the row began to stick)
  // kept from step to step. Rigid rows leave a statically indeterminate hold to the sweep order
  // (one wheel of a parked truck pulled against the others); springs share it as stiffness does.
  btScalar longitudinalStickStiffness = 0;
  btScalar lateralStickStiffness = 0;
  btScalar longitudinalStickDisplacement = 0;  // state: m
  btScalar lateralStickDisplacement = 0;       // state: m
  bool longitudinalStuck = false;  // result: the row stuck this step
  bool lateralStuck = false;
  bool warmStart = false;          // active in the previous step: start from its impulses
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
  btScalar inverseLongitudinalLimit = 0;  // 1 / the limits (0 for a zero limit)
  btScalar inverseLateralLimit = 0;
  btScalar normalImpulse() const { return suspensionImpulse + bumpStopImpulse; }
};

// A locked, limited-slip or Torsen differential between two wheels: their spins are driven
// together up to `limit` (N m s over the step, on each wheel: the two wheels' torques then differ
// by up to twice it; infinite when locked).
struct SpinCoupling {
  int wheelA = 0;
  int wheelB = 0;
  btScalar limit = 0;
  btScalar impulse = 0;  // N m s from B to A: the result, and the next step's start (state)
  btScalar sweepStartImpulse = 0;  // N m s: `impulse` as the solve's current sweep began (scratch)
};

// The driving wheels' spins tied through a locked clutch to the engine's inertia: the engine
// turns at the shares' weighted mean of their spins (its differential's carriers), so it adds
// `inertia` (I_engine ratio^2, kg m^2 at the wheels) to that mean's motion only, not to the
// differences between the wheels (an open or limited-slip axle's spread keeps the wheels' own
// inertia). The wheels' joint inverse inertia is diag(w) - J c c^T / K with c_i = s_i w_i,
// K = 1 + J sum s_i c_i (w_i: a wheel's own inverse spin inertia, s_i its share, J `inertia`):
// an impulse P on wheel i turns it by P (w_i - J c_i^2 / K) and every other driving wheel j by
// -P J c_i c_j / K. Empty (no wheels) while the clutch slips or is open.
class EngineSpinCoupling {
 public:
  // Capacity for `wheelCount` driving wheels, so that set() never allocates.
  void reserve(size_t wheelCount);
  void clear() { wheels_.clear(); }
  // inverseInertias: each driving wheel's own (0 while locked by the handbrake).
  void set(btScalar inertia, const std::vector<int>& wheels, const std::vector<btScalar>& shares,
           const std::vector<btScalar>& inverseInertias);
  bool active() const { return !wheels_.empty(); }
  const std::vector<int>& wheels() const { return wheels_; }  // the driving wheels, by index
  // The inverse inertia wheel `wheel` answers an impulse on itself with (its own w without a
  // coupling, or when it is not a driving wheel).
  btScalar selfInverseInertia(int wheel, btScalar ownInverseInertia) const;
  // The turn of wheel `b` per unit impulse on wheel `a` (0 unless both are coupled driving
  // wheels): -J c_a c_b / K.
  btScalar crossInverseInertia(int a, int b) const;
  // Spin changes (rad/s, added to `spinChanges`, indexed by wheel) from torque impulses
  // `impulses` (N m s, indexed by wheel) on the driving wheels, the engine's share only (each
  // wheel's own w_i impulse_i is the caller's).
  template <class Impulse, class Spin>
  void engineShare(Impulse&& impulseOf, Spin&& spinOf) const {
    btScalar sum = 0;
    for (size_t j = 0; j < wheels_.size(); ++j) sum += weighted_[j] * impulseOf(wheels_[j]);
    for (size_t j = 0; j < wheels_.size(); ++j) spinOf(wheels_[j]) -= inertiaOverK_ * weighted_[j] * sum;
  }
  // The other driving wheels' turn from an impulse `impulse` (N m s) on wheel `wheel`: adds to
  // spinOf(other) (rad/s).
  template <class Spin>
  void spread(int wheel, btScalar impulse, Spin&& spinOf) const {
    if (wheels_.empty() || impulse == 0) return;
    const int slot = slotOf(wheel);
    if (slot < 0) return;
    const btScalar scaled = -impulse * weighted_[size_t(slot)] * inertiaOverK_;
    for (size_t j = 0; j < wheels_.size(); ++j)
      if (int(j) != slot) spinOf(wheels_[j]) += scaled * weighted_[j];
  }

 private:
  int slotOf(int wheel) const;
  std::vector<int> wheels_;
  std::vector<btScalar> weighted_;  // c_i = s_i w_i
  btScalar inertiaOverK_ = 0;       // J / K
};

// The wheels' contacts wherever the vehicle keeps them: `count` of them, `stride` bytes apart
// (each lives inside its wheel's runtime object, so the solver reads the same memory the wheel's
// other stages wrote, and no contact is copied in or out).
class WheelContacts {
 public:
  WheelContacts(WheelContact* first, size_t count, size_t stride)
      : first_(reinterpret_cast<char*>(first)), count_(count), stride_(stride) {}
  // The contacts that are member `contact` of each element of `owners` (an array: size(),
  // operator[], elements sizeof(Owner) apart).
  template <class Owners, class Owner>
  static WheelContacts of(Owners& owners, WheelContact Owner::*contact) {
    static_assert(std::is_same_v<std::remove_reference_t<decltype(owners[0])>, Owner>,
                  "the stride is sizeof(Owner): the array must hold Owner objects");
    return owners.empty() ? WheelContacts(nullptr, 0, sizeof(Owner))
                          : WheelContacts(&(owners[0].*contact), owners.size(), sizeof(Owner));
  }
  size_t size() const { return count_; }
  WheelContact& operator[](size_t i) const {
    return *reinterpret_cast<WheelContact*>(first_ + i * stride_);
  }

 private:
  char* first_;
  size_t count_;
  size_t stride_;  // bytes
};

// One direction of a wheel's contact (normal, longitudinal or lateral) as the solve sees it,
// computed once per step: the velocity along it is two dot products per body, and an impulse
// along it moves each body by a precomputed amount.
struct ContactRow {
  btVector3 direction{0, 0, 0};       // world, unit; the chassis is pushed along +direction
  btVector3 chassisAngular{0, 0, 0};  // chassis arm x direction
  btVector3 chassisTurn{0, 0, 0};     // chassis inverse inertia x chassisAngular
  btVector3 groundAngular{0, 0, 0};   // ground arm x direction (dynamic ground only)
  btVector3 groundTurn{0, 0, 0};      // ground inverse inertia x groundAngular
  btScalar groundSpeed = 0;           // static or kinematic ground's velocity along direction
  btScalar inverseMass = 0;           // 1 / effective mass, chassis and ground (not the wheel)
  // A sticking friction row's spring (WheelContact's stick stiffness), as a soft constraint:
  // slip + softness x impulse + bias = 0 after the row's step.
  btScalar softness = 0;  // m/s per N s
  btScalar bias = 0;      // m/s
};

class ContactSolver {
 public:
  template <class Archive>
  void transferState(Archive& archive) {  // StateArchive.h: the warm start's step, the velocity
    archive.scalar(previousDt_);          // the last solve expects next
    archive.flag(expectsVelocity_);
    archive.vector(expectedLinearVelocity_);
  }

  // The stick anchors and what moves the chassis between two solves. A sticking row's anchor
  // follows the slip the solve predicts (its end speeds over the step). Forces that act between
  // one solve and the next - Bullet's own contacts when another car pushes this one, an impulse
  // from the game - move the chassis where the solve cannot see: an anchor that followed only
  // the prediction never felt that motion, and a parked car pushed with a third of its grip
  // crept away at 25 mm/s for as long as the push lasted. So each step measures how the
  // chassis' velocity differs from what the last solve left plus its predicted forces, and
  // moves the anchors by that translation. Its rotation is not followed: following it too moved
  // a landing car's anchors by the swing Bullet's own contact with its chassis box gave it, and
  // pressed a 20 kg box under a wheel 4.9 mm into the ground against test_robustness's 2 mm; a
  // push away from the centre of mass is therefore followed only in part.
  UnpredictedMotion unpredictedMotion(const btRigidBody& chassis, btScalar dt) const;
  static void followUnpredictedMotion(WheelContact& contact, const UnpredictedMotion& motion,
                                      btScalar stickSpeed);
  // A step that did not solve (skipped, asleep) leaves no expectation for the next.
  void forgetExpectedVelocity() { expectsVelocity_ = false; }
  // Whether the last step solved this body (no reset, restore of an unsolved state, or skip since).
  bool expectsVelocity() const { return expectsVelocity_; }

  // The last solve's sweeps, residual and estimated error.
  const SolveReport& report() const { return report_; }

  // Starts a step of a vehicle with `wheelCount` wheels: takes the calling thread's scratch
  // (below), with room for that many wheels, and empties its ground bodies. The scratch grows
  // only the first time a thread steps a vehicle with more wheels than any before it; after that
  // a step never allocates.
  void beginStep(size_t wheelCount);
  // Ground bodies the contacts refer to by index (dynamic bodies only), this step.
  std::vector<SolverBody>& groundBodies() { return scratch_->groundBodies; }

  // Solves and leaves the new velocities in `chassis` and the ground bodies (predicted changes
  // removed again) and the impulses in `contacts`. At most `settings.iterations` sweeps; fewer
  // once the impulses are estimated within `settings.tolerance` (N) x dt of converged.
  // `engine`: the driving wheels' joint spin through a locked clutch (inactive: none); the
  // contacts' inverseSpinInertia already answer an impulse on their own wheel with it. dt > 0 (s).
  void solve(SolverBody& chassis, const WheelContacts& contacts,
             std::vector<SpinCoupling>& couplings, const EngineSpinCoupling& engine, btScalar dt,
             const ContactSolverSettings& settings);

 private:
  struct ContactRows {
    ContactRow normal, longitudinal, lateral;
  };
  // The helpers marked inline are defined in ContactSolver.cpp, the only place they are called:
  // each runs a dozen times per wheel and step, and as calls they had cost a tenth of the step.
  inline void buildRow(const SolverBody& chassis, const WheelContact& contact, const btVector3& direction,
                       ContactRow& row) const;
  // Velocity of the chassis' contact point over the ground along the row's direction (m/s).
  btScalar rowSpeed(const SolverBody& chassis, const WheelContact& contact,
                    const ContactRow& row) const {
    btScalar speed = chassis.linearVelocity.dot(row.direction) +
                     chassis.angularVelocity.dot(row.chassisAngular);
    if (contact.groundBody < 0) return speed - row.groundSpeed;
    const SolverBody& ground = scratch_->groundBodies[contact.groundBody];
    return speed - ground.linearVelocity.dot(row.direction) -
           ground.angularVelocity.dot(row.groundAngular);
  }
  // How far an impulse on `other` moves `row`'s speed through the chassis (m/s per N s): the
  // off-diagonal of the rows' joint inverse mass, as every joint step builds it.
  static btScalar chassisCoupling(const SolverBody& chassis, const ContactRow& row, const ContactRow& other) {
    return chassis.linearCoupling(row.direction, other.direction) + row.chassisAngular.dot(other.chassisTurn);
  }
  // An impulse (N s) along the row on the chassis, and its opposite on a dynamic ground body.
  RAYCAR_ALWAYS_INLINE void applyRow(SolverBody& chassis, const WheelContact& contact, const ContactRow& row,
                btScalar impulse) {
    chassis.linearVelocity += chassis.linearResponse(row.direction, impulse);
    chassis.angularVelocity += row.chassisTurn * impulse;
    if (contact.groundBody < 0) return;
    SolverBody& ground = scratch_->groundBodies[contact.groundBody];
    ground.linearVelocity -= ground.linearResponse(row.direction, impulse);
    ground.angularVelocity -= row.groundTurn * impulse;
  }
  RAYCAR_ALWAYS_INLINE void solveSuspension(SolverBody& chassis, WheelContact& contact, const ContactRows& rows,
                              btScalar dt);
  void solveBumpStop(SolverBody& chassis, WheelContact& contact, const ContactRows& rows,
                     btScalar dt, const ContactSolverSettings& settings);
  inline void setFrictionLimits(WheelContact& contact, btScalar dt);
  static inline void setInverseLimits(WheelContact& contact);
  // Whether the contact's friction pair is on its ellipse (within 0.1%): its tire cannot answer a
  // further push along the ground.
  static inline bool onFrictionEllipse(const WheelContact& contact);
  void solveAirborneBrake(WheelContact& contact);
  void solveCoupling(SpinCoupling& coupling, const WheelContacts& contacts);
  // A locked axle's two wheels as one spin: the spin and the two longitudinal impulses where
  // their tires' laws and the pair's spin balance agree, by Newton's method; false (nothing
  // moved) where the pair is not a free-turning rigid pair (a brake that may hold it, a sticking
  // law, the engine's coupling, a dynamic ground, a wheel in the air), or where Newton's method
  // does not reach the root (both tires past their curves' peaks). `largest`: raised to the
  // largest impulse change, N s.
  bool solveLockedAxle(SolverBody& chassis, const WheelContacts& contacts, SpinCoupling& coupling,
                       btScalar dt, btScalar& largest);
  // A locked axle's row, as the impulse that leaves its two wheels one spin.
  void equalizeLockedSpins(SpinCoupling& coupling, const WheelContacts& contacts);
  // Sets a differential's row to `impulse` (N m s), turning its wheels (and through the engine the
  // other driving wheels) by the change.
  void applyCouplingImpulse(SpinCoupling& coupling, const WheelContacts& contacts, btScalar impulse);
  // Passes a change of wheel `wheel`'s spin (rad/s, already applied) on to the other driving
  // wheels through the engine's coupling.
  inline void spreadSpinChange(const WheelContacts& contacts, int wheel, btScalar spinChange) const;
  // Impulse change of one friction row with slip velocity `slip` and inverse mass.
  inline btScalar rowStep(const FrictionLaw& law, bool sticks, btScalar impulse, btScalar slip,
                          btScalar inverseMass, btScalar softness, btScalar bias, btScalar dt) const;
  // The stick springs of a contact's friction rows for this step, and their anchors after it.
  static void setStickSpring(ContactRow& row, const WheelContact& contact, btScalar stiffness,
                             btScalar displacement, btScalar dt);
  static void updateStickDisplacements(WheelContact& contact, btScalar dt);

  // False only when holding the wheel still cannot be within the brake's limit, whatever the
  // tire gives (spinImpulse: the free spin over the inverse spin inertia, N m s).
  static inline bool brakeCouldHold(btScalar impulse, btScalar slip, btScalar spinImpulse,
                                    btScalar brakeLimit, btScalar radius);
  // The wheel's spin without its brake and friction impulses of this step (drive torque only).
  inline btScalar freeSpin(const WheelContact& contact) const;
  // A contact's impulses as a sweep began (N s), and how far the whole sweep moved them:
  // where the stop test takes the sweeps' change from (solve()).
  struct SweepStart {
    btScalar suspension;
    btScalar bumpStop;
    btScalar longitudinal;
    btScalar lateral;
  };
  inline void recordSweepStart(const WheelContacts& contacts, std::vector<SpinCoupling>& couplings);
  // N s: the largest change of any contact's or coupling's impulse since recordSweepStart.
  inline btScalar sweepChange(const WheelContacts& contacts,
                              const std::vector<SpinCoupling>& couplings) const;
  // A friction row's tire law, evaluated at `slip` when the row's contact speed was `speed`.
  struct RowTrial {
    FrictionLaw law;
    btScalar slip = 0;         // m/s, as the tire's law reads it (lateral: lagged and shifted)
    btScalar speed = 0;        // m/s
    btScalar slipPerSpeed = 1; // d slip / d speed (lateral with a slip lag: WheelContact)
    btScalar inverseMass = 0;  // of the row as solved (with the wheel's spin when it turns)
    btScalar softness = 0;     // the row's stick spring (ContactRow)
    btScalar bias = 0;
    bool sticks = false;
    bool wheelTurns = false;   // longitudinal: the brake cannot hold the wheel, the row turns it
    btScalar spin = 0;         // rad/s: a turning wheel's spin when the trial was made
                               // (solveLongitudinal follows its change since)
  };
  RowTrial longitudinalTrial(const SolverBody& chassis, const WheelContact& contact,
                             const ContactRows& rows, btScalar dt) const;
  RowTrial lateralTrial(const SolverBody& chassis, const WheelContact& contact,
                        const ContactRows& rows) const;
  // The new total impulse a row asks for (before the friction limits) at contact speed `speed`.
  inline btScalar candidate(const RowTrial& trial, btScalar impulse, btScalar speed, btScalar dt) const;
  // How far a wheel's spin moves per unit of torque impulse (rad/s per N m s) once its tire
  // has answered the impulse (solveCoupling), from the longitudinal row's trial of this sweep.
  inline btScalar coupledSpinResponse(const WheelContact& contact, const ContactRows& rows,
                                      const RowTrial& trial, btScalar dt) const;
  // Solves wheel `wheel`'s longitudinal row with `trial`: its impulse, brake and spin, and the
  // spin's share through the engine. Returns the impulse before (N s).
  inline btScalar solveLongitudinal(SolverBody& chassis, const WheelContacts& contacts, size_t wheel,
                                    const RowTrial& trial, btScalar dt);
  // One Newton step of the driving wheels' longitudinal rows together, on their laws linearised
  // where the pass left them, through the spin they share behind a locked clutch (the engine's
  // coupling); returns the largest move of an impulse (N s).
  btScalar solveSharedSpin(SolverBody& chassis, const WheelContacts& contacts, btScalar dt);
  // The two driving wheels' counter-rotation through an open differential (no coupling row joins
  // them), where a law is past its peak and the joint step leaves it out; N s, the larger move.
  btScalar solveCounterRotation(SolverBody& chassis, const WheelContacts& contacts,
                                const std::vector<SpinCoupling>& couplings, btScalar dt);
  // One Newton step of every free lateral row together (solveLateralTogether's comment says why);
  // returns the largest move of an impulse (N s).
  btScalar solveLateralTogether(SolverBody& chassis, const WheelContacts& contacts, btScalar dt);
  static constexpr int kMaxJointRows = 8;  // the rows a joint Newton step takes at most
  // Commits a joint step: wheel wheels[a]'s `impulse` (its longitudinal or lateral one) moved by
  // steps[a] (N s), through the friction ellipse. Returns the largest move of `impulse` (N s).
  btScalar commitJointStep(SolverBody& chassis, const WheelContacts& contacts, const int* wheels,
                           const btScalar* steps, int n, btScalar WheelContact::*impulse);
  // A joint Newton step: S d = h for the symmetric positive definite S in `joint` (overwritten by
  // its Cholesky factor) and h in `wanted` (overwritten by d). False, with nothing solved, where S
  // is not positive definite.
  static bool solveJointStep(btScalar (&joint)[kMaxJointRows][kMaxJointRows],
                             btScalar (&wanted)[kMaxJointRows], int n);
  // The pair of friction impulses after the friction ellipse (or the handbrake's box).
  struct FrictionPair {
    btScalar longitudinal;
    btScalar lateral;
  };
  inline FrictionPair frictionLimited(const WheelContact& contact, btScalar longitudinal,
                                      btScalar lateral) const;
  // Applies the friction limits, settles the wheel's spin against its brake, and applies the
  // change of impulse to the bodies.
  void commit(SolverBody& chassis, WheelContact& contact, const ContactRows& rows,
              btScalar longitudinal, btScalar lateral);

  // What a step builds and forgets: the rows, the trials and the ground bodies are rebuilt from
  // the contacts every step, so one set per thread serves every vehicle the thread steps. A
  // thousand cars keep 2 kB less each on the heap, and the thread's set stays in its cache from
  // one car to the next instead of coming from memory for each car.
  struct Scratch {
    std::vector<SolverBody> groundBodies;
    std::vector<ContactRows> rows;   // per contact, this step
    std::vector<RowTrial> trials;    // per contact, this pass
    // per contact, this sweep: coupledSpinResponse(), for the differentials' rows
    std::vector<btScalar> spinResponses;
    // per contact, this step: the locked coupling it shares a spin with (solveLockedAxle), -1 for
    // none, kNotAlone for more than one
    std::vector<int> lockedCoupling;
    // per coupling (at most one per contact), this sweep: solved with its wheels as one spin
    std::vector<char> solvedAsOne;
    std::vector<SweepStart> sweepStart;  // per contact: its impulses as this sweep began
  };
  static Scratch& threadScratch(size_t wheelCount);
  Scratch* scratch_ = nullptr;     // this step's (beginStep)
  btScalar previousDt_ = 0;        // s: the step the warm-start impulses were solved for
  // The chassis' velocity the last solve expects at the next step's start: its end velocity
  // plus the change its forces predict (m/s); false: no solve to compare with.
  bool expectsVelocity_ = false;
  btVector3 expectedLinearVelocity_{0, 0, 0};
  const EngineSpinCoupling* engine_ = nullptr;  // this solve's
  SolveReport report_;
};

}  // namespace raycar
