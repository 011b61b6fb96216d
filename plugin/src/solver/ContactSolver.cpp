#include "solver/ContactSolver.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "RegulaFalsi.h"

namespace raycar {
namespace {
// On the falling branch of a friction curve 1 + K dt w can approach 0 (or go below: the law
// then has more than one root); the Newton step is kept at most this many times the plain
// fixed-point step.
constexpr btScalar kMinimumNewtonDenominator = 0.25;
// Friction limits (N s) and stick stiffnesses (N/m) below these are none: their reciprocals
// would overflow (a subnormal limit's is infinite, and 0 x infinity is NaN).
constexpr btScalar kNegligibleLimit = btScalar(1e-20);
constexpr btScalar kNegligibleStiffness = btScalar(1e-6);
// A tire law's slope times the step (N s per m/s of slip) below this is flat: the joint steps
// and the differential's spin response divide by it, and its reciprocal must stay far inside a
// float. A law read at a subnormal grip has a subnormal stiffness, positive, whose product with
// dt is 0 (a fuzzed state's grip of 7e-41: its step divided by 0 and put NaN into the chassis).
// A tire's is some 10 to 1000 N s per m/s at 1/120 s; at 1e-6 a curve's peak already counted as
// flat and moved two scenes' telemetry, at 1e-20 none.
constexpr btScalar kNegligibleSlope = btScalar(1e-20);
// The counter-rotation's root (solveCounterRotation): evaluations of the two laws at most.
constexpr int kCounterRotationIterations = 16;
// The sweeps' contraction rate, as the ratio of two sweeps' largest single moves of a row, is
// trusted between these (solve(), where the sweeps stop).
constexpr btScalar kFastestTrustedContraction = btScalar(0.05);
constexpr btScalar kSlowestTrustedContraction = btScalar(0.5);
// Moves within this of the last sweep's repeat it: a row moved and moved back the same way in
// every sweep, whose net change is then the sweeps' whole distance from converged (solve()).
constexpr btScalar kRepeatingMoves = btScalar(0.95);
// Sweeps contracting at this ratio or slower take a joint step of the lateral rows (solve()).
// The truck's busy drive at 1/60 s converged in 98.5% of its steps at 0.1 and 0.2, 97.9% at 0.3,
// 96.2% at 0.5 (counted from its spawn); the bench's cars' sweeps contract at 0.07 (the median),
// and rarely pay for it.
constexpr btScalar kSlowContraction = btScalar(0.2);
// A differential's row is solved this many times a sweep, its wheels' longitudinal rows between,
// and it steps with this share of the tires' answer to its turn (coupledSpinResponse). With the
// whole answer a kart's locked axle in a steady turn overshot: its wheels' rows also turn the
// chassis and each other through it, and 83% of the steps at 1/30 s had not settled to 1 mN
// after 100 sweeps. With half of it and four rounds the default sweeps gave that kart 3.37 deg
// of steer at 1/30 s and 3.41 at 1/120 s, against 3.45 deg from solves run to 1 mN (1.79 and
// 2.79 deg before, with the row solved once a sweep on the wheels' own inertia).
constexpr btScalar kCouplingTireAnswer = btScalar(0.5);
constexpr int kCouplingRounds = 4;
// Scratch::lockedCoupling of a wheel in more than one locked coupling.
constexpr int kNotAlone = -2;
// solveLockedAxle: its Newton steps at most, the halvings of one step to lower the residuals, the
// float roundings (in units of epsilon) of a speed or impulse it takes as unknowable, and how far
// above 0 its step's system must stay to be solved (its determinant, whose unloaded value is 1,
// and its answer in the spin, relative to the pair's inertia).
constexpr int kLockedAxleIterations = 8;
constexpr int kLockedAxleHalvings = 6;
constexpr btScalar kRoundingUlps = 4;
constexpr btScalar kPositiveSystem = btScalar(1e-3);
// The residuals solveLockedAxle accepts as solved, in units of their rounding; and how many times
// the pair's brakes' impulse its spin's momentum must exceed for the brakes not to hold it.
constexpr btScalar kSolvedRoundings = 64;
constexpr btScalar kBrakeHoldMargin = 2;
}  // namespace

void SolverBody::load(btRigidBody* rigidBody, btScalar dt) {
  body = rigidBody;
  linearVelocity = rigidBody->getLinearVelocity();
  angularVelocity = rigidBody->getAngularVelocity();
  inverseMass = rigidBody->getInvMass();
  linearFactor = rigidBody->getLinearFactor();
  linearFactored = linearFactor != btVector3(1, 1, 1);
  const btMatrix3x3& worldInverseInertia = rigidBody->getInvInertiaTensorWorld();
  // D I^-1 D. (x 1 is exact: a body without an angular factor keeps its tensor bit for bit.)
  const btVector3& angularFactor = rigidBody->getAngularFactor();
  for (int row = 0; row < 3; ++row)
    inverseInertia[row] = worldInverseInertia[row] * angularFactor * angularFactor[row];
  centerOfMass = rigidBody->getCenterOfMassPosition();
  // Forces stay on a body through all substeps of one stepSimulation (gravity is applied once,
  // before them), so what they will add in the next substep is known now. Bullet scales them by
  // the factors as they are applied, and integrates them so.
  predictedLinearChange = rigidBody->getTotalForce() * (inverseMass * dt);
  predictedAngularChange = worldInverseInertia * rigidBody->getTotalTorque() * dt;
}

void EngineSpinCoupling::reserve(size_t wheelCount) {
  wheels_.reserve(wheelCount);
  weighted_.reserve(wheelCount);
}

void EngineSpinCoupling::set(btScalar inertia, const std::vector<int>& wheels,
                             const std::vector<btScalar>& shares,
                             const std::vector<btScalar>& inverseInertias) {
  wheels_.clear();
  weighted_.clear();
  if (!(inertia > 0) || wheels.empty()) return;
  btScalar k = 1;
  for (size_t i = 0; i < wheels.size(); ++i) {
    wheels_.push_back(wheels[i]);
    weighted_.push_back(shares[i] * inverseInertias[i]);
    k += inertia * shares[i] * weighted_.back();
  }
  inertiaOverK_ = inertia / k;
}

int EngineSpinCoupling::slotOf(int wheel) const {
  for (size_t i = 0; i < wheels_.size(); ++i)
    if (wheels_[i] == wheel) return int(i);
  return -1;
}

btScalar EngineSpinCoupling::selfInverseInertia(int wheel, btScalar ownInverseInertia) const {
  const int slot = slotOf(wheel);
  if (slot < 0) return ownInverseInertia;
  const btScalar c = weighted_[size_t(slot)];
  return ownInverseInertia - inertiaOverK_ * c * c;
}

btScalar EngineSpinCoupling::crossInverseInertia(int a, int b) const {
  const int slotA = slotOf(a), slotB = slotOf(b);
  if (slotA < 0 || slotB < 0 || slotA == slotB) return 0;
  return -inertiaOverK_ * weighted_[size_t(slotA)] * weighted_[size_t(slotB)];
}

inline void ContactSolver::spreadSpinChange(const WheelContacts& contacts, int wheel,
                                            btScalar spinChange) const {
  const WheelContact& contact = contacts[size_t(wheel)];
  if (!engine_->active() || spinChange == 0 || contact.inverseSpinInertia == 0) return;
  engine_->spread(wheel, spinChange / contact.inverseSpinInertia,
                  [&contacts](int other) -> btScalar& { return contacts[size_t(other)].angularSpeed; });
}

ContactSolver::Scratch& ContactSolver::threadScratch(size_t wheelCount) {
  thread_local Scratch scratch;
  if (scratch.rows.size() < wheelCount) {
    scratch.rows.resize(wheelCount);
    scratch.trials.resize(wheelCount);
    scratch.spinResponses.resize(wheelCount);
    scratch.lockedCoupling.resize(wheelCount);
    scratch.solvedAsOne.resize(wheelCount);
    scratch.sweepStart.resize(wheelCount);
  }
  // At most one ground body per wheel: groundBodies() then never grows within a step.
  if (scratch.groundBodies.capacity() < wheelCount) scratch.groundBodies.reserve(wheelCount);
  return scratch;
}

void ContactSolver::beginStep(size_t wheelCount) {
  scratch_ = &threadScratch(wheelCount);
  scratch_->groundBodies.clear();
}

inline void ContactSolver::buildRow(const SolverBody& chassis, const WheelContact& contact,
                                    const btVector3& direction, ContactRow& row) const {
  row.direction = direction;
  row.chassisAngular = contact.chassisArm.cross(direction);
  row.chassisTurn = chassis.inverseInertia * row.chassisAngular;
  row.inverseMass = chassis.inverseMassAlong(direction) + row.chassisAngular.dot(row.chassisTurn);
  if (contact.groundBody < 0) {
    row.groundSpeed = contact.groundVelocity.dot(direction);
    return;
  }
  const SolverBody& ground = scratch_->groundBodies[contact.groundBody];
  row.groundAngular = contact.groundArm.cross(direction);
  row.groundTurn = ground.inverseInertia * row.groundAngular;
  row.inverseMass += ground.inverseMassAlong(direction) + row.groundAngular.dot(row.groundTurn);
}

void ContactSolver::solve(SolverBody& chassis, const WheelContacts& contacts,
                          std::vector<SpinCoupling>& couplings, const EngineSpinCoupling& engine,
                          btScalar dt, const ContactSolverSettings& settings) {
  const size_t count = contacts.size();
  engine_ = &engine;
  // Impulses are forces times the step: when the caller changes the step (a variable clock), last
  // step's impulses are rescaled so that they carry the same forces.
  const btScalar warmStartScale = previousDt_ > 0 ? dt / previousDt_ : btScalar(1);
  previousDt_ = dt;
  for (size_t i = 0; i < count; ++i) {
    WheelContact& contact = contacts[i];
    // A contact that held last step starts from last step's suspension and tire impulses (warm
    // start); the bump stop is speculative and the brake follows the tire, so both start at 0.
    if (contact.active && contact.warmStart) {
      contact.suspensionImpulse *= warmStartScale;
      contact.longitudinalImpulse *= warmStartScale;
      contact.lateralImpulse *= warmStartScale;
    } else {
      contact.suspensionImpulse = 0;
      contact.longitudinalImpulse = 0;
      contact.lateralImpulse = 0;
      contact.longitudinalStickDisplacement = 0;  // a new contact has no anchor yet
      contact.lateralStickDisplacement = 0;
    }
    contact.bumpStopImpulse = 0;
    contact.brakeImpulse = 0;
  }
  // What gravity and the bodies' other forces will add next substep.
  auto addPredicted = [](SolverBody& body, btScalar sign) {
    body.linearVelocity += body.predictedLinearChange * sign;
    body.angularVelocity += body.predictedAngularChange * sign;
  };
  addPredicted(chassis, 1);
  for (SolverBody& ground : scratch_->groundBodies) addPredicted(ground, 1);

  // The rows, and the warm-start impulses onto the bodies and wheels.
  for (size_t i = 0; i < count; ++i) {
    WheelContact& contact = contacts[i];
    if (!contact.active) continue;
    ContactRows& rows = scratch_->rows[i];
    buildRow(chassis, contact, contact.normal, rows.normal);
    // A spring stiffer than one step resolves (k dt^2 w > 1, w the row's inverse mass: its
    // period under about 6 steps) would, semi-implicit, gain energy each step and launch the car.
    // Such a spring's force over the step is taken at the step's end instead (implicit: its
    // k dt acts as damping), which is stable for any stiffness and leaves its rest length as it
    // is; softer springs keep the semi-implicit form, which conserves their energy.
    if (contact.springStiffness * dt * dt * rows.normal.inverseMass > 1)
      contact.damping += contact.springStiffness * dt;
    buildRow(chassis, contact, contact.longitudinal, rows.longitudinal);
    buildRow(chassis, contact, contact.lateral, rows.lateral);
    setStickSpring(rows.longitudinal, contact, contact.longitudinalStickStiffness,
                   contact.longitudinalStickDisplacement, dt);
    setStickSpring(rows.lateral, contact, contact.lateralStickStiffness,
                   contact.lateralStickDisplacement, dt);
    if (!contact.warmStart) continue;
    applyRow(chassis, contact, rows.normal, contact.suspensionImpulse);
    applyRow(chassis, contact, rows.longitudinal, contact.longitudinalImpulse);
    applyRow(chassis, contact, rows.lateral, contact.lateralImpulse);
    const btScalar spinChange =
        -contact.longitudinalImpulse * contact.radius * contact.inverseSpinInertia;
    contact.angularSpeed += spinChange;
    spreadSpinChange(contacts, int(i), spinChange);
  }

  // Each differential's row starts from its last impulse too, within this step's limit. Started
  // from 0, a limited-slip coupe's row was built up again every step through the slow
  // alternation of its rounds with its wheels' rows: 4.51 sweeps a step on a gentle bend, 1.74
  // from its last impulse (test_solver_residual.cpp).
  bool anyLocked = false;  // a locked axle to solve as one spin (solveLockedAxle)
  for (size_t c = 0; c < couplings.size(); ++c) {
    SpinCoupling& coupling = couplings[c];
    const btScalar impulse = std::clamp(coupling.impulse * warmStartScale, -coupling.limit, coupling.limit);
    coupling.impulse = 0;
    applyCouplingImpulse(coupling, contacts, impulse);
    // (At most one coupling per pair of a driving axle's wheels: fewer than the wheels, which
    // size the scratch; any beyond it keep the rounds.)
    if (!std::isinf(coupling.limit) || c >= scratch_->solvedAsOne.size()) continue;
    if (!anyLocked) std::fill_n(scratch_->lockedCoupling.begin(), count, -1);
    anyLocked = true;
    // A wheel between two locked couplings (an axle of more than two wheels) is left to the
    // rounds: kNotAlone marks it.
    for (const int wheel : {coupling.wheelA, coupling.wheelB}) {
      int& locked = scratch_->lockedCoupling[size_t(wheel)];
      locked = locked == -1 ? int(c) : kNotAlone;
    }
  }

  // Each sweep: loads first (the friction limits scale with them), then every wheel's
  // longitudinal row, then every lateral row. Solving one wheel completely before the next would
  // let a driven wheel's push yaw the chassis before its partner's push cancels the yaw, and the
  // stuck lateral rows would keep that as a left-right fight of internal forces. The sweeps stop
  // once the rows' impulses are estimated within tolerance x dt of converged (below): from last
  // step's impulses a steadily driving car needs two or three sweeps instead of eight. dt > 0:
  // the step skips dt <= 0 before it reaches the solve (VehicleRuntime::beginStep).
  report_ = SolveReport{};
  btScalar previousMove = 0;  // N s: the largest single move of a row in the sweep before
  btScalar lastContraction = 1;  // the contraction the sweep before measured (below)
  for (int iteration = 0; iteration < settings.iterations; ++iteration) {
    recordSweepStart(contacts, couplings);
    btScalar largestMove = 0;  // N s: the largest single move of a row within this sweep
    auto track = [&largestMove](btScalar before, btScalar after) {
      largestMove = std::max(largestMove, std::fabs(after - before));
    };
    for (size_t i = 0; i < count; ++i) {
      WheelContact& contact = contacts[i];
      if (!contact.active) {
        const btScalar spinBefore = contact.angularSpeed;
        solveAirborneBrake(contact);
        spreadSpinChange(contacts, int(i), contact.angularSpeed - spinBefore);
        continue;
      }
      const btScalar normalBefore = contact.normalImpulse();
      solveSuspension(chassis, contact, scratch_->rows[i], dt);
      if (contact.bumpStopActive)
        solveBumpStop(chassis, contact, scratch_->rows[i], dt, settings);
      track(normalBefore, contact.normalImpulse());
      setFrictionLimits(contact, dt);
    }
    // Friction rows: each wheel's tire law is evaluated for the state at the start of the pass,
    // all wheels together (independent work the processor overlaps), then the rows are solved in
    // order, each with its law moved along its slope to the contact speed it sees by then. A
    // converged sweep moves nothing, so the answer is the law's own; only the way there differs
    // from evaluating each row just before solving it.
    for (size_t i = 0; i < count; ++i)
      if (contacts[i].active) {
        scratch_->trials[i] = longitudinalTrial(chassis, contacts[i], scratch_->rows[i], dt);
        contacts[i].longitudinalStuck = scratch_->trials[i].sticks || scratch_->trials[i].law.sticks;
      }
    if (!couplings.empty())
      for (size_t i = 0; i < count; ++i)
        scratch_->spinResponses[i] =
            contacts[i].active
                ? coupledSpinResponse(contacts[i], scratch_->rows[i], scratch_->trials[i], dt)
                : contacts[i].inverseSpinInertia;
    if (anyLocked) std::fill(scratch_->solvedAsOne.begin(), scratch_->solvedAsOne.end(), 0);
    for (size_t i = 0; i < count; ++i) {
      WheelContact& contact = contacts[i];
      if (!contact.active) continue;
      // A locked axle's wheels, where they can be, are solved as one spin when the pass reaches
      // the first of them, and the other's row is then done.
      const int locked = anyLocked ? scratch_->lockedCoupling[i] : -1;
      if (locked >= 0) {
        SpinCoupling& coupling = couplings[size_t(locked)];
        if (scratch_->solvedAsOne[size_t(locked)]) continue;
        const btScalar impulseBefore = coupling.impulse;
        const bool alone = scratch_->lockedCoupling[size_t(coupling.wheelA)] == locked &&
                           scratch_->lockedCoupling[size_t(coupling.wheelB)] == locked;
        if (alone && size_t(std::min(coupling.wheelA, coupling.wheelB)) == i &&
            solveLockedAxle(chassis, contacts, coupling, dt, largestMove)) {
          scratch_->solvedAsOne[size_t(locked)] = 1;
          track(impulseBefore, coupling.impulse);
          continue;
        }
      }
      // A sticking row's trial decides whether its brake holds the wheel from the chassis'
      // motion; decided at the pass's start, every wheel of a parked 40 t truck whose rolling
      // resistance alone could not stop the whole truck let its wheel turn at the brake's limit,
      // all six together threw the truck past standstill, and the next sweep threw it back (a
      // step that never converged, its tire forces flipping sign from step to step). Decided
      // here, on the motion the rows before it left, the later wheels hold. Only a sticking row
      // whose wheel was let turn (its trial then moves the wheel too) is decided again: it reads
      // no tire law.
      if (scratch_->trials[i].sticks && scratch_->trials[i].wheelTurns)
        scratch_->trials[i] = longitudinalTrial(chassis, contact, scratch_->rows[i], dt);
      const btScalar before = solveLongitudinal(chassis, contacts, i, scratch_->trials[i], dt);
      track(before, contact.longitudinalImpulse);
    }
    // The driving wheels behind a locked clutch share the engine's spin: one joint step of their
    // rows, which one row at a time meet only slowly (solveSharedSpin).
    if (engine.active()) {
      largestMove = std::max(largestMove, solveSharedSpin(chassis, contacts, dt));
      largestMove = std::max(largestMove, solveCounterRotation(chassis, contacts, couplings, dt));
    }
    for (size_t i = 0; i < count; ++i)
      if (contacts[i].active) {
        scratch_->trials[i] = lateralTrial(chassis, contacts[i], scratch_->rows[i]);
        contacts[i].lateralStuck = scratch_->trials[i].sticks || scratch_->trials[i].law.sticks;
      }
    for (size_t i = 0; i < count; ++i) {
      WheelContact& contact = contacts[i];
      if (!contact.active) continue;
      const btScalar before = contact.lateralImpulse;
      const btScalar speed = rowSpeed(chassis, contact, scratch_->rows[i].lateral);
      const btScalar spinBefore = contact.angularSpeed;
      commit(chassis, contact, scratch_->rows[i], contact.longitudinalImpulse,
             candidate(scratch_->trials[i], before, speed, dt));
      spreadSpinChange(contacts, int(i), contact.angularSpeed - spinBefore);
      track(before, contact.lateralImpulse);
    }
    // Sweeps that contract slowly are, in the cars measured, lateral rows fighting through the
    // chassis' yaw (the truck's tandem; any car's rows at a walking pace, where the tire laws are
    // stiffest per m/s): from the third sweep of such a step the lateral rows also take one
    // Newton step together (solveLateralTogether). The busy drive at 1/60 s after its spawn's
    // settling: the truck's steps converged 85.3% -> 98.7%, 5.86 -> 4.92 sweeps a step
    // (test_solver_residual.cpp); the jeep's at 1/30 s 77.5% -> 90.5%.
    // Taken in every sweep, it cost the bench's cars, whose sweeps contract fast, 10% more
    // instructions for 0.05 fewer sweeps a step; taken so, 0.9% (callgrind, 100 cars landing and
    // driving 300 steps).
    if (iteration >= 2 && lastContraction >= kSlowContraction)
      largestMove = std::max(largestMove, solveLateralTogether(chassis, contacts, dt));
    // Each differential's row, and between its rounds its two wheels' longitudinal rows again:
    // the tires answer every turn the row gives the wheels, so a row solved once a sweep
    // converged only in the sweeps' slow alternation with them (coupledSpinResponse).
    for (size_t c = 0; c < couplings.size(); ++c) {
      SpinCoupling& coupling = couplings[c];
      const btScalar before = coupling.impulse;
      if (anyLocked && c < scratch_->solvedAsOne.size() && scratch_->solvedAsOne[c]) {
        // The lateral pass may have moved a wheel's longitudinal impulse onto its friction
        // ellipse, and with it its spin: the row keeps the two spins one.
        equalizeLockedSpins(coupling, contacts);
        track(before, coupling.impulse);
        continue;
      }
      for (int round = 0; round < kCouplingRounds; ++round) {
        if (round > 0) {
          for (const size_t i : {size_t(coupling.wheelA), size_t(coupling.wheelB)}) {
            WheelContact& contact = contacts[i];
            if (!contact.active) continue;
            const RowTrial trial = longitudinalTrial(chassis, contact, scratch_->rows[i], dt);
            const btScalar impulseBefore = solveLongitudinal(chassis, contacts, i, trial, dt);
            track(impulseBefore, contact.longitudinalImpulse);
            scratch_->spinResponses[i] = coupledSpinResponse(contact, scratch_->rows[i], trial, dt);
          }
        }
        solveCoupling(coupling, contacts);
        // A limited-slip differential slipping at its limit: its tires cannot move the row.
        if (std::fabs(coupling.impulse) >= coupling.limit) break;
      }
      track(before, coupling.impulse);
    }
    // How far the impulses still are from where further sweeps would take them. The sweeps
    // contract: each shrinks the change by about rho = this sweep's largest move / the last
    // one's, and the changes still to come then add up to at most change x rho / (1 - rho) (the
    // geometric series). From a warm start rho is about 0.07 (the bench's median), so a sweep that
    // changes a row by 10 N leaves it within about 1 N; waiting for the change itself to fall
    // below the tolerance took a sweep more (3.5 sweeps a step on the bench against 2.5). rho
    // comes from two sweeps only, so it is trusted within limits: below
    // kSlowestTrustedContraction (1/2, slow or no contraction) the change itself is the estimate,
    // as after the first sweep; and it is taken as at least kFastestTrustedContraction (0.05), so
    // that a first sweep that absorbed a landing's kilonewtons cannot make a second sweep's 50 N
    // change look converged: a converged step's last change is at most 19 x the tolerance.
    // Sticking rows, brakes that hold or let go and the tire laws' curvature make the sweeps only
    // nearly a contraction, so the estimate is a guess rather than a bound;
    // test_solver_residual.cpp measures the forces it stops at against converged solves.
    // The rate comes from the moves within the sweeps, the change from where the whole sweep
    // left the rows (sweepChange). A row moved and moved back within one sweep (a wheel on its
    // bump stop at the friction ellipse: its longitudinal row onto its law, then back onto the
    // ellipse by its lateral row) is where every further sweep leaves it too; counted as a
    // change, it kept such steps sweeping to the cap and reporting themselves unconverged. The
    // moves still give the rate where a sweep undoes the last one's overshoot (the engine's
    // shared spin, solveSharedSpin): that second sweep's change then reads as no contraction of
    // the first's small net change, though its moves shrank as fast as ever.
    const btScalar change = sweepChange(contacts, couplings);
    const btScalar contraction = std::max(
        kFastestTrustedContraction,
        iteration > 0 && previousMove > 0 ? largestMove / previousMove : btScalar(1));
    // The change alone counts only where the moves repeat from sweep to sweep (the cycle above);
    // elsewhere the estimate starts from the larger of the change and the moves: a sweep whose
    // moves cancel by chance (+10 and -9.9 N s of one row) is not yet where the rows are going.
    const btScalar distance = contraction >= kRepeatingMoves ? change : std::max(change, largestMove);
    const btScalar remaining = contraction < kSlowestTrustedContraction
                                   ? distance * contraction / (1 - contraction)
                                   : distance;
    previousMove = largestMove;
    lastContraction = contraction;
    report_.sweeps = iteration + 1;
    report_.residual = change / dt;
    report_.estimatedError = remaining / dt;
    // Decided on the figure reported, so that converged == (estimatedError <= tolerance) holds.
    report_.converged = report_.estimatedError <= settings.tolerance;
    if (report_.converged) break;
  }

  for (size_t i = 0; i < count; ++i) {
    WheelContact& contact = contacts[i];
    contact.warmStart = contact.active;
    if (!contact.active) continue;
    contact.forwardSpeed = rowSpeed(chassis, contact, scratch_->rows[i].longitudinal);
    contact.lateralSpeed = rowSpeed(chassis, contact, scratch_->rows[i].lateral);
    updateStickDisplacements(contact, dt);
  }
  // What the chassis' velocity will be when the next step starts, if nothing but its forces
  // act until then (unpredictedMotion); m/s.
  expectedLinearVelocity_ = chassis.linearVelocity;
  expectsVelocity_ = true;
  addPredicted(chassis, -1);
  for (SolverBody& ground : scratch_->groundBodies) addPredicted(ground, -1);
}

inline void ContactSolver::recordSweepStart(const WheelContacts& contacts,
                                            std::vector<SpinCoupling>& couplings) {
  for (size_t i = 0; i < contacts.size(); ++i) {
    const WheelContact& contact = contacts[i];
    scratch_->sweepStart[i] = {contact.suspensionImpulse, contact.bumpStopImpulse,
                               contact.longitudinalImpulse, contact.lateralImpulse};
  }
  for (SpinCoupling& coupling : couplings) coupling.sweepStartImpulse = coupling.impulse;
}

inline btScalar ContactSolver::sweepChange(const WheelContacts& contacts,
                                           const std::vector<SpinCoupling>& couplings) const {
  btScalar largest = 0;
  for (size_t i = 0; i < contacts.size(); ++i) {
    const WheelContact& contact = contacts[i];
    const SweepStart& start = scratch_->sweepStart[i];
    // The suspension's and the bump stop's apart: one may take over what the other gave up.
    largest = std::max({largest, std::fabs(contact.suspensionImpulse - start.suspension),
                        std::fabs(contact.bumpStopImpulse - start.bumpStop),
                        std::fabs(contact.longitudinalImpulse - start.longitudinal),
                        std::fabs(contact.lateralImpulse - start.lateral)});
  }
  for (const SpinCoupling& coupling : couplings)
    largest = std::max(largest, std::fabs(coupling.impulse - coupling.sweepStartImpulse));
  return largest;
}

RAYCAR_ALWAYS_INLINE void ContactSolver::solveSuspension(SolverBody& chassis, WheelContact& contact,
                                           const ContactRows& rows, btScalar dt) {
  // lambda = (F_spring + c v) dt, v = compression speed after the impulses:
  // v = -(relative velocity . n) / cos, and an impulse d lambda changes it by -w d lambda / cos.
  const btScalar compressionSpeed =
      -rowSpeed(chassis, contact, rows.normal) / contact.rayCosine;
  const btScalar wanted = (contact.springForce + contact.damping * compressionSpeed) * dt;
  const btScalar denominator =
      1 + contact.damping * dt * rows.normal.inverseMass / contact.rayCosine;
  const btScalar impulse = std::max(
      btScalar(0), contact.suspensionImpulse + (wanted - contact.suspensionImpulse) / denominator);
  applyRow(chassis, contact, rows.normal, impulse - contact.suspensionImpulse);
  contact.suspensionImpulse = impulse;
}

void ContactSolver::solveBumpStop(SolverBody& chassis, WheelContact& contact,
                                  const ContactRows& rows, btScalar dt,
                                  const ContactSolverSettings& settings) {
  // An inelastic stop: the contact may close at most its remaining gap in one step, and pushes
  // out a fraction of any overlap; the accumulated impulse only pushes.
  // A chassis the game holds along the row (Bullet's factors) is not pushed out of the stop.
  if (!(rows.normal.inverseMass > 0)) return;
  const btScalar separationSpeed = rowSpeed(chassis, contact, rows.normal);
  const btScalar gap = contact.bumpStopGap;
  const btScalar targetSpeed =
      gap >= 0 ? -gap / dt
               : std::min(-settings.bumpStopErrorReduction * gap / dt, settings.bumpStopMaxRecoverySpeed);
  const btScalar impulse =
      std::max(btScalar(0), contact.bumpStopImpulse +
                                (targetSpeed - separationSpeed) / rows.normal.inverseMass);
  applyRow(chassis, contact, rows.normal, impulse - contact.bumpStopImpulse);
  contact.bumpStopImpulse = impulse;
}

inline void ContactSolver::setFrictionLimits(WheelContact& contact, btScalar dt) {
  contact.tireContact.normalLoad = contact.normalImpulse() / dt;
  const btScalar longitudinalPeak = contact.tire->peakLongitudinalForce(contact.tireContact) * dt;
  if (contact.boxFriction) {
    // Seed 001: the same limit in both directions (isotropic).
    contact.longitudinalLimit = contact.lateralLimit = longitudinalPeak * contact.coulombScale;
    setInverseLimits(contact);
    return;
  }
  contact.longitudinalLimit = longitudinalPeak;
  contact.lateralLimit = contact.tire->peakLateralForce(contact.tireContact) * dt;
  // Static rows slide at the dynamic friction; the tire's laws carry their own.
  if (contact.staticLongitudinal) contact.longitudinalLimit *= contact.coulombScale;
  if (contact.staticLateral) contact.lateralLimit *= contact.coulombScale;
  setInverseLimits(contact);
}

inline bool ContactSolver::onFrictionEllipse(const WheelContact& contact) {
  const btScalar x = contact.longitudinalImpulse * contact.inverseLongitudinalLimit;
  const btScalar y = contact.lateralImpulse * contact.inverseLateralLimit;
  return x * x + y * y >= btScalar(0.999);
}

inline void ContactSolver::setInverseLimits(WheelContact& contact) {
  if (!(contact.longitudinalLimit > kNegligibleLimit)) contact.longitudinalLimit = 0;
  if (!(contact.lateralLimit > kNegligibleLimit)) contact.lateralLimit = 0;
  contact.inverseLongitudinalLimit = contact.longitudinalLimit > 0 ? 1 / contact.longitudinalLimit : 0;
  contact.inverseLateralLimit = contact.lateralLimit > 0 ? 1 / contact.lateralLimit : 0;
}

inline btScalar ContactSolver::coupledSpinResponse(const WheelContact& contact,
                                                  const ContactRows& rows, const RowTrial& trial,
                                                  btScalar dt) const {
  // A torque impulse P turns the wheel by w P at once, but the tire answers the slip that turn
  // makes: its row's impulse grows by R dw / (w_row + compliance) (w_row: the chassis' and
  // ground's inverse mass along the row; compliance: 1 / (K dt) for a law of slope K, the stick
  // spring's softness for a sticking row), and that impulse turns the wheel back by R w each.
  // So dw = w P / (1 + w R^2 / (w_row + compliance)). A differential's row that used w alone
  // turned the wheels by what their tires then took back, and crept towards its answer over many
  // sweeps (test_solver_residual.cpp). A tire at its friction limit cannot answer: dw = w P.
  const btScalar w = contact.inverseSpinInertia;
  if (w == 0) return 0;
  if (contact.boxFriction || onFrictionEllipse(contact)) return w;
  btScalar compliance = trial.softness;  // m/s per N s
  if (!(trial.sticks || trial.law.sticks)) {
    const btScalar damping = trial.law.stiffness * dt;  // N s per m/s of slip
    if (!(damping > kNegligibleSlope)) return w;  // the curve's peak or falling branch, or flat
    compliance = 1 / damping;
  }
  const btScalar radius = contact.radius;
  const btScalar answered = w / (1 + w * radius * radius / (rows.longitudinal.inverseMass + compliance));
  return w + (answered - w) * kCouplingTireAnswer;
}

void ContactSolver::solveCoupling(SpinCoupling& coupling, const WheelContacts& contacts) {
  WheelContact& a = contacts[coupling.wheelA];
  WheelContact& b = contacts[coupling.wheelB];
  // The spread's inverse inertia, with each tire's answer to the turn (coupledSpinResponse); the
  // impulse itself turns the wheels by their own w. Through the engine's coupling a push on one
  // wheel turns the other the same way, which the spread does not see.
  const btScalar inverseInertia =
      scratch_->spinResponses[size_t(coupling.wheelA)] +
      scratch_->spinResponses[size_t(coupling.wheelB)] -
      2 * engine_->crossInverseInertia(coupling.wheelA, coupling.wheelB);
  if (!(inverseInertia > 0)) return;  // both held by the handbrake
  const btScalar wanted = coupling.impulse - (a.angularSpeed - b.angularSpeed) / inverseInertia;
  applyCouplingImpulse(coupling, contacts, std::clamp(wanted, -coupling.limit, coupling.limit));
}

bool ContactSolver::solveLockedAxle(SolverBody& chassis, const WheelContacts& contacts,
                                    SpinCoupling& coupling, btScalar dt, btScalar& largest) {
  // A locked axle's wheels turn as one: its row, solved in rounds with its wheels' rows, met
  // slowly wherever the wheels must scrub, and not at all with one tire past its curve's peak
  // (the coupe at 2.5 m/s on a tight bend: 6.90 sweeps a step, 19% of steps converged,
  // test_solver_residual.cpp). Here the pair's spin w and its two tire impulses lambda_a,
  // lambda_b are solved together by Newton's method, with the chassis as it moves under them:
  //   lambda_k = F_k(v_k + sum_j A_kj (lambda_j - lambda_j0) - R_k w) dt   (within the ellipse)
  //   I w = L0 - sum_k R_k lambda_k - the brakes' impulse against w
  // (A: the rows' joint inverse mass through the chassis; I, L0: the pair's inertia and its
  // spin momentum without tire or brake impulses). The row then only keeps the two spins equal.
  // Not for a pair behind the engine's coupling, on a dynamic body, sticking, held by a brake or
  // in the air: the rounds take those.
  if (engine_->active()) return false;
  const size_t index[2] = {size_t(coupling.wheelA), size_t(coupling.wheelB)};
  WheelContact* pair[2] = {&contacts[index[0]], &contacts[index[1]]};
  btScalar speed[2], lateralSlip[2], radius[2], start[2];  // m/s, m/s, m, N s
  btScalar momentum = 0, pairInertia = 0, brakeLimit = 0;   // N m s, kg m^2, N m s
  for (int k = 0; k < 2; ++k) {
    const WheelContact& contact = *pair[k];
    if (!contact.active || contact.groundBody >= 0 || contact.boxFriction || contact.staticLongitudinal ||
        !(contact.inverseSpinInertia > 0))
      return false;
    const ContactRows& rows = scratch_->rows[index[k]];
    speed[k] = rowSpeed(chassis, contact, rows.longitudinal);
    lateralSlip[k] = contact.lateralSlipScale * rowSpeed(chassis, contact, rows.lateral) + contact.lateralSlipOffset;
    radius[k] = contact.radius;
    start[k] = contact.longitudinalImpulse;
    const btScalar inertia = 1 / contact.inverseSpinInertia;
    momentum += inertia * freeSpin(contact);
    pairInertia += inertia;
    brakeLimit += contact.brakeImpulseLimit;
  }
  const ContactRow& rowA = scratch_->rows[index[0]].longitudinal;
  const ContactRow& rowB = scratch_->rows[index[1]].longitudinal;
  const btScalar cross = chassisCoupling(chassis, rowA, rowB);
  const btScalar joint[2][2] = {{rowA.inverseMass, cross}, {cross, rowB.inverseMass}};  // A, m/s per N s

  // The residuals at (lambda_a, lambda_b, w): r_k = lambda_k - target_k (N s) and the spin
  // balance r_w (N m s), with what the Newton step needs of the laws there.
  struct Point {
    btScalar impulse[2];      // N s
    btScalar spin;            // rad/s
    btScalar residual[2];     // N s
    btScalar spinResidual;    // N m s
    btScalar damping[2];     // dt K (N s per m/s) of each law where its impulse follows it, else 0
    btScalar resolution[2];  // N s: how finely each tire's impulse is known
    btScalar merit;          // N^2 s^2: the residuals' squares, the spin's over the mean radius
  };
  const btScalar meanRadius = (radius[0] + radius[1]) / 2;
  auto evaluate = [&](Point& point) {
    for (int k = 0; k < 2; ++k) {
      const WheelContact& contact = *pair[k];
      const btScalar slip = speed[k] + joint[k][0] * (point.impulse[0] - start[0]) +
                            joint[k][1] * (point.impulse[1] - start[1]) - radius[k] * point.spin;
      const FrictionLaw law = contact.tire->longitudinal(contact.tireContact, slip, lateralSlip[k]);
      if (law.sticks) return false;
      const btScalar wanted = law.force * dt;
      const btScalar target = frictionLimited(contact, wanted, contact.lateralImpulse).longitudinal;
      point.residual[k] = point.impulse[k] - target;
      point.damping[k] = target == wanted ? law.stiffness * dt : 0;
      // The slip is a difference of rounded speeds: the law's answer is known to its slope times
      // their rounding, the impulse to its own.
      point.resolution[k] = kRoundingUlps * std::numeric_limits<btScalar>::epsilon() *
                            (std::fabs(point.damping[k]) * (std::fabs(speed[k]) + std::fabs(radius[k] * point.spin)) +
                             std::fabs(target));
    }
    // The brakes (rolling resistance among them) turn the pair against its spin at their limit.
    point.spinResidual = pairInertia * point.spin - momentum + std::copysign(brakeLimit, point.spin) +
                         radius[0] * point.impulse[0] + radius[1] * point.impulse[1];
    const btScalar spinPart = point.spinResidual / meanRadius;
    point.merit = point.residual[0] * point.residual[0] + point.residual[1] * point.residual[1] + spinPart * spinPart;
    return true;
  };
  Point point;
  point.impulse[0] = start[0];
  point.impulse[1] = start[1];
  point.spin = (pair[0]->angularSpeed / pair[0]->inverseSpinInertia +
                pair[1]->angularSpeed / pair[1]->inverseSpinInertia) / pairInertia;
  // Brakes that could hold the pair this slow: the wheels' own rows decide whether they do
  // (checked again on the spin solved for, below).
  if (!(std::fabs(point.spin) * pairInertia > kBrakeHoldMargin * brakeLimit)) return false;
  if (!evaluate(point)) return false;
  for (int iteration = 0; iteration < kLockedAxleIterations; ++iteration) {
    // The Newton step: M d_lambda - c d_w = -r with M = 1 + D A, c_k = D_k R_k; then
    // d_lambda = p + q d_w, and the spin balance R . d_lambda + I d_w = -r_w gives d_w. A law on
    // its falling branch keeps its slope while the step's system stays positive (the pair's
    // combined answer still rises with its spin); where it would not, that law is taken as not
    // answering (a fixed-point step for its impulse).
    btScalar step[2], spinStep = 0;  // N s, rad/s
    bool solved = false;
    for (int attempt = 0; attempt < 2 && !solved; ++attempt) {
      btScalar damping[2] = {point.damping[0], point.damping[1]};
      if (attempt == 1)
        for (btScalar& law : damping) law = std::max(law, btScalar(0));
      const btScalar m00 = 1 + damping[0] * joint[0][0], m01 = damping[0] * joint[0][1];
      const btScalar m10 = damping[1] * joint[1][0], m11 = 1 + damping[1] * joint[1][1];
      const btScalar determinant = m00 * m11 - m01 * m10;
      if (!(determinant > kPositiveSystem)) continue;
      const btScalar c0 = damping[0] * radius[0], c1 = damping[1] * radius[1];
      const btScalar p0 = (-point.residual[0] * m11 + point.residual[1] * m01) / determinant;
      const btScalar p1 = (-point.residual[1] * m00 + point.residual[0] * m10) / determinant;
      const btScalar q0 = (c0 * m11 - c1 * m01) / determinant;
      const btScalar q1 = (c1 * m00 - c0 * m10) / determinant;
      const btScalar spinAnswer = pairInertia + radius[0] * q0 + radius[1] * q1;  // kg m^2
      if (!(spinAnswer > kPositiveSystem * pairInertia)) continue;
      spinStep = -(point.spinResidual + radius[0] * p0 + radius[1] * p1) / spinAnswer;
      step[0] = p0 + q0 * spinStep;
      step[1] = p1 + q1 * spinStep;
      solved = true;
    }
    if (!solved) break;
    // Backtracking: the laws curve (and past the peak may have more than one root), so a step
    // is taken only as far as it lowers the residuals.
    Point next = point;
    bool lowered = false;
    btScalar fraction = 1;
    for (int halving = 0; halving <= kLockedAxleHalvings && !lowered; ++halving, fraction *= btScalar(0.5)) {
      next.impulse[0] = point.impulse[0] + fraction * step[0];
      next.impulse[1] = point.impulse[1] + fraction * step[1];
      next.spin = point.spin + fraction * spinStep;
      if (!evaluate(next)) return false;
      lowered = next.merit < point.merit;
    }
    if (!lowered) break;  // no step lowers them: at the root, or stalled (told apart below)
    // A full Newton step within the impulses' rounding: at the root.
    const bool settled = std::fabs(step[0]) <= point.resolution[0] && std::fabs(step[1]) <= point.resolution[1];
    point = next;
    if (settled) break;
  }
  // Solved only where the laws and the spin balance agree to their rounding (within
  // kSolvedRoundings of it). Both tires on their curves' falling branches, or steps that stall
  // on the way, can leave the pair kilonewtons from its laws; committed, a sweep that changed
  // nothing would look converged. Such a pair is left to the rounds.
  const btScalar spinTolerance = kSolvedRoundings * (point.resolution[0] + point.resolution[1]);  // N s
  if (!(std::fabs(point.residual[0]) <= kSolvedRoundings * point.resolution[0] &&
        std::fabs(point.residual[1]) <= kSolvedRoundings * point.resolution[1] &&
        std::fabs(point.spinResidual) <= spinTolerance * meanRadius))
    return false;
  const btScalar spin = point.spin;  // rad/s
  if (!(std::fabs(spin) * pairInertia > kBrakeHoldMargin * brakeLimit)) return false;
  // The row first, so that each wheel's commit() finds the pair's spin and turns its brake
  // against it: wheel a's spin without its brake and tire impulses set to what leaves it at
  // `spin` once its brake (at its limit, against the spin) and its tire impulse act; b's follows,
  // the row only passing spin between them.
  WheelContact& a = *pair[0];
  const btScalar freeSpinWanted =
      spin + (std::copysign(a.brakeImpulseLimit, spin) + point.impulse[0] * radius[0]) * a.inverseSpinInertia;
  applyCouplingImpulse(coupling, contacts, coupling.impulse + (freeSpinWanted - freeSpin(a)) / a.inverseSpinInertia);
  for (int k = 0; k < 2; ++k) {
    // Committed even unchanged: commit() also sets the wheel's brake and spin for its impulse.
    // A change within the impulse's rounding is none (it would only stir the sweeps).
    WheelContact& contact = *pair[k];
    const btScalar wanted =
        std::fabs(point.impulse[k] - start[k]) <= point.resolution[k] ? start[k] : point.impulse[k];
    commit(chassis, contact, scratch_->rows[index[k]], wanted, contact.lateralImpulse);
    largest = std::max(largest, std::fabs(contact.longitudinalImpulse - start[k]));
  }
  equalizeLockedSpins(coupling, contacts);
  return true;
}

void ContactSolver::equalizeLockedSpins(SpinCoupling& coupling, const WheelContacts& contacts) {
  const WheelContact& a = contacts[size_t(coupling.wheelA)];
  const WheelContact& b = contacts[size_t(coupling.wheelB)];
  applyCouplingImpulse(coupling, contacts,
                       coupling.impulse + (b.angularSpeed - a.angularSpeed) /
                                              (a.inverseSpinInertia + b.inverseSpinInertia));
}

void ContactSolver::applyCouplingImpulse(SpinCoupling& coupling, const WheelContacts& contacts,
                                         btScalar impulse) {
  WheelContact& a = contacts[coupling.wheelA];
  WheelContact& b = contacts[coupling.wheelB];
  const btScalar change = impulse - coupling.impulse;
  a.angularSpeed += change * a.inverseSpinInertia;
  b.angularSpeed -= change * b.inverseSpinInertia;
  spreadSpinChange(contacts, coupling.wheelA, change * a.inverseSpinInertia);
  spreadSpinChange(contacts, coupling.wheelB, -change * b.inverseSpinInertia);
  coupling.impulse = impulse;
}

void ContactSolver::solveAirborneBrake(WheelContact& contact) {
  if (contact.inverseSpinInertia == 0) return;
  // The brake stops the wheel at zero and never pushes it past.
  const btScalar spinFree = freeSpin(contact);
  const btScalar needed = -spinFree / contact.inverseSpinInertia;
  if (std::fabs(needed) <= contact.brakeImpulseLimit) {
    contact.brakeImpulse = needed;
    contact.angularSpeed = 0;
  } else {
    contact.brakeImpulse = std::copysign(contact.brakeImpulseLimit, needed);
    contact.angularSpeed = spinFree + contact.brakeImpulse * contact.inverseSpinInertia;
  }
}

void ContactSolver::setStickSpring(ContactRow& row, const WheelContact& contact,
                                   btScalar stiffness, btScalar displacement, btScalar dt) {
  // The spring-damper F = -k (d + u dt) - c u, implicit in the slip speed u at the step's end
  // (d: the anchor's displacement at its start), is u = -(F + k d) / (k dt + c): with the
  // impulse lambda = F dt, u + lambda / (dt (k dt + c)) + k d / (k dt + c) = 0. Critically
  // damped against the row's mass, so a hold settles without ringing; implicit, so it is stable
  // at any step. On a dynamic body the row stays rigid: Bullet's own contacts under that body
  // see the action's impulses a step late, and a 20 kg box rang on the spring into the floor.
  if (!(stiffness > kNegligibleStiffness) || contact.groundBody >= 0) {
    row.softness = row.bias = 0;
    return;
  }
  const btScalar damping = 2 * std::sqrt(stiffness / row.inverseMass);
  const btScalar denominator = stiffness * dt + damping;
  row.softness = 1 / (dt * denominator);
  row.bias = stiffness * displacement / denominator;
}

void ContactSolver::updateStickDisplacements(WheelContact& contact, btScalar dt) {
  // A row that stuck within its limit moved its anchor by this step's slip; one held at the limit
  // slid, dragging the anchor to where the spring carries that force; a row that did not stick
  // has no anchor.
  const btScalar x = contact.longitudinalImpulse * contact.inverseLongitudinalLimit;
  const btScalar y = contact.lateralImpulse * contact.inverseLateralLimit;
  constexpr btScalar kSaturated = btScalar(1) - btScalar(1e-4);
  const bool longitudinalSaturated =
      contact.boxFriction ? std::fabs(x) >= kSaturated : x * x + y * y >= kSaturated;
  const bool lateralSaturated =
      contact.boxFriction ? std::fabs(y) >= kSaturated : x * x + y * y >= kSaturated;
  auto update = [dt](bool stuck, bool saturated, btScalar stiffness, btScalar slip,
                     btScalar impulse, btScalar& displacement) {
    if (!stuck || !(stiffness > kNegligibleStiffness)) displacement = 0;
    else if (saturated) displacement = -impulse / (dt * stiffness);
    else displacement += slip * dt;
  };
  update(contact.longitudinalStuck, longitudinalSaturated, contact.longitudinalStickStiffness,
         contact.forwardSpeed - contact.radius * contact.angularSpeed, contact.longitudinalImpulse,
         contact.longitudinalStickDisplacement);
  update(contact.lateralStuck, lateralSaturated, contact.lateralStickStiffness,
         contact.lateralSpeed, contact.lateralImpulse, contact.lateralStickDisplacement);
}

UnpredictedMotion ContactSolver::unpredictedMotion(const btRigidBody& chassis, btScalar dt) const {
  UnpredictedMotion motion;
  if (!expectsVelocity_) return motion;
  // The velocity Bullet moved the chassis with in this step's integration, which it keeps as the
  // interpolation velocity: an action that ran before this one (a car standing on this chassis
  // pushes it) may have changed the velocity since, without moving anything.
  motion.linearVelocity = chassis.getInterpolationLinearVelocity() - expectedLinearVelocity_;
  motion.dt = dt;
  return motion;
}

void ContactSolver::followUnpredictedMotion(WheelContact& contact, const UnpredictedMotion& motion,
                                            btScalar stickSpeed) {
  // Only a row that stuck in the last solve, on the same ground (warmStart), has an anchor.
  if (!contact.warmStart) return;
  // Along the ground only, as the rows and the static test (Wheel::measureContact) see it: a
  // vertical jolt (a crate landing on the roof) moves no anchor.
  const btScalar forward = motion.linearVelocity.dot(contact.longitudinal);  // m/s
  const btScalar sideways = motion.linearVelocity.dot(contact.lateral);     // m/s
  if (forward * forward + sideways * sideways > stickSpeed * stickSpeed) {
    // A jolt (an impact, the game setting the velocity) rather than a push: the contact broke
    // loose, and a row that sticks again starts from a new anchor.
    contact.longitudinalStickDisplacement = contact.lateralStickDisplacement = 0;
    return;
  }
  if (contact.longitudinalStuck) contact.longitudinalStickDisplacement += forward * motion.dt;
  if (contact.lateralStuck) contact.lateralStickDisplacement += sideways * motion.dt;
}

inline btScalar ContactSolver::rowStep(const FrictionLaw& law, bool sticks, btScalar impulse,
                                       btScalar slip, btScalar inverseMass, btScalar softness,
                                       btScalar bias, btScalar dt) const {
  // Static friction removes the slip, or with a stick spring brings slip + softness x impulse
  // + bias to zero. The tire's law takes a Newton step on lambda = F(u) dt,
  // d lambda = (F dt - lambda) / (1 + K dt w), with K < 0 on the curve's falling branch (the
  // denominator is kept positive there); the step stops at zero slip, never past it.
  // A row along which nothing can move (a chassis the game locks with Bullet's factors and a
  // wheel the handbrake holds: no inverse mass, no give) changes no slip: it keeps its impulse.
  if (!(inverseMass + softness > 0)) return 0;
  if (sticks || law.sticks) return -(slip + softness * impulse + bias) / (inverseMass + softness);
  const btScalar stick = -slip / inverseMass;
  const btScalar denominator =
      std::max(1 + law.stiffness * dt * inverseMass, kMinimumNewtonDenominator);
  const btScalar newton = (law.force * dt - impulse) / denominator;
  return slip > 0 ? std::max(newton, stick) : std::min(newton, stick);
}

inline bool ContactSolver::brakeCouldHold(btScalar impulse, btScalar slip, btScalar spinImpulse,
                                          btScalar brakeLimit, btScalar radius) {
  // The held candidate is impulse + rowStep(). A tire's force opposes its slip, and rowStep's
  // Newton denominator is at least kMinimumNewtonDenominator, so while the contact slides
  // forward (slip > 0) the step is at most max(0, -impulse) / kMinimumNewtonDenominator, and
  // backward at least the mirror of that; the friction limits only shrink it. Holding needs
  // candidate x R within the brake's limit of the wheel's spin impulse. When even the bound
  // misses that (a wheel rolling with only rolling resistance as its brake), the trial - a tire
  // evaluation - cannot succeed and is skipped. The slack keeps rounding from deciding.
  const btScalar slack = btScalar(1e-3) * (std::fabs(spinImpulse) + brakeLimit) + btScalar(1e-6);
  const btScalar reach = 1 / kMinimumNewtonDenominator;
  if (slip > 0) {
    const btScalar largest = impulse + reach * std::max(btScalar(0), -impulse);
    return std::max(largest, btScalar(0)) * radius >= spinImpulse - brakeLimit - slack;
  }
  if (slip < 0) {
    const btScalar smallest = impulse - reach * std::max(btScalar(0), impulse);
    return std::min(smallest, btScalar(0)) * radius <= spinImpulse + brakeLimit + slack;
  }
  return true;
}

inline btScalar ContactSolver::freeSpin(const WheelContact& contact) const {
  return contact.angularSpeed - contact.brakeImpulse * contact.inverseSpinInertia +
         contact.longitudinalImpulse * contact.radius * contact.inverseSpinInertia;
}

ContactSolver::RowTrial ContactSolver::longitudinalTrial(const SolverBody& chassis,
                                                       const WheelContact& contact,
                                                       const ContactRows& rows, btScalar dt) const {
  RowTrial trial;
  trial.speed = rowSpeed(chassis, contact, rows.longitudinal);
  const btScalar lateralSlip = contact.lateralSlipScale * rowSpeed(chassis, contact, rows.lateral) +
                               contact.lateralSlipOffset;
  const btScalar chassisMass = rows.longitudinal.inverseMass;
  const btScalar radius = contact.radius;
  const btScalar inverseInertia = contact.inverseSpinInertia;
  trial.sticks = contact.boxFriction || contact.staticLongitudinal;
  trial.softness = rows.longitudinal.softness;
  trial.bias = rows.longitudinal.bias;
  auto evaluate = [&](btScalar slip, btScalar inverseMass) {
    trial.slip = slip;
    trial.inverseMass = inverseMass;
    trial.law = trial.sticks ? FrictionLaw{}
                             : contact.tire->longitudinal(contact.tireContact, slip, lateralSlip);
    return trial;
  };
  // First try the wheel held still by its brake (or locked by the handbrake): the row then sees
  // the chassis alone. A wheel without brake torque is never held.
  if (inverseInertia == 0) return evaluate(trial.speed, chassisMass);
  const btScalar spinFree = freeSpin(contact);
  const btScalar spinImpulse = spinFree / inverseInertia;  // N m s that would stop the wheel
  // The brake impulse that would hold the wheel, or (when holding is out of reach) its sign:
  // if holding the wheel needs more than the brake gives, the wheel turns the way the excess
  // pushes it, and the brake, at its limit, pushes back. The direction comes from the holding
  // candidate, not from the spin the last friction impulse left: a brake never reverses a wheel,
  // and guessing its direction from a friction impulse that is about to change would let a
  // static row settle with the contact still sliding (a parked car crept away at 1 cm/s).
  btScalar holdingBrake = 0;
  if (contact.brakeImpulseLimit > 0) {
    if (brakeCouldHold(contact.longitudinalImpulse, trial.speed, spinImpulse,
                       contact.brakeImpulseLimit, radius)) {
      // Whether the brake holds depends on the impulse the tire really transmits: the candidate
      // as commit() will limit it.
      evaluate(trial.speed, chassisMass);
      const btScalar held = candidate(trial, contact.longitudinalImpulse, trial.speed, dt);
      holdingBrake =
          frictionLimited(contact, held, contact.lateralImpulse).longitudinal * radius - spinImpulse;
      if (std::fabs(holdingBrake) <= contact.brakeImpulseLimit) return trial;
    } else {
      // brakeCouldHold's bound: sliding forward, holding would need a brake below -limit.
      holdingBrake = trial.speed > 0 ? -1 : 1;
    }
  }
  // The brake cannot hold it: the wheel turns against the brake at the brake's limit.
  const btScalar spinWithoutBrake = spinFree - contact.longitudinalImpulse * radius * inverseInertia;
  const btScalar brake = std::copysign(contact.brakeImpulseLimit, holdingBrake);
  const btScalar spin = spinWithoutBrake + brake * inverseInertia;
  trial.wheelTurns = true;
  trial.spin = contact.angularSpeed;
  return evaluate(trial.speed - radius * spin, chassisMass + radius * radius * inverseInertia);
}

ContactSolver::RowTrial ContactSolver::lateralTrial(const SolverBody& chassis,
                                                  const WheelContact& contact,
                                                  const ContactRows& rows) const {
  RowTrial trial;
  trial.speed = rowSpeed(chassis, contact, rows.lateral);
  const btScalar longitudinalSlip =
      rowSpeed(chassis, contact, rows.longitudinal) - contact.radius * contact.angularSpeed;
  trial.sticks = contact.boxFriction || contact.staticLateral;
  // A rolling tire's law reads the lagged and camber-shifted slip, and Newton's steps stop
  // where that is zero; static friction holds the contact itself still.
  trial.slipPerSpeed = trial.sticks ? 1 : contact.lateralSlipScale;
  trial.slip = trial.sticks ? trial.speed
                            : contact.lateralSlipScale * trial.speed + contact.lateralSlipOffset;
  trial.inverseMass = rows.lateral.inverseMass;
  trial.softness = rows.lateral.softness;
  trial.bias = rows.lateral.bias;
  if (!trial.sticks)
    trial.law = contact.tire->lateral(contact.tireContact, trial.slip, longitudinalSlip);
  return trial;
}

inline btScalar ContactSolver::candidate(const RowTrial& trial, btScalar impulse, btScalar speed,
                                         btScalar dt) const {
  // The row's contact speed moved since its law was evaluated (other wheels' impulses turned the
  // chassis); the wheel's own part of the slip did not. Follow the law along its slope.
  const btScalar slip = trial.slip + trial.slipPerSpeed * (speed - trial.speed);
  FrictionLaw law = trial.law;
  law.force -= law.stiffness * (slip - trial.slip);
  // The row's Newton step in its own speed: the law's stiffness per unit of row speed, and the
  // row speed, relative to where the law's slip is zero.
  law.stiffness *= trial.slipPerSpeed;
  return impulse + rowStep(law, trial.sticks, impulse, slip / trial.slipPerSpeed, trial.inverseMass,
                           trial.softness, trial.bias, dt);
}

bool ContactSolver::solveJointStep(btScalar (&joint)[kMaxJointRows][kMaxJointRows],
                                   btScalar (&wanted)[kMaxJointRows], int n) {
  // Cholesky, S = L L^T, in the lower triangle; then L y = h and L^T d = y.
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b <= a; ++b) {
      btScalar sum = joint[a][b];
      for (int k = 0; k < b; ++k) sum -= joint[a][k] * joint[b][k];
      if (a == b) {
        if (!(sum > 0)) return false;
        joint[a][a] = std::sqrt(sum);
      } else {
        joint[a][b] = sum / joint[b][b];
      }
    }
  }
  for (int a = 0; a < n; ++a) {
    for (int k = 0; k < a; ++k) wanted[a] -= joint[a][k] * wanted[k];
    wanted[a] /= joint[a][a];
  }
  for (int a = n - 1; a >= 0; --a) {
    for (int k = a + 1; k < n; ++k) wanted[a] -= joint[k][a] * wanted[k];
    wanted[a] /= joint[a][a];
  }
  return true;
}

