// The cached wheel queries (CachedRayQuery, WheelQuerySettings::cache) answer bitwise what
// btCollisionWorld::rayTest answers: ray by ray on a tilted, offset mesh with boxes, a compound
// and a sphere about, and over whole drives, cache on against cache off, with a box dropped
// under a wheel.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <BulletSoftBody/btSoftBodyHelpers.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>

#include "StoredQuery.h"
#include "TestWorld.h"
#include "ground/GroundQuery.h"
#include "ground/MeshRayCache.h"
#include "ground/WheelRaycast.h"

using namespace raycar;
using namespace raycar::test;

namespace {

bool sameBits(const btVector3& a, const btVector3& b) {
  return std::memcmp(a.m_floats, b.m_floats, 3 * sizeof(btScalar)) == 0;
}

bool sameHit(const WheelRayHit& a, const WheelRayHit& b) {
  return a.hit == b.hit && a.object == b.object &&
         std::memcmp(&a.distance, &b.distance, sizeof(btScalar)) == 0 &&
         sameBits(a.point, b.point) && sameBits(a.normal, b.normal);
}

}  // namespace

// The cache tests a ray against its triangles in line, with Bullet's processTriangle's arithmetic
// operation for operation, where that agrees bit for bit with Bullet's compiled function, and
// calls that function elsewhere (MeshRayCache.cpp). On this build (x86-64, Debian's Bullet, no
// fused multiply-add on either side) the two must agree, or the cache has lost its in-line
// test's 1.4% of a car's step without saying so; the rays below then check the answers.
TEST_CASE("the cache's in-line triangle test agrees with Bullet's compiled one on this build") {
#if defined(__x86_64__) && !defined(__FMA__)
  CHECK(MeshRayCache::triangleTestInLine());
#else
  MESSAGE("in line: " << MeshRayCache::triangleTestInLine() << " (not asserted off x86-64 without FMA)");
#endif
}

TEST_CASE("cached wheel rays equal rayTest bit for bit, on meshes, boxes, compounds and spheres") {
  TestWorld world;
  // A tilted, offset mesh, so that its transform and the mesh-space ray matter.
  btTransform meshPose(btQuaternion(btVector3(1, 0, 0.3f).normalized(), 0.08f),
                       btVector3(3.2f, -0.4f, -1.7f));
  btRigidBody* ground = world.addHillMesh(40, 1, meshPose, 1);
  // Objects a wheel may meet: a resting dynamic box, a kinematic box, a compound, a sphere.
  btRigidBody* box = world.addBox(50, btVector3(0.5f, 0.3f, 0.5f),
                                  btTransform(btQuaternion(0.2f, 0.1f, 0), btVector3(1, 0.5f, 2)), 1);
  btRigidBody* platform = world.addBox(0, btVector3(1, 0.05f, 1),
                                       btTransform(btQuaternion::getIdentity(), btVector3(-3, 0.6f, 0)),
                                       1, true);
  btCompoundShape compound;
  btBoxShape plank(btVector3(1, 0.05f, 0.2f));
  compound.addChildShape(btTransform(btQuaternion(0, 0, 0.1f), btVector3(0, 0, 0)), &plank);
  compound.addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(0.5f, 0.2f, 0.6f)), &plank);
  btRigidBody compoundBody(0, nullptr, &compound);
  compoundBody.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(2, 0.4f, -3)));
  world.world().addRigidBody(&compoundBody);
  btSphereShape ball(0.4f);
  btRigidBody ballBody(0, nullptr, &ball);
  ballBody.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(-1, 0.3f, -2)));
  world.world().addRigidBody(&ballBody);
  btBoxShape ignoredShape(btVector3(0.3f, 0.3f, 0.3f));
  btRigidBody ignored(0, nullptr, &ignoredShape);  // stands in for the car's own chassis
  world.world().addRigidBody(&ignored);
  for (int i = 0; i < 30; ++i) world.step(1.0f / 120);  // the box settles, the broadphase updates

  WheelQuerySettings settings;
  settings.maxCachedTriangles = 24;
  NearbyGround nearby;
  StoredQuery stored(WheelSettings{}, settings);  // a ray wheel, cached
  GroundQuery& query = stored.ground();
  std::mt19937 random(7);
  std::uniform_real_distribution<btScalar> unit(-1, 1);
  btVector3 wheel(0, 1.0f, 0);
  int answered = 0, fromMesh = 0, onObjects = 0, onTriangleEdges = 0;
  for (int i = 0; i < 4000; ++i) {
    if (i % 500 == 250) {
      // The mesh moves (as a kinematic mesh would): its cached triangles stay valid in its frame.
      meshPose = btTransform(btQuaternion(btVector3(0, 1, 0), 0.05f), btVector3(0.1f, 0.02f, 0)) * meshPose;
      ground->setWorldTransform(meshPose);
      world.world().updateSingleAabb(ground);
    }
    // A wheel wandering over everything, tilted a little; every tenth ray on a cell corner or
    // edge of the mesh, where two or more triangles meet.
    wheel += btVector3(unit(random), 0, unit(random)) * 0.15f;
    wheel.setX(btClamped(wheel.x(), btScalar(-6), btScalar(6)));
    wheel.setZ(btClamped(wheel.z(), btScalar(-6), btScalar(6)));
    btVector3 from = wheel;
    if (i % 10 == 0) {
      const btVector3 local = meshPose.inverse() * wheel;
      const btScalar z = i % 20 == 0 ? std::round(local.z()) : local.z();
      from = meshPose * btVector3(std::round(local.x()), local.y(), z);
      ++onTriangleEdges;
    }
    const btVector3 down = btVector3(unit(random) * 0.1f, -1, unit(random) * 0.1f).normalized();
    const btVector3 to = from + down * 2.0f;
    ignored.setWorldTransform(btTransform(btQuaternion::getIdentity(), from + btVector3(0, 0.1f, 0)));
    world.world().updateSingleAabb(&ignored);

    const WheelRayHit expected = castWheelRay(world.world(), from, to, &ignored);
    WheelRayHit cached;
    btVector3 boxMin = from, boxMax = from;
    boxMin.setMin(to);
    boxMax.setMax(to);
    REQUIRE(nearby.gather(world.world(), ignored, boxMin, boxMax));
    if (!query.castNearby(nearby, GroundSweep{from, to, down * 0.05f}, false, cached)) continue;  // a tie: rayTest answers
    ++answered;
    CAPTURE(i);
    REQUIRE(sameHit(cached, expected));
    fromMesh += expected.object == ground;
    onObjects += expected.object == box || expected.object == platform ||
                 expected.object == &compoundBody || expected.object == &ballBody;
  }
  MESSAGE("answered ", answered, " of 4000; mesh ", fromMesh, ", objects ", onObjects);
  CHECK(answered > 3800);
  CHECK(fromMesh > 2000);
  CHECK(onObjects > 100);
  CHECK(onTriangleEdges == 400);
  CHECK(query.cachedTriangleCount() > 0);
  world.world().removeRigidBody(&ignored);
  world.world().removeRigidBody(&ballBody);
  world.world().removeRigidBody(&compoundBody);
}

