// FlowNetwork on SimGrid: closed forms of the flow-level model (alpha-beta time of one flow,
// max-min fair shares, oversubscription), dependencies, failures, conservation, determinism and
// repeated runs in one process (all test cases share the process-wide SimGrid engine).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::Activity;
using network::FlowNetwork;
using network::Schedule;
using test::compute;
using test::kRate;
using test::leaf_spine;
using test::transfer;
using topology::Fabric;
using topology::FabricSpec;

namespace {

double route_latency(const Fabric& f, int s, int d, std::uint64_t h = 0) { return f.latency(f.route(s, d, h)); }

}  // namespace

TEST_CASE("one flow takes latency + size / rate (bandwidth factor 1)", "[network]") {
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  const double bytes = 256.0 * (1 << 20);
  for (int dst : {1, 5, 13}) {  // same leaf (2 hops) and other leaves (4 hops)
    Schedule s;
    s.activities = {transfer(0, dst, bytes, 7)};
    const auto r = net.run(s);
    const double expect = route_latency(f, 0, dst, 7) + bytes / kRate;
    CHECK(r.start[0] == 0.0);
    CHECK(r.finish[0] == Approx(expect).epsilon(1e-6));
    CHECK(r.makespan == Approx(expect).epsilon(1e-6));
    CHECK(network::isolated_time(f, 0, dst, bytes, 7) == Approx(expect).epsilon(1e-12));
    // latency is a few microseconds: check it is really in there
    CHECK(r.finish[0] - bytes / kRate == Approx(route_latency(f, 0, dst, 7)).epsilon(1e-3));
  }
}

TEST_CASE("N flows through one bottleneck get 1/N each (max-min fair)", "[network]") {
  // 8 GPUs per leaf: 7 senders on GPU 0's leaf, all with the same 2-hop latency -> incast on
  // GPU 0's access link.
  const Fabric f = topology::build_fabric(leaf_spine(32, 16, 8));
  FlowNetwork net(f);
  const double bytes = 1e8;
  for (int N : {1, 2, 7}) {
    Schedule s;
    for (int i = 1; i <= N; ++i) s.activities.push_back(transfer(i, 0, bytes, i));
    const auto r = net.run(s);
    const double lat = route_latency(f, 1, 0);
    for (int i = 0; i < N; ++i) {
      const double rate = bytes / (r.finish[i] - r.start[i] - lat);
      CHECK(rate == Approx(kRate / N).epsilon(1e-6));
    }
  }
}

TEST_CASE("max-min: a flow limited elsewhere leaves the rest of the bottleneck to the others", "[network]") {
  // Flows 1->0 and 2->0 share GPU 0's access link; flow 2->0 also shares GPU 2's access link with
  // 2->3 and 2->4 (1/3 there). Max-min: 2->0 gets rate/3, 1->0 gets the remaining 2/3.
  const Fabric f = topology::build_fabric(leaf_spine(32, 16, 8));
  FlowNetwork net(f);
  const double bytes = 1e8;
  Schedule s;
  s.activities = {transfer(1, 0, bytes), transfer(2, 0, bytes), transfer(2, 3, bytes), transfer(2, 4, bytes)};
  const auto r = net.run(s);
  const double lat = route_latency(f, 1, 0);
  // Until the 2->x flows finish (3 bytes/rate... all three at rate/3), 1->0 runs at 2/3 rate.
  const double t_third = lat + bytes / (kRate / 3);
  CHECK(r.finish[1] == Approx(t_third).epsilon(1e-6));
  CHECK(r.finish[2] == Approx(t_third).epsilon(1e-6));
  // 1->0: 2/3 rate until it is done: bytes / (2/3 rate) = 1.5 bytes/rate < 3 bytes/rate.
  CHECK(r.finish[0] == Approx(lat + bytes / (2.0 * kRate / 3)).epsilon(1e-6));
}