btScalar ContactSolver::commitJointStep(SolverBody& chassis, const WheelContacts& contacts,
                                        const int* wheels, const btScalar* steps, int n,
                                        btScalar WheelContact::*impulse) {
  const bool lateral = impulse == &WheelContact::lateralImpulse;
  btScalar largest = 0;
  for (int a = 0; a < n; ++a) {
    WheelContact& contact = contacts[size_t(wheels[a])];
    const btScalar before = contact.*impulse;
    const btScalar spinBefore = contact.angularSpeed;
    commit(chassis, contact, scratch_->rows[size_t(wheels[a])],
           lateral ? contact.longitudinalImpulse : before + steps[a],
           lateral ? before + steps[a] : contact.lateralImpulse);
    spreadSpinChange(contacts, wheels[a], contact.angularSpeed - spinBefore);
    largest = std::max(largest, std::fabs(contact.*impulse - before));
  }
  return largest;
}

btScalar ContactSolver::solveLateralTogether(SolverBody& chassis, const WheelContacts& contacts, btScalar dt) {
  // The lateral rows of a car whose axles scrub one another (a tandem) fight through the
  // chassis' yaw: each row solved alone turns the chassis against the others. One Newton step of
  // them together, on their laws linearised where the pass left them, as solveSharedSpin does
  // for the driving wheels' spin: S d = h, S = K^-1 + A (K: each law's slope per m/s of row speed
  // x dt; A: the rows' joint inverse mass through the chassis), h_i = (F_i dt - lambda_i) / K_i.
  // Rows that stick, whose law is flat or falling, at their friction limit or on a dynamic body
  // keep out.
  int rows[kMaxJointRows];
  btScalar wanted[kMaxJointRows];
  btScalar joint[kMaxJointRows][kMaxJointRows];
  int n = 0;
  for (size_t wheel = 0; wheel < contacts.size() && n < kMaxJointRows; ++wheel) {
    const WheelContact& contact = contacts[wheel];
    if (!contact.active || contact.groundBody >= 0 || contact.boxFriction) continue;
    const RowTrial& trial = scratch_->trials[wheel];
    if (trial.sticks || trial.law.sticks || !(trial.law.stiffness > 0)) continue;
    if (onFrictionEllipse(contact)) continue;
    const btScalar speed = rowSpeed(chassis, contact, scratch_->rows[wheel].lateral);
    const btScalar slip = trial.slip + trial.slipPerSpeed * (speed - trial.speed);
    const btScalar force = trial.law.force - trial.law.stiffness * (slip - trial.slip);  // N
    const btScalar slope = trial.law.stiffness * trial.slipPerSpeed * dt;
    if (!(slope > kNegligibleSlope)) continue;
    wanted[n] = (force * dt - contact.lateralImpulse) / slope;
    joint[n][n] = 1 / slope + trial.inverseMass;
    rows[n++] = int(wheel);
  }
  if (n < 2) return 0;
  for (int a = 0; a < n; ++a) {
    const ContactRow& row = scratch_->rows[size_t(rows[a])].lateral;
    for (int b = 0; b < a; ++b) {
      const ContactRow& other = scratch_->rows[size_t(rows[b])].lateral;
      joint[a][b] = chassisCoupling(chassis, row, other);
    }
  }
  if (!solveJointStep(joint, wanted, n)) return 0;
  return commitJointStep(chassis, contacts, rows, wanted, n, &WheelContact::lateralImpulse);
}