namespace {

struct Trajectory {
  std::vector<btScalar> values;
  int stepsOnBox = 0;
  int cachedSteps = 0;
};

// A car drives and steers over hills, and at 2 s a 120 kg box drops in front of its front left
// wheel, which runs onto it.
Trajectory driveOverHillsAndBox(bool cache) {
  TestWorld world;
  world.addHillMesh(60, 1, btTransform::getIdentity(), 1);
  CarSpec spec;
  VehicleSettings settings = makeCarSettings(spec);
  settings.wheelQuery.cache = cache;
  TestCar car = addCar(world, spec,
                       btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec) + 0.8f, 0)),
                       &settings);
  RaycastVehicle& vehicle = *car.vehicle;
  Trajectory trajectory;
  btRigidBody* box = nullptr;
  auto record = [&](const btRigidBody& body) {
    const btTransform& pose = body.getWorldTransform();
    for (int row = 0; row < 3; ++row)
      for (int column = 0; column < 3; ++column)
        trajectory.values.push_back(pose.getBasis()[row][column]);
    for (const btVector3& v : {pose.getOrigin(), body.getLinearVelocity(), body.getAngularVelocity()})
      trajectory.values.insert(trajectory.values.end(), v.m_floats, v.m_floats + 3);
  };
  for (int step = 0; step < 480; ++step) {
    DriverInput input;
    input.pedal = step < 300 ? 0.5f : 0.2f;
    input.steer = 0.3f * std::sin(step * 0.02f);
    vehicle.setInput(input);
    if (step == 240) {
      // In front of the front left wheel, low enough that the wheel rolls onto it.
      const btVector3 ahead = vehicle.wheelState(0).contactPoint + vehicle.worldForward() * 1.2f +
                              btVector3(0, 0.6f, 0);
      box = world.addBox(120, btVector3(0.4f, 0.1f, 0.4f),
                         btTransform(btQuaternion::getIdentity(), ahead), 1);
      box->setActivationState(DISABLE_DEACTIVATION);
    }
    world.step(1.0f / 120);
    record(*car.chassis);
    if (box != nullptr) record(*box);
    for (int wheel = 0; wheel < vehicle.wheelCount(); ++wheel)
      trajectory.stepsOnBox += box != nullptr && vehicle.wheelState(wheel).groundObject == box;
    trajectory.cachedSteps += vehicle.cachedTriangleCount() > 0;
  }
  return trajectory;
}

}  // namespace

TEST_CASE("a drive over hills and onto a dropped box is bitwise the same with the cache on and off") {
  const Trajectory cached = driveOverHillsAndBox(true);
  const Trajectory full = driveOverHillsAndBox(false);
  MESSAGE("wheel-steps on the box: ", cached.stepsOnBox, ", steps with cached triangles: ",
          cached.cachedSteps);
  CHECK(cached.stepsOnBox > 20);       // the box really is under a wheel for a while
  CHECK(cached.cachedSteps > 400);     // and the cache really answers
  CHECK(full.cachedSteps == 0);
  REQUIRE(cached.values.size() == full.values.size());
  CHECK(std::memcmp(cached.values.data(), full.values.data(),
                    cached.values.size() * sizeof(btScalar)) == 0);
}