TEST_CASE("2:1 oversubscribed leaf halves cross-leaf throughput", "[network]") {
  // Two leaves of 4 GPUs; each GPU sends to its peer on the other leaf (a cross-leaf permutation),
  // sprayed over all equal-cost paths so that ECMP collisions do not blur the capacity ratio.
  auto run = [](double oversub) {
    FabricSpec spec = leaf_spine(8, 8, 4, oversub);
    spec.ecmp = topology::EcmpMode::Spray;
    const Fabric f = topology::build_fabric(spec);
    FlowNetwork net(f);
    net.set_spray_subflows(64);
    Schedule s;
    const double bytes = 1e8;
    for (int i = 0; i < 8; ++i) s.activities.push_back(transfer(i, (i + 4) % 8, bytes, i));
    const auto r = net.run(s);
    const double lat = route_latency(f, 0, 4);
    double tput = 0;
    for (int i = 0; i < 8; ++i) tput += bytes / (r.finish[i] - r.start[i] - lat);
    return tput;
  };
  const double t11 = run(1.0), t21 = run(2.0);
  CHECK(t11 == Approx(8 * kRate).epsilon(1e-6));  // non-blocking: every NIC at line rate
  CHECK(t21 / t11 == Approx(0.5).epsilon(1e-6));
}