btScalar ContactSolver::solveSharedSpin(SolverBody& chassis, const WheelContacts& contacts, btScalar dt) {
  // With the clutch locked the driving wheels turn with the engine, whose inertia at the wheels
  // is many times a wheel's own in a low gear: a push on one wheel's row turns the others almost
  // as much the other way (a heavy carrier makes an open differential's wheels counter-rotate),
  // and their rows, solved one at a time, meet their joint answer only slowly. Here they take one
  // Newton step together, on their laws linearised where the pass left them: S d = h, with
  // S = K^-1 + A (K: each law's slope x dt, N s per m/s; A_ij: how far row j's impulse moves row
  // i's slip, through the chassis and the wheels' spins) and h_i = (F_i dt - lambda_i) / K_i.
  // S is symmetric and positive definite (A is the rows' joint inverse mass), so a Cholesky
  // factorisation solves it. A row whose law is flat or falling, that sticks, whose brake holds
  // its wheel, at its friction limit or on a dynamic body keeps out. Converged rows have h = 0:
  // the answer the sweeps converge to is the same, only the way there is shorter.
  int shared[kMaxJointRows];
  btScalar wanted[kMaxJointRows];                  // h, then d: m/s, then N s
  btScalar joint[kMaxJointRows][kMaxJointRows];    // S: m/s per N s
  int n = 0;
  for (const int wheel : engine_->wheels()) {
    const WheelContact& contact = contacts[size_t(wheel)];
    if (n == kMaxJointRows || !contact.active || contact.groundBody >= 0 || contact.boxFriction) continue;
    const RowTrial& trial = scratch_->trials[size_t(wheel)];
    if (!trial.wheelTurns || trial.sticks || trial.law.sticks || !(trial.law.stiffness > 0)) continue;
    if (onFrictionEllipse(contact)) continue;
    // The slip now, after the wheel's own row (whose brake may have come on since the trial).
    const btScalar slip =
        rowSpeed(chassis, contact, scratch_->rows[size_t(wheel)].longitudinal) - contact.radius * contact.angularSpeed;
    const btScalar slope = trial.law.stiffness * dt;
    if (!(slope > kNegligibleSlope)) continue;
    const btScalar force = trial.law.force - trial.law.stiffness * (slip - trial.slip);  // N
    wanted[n] = (force * dt - contact.longitudinalImpulse) / slope;
    joint[n][n] = 1 / slope + trial.inverseMass;
    shared[n++] = wheel;
  }
  if (n < 2) return 0;
  for (int a = 0; a < n; ++a) {
    const ContactRow& row = scratch_->rows[size_t(shared[a])].longitudinal;
    const btScalar radius = contacts[size_t(shared[a])].radius;
    for (int b = 0; b < a; ++b) {
      const ContactRow& other = scratch_->rows[size_t(shared[b])].longitudinal;
      joint[a][b] = chassisCoupling(chassis, row, other) +
                    radius * contacts[size_t(shared[b])].radius * engine_->crossInverseInertia(shared[a], shared[b]);
    }
  }
  if (!solveJointStep(joint, wanted, n)) return 0;
  return commitJointStep(chassis, contacts, shared, wanted, n, &WheelContact::longitudinalImpulse);
}

