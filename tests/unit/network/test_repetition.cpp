// Repeated activities (Activity::repeat, after_previous, after_same) against the same schedule
// unrolled into one activity per repetition: same times and bytes, whether the engine simulates
// every repetition or fast-forwards a group that repeats an exact template (and materialises it
// when other traffic arrives on its links).
#include <catch2/catch.hpp>

#include <numeric>

#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::Activity;
using network::FlowNetwork;
using network::RunResult;
using network::Schedule;
using test::compute;
using test::kRate;
using test::leaf_spine;
using test::transfer;

namespace {

/// The schedule with one activity per repetition; index[i][r] = repetition r of activity i.
Schedule unroll(const Schedule& s, std::vector<std::vector<int>>& index) {
  Schedule u;
  u.gpu_flops = s.gpu_flops;
  const int n = static_cast<int>(s.activities.size());
  index.assign(n, {});
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < s.activities[i].repeat; ++r) {
      index[i].push_back(static_cast<int>(u.activities.size()));
      Activity a = s.activities[i];
      a.repeat = 1;
      a.after.clear();
      a.after_previous.clear();
      a.after_same.clear();
      u.activities.push_back(a);
    }
  for (int i = 0; i < n; ++i) {
    const Activity& a = s.activities[i];
    for (int r = 0; r < a.repeat; ++r) {
      auto& after = u.activities[index[i][r]].after;
      if (r == 0)
        for (int p : a.after) after.push_back(index[p].back());
      if (r > 0) after.push_back(index[i][r - 1]);
      if (r > 0)
        for (int p : a.after_previous) after.push_back(index[p][r - 1]);
      for (int p : a.after_same) after.push_back(index[p][r]);
    }
  }
  return u;
}

/// Runs s and its unrolled twin; checks start/finish per activity and bytes per link.
RunResult same_as_unrolled(FlowNetwork& net, const Schedule& s) {
  std::vector<std::vector<int>> idx;
  const Schedule u = unroll(s, idx);
  const RunResult a = net.run(s), b = net.run(u);
  for (std::size_t i = 0; i < s.activities.size(); ++i) {
    INFO("activity " << i);
    CHECK(a.start[i] == Approx(b.start[idx[i].front()]).epsilon(1e-9).margin(1e-15));
    CHECK(a.finish[i] == Approx(b.finish[idx[i].back()]).epsilon(1e-9));
  }
  CHECK(a.makespan == Approx(b.makespan).epsilon(1e-9));
  for (std::size_t l = 0; l < a.link_bytes_fwd.size(); ++l) {
    CHECK(a.link_bytes_fwd[l] == Approx(b.link_bytes_fwd[l]).epsilon(1e-12));
    CHECK(a.link_bytes_rev[l] == Approx(b.link_bytes_rev[l]).epsilon(1e-12));
  }
  return a;
}

/// A ring over `gpus` (in order): transfer i sends `bytes` to the next GPU `steps` times, each
/// step after the previous one's transfer into its source (ring all-gather / reduce-scatter).
void add_ring(Schedule& s, const std::vector<int>& gpus, double bytes, int steps, std::vector<int> after = {}) {
  const int n = static_cast<int>(gpus.size());
  const int first = static_cast<int>(s.activities.size());
  for (int i = 0; i < n; ++i) {
    Activity a = transfer(gpus[i], gpus[(i + 1) % n], bytes, 100 + i, after);
    a.repeat = steps;
    a.after_previous = {first + (i + n - 1) % n};
    s.activities.push_back(a);
  }
}

}  // namespace

TEST_CASE("a symmetric ring on one switch: every step after the first is fast-forwarded, exactly",
          "[network][repeat]") {
  const auto f = topology::build_fabric(leaf_spine(16, 32, 16));  // one leaf: every hop GPU-leaf-GPU
  FlowNetwork net(f);
  Schedule s;
  std::vector<int> ring(16);
  std::iota(ring.begin(), ring.end(), 0);
  add_ring(s, ring, 1e7, 30);
  const auto r = same_as_unrolled(net, s);
  const double lat = f.latency(f.route(0, 1, 0));
  CHECK(r.makespan == Approx(30 * (lat + 1e7 / kRate)).epsilon(1e-9));
  CHECK(r.repetitions_fast_forwarded >= 16 * 28);
}

TEST_CASE("traffic arriving mid-ring materialises the fast-forwarded steps: same as unrolled", "[network][repeat]") {
  const auto f = topology::build_fabric(leaf_spine(16, 32, 16));
  FlowNetwork net(f);
  Schedule s;
  s.gpu_flops = {1e15};
  std::vector<int> ring(8);
  std::iota(ring.begin(), ring.end(), 0);
  add_ring(s, ring, 1e7, 40);
  // A computation ends in the middle of step ~10, then GPU 9 sends to GPU 3 (shares 3's NIC
  // downlink with the ring's flow into 3); later another one during a latency phase.
  const double step = f.latency(f.route(0, 1, 0)) + 1e7 / kRate;
  s.activities.push_back(compute(9, 1e15 * step * 10.37));
  s.activities.push_back(transfer(9, 3, 3e7, 7, {8}));
  s.activities.push_back(compute(10, 1e15 * (step * 25 + 1e-7)));
  s.activities.push_back(transfer(10, 5, 1e6, 8, {10}));
  const auto r = same_as_unrolled(net, s);
  CHECK(r.repetitions_fast_forwarded > 0);
  CHECK(r.makespan > 40 * step * 1.01);  // the interference slowed the ring down
}

