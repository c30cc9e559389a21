// FlowNetwork::run(schedule, events): failures during a run (issue 3). Closed forms of a flow
// rerouted at a link failure (restart pays the new route's latency), of a degraded bottleneck,
// byte conservation per link direction, disconnection errors, forked == in-process, and the
// event-free path unchanged.
#include <catch2/catch.hpp>

#include <string>

#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::Activity;
using network::FlowNetwork;
using network::Schedule;
using network::TimedFailure;
using test::compute;
using test::kRate;
using test::leaf_spine;
using test::transfer;
using topology::Fabric;
using topology::FabricSpec;
using topology::FailureSpec;

namespace {

TimedFailure event(double t, FailureSpec::Type type, const std::string& element, double factor = 0.5) {
  TimedFailure e;
  e.time = t;
  e.failure.type = type;
  e.failure.element = element;
  e.failure.factor = factor;
  return e;
}

/// The leaf -> spine hop of GPU src's route to dst (first LeafSpine hop).
topology::Hop uplink(const Fabric& f, int src, int dst, std::uint64_t h) {
  for (const auto& hop : f.route(src, dst, h))
    if (f.link(hop.link).tier == topology::Tier::LeafSpine) return hop;
  FAIL("no leaf-spine hop");
  return {};
}

double bytes_on(const network::RunResult& r, const topology::Hop& h) {
  return h.forward ? r.link_bytes_fwd[h.link] : r.link_bytes_rev[h.link];
}

}  // namespace

TEST_CASE("a spine link failing mid-flow reroutes it via the other spine; restart pays latency",
          "[network][failures]") {
  // 4 leaves x 2 GPUs, radix 4: 2 spines, one uplink from every leaf to each; GPU 0 -> GPU 2
  // (leaf 0 -> leaf 1) crosses one spine.
  const Fabric f = topology::build_fabric(leaf_spine(8, 4, 2));
  REQUIRE(f.path_count(0, 2) == 2);
  const double B = 1e9, L = f.latency(f.route(0, 2, 7));
  const topology::Hop dead = uplink(f, 0, 2, 7);
  const double t_fail = L + B / (2 * kRate);  // half of the bytes are sent
  // A second flow inside leaf 1 (GPU 2 -> 3, disjoint link directions) keeps running meanwhile:
  // its batch actor has a restart pending while it waits (wait_any timeout path).
  Schedule s;
  s.activities = {transfer(0, 2, B, 7), transfer(2, 3, 2 * B, 1)};
  for (int rep = 0; rep < 2; ++rep) {  // a second object and run: same result
    FlowNetwork net(f);
    const auto r = net.run(s, {event(t_fail, FailureSpec::Type::LinkDown, f.link(dead.link).name)});
    CHECK(r.finish[0] == Approx(L + B / kRate + L).epsilon(1e-9));
    CHECK(r.reroutes[0] == 1);
    CHECK(r.reroutes[1] == 0);
    CHECK(r.finish[1] == Approx(f.latency(f.route(2, 3, 1)) + 2 * B / kRate).epsilon(1e-9));
    CHECK(bytes_on(r, dead) == Approx(B / 2).epsilon(1e-9));
    // the new path: the fabric's route with the link down crosses the other uplink
    double other = 0;
    for (int l = 0; l < f.link_count(); ++l)
      if (l != dead.link && f.link(l).tier == topology::Tier::LeafSpine && f.link(l).a == f.leaf_of(0))
        other += r.link_bytes_fwd[l];
    CHECK(other == Approx(B / 2).epsilon(1e-9));
    // GPU 0's NIC link carried all of it, once (conservation)
    CHECK(r.link_bytes_fwd[f.access_link(0)] == Approx(B).epsilon(1e-12));
    // the caller's fabric is untouched
    CHECK(f.link(dead.link).up);
  }
}

