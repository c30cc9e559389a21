// The fluid bound (models/network/fluid_bound.hpp): a lower bound of the simulated run, equal to
// it when the busiest link stays saturated; hand-computed cases and a random wave against
// FlowNetwork::run.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/fluid_bound.hpp"

using namespace aidcsim;
using network::Activity;

namespace {

topology::Fabric one_switch(int gpus) {
  topology::FabricSpec spec;
  spec.gpus = gpus;
  spec.gpus_per_node = 1;
  spec.nvlink_domain = 1;
  spec.kind = topology::FabricKind::LeafSpine;
  spec.wiring = topology::Wiring::RackLocal;
  spec.switch_radix = 2 * gpus;
  spec.gpus_per_leaf = gpus;
  spec.link_rate = spec.nic_rate = 50e9;
  return topology::build_fabric(spec);
}

Activity transfer(int src, int dst, double bytes, std::uint64_t hash = 0) {
  Activity a;
  a.kind = Activity::Kind::Transfer;
  a.gpu = src;
  a.dst_gpu = dst;
  a.amount = bytes;
  a.flow_hash = hash;
  return a;
}

}  // namespace

TEST_CASE("fluid bound: flows sharing a NIC drain it, a lone flow takes its own time", "[fluid]") {
  const auto fab = one_switch(4);
  network::Schedule s;
  s.activities = {transfer(0, 1, 1e9), transfer(0, 2, 3e9), transfer(3, 2, 1e6)};
  s.activities[2].delay = 1e-3;
  const auto b = network::fluid_bound(fab, s);
  const double lat = fab.latency(fab.route(0, 1, 0));
  CHECK(b.makespan == Approx(lat + 4e9 / 50e9).epsilon(1e-12));  // GPU 0's NIC carries 4 GB
  CHECK(b.busiest_link >= 0);
  network::FlowNetwork net(fab);
  const auto r = net.run(s);
  CHECK(r.makespan == Approx(b.makespan).epsilon(1e-9));
  for (int l = 0; l < fab.link_count(); ++l) {
    CHECK(b.link_bytes_fwd[l] == Approx(r.link_bytes_fwd[l]));
    CHECK(b.link_bytes_rev[l] == Approx(r.link_bytes_rev[l]));
  }
}

TEST_CASE("fluid bound: a rate limit bounds a lone flow", "[fluid]") {
  const auto fab = one_switch(2);
  network::Schedule s;
  s.activities = {transfer(0, 1, 1e9)};
  s.activities[0].rate_limit = 10e9;
  const double lat = fab.latency(fab.route(0, 1, 0));
  CHECK(network::fluid_bound(fab, s).makespan == Approx(lat + 0.1).epsilon(1e-12));
  CHECK(network::fluid_bound(fab, s).busiest_link == -1);
}

TEST_CASE("fluid bound: never above the simulated run; equal on a permutation", "[fluid]") {
  const auto fab = one_switch(16);
  network::FlowNetwork net(fab);
  network::Schedule perm, random;
  for (int i = 0; i < 16; ++i) perm.activities.push_back(transfer(i, (i + 5) % 16, 1e8 * (1 + i % 3)));
  std::uint64_t x = 7;
  for (int i = 0; i < 60; ++i) {
    x = topology::splitmix64(x);
    const int a = static_cast<int>(x % 16), b = static_cast<int>((x >> 8) % 16);
    random.activities.push_back(transfer(a, b, 1e6 * (1 + (x >> 16) % 100), x));
    random.activities.back().delay = 1e-6 * ((x >> 32) % 7);
  }
  CHECK(network::fluid_bound(fab, perm).makespan == Approx(net.run(perm).makespan).epsilon(1e-12));
  CHECK(network::fluid_bound(fab, random).makespan <= net.run(random).makespan * (1 + 1e-12));
}

TEST_CASE("fluid bound: only one wave of transfers", "[fluid]") {
  const auto fab = one_switch(2);
  network::Schedule s;
  s.activities = {transfer(0, 1, 1e6), transfer(1, 0, 1e6)};
  CHECK(network::single_wave(s));
  s.activities[1].after = {0};
  CHECK_FALSE(network::single_wave(s));
  CHECK_THROWS_AS(network::fluid_bound(fab, s), InvalidParameter);
  s.activities[1].after.clear();
  s.activities[1].repeat = 2;
  CHECK_THROWS_AS(network::fluid_bound(fab, s), InvalidParameter);
  s.activities[1].repeat = 1;
  s.activities[1].kind = Activity::Kind::Compute;
  CHECK_FALSE(network::single_wave(s));
  CHECK_THROWS_AS(network::fluid_bound(fab, s), InvalidParameter);
}

TEST_CASE("fluid estimate of waves: a chain adds its steps; wave levels", "[fluid]") {
  const auto fab = one_switch(4);
  network::Schedule s;
  s.activities = {transfer(0, 1, 1e9), transfer(2, 1, 1e9), transfer(1, 3, 2e9)};
  s.activities[2].after = {0, 1};
  s.activities[2].delay = 1e-3;
  CHECK(network::wave_levels(s) == std::vector<int>{0, 0, 1});
  const double lat = fab.latency(fab.route(0, 1, 0));
  // Wave 0: GPU 1's NIC receives 2 GB at 50 GB/s; wave 1: 2 GB after latency and delay.
  const auto b = network::fluid_bound_waves(fab, s);
  CHECK(b.wave_finish.size() == 2);
  CHECK(b.wave_finish[0] == Approx(lat + 0.04).epsilon(1e-9));
  CHECK(b.makespan == Approx(2 * lat + 1e-3 + 0.08).epsilon(1e-9));
  network::FlowNetwork net(fab);
  CHECK(net.run(s).makespan == Approx(b.makespan).epsilon(1e-9));
  s.activities[1].after = {2};  // not an earlier activity
  CHECK(network::wave_levels(s).empty());
  CHECK_THROWS_AS(network::fluid_bound_waves(fab, s), InvalidParameter);
}