TEST_CASE("a transfer that materialises a fast-forwarded ring runs on its own route", "[network][repeat]") {
  // As above, with a long transfer 9 -> 12 on GPU 9's uplink (no link of the ring's): the
  // transfer 9 -> 3 arriving mid-ring must share that uplink (and GPU 3's downlink with 2 -> 3),
  // not the links of the ring flow its start re-created last (a start that materialised a group
  // once reused a scratch buffer the group's own starts had overwritten, which a symmetric ring
  // does not show).
  const auto f = topology::build_fabric(leaf_spine(16, 32, 16));
  FlowNetwork net(f);
  Schedule s;
  s.gpu_flops = {1e15};
  std::vector<int> ring(8);
  std::iota(ring.begin(), ring.end(), 0);
  add_ring(s, ring, 1e7, 40);
  const double step = f.latency(f.route(0, 1, 0)) + 1e7 / kRate;
  s.activities.push_back(transfer(9, 12, 60 * 1e7, 9));
  s.activities.push_back(compute(9, 1e15 * step * 10.37));
  s.activities.push_back(transfer(9, 3, 3e7, 7, {9}));
  const auto r = same_as_unrolled(net, s);
  CHECK(r.repetitions_fast_forwarded > 0);
}

TEST_CASE("rings across leaves with hash collisions and oversubscription: same as unrolled", "[network][repeat]") {
  const auto f = topology::build_fabric(leaf_spine(64, 16, 8, 2.0));
  FlowNetwork net(f);
  Schedule s;
  std::vector<int> a, b;
  for (int i = 0; i < 8; ++i) a.push_back(i * 8), b.push_back(i * 8 + 1);  // two rings, one GPU per leaf
  add_ring(s, a, 5e6, 14);
  add_ring(s, b, 5e6, 14);
  same_as_unrolled(net, s);
}

TEST_CASE("pipelined chunks (after_same), repeated computations and whole-activity dependencies", "[network][repeat]") {
  const auto f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule s;
  s.gpu_flops = {1e15};
  Activity c0 = compute(0, 1e11);
  c0.repeat = 5;
  s.activities.push_back(c0);  // 0: 5 x 0.1 ms on GPU 0
  Activity t1 = transfer(0, 5, 2e6, 1, {0});
  t1.repeat = 6;
  s.activities.push_back(t1);  // 1: chain hop 0 -> 5
  Activity t2 = transfer(5, 10, 2e6, 2, {0});
  t2.repeat = 6;
  t2.after_same = {1};
  s.activities.push_back(t2);  // 2: hop 5 -> 10, chunk r after chunk r
  Activity t3 = transfer(10, 15, 2e6, 3, {0});
  t3.repeat = 6;
  t3.after_same = {2};
  s.activities.push_back(t3);                            // 3
  s.activities.push_back(transfer(15, 0, 1e6, 4, {3}));  // 4: after all chunks
  const auto r = same_as_unrolled(net, s);
  CHECK(r.finish[0] == Approx(5 * 1e-4).epsilon(1e-9));
}

TEST_CASE("the link timeline of repeated activities is the unrolled one", "[network][repeat][timeline]") {
  const auto f = topology::build_fabric(leaf_spine(16, 32, 16));
  FlowNetwork net(f);
  net.set_timeline_bins(16);
  Schedule s;
  std::vector<int> ring(16);
  std::iota(ring.begin(), ring.end(), 0);
  add_ring(s, ring, 1e7, 24);
  std::vector<std::vector<int>> idx;
  const auto a = net.run(s), b = net.run(unroll(s, idx));
  REQUIRE(a.repetitions_fast_forwarded > 0);
  REQUIRE(a.timeline_bins == b.timeline_bins);
  REQUIRE(a.timeline_links == b.timeline_links);
  const std::vector<double> da = a.timeline_dense(), db = b.timeline_dense();
  for (std::size_t k = 0; k < da.size(); ++k) CHECK(da[k] == Approx(db[k]).epsilon(1e-6).margin(1.0));
}

/// 4 nodes of 4 GPUs (one NVLink domain each, 900 GB/s) on one leaf: a ring in rank order mixes
/// NVLink hops and NIC hops (50 GB/s), so its steps never start and end together.
topology::FabricSpec nvlink_nodes(int nodes, int per_node) {
  auto fs = leaf_spine(nodes * per_node, 64, nodes * per_node);
  fs.gpus_per_node = per_node;
  fs.nvlink_domain = per_node;
  fs.nvlink_bandwidth = 900e9;
  return fs;
}