TEST_CASE("a failure during a chained transfer's latency phase or flow reroutes it too", "[network][failures]") {
  const Fabric f = topology::build_fabric(leaf_spine(8, 4, 2));
  const double B = 1e9, L = f.latency(f.route(0, 2, 7)), F = 1e12, speed = 1e15;  // compute 1 ms
  const topology::Hop dead = uplink(f, 0, 2, 7);
  Schedule s;
  s.gpu_flops = {speed};
  s.activities = {compute(0, F), transfer(0, 2, B, 7, {0})};
  FlowNetwork net(f);
  SECTION("during the flow") {
    const double t_fail = F / speed + L + B / (4 * kRate);  // a quarter sent
    const auto r = net.run(s, {event(t_fail, FailureSpec::Type::LinkDown, f.link(dead.link).name)});
    CHECK(r.start[1] == Approx(F / speed).epsilon(1e-12));
    CHECK(r.finish[1] == Approx(F / speed + 2 * L + B / kRate).epsilon(1e-9));
    CHECK(r.reroutes[1] == 1);
    CHECK(bytes_on(r, dead) == Approx(B / 4).epsilon(1e-9));
  }
  SECTION("during its latency phase: restarts from scratch on the new route") {
    const double t_fail = F / speed + L / 2;
    const auto r = net.run(s, {event(t_fail, FailureSpec::Type::LinkDown, f.link(dead.link).name)});
    CHECK(r.finish[1] == Approx(F / speed + 2 * L + B / kRate).epsilon(1e-9));
    CHECK(r.reroutes[1] == 1);
    CHECK(bytes_on(r, dead) == 0.0);
  }
  SECTION("before it starts: routed around the failure, no reroute") {
    const auto r = net.run(s, {event(F / speed / 2, FailureSpec::Type::LinkDown, f.link(dead.link).name)});
    CHECK(r.finish[1] == Approx(F / speed + L + B / kRate).epsilon(1e-9));
    CHECK(r.reroutes[1] == 0);
    CHECK(bytes_on(r, dead) == 0.0);
  }
}

TEST_CASE("a degraded bottleneck slows the flow from the failure on", "[network][failures]") {
  const Fabric f = topology::build_fabric(leaf_spine(8, 4, 2));
  const double B = 1e9, L = f.latency(f.route(0, 2, 7));
  const double t_d = L + B / (2 * kRate);  // half sent at full rate, half at rate / 2
  const std::string nic = f.link(f.access_link(0)).name;
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(0, 2, B, 7)};
  const auto r = net.run(s, {event(t_d, FailureSpec::Type::Degrade, nic, 0.5)});
  CHECK(r.finish[0] == Approx(t_d + (B / 2) / (kRate / 2)).epsilon(1e-9));
  CHECK(r.reroutes[0] == 0);
  for (const auto& h : f.route(0, 2, 7)) CHECK(bytes_on(r, h) == B);
  // the caller's fabric keeps its rate, and the next run is at full rate again
  CHECK(f.link(f.access_link(0)).rate == kRate);
  CHECK(net.run(s).finish[0] == Approx(L + B / kRate).epsilon(1e-9));
}

TEST_CASE("a leaf failing mid-run is a SimulationError naming it and the GPU pair", "[network][failures]") {
  const Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  const int dst = 5;
  const std::string leaf = f.node(f.leaf_of(dst)).name;
  Schedule s;
  s.activities = {transfer(0, dst, 1e9), transfer(8, 12, 1e9)};
  for (int rep = 0; rep < 2; ++rep) {  // a second object and run: same result
    FlowNetwork net(f);
    try {
      net.run(s, {event(0.01, FailureSpec::Type::SwitchDown, leaf)});
      FAIL("no error");
    } catch (const SimulationError& e) {
      const std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find(leaf + " down at 0.01 s") != std::string::npos);
      CHECK(msg.find("GPU 0 -> GPU 5 has no route") != std::string::npos);
    }
    // a transfer starting after the failure to a disconnected GPU fails the same way
    Schedule later;
    later.gpu_flops = {1e15};
    later.activities = {compute(0, 1e13), transfer(0, dst, 1e6, 0, {0})};
    CHECK_THROWS_AS(net.run(later, {event(0.001, FailureSpec::Type::SwitchDown, leaf)}), SimulationError);
    // the network stays usable
    CHECK(net.run(s).finish[0] > 0);
  }
}