TEST_CASE("two objects hit at the very same fraction: the cached query leaves the ray to rayTest") {
  // Which of two coincident boxes rayTest reports depends on the broadphase's order, so the
  // cached query does not guess.
  TestWorld world;
  btRigidBody* first = world.addBox(0, btVector3(1, 0.2f, 1), btTransform::getIdentity(), 1);
  btRigidBody* second = world.addBox(0, btVector3(1, 0.2f, 1), btTransform::getIdentity(), 1);
  world.step(1.0f / 120);
  btBoxShape chassisShape(btVector3(0.1f, 0.1f, 0.1f));
  btRigidBody chassis(0, nullptr, &chassisShape);
  const btVector3 from(0.1f, 1, 0.2f), to(0.1f, -1, 0.2f);
  NearbyGround nearby;
  StoredQuery stored(WheelSettings{}, WheelQuerySettings{});  // a ray wheel, cached
  GroundQuery& query = stored.ground();
  REQUIRE(nearby.gather(world.world(), chassis, btVector3(0.1f, -1, 0.2f), btVector3(0.1f, 1, 0.2f)));
  WheelRayHit hit;
  CHECK_FALSE(query.castNearby(nearby, GroundSweep{from, to}, false, hit));
  const WheelRayHit expected = castWheelRay(world.world(), from, to, &chassis);
  CHECK((expected.object == first || expected.object == second));
}

TEST_CASE("soft bodies: the cached query leaves a ray near one to the world's rayTest, which sees it") {
  // btCollisionWorld::rayTestSingle does not see a btSoftBody; a btSoftRigidDynamicsWorld's own
  // rayTest does. A car over a cloth found the cloth with the cache off and never with it on; now
  // both find it.
  for (bool cache : {false, true}) {
    INFO("cache " << cache);
    btSoftBodyRigidBodyCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btSoftRigidDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
    world.setGravity(btVector3(0, -9.81f, 0));
    btSoftBodyWorldInfo& info = world.getWorldInfo();
    info.m_gravity = world.getGravity();
    info.m_sparsesdf.Initialize();
    // A 6 x 6 m cloth 0.3 m up, pinned at its corners.
    btSoftBody* cloth = btSoftBodyHelpers::CreatePatch(info, btVector3(-3, 0.3f, -3), btVector3(3, 0.3f, -3),
                                                       btVector3(-3, 0.3f, 3), btVector3(3, 0.3f, 3), 9, 9,
                                                       1 + 2 + 4 + 8, true);
    world.addSoftBody(cloth);
    btStaticPlaneShape planeShape(btVector3(0, 1, 0), 0);
    btRigidBody plane(0, nullptr, &planeShape);
    world.addRigidBody(&plane);
    CarSpec spec;
    VehicleSettings settings = makeCarSettings(spec);
    settings.wheelQuery.cache = cache;
    btBoxShape chassisShape(carToLocal(spec.axes, 0.9f, 0.25f, 2.1f).absolute());
    btVector3 inertia;
    chassisShape.calculateLocalInertia(spec.mass, inertia);
    btRigidBody chassis(spec.mass, nullptr, &chassisShape, inertia);
    chassis.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, 0.25f + touchdownHeight(spec), 0)));
    world.addRigidBody(&chassis);
    RaycastVehicle vehicle(chassis, settings);
    world.addAction(&vehicle);
    for (int step = 0; step < 3; ++step) world.stepSimulation(1.0f / 120, 1, 1.0f / 120);
    for (int i = 0; i < 4; ++i) {
      INFO("wheel " << i);
      CHECK(vehicle.wheelState(i).groundObject == cloth);
      CHECK(vehicle.wheelState(i).contactPoint.y() == doctest::Approx(0.3).epsilon(0.05));
    }
    world.removeAction(&vehicle);
    world.removeRigidBody(&chassis);
    world.removeRigidBody(&plane);
    world.removeSoftBody(cloth);
    delete cloth;
  }
}