TEST_CASE("dependencies: B starts when A ends; compute time = FLOP / speed", "[network]") {
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule s;
  s.gpu_flops = {2e15};
  s.activities = {compute(0, 4e15),             // 2 s
                  transfer(0, 9, 5e9, 3, {0}),  // after 0
                  compute(9, 1e15, {1}),        // after 1: 0.5 s
                  compute(3, 1e15),             // independent: 0.5 s
                  compute(9, 2e15, {2, 3})};    // after 2 and 3: 1 s
  const auto r = net.run(s);
  CHECK(r.finish[0] == Approx(2.0).epsilon(1e-9));
  CHECK(r.start[1] == r.finish[0]);
  CHECK(r.finish[1] - r.start[1] == Approx(route_latency(f, 0, 9, 3) + 5e9 / kRate).epsilon(1e-6));
  CHECK(r.start[2] == r.finish[1]);
  CHECK(r.finish[2] - r.start[2] == Approx(0.5).epsilon(1e-9));
  CHECK(r.start[3] == 0.0);
  CHECK(r.finish[3] == Approx(0.5).epsilon(1e-9));
  CHECK(r.start[4] == std::max(r.finish[2], r.finish[3]));
  CHECK(r.makespan == Approx(r.finish[4]).epsilon(1e-12));

  // Per-GPU speeds.
  Schedule p;
  p.gpu_flops.assign(16, 1e15);
  p.gpu_flops[5] = 4e15;
  p.activities = {compute(5, 1e15), compute(6, 1e15)};
  const auto q = net.run(p);
  CHECK(q.finish[0] == Approx(0.25).epsilon(1e-9));
  CHECK(q.finish[1] == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("a long pipeline-like chain of small activities runs", "[network]") {
  // 8 stages x 100 microbatches: compute, then send to the next stage; each stage processes its
  // microbatches in order (GPipe-like forward pass).
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  const int stages = 8, mb = 100;
  Schedule s;
  s.gpu_flops = {1e15};
  std::vector<int> last_on_stage(stages, -1), recv(stages * mb, -1);
  for (int m = 0; m < mb; ++m)
    for (int st = 0; st < stages; ++st) {
      std::vector<int> after;
      if (last_on_stage[st] >= 0) after.push_back(last_on_stage[st]);
      if (st > 0) after.push_back(recv[m * stages + st - 1]);
      s.activities.push_back(compute(2 * st, 1e12, after));  // 1 ms
      const int c = static_cast<int>(s.activities.size()) - 1;
      last_on_stage[st] = c;
      if (st + 1 < stages) {
        s.activities.push_back(transfer(2 * st, 2 * st + 2, 5e6, m, {c}));  // 0.1 ms
        recv[m * stages + st] = static_cast<int>(s.activities.size()) - 1;
      }
    }
  const auto r = net.run(s);
  for (std::size_t i = 0; i < s.activities.size(); ++i) {
    REQUIRE(r.finish[i] >= r.start[i]);
    for (int p : s.activities[i].after) REQUIRE(r.start[i] >= r.finish[p]);
  }
  // Compute-bound pipeline: the first microbatch reaches the last stage after (stages - 1)
  // computations and the 7 transfers, then the last stage computes mb microbatches back to back.
  double transfers = 0;
  for (int st = 0; st + 1 < stages; ++st) transfers += 5e6 / kRate + route_latency(f, 2 * st, 2 * st + 2, 0);
  CHECK(r.makespan == Approx((mb + stages - 1) * 1e-3 + transfers).epsilon(1e-9));
}

TEST_CASE("bytes per link are the sums over the routes' hops (conservation)", "[network]") {
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule s;
  double expect_total = 0;
  for (int i = 0; i < 16; ++i) {
    s.activities.push_back(transfer(i, (i * 5 + 3) % 16, 1e6 * (i + 1), 100 + i));
    expect_total += 1e6 * (i + 1) * f.route(i, (i * 5 + 3) % 16, 100 + i).size();
  }
  const auto r = net.run(s);
  const double total = std::accumulate(r.link_bytes_fwd.begin(), r.link_bytes_fwd.end(), 0.0) +
                       std::accumulate(r.link_bytes_rev.begin(), r.link_bytes_rev.end(), 0.0);
  CHECK(total == Approx(expect_total).epsilon(1e-12));
  // Every byte sent leaves its NIC (access link, GPU -> leaf = forward) and arrives at the
  // destination's NIC (reverse).
  for (int g = 0; g < 16; ++g) {
    double sent = 0, recvd = 0;
    for (const auto& a : s.activities) {
      if (a.gpu == g) sent += a.amount;
      if (a.dst_gpu == g) recvd += a.amount;
    }
    CHECK(r.link_bytes_fwd[f.access_link(g)] == sent);
    CHECK(r.link_bytes_rev[f.access_link(g)] == recvd);
  }
}

TEST_CASE("flows_per_pair splits a transfer into ECMP sub-flows", "[network]") {
  FabricSpec spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 16;
  const Fabric f = topology::build_fabric(spec);
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(0, 12, 1.6e9, 1)};
  const auto r = net.run(s);
  // All sub-flows share both NICs: the transfer still runs at the NIC rate.
  CHECK(r.finish[0] == Approx(route_latency(f, 0, 12, 1) + 1.6e9 / kRate).epsilon(1e-6));
  // and the bytes spread over several leaf uplinks
  int used = 0;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && r.link_bytes_fwd[l] > 0) ++used;
  CHECK(used > 1);
}