TEST_CASE("two networks and repeated runs with events agree bit for bit", "[network][failures]") {
  FabricSpec spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 4;
  const Fabric f = topology::build_fabric(spec);
  Schedule s;
  s.gpu_flops = {1e15};
  for (int i = 0; i < 16; ++i) {
    s.activities.push_back(compute(i, 1e11 * (1 + i % 3)));
    s.activities.push_back(transfer(i, (i * 7 + 5) % 16, 4e7, 11 * i, {2 * i}));
    s.activities.push_back(transfer((i * 7 + 5) % 16, i, 2e7, 3 * i));
  }
  const std::string spine = f.node(f.link(uplink(f, 0, 5, 0).link).b).name;
  const std::vector<TimedFailure> ev = {
      event(2e-4, FailureSpec::Type::SwitchDown, spine),
      event(1e-4, FailureSpec::Type::Degrade, f.link(f.access_link(3)).name, 0.25),
      event(3e-4, FailureSpec::Type::LinkDown,
            f.node(f.leaf_of(8)).name + "-" + f.node(f.link(uplink(f, 8, 0, 0).link).b).name)};
  FlowNetwork iso(f);
  const auto a = iso.run(s, ev);
  const auto a2 = iso.run(s, ev);
  FlowNetwork in(f);
  const auto b = in.run(s, ev);
  int rerouted = 0;
  double total = 0, total_b = 0;
  for (std::size_t i = 0; i < s.activities.size(); ++i) {
    CHECK(a2.finish[i] == a.finish[i]);
    CHECK(a2.reroutes[i] == a.reroutes[i]);
    CHECK(b.reroutes[i] == a.reroutes[i]);
    CHECK(b.start[i] == a.start[i]);
    CHECK(b.finish[i] == a.finish[i]);
    rerouted += a.reroutes[i];
  }
  CHECK(rerouted > 0);  // the test exercises reroutes
  for (int l = 0; l < f.link_count(); ++l) {
    CHECK(a2.link_bytes_fwd[l] == a.link_bytes_fwd[l]);
    CHECK(b.link_bytes_fwd[l] == a.link_bytes_fwd[l]);
    CHECK(b.link_bytes_rev[l] == a.link_bytes_rev[l]);
    if (f.link(l).tier == topology::Tier::Access) total += a.link_bytes_fwd[l], total_b += b.link_bytes_fwd[l];
  }
  // conservation: every byte leaves through its source's NIC exactly once
  CHECK(total == Approx(16 * (4e7 + 2e7)).epsilon(1e-12));
  CHECK(total_b == Approx(16 * (4e7 + 2e7)).epsilon(1e-12));
}

TEST_CASE("no events: run(schedule) unchanged; a failure at t = 0 equals one from the start", "[network][failures]") {
  FabricSpec spec = leaf_spine(8, 8, 4);
  spec.ecmp = topology::EcmpMode::Spray;
  Fabric f = topology::build_fabric(spec);
  Schedule s;
  for (int i = 0; i < 4; ++i) s.activities.push_back(transfer(i, i + 4, 1e8, i));
  FlowNetwork net(f);
  const auto plain = net.run(s);
  const auto empty = net.run(s, {});
  const auto late = net.run(s, {event(10.0, FailureSpec::Type::SwitchDown, "spine0.0")});  // after the end
  REQUIRE(plain.reroutes.size() == s.activities.size());
  for (std::size_t i = 0; i < s.activities.size(); ++i) {
    CHECK(empty.finish[i] == plain.finish[i]);
    CHECK(late.finish[i] == plain.finish[i]);
    CHECK(plain.reroutes[i] == 0);
    CHECK(late.reroutes[i] == 0);
  }
  for (int l = 0; l < f.link_count(); ++l) CHECK(late.link_bytes_fwd[l] == plain.link_bytes_fwd[l]);

  int up = -1;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && f.link(l).a == f.leaf_of(0) && plain.link_bytes_fwd[l] > 0)
      up = l;
  REQUIRE(up >= 0);
  const auto at0 = net.run(s, {event(0.0, FailureSpec::Type::LinkDown, f.link(up).name)});
  f.set_link_up(up, false);
  const auto before = net.run(s);
  f.set_link_up(up, true);
  for (std::size_t i = 0; i < s.activities.size(); ++i) {
    CHECK(at0.finish[i] == Approx(before.finish[i]).epsilon(1e-12));
    CHECK(at0.reroutes[i] == 0);
  }
  CHECK(at0.link_bytes_fwd[up] == 0.0);
  for (int l = 0; l < f.link_count(); ++l)
    CHECK(at0.link_bytes_fwd[l] == Approx(before.link_bytes_fwd[l]).epsilon(1e-12));
}