TEST_CASE("triangles a wheel remembers belong to their mesh: three tiles numbered alike, and a mesh changed in place and cleared") {
  // A wheel's two mesh caches share the vertices of the last triangles its rays passed, tagged
  // with the cache that read them, and kept across refreshes of the same mesh. Three tiles whose
  // triangles have the same numbers at different heights make a cache change meshes when the
  // wheel visits them in turn: a triangle remembered from the mesh the cache held before would
  // give the wrong height. Every answer must be rayTest's, bit for bit.
  TestWorld world;
  std::vector<btRigidBody*> tiles;
  for (int tile = 0; tile < 3; ++tile) {
    const btScalar lift = 0.15f * btScalar(tile);
    tiles.push_back(world.addGridMesh(4, 1, btTransform(btQuaternion::getIdentity(), btVector3(4.0f * btScalar(tile - 1), 0, 0)),
                                      1, [lift](btScalar x, btScalar z) { return lift + 0.1f * std::sin(x + 2 * z); }));
  }
  // A mesh of its own, whose vertices the test changes in place.
  std::vector<btScalar> vertices;
  std::vector<int> indices;
  for (int row = 0; row <= 4; ++row)
    for (int column = 0; column <= 4; ++column)
      vertices.insert(vertices.end(), {btScalar(column) - 2, 0.05f * btScalar(row % 2), btScalar(row) - 2});
  for (int row = 0; row < 4; ++row)
    for (int column = 0; column < 4; ++column) {
      const int a = row * 5 + column, b = a + 1, c = a + 5, d = c + 1;
      indices.insert(indices.end(), {a, c, b, b, c, d});
    }
  btTriangleIndexVertexArray changingMesh(int(indices.size() / 3), indices.data(), int(3 * sizeof(int)),
                                          int(vertices.size() / 3), vertices.data(), int(3 * sizeof(btScalar)));
  btBvhTriangleMeshShape changingShape(&changingMesh, true);
  btCollisionObject changing;
  changing.setCollisionShape(&changingShape);
  changing.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, -1, 8)));
  world.world().addCollisionObject(&changing);
  world.world().updateAabbs();

  WheelQuerySettings settings;
  settings.maxCachedTriangles = 24;
  NearbyGround nearby;
  StoredQuery stored(WheelSettings{}, settings);
  GroundQuery& query = stored.ground();
  btBoxShape selfShape(btVector3(0.1f, 0.1f, 0.1f));
  btCollisionObject self;  // stands in for the car's own chassis, far from everything
  self.setCollisionShape(&selfShape);
  self.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, 50, 0)));
  world.world().addCollisionObject(&self);
  world.world().updateAabbs();
  // True when the cached query answers the ray straight down from `from`, from its cache, with
  // rayTest's hit. (No REQUIRE inside: the objects above must leave the world before it goes.)
  auto castMatches = [&](const btVector3& from) {
    const btVector3 to = from - btVector3(0, 2, 0);
    const WheelRayHit expected = castWheelRay(world.world(), from, to, &self);
    btVector3 boxMin = from, boxMax = from;
    boxMin.setMin(to);
    boxMax.setMax(to);
    if (!nearby.gather(world.world(), self, boxMin, boxMax)) return false;
    WheelRayHit cached;
    return query.castNearby(nearby, GroundSweep{from, to, btVector3(0, 0, 0)}, false, cached) &&
           query.cachedTriangleCount() > 0 && expected.hit && sameHit(cached, expected);
  };

  // The same point of each tile in turn, as a car moved from tile to tile would see it: the
  // caches take the first two tiles, then the third replaces the first, whose triangles the
  // wheel remembers under the same numbers.
  std::mt19937 random(11);
  std::uniform_real_distribution<btScalar> local(-1.8f, 1.8f);
  int firstMismatch = -1;  // round x 3 + tile
  for (int round = 0; round < 200 && firstMismatch < 0; ++round) {
    const btVector3 point(local(random), 1, local(random));
    for (int tile = 0; tile < 3 && firstMismatch < 0; ++tile)
      if (!castMatches(point + btVector3(4.0f * btScalar(tile - 1), 0, 0))) firstMismatch = 3 * round + tile;
  }
  CHECK(firstMismatch == -1);

  // On the mesh of its own, then with every vertex raised 0.2 m in place and the BVH refitted:
  // after clear(), as RaycastVehicle::clearWheelQueryCache does it, the raised triangles answer.
  // Either way of clearing (the set's forgetting all, or each cache's at its next refresh, as
  // its mesh no longer matches) must do.
  const btVector3 onChanging(0.3f, 0.5f, 8.4f);
  CHECK(castMatches(onChanging));
  for (size_t v = 1; v < vertices.size(); v += 3) vertices[v] += 0.2f;
  changingShape.refitTree(btVector3(-3, -2, -3), btVector3(3, 2, 3));
  world.world().updateSingleAabb(&changing);
  query.clear();
  CHECK(castMatches(onChanging));
  const WheelRayHit raised = castWheelRay(world.world(), onChanging, onChanging - btVector3(0, 2, 0), &self);
  CHECK(raised.point.y() > -0.85f);  // -1 + 0 or 0.05, raised by 0.2

  world.world().removeCollisionObject(&self);
  world.world().removeCollisionObject(&changing);
}