btScalar ContactSolver::solveCounterRotation(SolverBody& chassis, const WheelContacts& contacts,
                                            const std::vector<SpinCoupling>& couplings, btScalar dt) {
  // Two driving wheels behind a locked clutch share the engine's heavy spin, and through an open
  // differential counter-rotate with only their own inertia. Where a law is past its peak the
  // joint step (solveSharedSpin) leaves its row out, and the rows one at a time could go round a
  // two-sweep cycle, each wheel thrown past the road's speed by the other's row: the sedan
  // pulling away at 1/30 s ended steps with its front wheels at +42 and -17 rad/s on a road of
  // 9.7, pushing 2.5 kN each in opposite directions (test_solver_residual.cpp). The cycle runs
  // along one direction, +t on one row and -t on the other (the chassis hardly feels it), so
  // that direction is solved as one unknown, on the tire laws themselves rather than a slope:
  // the residuals' difference, F_a dt - lambda_a - (F_b dt - lambda_b), falls with t wherever
  // the laws do not fall faster than the impulses rise, and a bracket then regula falsi (the
  // Illinois rule) find its zero within 0.1 N.
  const std::vector<int>& wheels = engine_->wheels();
  if (wheels.size() != 2) return 0;
  // A locked, limited-slip or Torsen differential's row resists the counter-rotation itself (a
  // locked one forbids it: solveLockedAxle); this is for the open one, whose wheels turn apart
  // against nothing but their tires. Taken with a limited slip, it and the row undid each other:
  // fewer steps converged than without it.
  // (A row whose limit is 0 this step, a limited slip without preload or input torque, is an
  // open differential's.)
  for (const SpinCoupling& coupling : couplings)
    if (coupling.limit > 0 && ((coupling.wheelA == wheels[0] && coupling.wheelB == wheels[1]) ||
                               (coupling.wheelA == wheels[1] && coupling.wheelB == wheels[0])))
      return 0;
  struct Side {
    int wheel;
    btScalar slip, lateralSlip, impulse;
  } side[2];
  bool pastPeak = false;
  for (int k = 0; k < 2; ++k) {
    const int wheel = wheels[size_t(k)];
    const WheelContact& contact = contacts[size_t(wheel)];
    if (!contact.active || contact.groundBody >= 0 || contact.boxFriction) return 0;
    const RowTrial& trial = scratch_->trials[size_t(wheel)];
    if (!trial.wheelTurns || trial.sticks || trial.law.sticks) return 0;
    // A row on its friction ellipse takes part too: commit() scales its side of the step back to
    // the ellipse, and the sweeps take up the difference. Left out, one of the sedan's pull-away
    // steps stopped 295 N from converged, against 64 N.
    pastPeak = pastPeak || !(trial.law.stiffness > 0);
    const ContactRows& rows = scratch_->rows[size_t(wheel)];
    side[k] = {wheel,
               rowSpeed(chassis, contact, rows.longitudinal) - contact.radius * contact.angularSpeed,
               contact.lateralSlipScale * rowSpeed(chassis, contact, rows.lateral) + contact.lateralSlipOffset,
               contact.longitudinalImpulse};
  }
  if (!pastPeak) return 0;
  // How an impulse t on the first row and -t on the second moves each one's slip (m/s per N s).
  const ContactRow& rowA = scratch_->rows[size_t(side[0].wheel)].longitudinal;
  const ContactRow& rowB = scratch_->rows[size_t(side[1].wheel)].longitudinal;
  const WheelContact& a = contacts[size_t(side[0].wheel)];
  const WheelContact& b = contacts[size_t(side[1].wheel)];
  const btScalar cross = chassisCoupling(chassis, rowA, rowB) +
                         a.radius * b.radius * engine_->crossInverseInertia(side[0].wheel, side[1].wheel);
  const btScalar selfA = scratch_->trials[size_t(side[0].wheel)].inverseMass;
  const btScalar selfB = scratch_->trials[size_t(side[1].wheel)].inverseMass;
  const btScalar perImpulse[2] = {selfA - cross, cross - selfB};
  auto residual = [&](btScalar t) {
    btScalar r[2];
    for (int k = 0; k < 2; ++k) {
      const WheelContact& contact = contacts[size_t(side[k].wheel)];
      const btScalar slip = side[k].slip + perImpulse[k] * t;
      const FrictionLaw law = contact.tire->longitudinal(contact.tireContact, slip, side[k].lateralSlip);
      r[k] = law.force * dt - (side[k].impulse + (k == 0 ? t : -t));
    }
    return r[0] - r[1];
  };
  const btScalar tolerance = btScalar(0.1) * dt;  // N s
  const btScalar atZero = residual(0);
  if (std::fabs(atZero) <= tolerance) return 0;
  // The first guess: where the difference would cross zero if both laws were flat (saturated),
  // as past the peak they nearly are; it falls by 2 a unit of t then (its impulses' own slopes),
  // faster where a law still rises. Widened by doubling, at most 8 times (256x), where a law
  // falls.
  btScalar low = 0, lowValue = atZero;
  btScalar high = atZero / 2, highValue = residual(high);
  for (int widen = 0; widen < 8 && (highValue > 0) == (atZero > 0); ++widen) {
    low = high;
    lowValue = highValue;
    high *= 2;
    highValue = residual(high);
  }
  if ((highValue > 0) == (atZero > 0)) return 0;
  const btScalar t = illinoisRoot(residual, low, lowValue, high, highValue, tolerance, kCounterRotationIterations);
  if (!std::isfinite(t)) return 0;  // a law that answered NaN within the bracket
  const int pair[2] = {side[0].wheel, side[1].wheel};
  const btScalar steps[2] = {t, -t};
  return commitJointStep(chassis, contacts, pair, steps, 2, &WheelContact::longitudinalImpulse);
}