TEST_CASE("rings mixing NVLink and NIC hops: whole periods skipped, same as unrolled", "[network][repeat][periodic]") {
  const auto f = topology::build_fabric(nvlink_nodes(4, 4));
  FlowNetwork net(f);
  Schedule s;
  std::vector<int> ring(16), ring2;
  std::iota(ring.begin(), ring.end(), 0);
  add_ring(s, ring, 4e6, 60);
  // A second ring, rail-aligned the other way through each node (shares the NVLink ports of the
  // first one at other phases).
  for (int n = 3; n >= 0; --n)
    for (int g = 0; g < 4; ++g) ring2.push_back(4 * n + (g + 1) % 4);
  add_ring(s, ring2, 4e6, 60);
  const auto r = same_as_unrolled(net, s);
  // The first steps settle, the last ones are simulated again: most are skipped.
  CHECK(r.repetitions_fast_forwarded > 32 * 40);
  // The NIC hops set the pace: 60 steps of (4 MB at 50 GB/s + latency) at least.
  CHECK(r.makespan > 60 * 4e6 / kRate);
}

TEST_CASE("periodic fast-forward with the link timeline: same timeline and times as unrolled",
          "[network][repeat][periodic][timeline]") {
  // The two rail-aligned rings of the case above, with the timeline on (as in `aidcsim run`):
  // jumps end before each bin boundary, so the skipped periods' bytes land in the bins the
  // simulated periods would have put them in. Few wide bins (hint) and many narrow ones.
  const auto f = topology::build_fabric(nvlink_nodes(4, 4));
  Schedule s;
  std::vector<int> ring(16), ring2;
  std::iota(ring.begin(), ring.end(), 0);
  add_ring(s, ring, 4e6, 200);
  for (int n = 3; n >= 0; --n)
    for (int g = 0; g < 4; ++g) ring2.push_back(4 * n + (g + 1) % 4);
  add_ring(s, ring2, 4e6, 200);
  std::vector<std::vector<int>> idx;
  const Schedule u = unroll(s, idx);
  for (const auto& [bins, hint] : std::vector<std::pair<int, double>>{{4, 0.02}, {16, 0.0}, {48, 0.017}}) {
    INFO(bins << " bins, hint " << hint << " s");
    FlowNetwork net(f);
    net.set_timeline_bins(bins, hint);
    const RunResult a = same_as_unrolled(net, s), b = net.run(u);
    CHECK(a.repetitions_fast_forwarded > 32 * 100);  // most steps skipped despite the boundaries
    REQUIRE(a.timeline_bins == b.timeline_bins);
    CHECK(a.timeline_bin == b.timeline_bin);
    REQUIRE(a.timeline_links == b.timeline_links);
    const std::vector<double> da = a.timeline_dense(), db = b.timeline_dense();
    REQUIRE(da.size() == db.size());
    double total = 0, link_total = 0;
    for (std::size_t k = 0; k < da.size(); ++k) {
      CHECK(da[k] == Approx(db[k]).epsilon(1e-9).margin(1e-3));
      total += da[k];
    }
    for (std::size_t l = 0; l < a.link_bytes_fwd.size(); ++l) link_total += a.link_bytes_fwd[l] + a.link_bytes_rev[l];
    CHECK(total == Approx(link_total).epsilon(1e-12));  // every byte in some bin
  }
}

TEST_CASE("periodic fast-forward: other traffic during the ring, and a ring after it", "[network][repeat][periodic]") {
  const auto f = topology::build_fabric(nvlink_nodes(4, 4));
  FlowNetwork net(f);
  Schedule s;
  s.gpu_flops = {1e15};
  std::vector<int> ring(16);
  std::iota(ring.begin(), ring.end(), 0);
  add_ring(s, ring, 4e6, 50);                            // 0..15
  s.activities.push_back(compute(3, 1e15 * 1e-3));       // 16: 1 ms on GPU 3, meanwhile
  s.activities.push_back(transfer(3, 9, 2e7, 5, {16}));  // 17: then across the ring's NICs
  std::vector<int> after(16);
  std::iota(after.begin(), after.end(), 0);
  add_ring(s, ring, 2e6, 30, after);  // 18..33: after the first ring
  const auto r = same_as_unrolled(net, s);
  CHECK(r.repetitions_fast_forwarded > 0);
}

TEST_CASE("bad repetitions are typed errors", "[network][repeat]") {
  const auto f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(0, 1, 1e6), transfer(1, 2, 1e6)};
  s.activities[0].repeat = 0;
  CHECK_THROWS_AS(net.run(s), InvalidParameter);
  s.activities[0].repeat = 3;
  s.activities[1].repeat = 2;
  s.activities[1].after_previous = {0};  // different repeat
  CHECK_THROWS_AS(net.run(s), InvalidParameter);
  s.activities[1].repeat = 3;
  s.activities[1].after_same = {1};  // itself, same repetition: never ready
  CHECK_THROWS_AS(net.run(s), InvalidParameter);
  s.activities[1].after_same.clear();
  const auto r = net.run(s);
  CHECK(r.finish[1] > r.finish[0] - 1e-12);
}