TEST_CASE("the branch-free leaf test answers as Bullet's testQuantizedAabbAgainstQuantizedAabb") {
  // Every way one axis can place two boxes (apart, touching at either end, overlapping,
  // nested, equal), at the quantisation's two ends, on each axis in turn; then random boxes.
  struct AxisCase {
    unsigned short queryMin, queryMax, leafMin, leafMax;
  };
  const AxisCase axisCases[] = {
      {10, 20, 30, 40},  {10, 20, 20, 40},       {10, 20, 21, 40},  {30, 40, 10, 20},
      {30, 40, 10, 30},  {30, 40, 10, 29},       {10, 40, 20, 30},  {20, 30, 10, 40},
      {15, 15, 15, 15},  {0, 0, 0, 65535},       {65535, 65535, 0, 65535},
      {0, 65535, 65535, 65535}, {0, 0, 1, 65535}, {65534, 65535, 0, 65533},
  };
  const unsigned short inside[2] = {0, 65535};  // the other axes: the whole range, always overlapping
  int overlapping = 0, apart = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (const AxisCase& c : axisCases) {
      unsigned short queryMin[3], queryMax[3];
      CachedLeaf leaf{};
      for (int other = 0; other < 3; ++other) {
        queryMin[other] = leaf.quantizedMin[other] = inside[0];
        queryMax[other] = leaf.quantizedMax[other] = inside[1];
      }
      queryMin[axis] = c.queryMin;
      queryMax[axis] = c.queryMax;
      leaf.quantizedMin[axis] = c.leafMin;
      leaf.quantizedMax[axis] = c.leafMax;
      const bool bullet =
          testQuantizedAabbAgainstQuantizedAabb(queryMin, queryMax, leaf.quantizedMin, leaf.quantizedMax) != 0;
      INFO("axis " << axis << ": query [" << c.queryMin << ", " << c.queryMax << "], leaf [" << c.leafMin
                   << ", " << c.leafMax << "]");
      CHECK(QuantizedBoxTest(queryMin, queryMax).overlaps(leaf) == bullet);
      (bullet ? overlapping : apart)++;
    }
  }
  CHECK(overlapping > 0);  // both answers are exercised
  CHECK(apart > 0);
  std::mt19937 random(20261127);
  std::uniform_int_distribution<int> coordinate(0, 65535), extent(0, 3000);
  std::vector<CachedLeaf> leaves(70);  // more than two masks of 32
  for (int round = 0; round < 200; ++round) {
    unsigned short queryMin[3], queryMax[3];
    for (int axis = 0; axis < 3; ++axis) {
      queryMin[axis] = static_cast<unsigned short>(coordinate(random));
      queryMax[axis] = static_cast<unsigned short>(std::min(65535, queryMin[axis] + extent(random)));
    }
    for (CachedLeaf& leaf : leaves) {
      for (int axis = 0; axis < 3; ++axis) {
        // Near the query, so that about half overlap on each axis.
        const int centre = queryMin[axis] + extent(random) - 1500;
        leaf.quantizedMin[axis] = static_cast<unsigned short>(std::clamp(centre - extent(random) / 2, 0, 65535));
        leaf.quantizedMax[axis] =
            static_cast<unsigned short>(std::clamp(int(leaf.quantizedMin[axis]) + extent(random), 0, 65535));
      }
    }
    const QuantizedBoxTest test(queryMin, queryMax);
    const int count = 1 + round % int(leaves.size());
    for (int first = 0; first < count; first += 32) {
      const std::uint32_t mask = test.overlapMask(leaves.data(), first, count);
      for (int bit = 0; bit < 32; ++bit) {
        const int i = first + bit;
        const bool bullet = i < count && testQuantizedAabbAgainstQuantizedAabb(
                                             queryMin, queryMax, leaves[size_t(i)].quantizedMin,
                                             leaves[size_t(i)].quantizedMax) != 0;
        INFO("round " << round << ", leaf " << i << " of " << count);
        CHECK(((mask >> bit) & 1u) == (bullet ? 1u : 0u));
        if (bullet) ++overlapping; else ++apart;
      }
    }
  }
}