inline ContactSolver::FrictionPair ContactSolver::frictionLimited(const WheelContact& contact,
                                                                  btScalar longitudinal,
                                                                  btScalar lateral) const {
  if (contact.boxFriction) {
    // Seed 001's handbrake: each direction on its own, each at the (x 0.85) limit.
    return {std::clamp(longitudinal, -contact.longitudinalLimit, contact.longitudinalLimit),
            std::clamp(lateral, -contact.lateralLimit, contact.lateralLimit)};
  }
  if (contact.longitudinalLimit <= 0 || contact.lateralLimit <= 0) return {0, 0};
  // Friction ellipse (seed 004, step 5): scale both onto the boundary when outside.
  const btScalar x = longitudinal * contact.inverseLongitudinalLimit;
  const btScalar y = lateral * contact.inverseLateralLimit;
  const btScalar ellipse = x * x + y * y;
  if (ellipse <= 1) return {longitudinal, lateral};
  const btScalar scale = 1 / std::sqrt(ellipse);
  return {longitudinal * scale, lateral * scale};
}

inline btScalar ContactSolver::solveLongitudinal(SolverBody& chassis, const WheelContacts& contacts,
                                                 size_t wheel, const RowTrial& trial, btScalar dt) {
  WheelContact& contact = contacts[wheel];
  const btScalar before = contact.longitudinalImpulse;
  btScalar speed = rowSpeed(chassis, contact, scratch_->rows[wheel].longitudinal);
  // A turning wheel's slip, speed - R w, follows its spin too. Within a pass only the engine's
  // coupling moves it (the rows before this one turn every driving wheel through the engine,
  // spreadSpinChange); the law, moved along its slope, must see that turn as it sees the
  // chassis' motion. Without it each driving wheel's row answered the others' only in the next
  // sweep: the sedan (engine inertia 0.12 kg m^2, in first gear 22 kg m^2 at the wheels) took
  // 5.71 sweeps a step on a gentle bend, a third of its steps stopping unconverged at the cap of
  // 8; with it 3.72, every step converged, and with the driving rows' joint step after the pass
  // (solveSharedSpin) 2.00 (test_solver_residual.cpp). Without the coupling the spin has not
  // moved and the speed is what it was, bit for bit.
  if (trial.wheelTurns) speed -= contact.radius * (contact.angularSpeed - trial.spin);
  const btScalar spinBefore = contact.angularSpeed;
  commit(chassis, contact, scratch_->rows[wheel], candidate(trial, before, speed, dt), contact.lateralImpulse);
  spreadSpinChange(contacts, int(wheel), contact.angularSpeed - spinBefore);
  return before;
}