// The engine runs the hash-ECMP sub-flows of one transfer that hash onto the same route as one
// solver item of weight k (flow_network.cpp, SubFlow::mult). Held against the unmerged run: the
// same transfers split by hand into flows_per_pair transfers of amount / F with the sub-flow
// hashes (one flow each, nothing to merge), on an oversubscribed fabric where the uplinks are the
// bottleneck and many sub-flows share them; dependents wait for all of a transfer's pieces.
TEST_CASE("ECMP sub-flows merged on a shared route run as the unmerged sub-flows", "[network]") {
  constexpr int kF = 16;
  FabricSpec merged_spec = leaf_spine(16, 8, 4, 2.0);  // 4 leaves, 2 uplinks each: 16 flows over 2 paths
  merged_spec.flows_per_pair = kF;
  FabricSpec split_spec = merged_spec;
  split_spec.flows_per_pair = 1;
  const Fabric fm = topology::build_fabric(merged_spec), fs = topology::build_fabric(split_spec);
  Schedule m;  // transfers of different sizes crossing each other, a chain, a compute in between
  m.activities = {transfer(0, 5, 3e8, 11),         transfer(1, 9, 1e8, 12),         transfer(4, 13, 2e8, 13),
                  transfer(8, 1, 2.5e8, 14),       transfer(2, 3, 1e8, 15),         compute(6, 1e12, {1}),
                  transfer(6, 14, 1.5e8, 16, {5}), transfer(12, 0, 4e8, 17, {0, 2})};
  m.gpu_flops = {1e15};
  Schedule s;  // each transfer as kF transfers; piece[i] = indices of activity i in s
  std::vector<std::vector<int>> piece(m.activities.size());
  for (std::size_t i = 0; i < m.activities.size(); ++i) {
    const auto& a = m.activities[i];
    std::vector<int> after;
    for (int p : a.after) after.insert(after.end(), piece[p].begin(), piece[p].end());
    if (a.kind != network::Activity::Kind::Transfer) {
      piece[i].push_back(static_cast<int>(s.activities.size()));
      s.activities.push_back(compute(a.gpu, a.amount, after));
      continue;
    }
    for (int f = 0; f < kF; ++f) {
      const std::uint64_t h = f == 0 ? a.flow_hash : topology::splitmix64(a.flow_hash + 0x9e3779b97f4a7c15ull * f);
      piece[i].push_back(static_cast<int>(s.activities.size()));
      s.activities.push_back(transfer(a.gpu, a.dst_gpu, a.amount / kF, h, after));
    }
  }
  s.gpu_flops = m.gpu_flops;
  // the case exercises the merge: transfer 0's 16 sub-flows take fewer distinct routes
  std::vector<std::vector<int>> routes;
  for (int p : piece[0]) {
    std::vector<int> links;
    for (const auto& h : fs.route(0, 5, s.activities[p].flow_hash)) links.push_back(2 * h.link + (h.forward ? 0 : 1));
    if (std::find(routes.begin(), routes.end(), links) == routes.end()) routes.push_back(links);
  }
  REQUIRE(routes.size() > 1);
  REQUIRE(routes.size() < static_cast<std::size_t>(kF));
  FlowNetwork nm(fm), ns(fs);
  const auto rm = nm.run(m), rs = ns.run(s);
  for (std::size_t i = 0; i < m.activities.size(); ++i) {
    double end = 0;
    for (int p : piece[i]) end = std::max(end, rs.finish[p]);
    CHECK(rm.finish[i] == Approx(end).epsilon(1e-12));
  }
  CHECK(rm.makespan == Approx(rs.makespan).epsilon(1e-12));
  for (int l = 0; l < fm.link_count(); ++l) {
    CHECK(rm.link_bytes_fwd[l] == Approx(rs.link_bytes_fwd[l]).epsilon(1e-12).margin(1e-3));
    CHECK(rm.link_bytes_rev[l] == Approx(rs.link_bytes_rev[l]).epsilon(1e-12).margin(1e-3));
  }
}