// A VehicleGroup gathers the objects near a run of its cars in one walk of the broadphase
// (NearbyObjectsBatch); each car must get what its own walk (NearbyObjects::gather) gives: the
// same objects in the same order, and no answer where its own walk has none (a crowd beyond the
// capacity). Boxes of every size over a world of scattered, clustered, static, dynamic and
// filtered objects, each box leaving out one object as a car leaves out its chassis.
TEST_CASE("a batch of boxes gathers what each box's own walk of the broadphase gathers, in order") {
  TestWorld world;
  std::mt19937 random(7);
  std::uniform_real_distribution<btScalar> across(-60, 60), size(0.2f, 3);
  std::vector<btRigidBody*> objects;
  objects.push_back(world.addHillMesh(150, 5, btTransform::getIdentity(), 1));
  for (int i = 0; i < 400; ++i) {
    // Every fifth object in a tight cluster, so that some boxes meet more than the capacity.
    const bool clustered = i % 5 == 0;
    const btVector3 at = clustered ? btVector3(across(random) * 0.02f, 1, across(random) * 0.02f)
                                   : btVector3(across(random), across(random) * 0.05f, across(random));
    btRigidBody* box = world.addBox(i % 3 == 0 ? 0 : 10, btVector3(size(random), size(random), size(random)),
                                    btTransform(btQuaternion::getIdentity(), at), 1);
    if (i % 7 == 0) box->setCollisionFlags(box->getCollisionFlags() | btCollisionObject::CF_NO_CONTACT_RESPONSE);
    objects.push_back(box);
  }
  world.step(1 / 60.f);  // the broadphase's trees as a running world has them

  constexpr int kCapacity = 32;
  for (const int batchSize : {1, 7, 32}) {
    CAPTURE(batchSize);
    NearbyObjectsBatch batch(batchSize, kCapacity);
    int crowded = 0, compared = 0;
    for (int round = 0; round < 12; ++round) {
      batch.clear();
      std::vector<std::pair<btVector3, btVector3>> boxes;
      std::vector<const btCollisionObject*> ignored;
      while (!batch.full()) {
        // By turns: on the cluster (a crowd), wide, and small anywhere.
        const int kind = int(boxes.size() + size_t(round)) % 3;
        const btVector3 centre = kind == 0 ? btVector3(0, 1, 0)
                                           : btVector3(across(random), across(random) * 0.05f, across(random));
        const btScalar half = kind == 0 ? 3 : kind == 1 ? 15 : size(random);
        const btVector3 boxMin = centre - btVector3(half, 2, half), boxMax = centre + btVector3(half, 2, half);
        boxes.emplace_back(boxMin, boxMax);
        ignored.push_back(objects[size_t(random() % objects.size())]);
        batch.add(boxMin, boxMax, ignored.back());
      }
      REQUIRE(batch.gather(world.world(), WheelRayCallback(btVector3(0, 0, 0), btVector3(0, 0, 0), nullptr)));
      for (size_t b = 0; b < boxes.size(); ++b) {
        NearbyObjects own(kCapacity);
        const bool ownAnswered = own.gather(world.world(), boxes[b].first, boxes[b].second,
                                            WheelRayCallback(boxes[b].first, boxes[b].second, ignored[b]));
        const NearbyObject* first = nullptr;
        size_t count = 0;
        const bool batchAnswered = batch.objects(int(b), first, count);
        REQUIRE(batchAnswered == ownAnswered);
        crowded += !ownAnswered;
        if (!ownAnswered) continue;
        REQUIRE(count == own.objects().size());
        for (size_t k = 0; k < count; ++k) {
          CHECK(first[k].object == own.objects()[k].object);
          CHECK(first[k].leaf == own.objects()[k].leaf);
        }
        compared += int(count);
      }
    }
    // The cases the comparison is about happened: crowds past the capacity, and many objects.
    CHECK(crowded > 0);
    CHECK(compared > 20 * batchSize);
  }
}

TEST_CASE("a car takes its batched nearby objects only for the very box and chassis they were gathered for") {
  TestWorld world;
  btRigidBody* ground = world.addHillMesh(40, 2, btTransform::getIdentity(), 1);
  btRigidBody* chassis = world.addBox(100, btVector3(1, 0.3f, 2), btTransform(btQuaternion::getIdentity(), btVector3(0, 2, 0)), 1);
  btRigidBody* other = world.addBox(100, btVector3(1, 0.3f, 2), btTransform(btQuaternion::getIdentity(), btVector3(0, 2, 5)), 1);
  world.step(1 / 60.f);
  const btVector3 boxMin(-1, -1, -3), boxMax(1, 3, 3);
  NearbyGroundBatch batch;
  batch.clear();
  const int slot = batch.add(*chassis, boxMin, boxMax);
  batch.gather(world.world());
  NearbyObjects taken(32);
  bool answered = false;
  // Its own box and chassis: the ground and the other car, not itself.
  REQUIRE(batch.answer(slot, *chassis, boxMin, boxMax, taken, answered));
  CHECK(answered);
  std::vector<const btCollisionObject*> found;
  for (const NearbyObject& object : taken.objects()) found.push_back(object.object);
  CHECK(std::count(found.begin(), found.end(), ground) == 1);
  CHECK(std::count(found.begin(), found.end(), other) == 1);
  CHECK(std::count(found.begin(), found.end(), chassis) == 0);
  // Another box (a millimetre longer: the car moved since), another chassis, or no slot: the car
  // walks on its own.
  CHECK_FALSE(batch.answer(slot, *chassis, boxMin, btVector3(1, 3, 3.001f), taken, answered));
  CHECK_FALSE(batch.answer(slot, *other, boxMin, boxMax, taken, answered));
  CHECK_FALSE(batch.answer(-1, *chassis, boxMin, boxMax, taken, answered));
  // A batch cleared since is no answer.
  batch.clear();
  CHECK_FALSE(batch.answer(slot, *chassis, boxMin, boxMax, taken, answered));
}