void ContactSolver::commit(SolverBody& chassis, WheelContact& contact, const ContactRows& rows,
                           btScalar longitudinalWanted, btScalar lateralWanted) {
  const FrictionPair limited = frictionLimited(contact, longitudinalWanted, lateralWanted);
  const btScalar longitudinal = limited.longitudinal;
  const btScalar lateral = limited.lateral;
  // The wheel's spin and brake for the new friction impulse.
  const btScalar inverseInertia = contact.inverseSpinInertia;
  if (inverseInertia > 0) {
    const btScalar spinFree = freeSpin(contact);
    const btScalar needed = longitudinal * contact.radius - spinFree / inverseInertia;
    if (std::fabs(needed) <= contact.brakeImpulseLimit) {
      contact.brakeImpulse = needed;
      contact.angularSpeed = 0;
    } else {
      contact.brakeImpulse = std::copysign(contact.brakeImpulseLimit, needed);
      // The ground pushes the tire forward; on the wheel that is a torque against forward spin.
      contact.angularSpeed =
          spinFree + (contact.brakeImpulse - longitudinal * contact.radius) * inverseInertia;
    }
  }
  // One of the two usually keeps its impulse (the other direction's pass, inside the ellipse).
  if (longitudinal != contact.longitudinalImpulse)
    applyRow(chassis, contact, rows.longitudinal, longitudinal - contact.longitudinalImpulse);
  if (lateral != contact.lateralImpulse)
    applyRow(chassis, contact, rows.lateral, lateral - contact.lateralImpulse);
  contact.longitudinalImpulse = longitudinal;
  contact.lateralImpulse = lateral;
}

}  // namespace raycar