TEST_CASE("bad events are typed errors with their key", "[network][failures]") {
  const Fabric f = topology::build_fabric(leaf_spine(8, 4, 2));
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(0, 2, 1e6)};
  auto key_of = [&](const std::vector<TimedFailure>& ev) {
    try {
      net.run(s, ev);
    } catch (const InvalidParameter& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(key_of({event(0.1, FailureSpec::Type::LinkDown, "nosuch")}).find("network.failures[0].element") !=
        std::string::npos);
  CHECK(key_of({event(0.1, FailureSpec::Type::LinkDown, "leaf0"), event(-1, FailureSpec::Type::LinkDown, "leaf0")})
            .find("network.failures[0].element") != std::string::npos);
  CHECK(key_of({event(-1, FailureSpec::Type::SwitchDown, "leaf0")}).find("network.failures[0].time") !=
        std::string::npos);
  CHECK(key_of({event(0.1, FailureSpec::Type::SwitchDown, "gpu0")}).find(".element") != std::string::npos);
  TimedFailure d = event(0.1, FailureSpec::Type::Degrade, f.link(f.access_link(0)).name, 1.5);
  d.failure.key = "fabric.failures[4]";
  CHECK(key_of({d}).find("fabric.failures[4].factor") != std::string::npos);
}

TEST_CASE("two failures on a flow's successive routes reroute it twice", "[network][failures]") {
  // 5 leaves x 3 GPUs, radix 6: 3 spines, one uplink from every leaf to each.
  Fabric f = topology::build_fabric(leaf_spine(15, 6, 3));
  REQUIRE(f.path_count(0, 3) == 3);
  const double B = 1e9, L = f.latency(f.route(0, 3, 9));
  const topology::Hop first = uplink(f, 0, 3, 9);
  f.set_link_up(first.link, false);  // the route the fabric gives once `first` is down
  const topology::Hop second = uplink(f, 0, 3, 9);
  f.set_link_up(first.link, true);
  REQUIRE(second.link != first.link);
  const double t1 = L + B / (4 * kRate);       // a quarter sent on the first route
  const double t2 = t1 + L + B / (4 * kRate);  // a quarter on the second
  FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(0, 3, B, 9)};
  const auto r = net.run(s, {event(t2, FailureSpec::Type::LinkDown, f.link(second.link).name),
                             event(t1, FailureSpec::Type::LinkDown, f.link(first.link).name)});
  CHECK(r.reroutes[0] == 2);
  CHECK(r.finish[0] == Approx(3 * L + B / kRate).epsilon(1e-9));
  CHECK(bytes_on(r, first) == Approx(B / 4).epsilon(1e-9));
  CHECK(bytes_on(r, second) == Approx(B / 4).epsilon(1e-9));
  double up = 0;  // the three uplinks of leaf 0 together carried B
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && f.link(l).a == f.leaf_of(0)) up += r.link_bytes_fwd[l];
  CHECK(up == Approx(B).epsilon(1e-12));
}

TEST_CASE("sprayed flows losing an uplink mid-run conserve bytes and avoid it afterwards", "[network][failures]") {
  // 2 leaves x 4 GPUs, 4 parallel uplinks per leaf to one spine; every GPU of leaf 0 sprays
  // 1e8 B to leaf 1 over the 4 x 4 paths.
  FabricSpec spec = leaf_spine(8, 8, 4);
  spec.ecmp = topology::EcmpMode::Spray;
  const Fabric f = topology::build_fabric(spec);
  Schedule s;
  for (int i = 0; i < 4; ++i) s.activities.push_back(transfer(i, i + 4, 1e8, i));
  for (int i = 0; i < 4; ++i) s.activities.push_back(transfer(i, i + 4, 1e8, i, {i}));  // a second round
  FlowNetwork net(f);
  const auto base = net.run(s);
  const int dead_link = uplink(f, 0, 4, 0).link;
  const double t_fail = base.finish[0] / 4;  // during the first round
  const auto r = net.run(s, {event(t_fail, FailureSpec::Type::LinkDown, f.link(dead_link).name)});
  int first_round = 0, second_round = 0;
  for (int i = 0; i < 4; ++i) first_round += r.reroutes[i], second_round += r.reroutes[4 + i];
  CHECK(first_round > 0);    // in-flight sub-flows through the spine were moved
  CHECK(second_round == 0);  // later transfers were routed around it
  double up = 0, dead = 0;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && f.link(l).a == f.leaf_of(0)) {
      up += r.link_bytes_fwd[l];
      if (l == dead_link) dead += r.link_bytes_fwd[l];
    }
  CHECK(up == Approx(8e8).epsilon(1e-12));
  CHECK(dead > 0);
  CHECK(dead < 4e8 / 4 * 0.5);  // its quarter of round 1, only until t_fail (< 1/4 of the round)
  CHECK(r.makespan > base.makespan);
}