TEST_CASE("a failed spine link moves its flows to the remaining paths", "[network]") {
  // 2 leaves x 4 GPUs, 1:1 -> 4 uplinks per leaf; every GPU of leaf 0 sends to leaf 1, sprayed.
  FabricSpec spec = leaf_spine(8, 8, 4);
  spec.ecmp = topology::EcmpMode::Spray;
  Fabric f = topology::build_fabric(spec);
  Schedule s;
  for (int i = 0; i < 4; ++i) s.activities.push_back(transfer(i, i + 4, 1e8, i));
  network::RunResult before, after;
  {
    FlowNetwork net(f);
    net.set_spray_subflows(64);
    before = net.run(s);
  }
  const auto c0 = network::congestion(f, before);
  int failed = -1;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && f.link(l).a == f.leaf_of(0) && before.link_bytes_fwd[l] > 0) {
      failed = l;
      break;
    }
  REQUIRE(failed >= 0);
  f.set_link_up(failed, false);
  {
    FlowNetwork net(f);
    net.set_spray_subflows(64);
    after = net.run(s);
  }
  const auto c1 = network::congestion(f, after);
  CHECK(after.link_bytes_fwd[failed] == 0.0);
  CHECK(after.link_bytes_rev[failed] == 0.0);
  // 4 NICs' worth of traffic now over 3 uplinks: 4/3 of the link rate is asked, the flows slow
  // down to 3/4 and the remaining uplinks carry 4/3 of their former bytes.
  const double lat = route_latency(f, 0, 4);
  CHECK((before.finish[0] - lat) / (after.finish[0] - lat) == Approx(0.75).epsilon(1e-6));
  double max_up_before = 0, max_up_after = 0;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && f.link(l).a == f.leaf_of(0)) {
      max_up_before = std::max(max_up_before, before.link_bytes_fwd[l]);
      max_up_after = std::max(max_up_after, after.link_bytes_fwd[l]);
    }
  CHECK(max_up_after == Approx(max_up_before * 4.0 / 3.0).epsilon(1e-9));
  CHECK(c1.max_by_tier[static_cast<int>(topology::Tier::LeafSpine)] >
        c0.max_by_tier[static_cast<int>(topology::Tier::LeafSpine)] * 0.99);
  CHECK(c1.max_by_tier[static_cast<int>(topology::Tier::LeafSpine)] ==
        Approx(1.0).epsilon(5e-3));  // minus the latency phase
}

TEST_CASE("a failed leaf disconnects its GPUs with a SimulationError, not a hang", "[network]") {
  Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  f.fail_switch(f.leaf_of(0));
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(5, 0, 1e6)};
  CHECK_THROWS_AS(net.run(s), SimulationError);
  // the network stays usable
  s.activities = {transfer(5, 9, 1e6)};
  CHECK(net.run(s).finish[0] > 0);
}

TEST_CASE("bad schedules are typed errors", "[network]") {
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule cyc;
  cyc.activities = {transfer(0, 1, 1e6, 0, {1}), transfer(1, 2, 1e6, 0, {0})};
  CHECK_THROWS_AS(net.run(cyc), SimulationError);
  Schedule bad_gpu;
  bad_gpu.activities = {transfer(0, 99, 1e6)};
  CHECK_THROWS_AS(net.run(bad_gpu), InvalidParameter);
  Schedule no_speed;
  no_speed.activities = {compute(0, 1e12)};
  CHECK_THROWS_AS(net.run(no_speed), InvalidParameter);
  Schedule neg;
  neg.activities = {transfer(0, 1, -1)};
  CHECK_THROWS_AS(net.run(neg), InvalidParameter);
  // the error names the activity and its key (the key is built only for an error)
  Schedule second;
  second.activities = {transfer(0, 1, 1e6), transfer(2, 99, 1e6)};
  try {
    net.run(second);
    FAIL("no error");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "schedule.activities[1].dst_gpu");
    CHECK(e.value() == "99");
  }
  // zero-time activities
  Schedule z;
  z.activities = {transfer(3, 3, 1e9), transfer(0, 1, 0.0), compute(2, 0.0)};
  const auto r = net.run(z);
  CHECK(r.finish[0] == 0.0);
  CHECK(r.finish[1] == Approx(route_latency(f, 0, 1)).epsilon(1e-9));
  CHECK(r.finish[2] == 0.0);
  CHECK(net.run(Schedule{}).makespan == 0.0);
}