// A rear wheel's ray, tilted forwards as the front of the car climbs a 12 cm kerb, can meet the
// kerb's vertical face before the road: taken, that hit gave a contact normal across the road,
// and the suspension pushed along it through 1 / cos of the ray's 4 degrees (a trial's car
// stopped at the kerb from 21 km/h, 195 kN on a rear wheel). A wheel passes over a hit whose
// normal leans more than 80 degrees from its ray's reverse, and the ray goes on to the road under
// the kerb; cached and rayTest alike, bit for bit. The ray, from 0.5 m up and 3 cm short of the
// face, tilted 4 degrees, crosses the face 7.1 cm up (0.03 / tan 4 deg short of 0.5 m).
TEST_CASE("a wheel's ray passes over a kerb's vertical face to the road beyond it") {
  for (const bool roadUnderKerb : {true, false}) {
    CAPTURE(roadUnderKerb);
    TestWorld world;
    btTriangleMesh mesh;
    auto quad = [&mesh](const btVector3& a, const btVector3& b, const btVector3& c, const btVector3& d) {
      mesh.addTriangle(a, b, c);
      mesh.addTriangle(a, c, d);
    };
    const btScalar kerb = 0.12f;  // m
    // The road, under the kerb too or up to its face only (a kerb modelled as an open step).
    const btScalar roadEnd = roadUnderKerb ? 2 : 0;
    quad(btVector3(-2, 0, -2), btVector3(-2, 0, roadEnd), btVector3(2, 0, roadEnd), btVector3(2, 0, -2));
    quad(btVector3(-2, 0, 0), btVector3(-2, kerb, 0), btVector3(2, kerb, 0), btVector3(2, 0, 0));  // its face, towards -z
    quad(btVector3(-2, kerb, 0), btVector3(-2, kerb, 2), btVector3(2, kerb, 2), btVector3(2, kerb, 0));  // its top
    btBvhTriangleMeshShape shape(&mesh, true);
    btRigidBody ground(0, nullptr, &shape);
    world.world().addRigidBody(&ground);
    btBoxShape chassisShape(btVector3(0.3f, 0.1f, 0.3f));
    btRigidBody chassis(0, nullptr, &chassisShape);  // stands in for the car's own chassis
    chassis.setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, 1.5f, -1)));
    world.world().addRigidBody(&chassis);
    world.step(1.0f / 120);

    const btScalar tilt = btRadians(4);
    const btVector3 down = btVector3(0, -std::cos(tilt), std::sin(tilt));
    const btVector3 from(0, 0.5f, -0.03f);
    const btVector3 to = from + down * 1.0f;
    const WheelRayHit expected = castWheelRay(world.world(), from, to, &chassis);
    if (roadUnderKerb) {
      REQUIRE(expected.hit);
      CHECK(expected.object == &ground);
      CHECK(expected.normal.y() == doctest::Approx(1));            // the road's, not the face's (0, 0, -1)
      CHECK(expected.point.y() == doctest::Approx(0).scale(1));    // on the road, 0.071 m below the face's hit
      // 0.5 m down the tilted ray, to float rounding (a few 1e-7 of it).
      CHECK(expected.distance == doctest::Approx(0.5 / std::cos(tilt)).epsilon(1e-5));
    } else {
      CHECK_FALSE(expected.hit);  // nothing beyond the face: no ground this step, as over a drop
    }

    StoredQuery stored(WheelSettings{}, WheelQuerySettings{});  // a ray wheel, cached
    NearbyGround nearby;
    btVector3 boxMin = from, boxMax = from;
    boxMin.setMin(to);
    boxMax.setMax(to);
    REQUIRE(nearby.gather(world.world(), chassis, boxMin, boxMax));
    WheelRayHit cached;
    REQUIRE(stored.ground().castNearby(nearby, GroundSweep{from, to, btVector3(0, 0, 0)}, false, cached));
    CHECK(sameHit(cached, expected));
    world.world().removeRigidBody(&chassis);
    world.world().removeRigidBody(&ground);
  }
}

namespace {

// A level: its world and a flat triangle mesh at `height`, the mesh's body, shape and tree built
// in storage the game's pools hand out again (`slots`), so that the next level's terrain has the
// last one's addresses, and its new broadphase numbers its objects from the start again.
struct TerrainSlots {
  alignas(16) unsigned char body[sizeof(btRigidBody)];
  alignas(16) unsigned char shape[sizeof(btBvhTriangleMeshShape)];
  alignas(16) unsigned char tree[sizeof(btOptimizedBvh)];
};
struct PooledLevel {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
  btTriangleMesh mesh;
  btOptimizedBvh* tree = nullptr;
  btBvhTriangleMeshShape* shape = nullptr;
  btRigidBody* ground = nullptr;
  PooledLevel(TerrainSlots& slots, btScalar height) {
    world.setGravity(btVector3(0, -9.81f, 0));
    mesh.addTriangle(btVector3(-50, height, -50), btVector3(-50, height, 50), btVector3(50, height, 50));
    mesh.addTriangle(btVector3(-50, height, -50), btVector3(50, height, 50), btVector3(50, height, -50));
    shape = new (slots.shape) btBvhTriangleMeshShape(&mesh, true, false);
    tree = new (slots.tree) btOptimizedBvh();
    btVector3 low, high;
    mesh.calculateAabbBruteForce(low, high);
    tree->build(&mesh, true, low, high);
    shape->setOptimizedBvh(tree);
    ground = new (slots.body) btRigidBody(0, nullptr, shape);
    world.addRigidBody(ground);
  }
  ~PooledLevel() {
    world.removeRigidBody(ground);
    ground->~btRigidBody();
    shape->~btBvhTriangleMeshShape();
    tree->~btOptimizedBvh();
  }
};

}  // namespace