TEST_CASE("fluid estimate of waves: equal to the max-min run on random dependent transfers", "[fluid]") {
  // Max-min with unequal sizes, rate limits and shared links: flows bottlenecked elsewhere hand
  // their spare capacity on (what the fixpoint iteration must get right).
  const auto fab = one_switch(8);
  network::FlowNetwork net(fab);
  network::Schedule s;
  std::uint64_t x = 11;
  for (int i = 0; i < 120; ++i) {
    x = topology::splitmix64(x);
    const int a = static_cast<int>(x % 8), b = static_cast<int>((x >> 8) % 8);
    network::Activity t = transfer(a, b, 1e6 * (1 + (x >> 16) % 200), x);
    if ((x >> 40) % 5 == 0) t.rate_limit = 5e9 * (1 + (x >> 44) % 4);
    if (i >= 8) t.after = {static_cast<int>((x >> 24) % i)};
    t.delay = 1e-6 * ((x >> 32) % 5);
    s.activities.push_back(t);
  }
  CHECK(network::fluid_bound_waves(fab, s).makespan == Approx(net.run(s).makespan).epsilon(1e-6));
}

namespace {

/// The crowded leaf-spine below with `fpp` hashed sub-flows per transfer, or sprayed.
topology::FabricSpec crowded_leaf_spine(int fpp, bool spray) {
  topology::FabricSpec spec;
  spec.gpus = 16;
  spec.gpus_per_node = 1;
  spec.nvlink_domain = 1;
  spec.kind = topology::FabricKind::LeafSpine;
  spec.wiring = topology::Wiring::RackLocal;
  spec.switch_radix = 6;
  spec.gpus_per_leaf = 4;
  spec.oversub_leaf = 2.0;
  spec.link_rate = spec.nic_rate = 50e9;
  spec.flows_per_pair = fpp;
  if (spray) spec.ecmp = topology::EcmpMode::Spray;
  return spec;
}

}  // namespace

// Transfers of several sub-flows (flows_per_pair, spraying): their routes do not fit in an
// activity's line in fluid_bound_waves and are kept aside; the same max-min run either way.
TEST_CASE("fluid estimate of waves: several sub-flows per transfer as the max-min run", "[fluid]") {
  for (const auto& [fpp, spray] : {std::pair{3, false}, std::pair{1, true}}) {
    INFO("flows_per_pair " << fpp << ", spray " << spray);
    const topology::Fabric fab = topology::build_fabric(crowded_leaf_spine(fpp, spray));
    network::FlowNetwork net(fab);
    network::Schedule s;
    std::uint64_t x = 31;
    for (int i = 0; i < 150; ++i) {
      x = topology::splitmix64(x);
      const int a = static_cast<int>(x % 16), b = static_cast<int>((a + 1 + (x >> 8) % 15) % 16);
      network::Activity t = transfer(a, b, 1e6 * (1 + (x >> 16) % 300), x);
      if (i >= 32 && (x >> 24) % 3 != 0) t.after = {static_cast<int>((x >> 28) % i)};
      s.activities.push_back(t);
    }
    const auto b = network::fluid_bound_waves(fab, s, net.spray_subflows());
    CHECK(b.events > 2 * 150);  // more completions than transfers: several sub-flows each
    CHECK(b.makespan == Approx(net.run(s).makespan).epsilon(1e-6));
  }
}

TEST_CASE("fluid estimate of waves: equal to the max-min run on a crowded oversubscribed leaf-spine", "[fluid]") {
  // Four-hop hashed routes, 2:1 leaf uplinks, up to ~40 sub-flows on a link direction at once
  // (beyond the five kept inline per direction) and sub-flows bound by different links in turn:
  // what fluid_bound_waves' skipped re-evaluations (keep thresholds, bind flags) must not change.
  const topology::Fabric fab = topology::build_fabric(crowded_leaf_spine(1, false));
  network::FlowNetwork net(fab);
  network::Schedule s;
  std::uint64_t x = 29;
  for (int i = 0; i < 400; ++i) {
    x = topology::splitmix64(x);
    const int a = static_cast<int>(x % 16), b = static_cast<int>((a + 1 + (x >> 8) % 15) % 16);
    network::Activity t = transfer(a, b, 1e6 * (1 + (x >> 16) % 300), x);
    if ((x >> 40) % 7 == 0) t.rate_limit = 4e9 * (1 + (x >> 44) % 5);
    if (i >= 64 && (x >> 24) % 3 != 0) t.after = {static_cast<int>((x >> 28) % i)};
    t.delay = 1e-6 * ((x >> 32) % 7);
    s.activities.push_back(t);
  }
  const auto b = network::fluid_bound_waves(fab, s);
  CHECK(b.evaluations > 0);
  CHECK(b.makespan == Approx(net.run(s).makespan).epsilon(1e-6));
}