TEST_CASE("determinism, repeated runs and several fabrics in one process", "[network]") {
  const Fabric a = topology::build_fabric(leaf_spine(16, 8, 4));
  FabricSpec sb = leaf_spine(32, 16, 8);
  sb.kind = topology::FabricKind::Clos3;
  const Fabric b = topology::build_fabric(sb);
  Schedule s;
  s.gpu_flops = {1e15};
  for (int i = 0; i < 16; ++i) {
    s.activities.push_back(compute(i, 1e12 * (1 + i % 3)));
    s.activities.push_back(transfer(i, (i * 7 + 5) % 16, 3e7, 11 * i, {2 * i}));
  }
  network::RunResult r1, r2, r3, rb;
  {
    FlowNetwork net(a);
    r1 = net.run(s);
    r2 = net.run(s);
  }
  {
    FlowNetwork net(b);
    rb = net.run(s);
  }
  {
    FlowNetwork net(a);
    r3 = net.run(s);
  }
  CHECK(r1.start == r2.start);
  CHECK(r1.finish == r2.finish);
  CHECK(r1.link_bytes_fwd == r2.link_bytes_fwd);
  CHECK(r1.finish == r3.finish);
  CHECK(r1.makespan == r3.makespan);
  CHECK(rb.makespan > 0);
  CHECK(rb.link_bytes_fwd.size() == static_cast<std::size_t>(b.link_count()));
  // Two live networks on the same fabric at once.
  FlowNetwork n1(a), n2(a);
  CHECK(n1.run(s).finish == r1.finish);
  CHECK(n2.run(s).finish == r1.finish);
}

TEST_CASE("degraded link rate is applied at the next run", "[network]") {
  Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(0, 1, 1e9)};
  const double t_full = net.run(s).finish[0];
  f.set_link_rate_factor(f.access_link(0), 0.5);
  const double t_half = net.run(s).finish[0];
  const double lat = route_latency(f, 0, 1);
  CHECK((t_half - lat) / (t_full - lat) == Approx(2.0).epsilon(1e-6));
  f.set_link_rate_factor(f.access_link(0), 1.0);
  CHECK(net.run(s).finish[0] == t_full);
}

TEST_CASE("bandwidth is redistributed when a flow finishes", "[network]") {
  // A (1e8 B) and B (2e8 B) share GPU 0's NIC: both at rate/2 until A ends at 2e8/rate, then B
  // alone at full rate for its last 1e8 B: B ends at 3e8/rate (4e8/rate without redistribution).
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(1, 0, 1e8), transfer(2, 0, 2e8)};
  const auto r = net.run(s);
  const double lat = route_latency(f, 1, 0);
  CHECK(r.finish[0] == Approx(lat + 2e8 / kRate).epsilon(1e-6));
  CHECK(r.finish[1] == Approx(lat + 3e8 / kRate).epsilon(1e-6));
}

TEST_CASE("runs are isolated: a run after another one is bit-identical to a first run", "[network]") {
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  Schedule s;
  s.gpu_flops = {1e15};
  for (int i = 0; i < 16; ++i) {
    s.activities.push_back(compute(i, 1e12 * (1 + i % 3)));
    s.activities.push_back(transfer(i, (i * 7 + 5) % 16, 3e7, 11 * i, {2 * i}));
  }
  Schedule other;  // a different run in between must leave no trace
  other.activities = {transfer(0, 9, 7.5e8, 3), transfer(9, 0, 2.5e8, 4)};
  FlowNetwork first(f);
  const auto a = first.run(s);
  FlowNetwork net(f);
  for (int rep = 0; rep < 2; ++rep) {
    net.run(other);
    const auto b = net.run(s);
    CHECK(b.start == a.start);
    CHECK(b.finish == a.finish);
    CHECK(b.makespan == a.makespan);
  }
  CHECK_THROWS_AS(net.set_spray_subflows(0), InvalidParameter);
}

TEST_CASE("a cancel request stops a run with Cancelled; the next run is unaffected", "[network]") {
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  FlowNetwork net(f);
  Schedule s;
  for (int k = 0; k < 3000; ++k)
    s.activities.push_back(
        transfer(k % 16, (k + 5) % 16, 1e5, k, k >= 16 ? std::vector<int>{k - 16} : std::vector<int>{}));
  aidcsim::request_cancel(2);
  CHECK_THROWS_AS(net.run(s), aidcsim::Cancelled);
  aidcsim::reset_cancel();
  CHECK(net.run(s).makespan > 0);
}