TEST_CASE("a car moved to another level stands on that level's ground, though the pools gave it the old one's addresses") {
  // The wheels' cached triangles are named by their object's, shape's and tree's addresses and
  // its broadphase number; a reloaded level whose pools hand out the same slots, in a new world
  // that numbers its objects afresh, had them all alike: the car kept standing on the old
  // terrain, 0.3 m into the new one (an independent review). A vehicle stepped by another world
  // forgets its cached triangles, and so does resetMotion (the new world may even take the old
  // one's address). Each case: after 1 s the wheels' contacts are on the new terrain, 0.3 m up,
  // to rounding (1e-4 m).
  CarSpec spec;
  const VehicleSettings settings = makeCarSettings(spec);
  btBoxShape chassisShape(btVector3(0.9f, 0.25f, 2.1f));
  btVector3 inertia;
  chassisShape.calculateLocalInertia(spec.mass, inertia);
  for (const bool sameAddress : {false, true}) {
    CAPTURE(sameAddress);
    btRigidBody chassis(spec.mass, nullptr, &chassisShape, inertia);
    chassis.setActivationState(DISABLE_DEACTIVATION);
    chassis.setCenterOfMassTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
    TerrainSlots slots;
    alignas(PooledLevel) unsigned char levelStorage[2][sizeof(PooledLevel)];
    auto* first = new (levelStorage[0]) PooledLevel(slots, 0);
    first->world.addRigidBody(&chassis);
    RaycastVehicle car(chassis, settings);  // (its automatic springs read the world's gravity)
    first->world.addAction(&car);
    for (int i = 0; i < 120; ++i) first->world.stepSimulation(kStep, 1, kStep);
    REQUIRE(std::fabs(car.wheelState(0).contactPoint.y()) < 1e-4);
    REQUIRE(car.cachedTriangleCount() > 0);
    first->world.removeAction(&car);
    first->world.removeRigidBody(&chassis);
    first->~PooledLevel();  // unloaded; its world's storage reused only in the second case
    PooledLevel* next = new (levelStorage[sameAddress ? 0 : 1]) PooledLevel(slots, 0.3f);
    chassis.setCenterOfMassTransform(btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec) + 0.3f, 0)));
    chassis.setLinearVelocity(btVector3(0, 0, 0));
    chassis.setAngularVelocity(btVector3(0, 0, 0));
    next->world.addRigidBody(&chassis);
    if (sameAddress) car.resetMotion();  // a teleport, as README's "Moving a car" asks
    next->world.addAction(&car);
    for (int i = 0; i < 120; ++i) next->world.stepSimulation(kStep, 1, kStep);
    for (int wheel = 0; wheel < car.wheelCount(); ++wheel) {
      CAPTURE(wheel);
      CHECK(car.wheelState(wheel).inContact);
      CHECK(std::fabs(car.wheelState(wheel).contactPoint.y() - 0.3) < 1e-4);
    }
    next->world.removeAction(&car);
    next->world.removeRigidBody(&chassis);
    next->~PooledLevel();
  }
}

TEST_CASE("a car whose chassis is in another world than the one stepping it does nothing to it") {
  // Half moved between levels (its chassis in the next world, its action left in the last), the
  // car had held its chassis up on the last world's ground: at 0.63 m over a world without any.
  // It now leaves a chassis that is not in the stepping world alone, as one out of every world:
  // in the next world the chassis falls freely: after n steps of dt, g dt^2 n (n + 1) / 2, as
  // Bullet's integration (velocity first, then position) takes it (to 0.1 mm: float rounding).
  CarSpec spec;
  TestWorld last, next;
  last.addStaticPlane(btVector3(0, 1, 0), btVector3(0, 0, 0), 1);
  TestCar car = addCar(last, spec, btTransform(btQuaternion::getIdentity(), btVector3(0, restHeight(spec), 0)));
  last.step(kStep);
  last.world().removeRigidBody(car.chassis);
  car.chassis->setLinearVelocity(btVector3(0, 0, 0));
  car.chassis->setAngularVelocity(btVector3(0, 0, 0));
  next.world().addRigidBody(car.chassis);
  const btScalar start = car.chassis->getCenterOfMassPosition().y();
  const int steps = 60;
  for (int i = 0; i < steps; ++i) {
    last.step(kStep);  // the car, still the last world's action
    next.step(kStep);  // its chassis
  }
  const double fallen = start - car.chassis->getCenterOfMassPosition().y();
  CHECK(std::fabs(fallen - 9.81 * kStep * kStep * steps * (steps + 1) / 2) < 1e-4);
  next.world().removeRigidBody(car.chassis);
  last.world().addRigidBody(car.chassis);  // back where TestWorld frees it
}
