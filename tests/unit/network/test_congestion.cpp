// Congestion metrics: utilization = bytes / (rate x interval), tiers, percentiles, slowdown.
#include <catch2/catch.hpp>

#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::Activity;
using network::Schedule;
using test::transfer;

namespace {
topology::FabricSpec small() { return test::leaf_spine(16, 8, 4); }
}  // namespace

TEST_CASE("utilization of a hand-made run result", "[network][congestion]") {
  const auto f = topology::build_fabric(small());
  network::RunResult r;
  r.makespan = 2.0;
  r.link_bytes_fwd.assign(f.link_count(), 0.0);
  r.link_bytes_rev.assign(f.link_count(), 0.0);
  const int acc = f.access_link(3);
  r.link_bytes_fwd[acc] = 0.9 * 50e9 * 2.0;  // 90 %
  r.link_bytes_rev[acc] = 0.5 * 50e9 * 2.0;  // 50 %
  int ls = -1;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine) {
      ls = l;
      break;
    }
  r.link_bytes_rev[ls] = 0.25 * f.link(ls).rate * 2.0;
  const auto u = network::link_utilization(f, r);
  REQUIRE(u.size() == 2 * static_cast<std::size_t>(f.link_count()));
  CHECK(u[2 * acc] == Approx(0.9));
  CHECK(u[2 * acc + 1] == Approx(0.5));
  CHECK(u[2 * ls + 1] == Approx(0.25));
  const auto c = network::congestion(f, r);
  CHECK(c.max_utilization == Approx(0.9));
  CHECK(c.links_above_80 == 1);
  CHECK(c.p99_utilization == Approx(0.9));  // nearest rank of 3 values
  CHECK(c.max_by_tier[static_cast<int>(topology::Tier::Access)] == Approx(0.9));
  CHECK(c.max_by_tier[static_cast<int>(topology::Tier::LeafSpine)] == Approx(0.25));
  CHECK(c.p99_by_tier[static_cast<int>(topology::Tier::LeafSpine)] == Approx(0.25));
  // A longer interval dilutes it.
  CHECK(network::congestion(f, r, 4.0).max_utilization == Approx(0.45));
}

TEST_CASE("a lone flow keeps its links ~100 % busy and has slowdown 1", "[network][congestion]") {
  const auto f = topology::build_fabric(small());
  network::FlowNetwork net(f);
  Schedule s;
  s.activities = {transfer(0, 9, 5e9, 1)};
  const auto r = net.run(s);
  const auto c = network::congestion(f, r);
  CHECK(c.max_utilization == Approx(1.0).epsilon(1e-4));  // latency is 1e-4 of the time
  CHECK(c.links_above_80 == static_cast<int>(f.route(0, 9, 1).size()));
  CHECK(network::slowdowns(f, s, r)[0] == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("incast: slowdown N for N flows into one NIC", "[network][congestion]") {
  const auto f = topology::build_fabric(small());
  network::FlowNetwork net(f);
  Schedule s;
  for (int i = 1; i <= 3; ++i) s.activities.push_back(transfer(i, 0, 1e9, i));
  const auto r = net.run(s);
  for (double x : network::slowdowns(f, s, r)) CHECK(x == Approx(3.0).epsilon(1e-4));
}

TEST_CASE("isolated_time of a multi-plane transfer: its slowest plane, as FlowNetwork runs it alone",
          "[network][congestion]") {
  // Two planes, plane 1 of GPU 0's NIC trained down to half rate: the plane-1 sub-flow (bytes / 2)
  // is the slowest; isolated_time takes the same per-plane routes as FlowNetwork::run
  // (detail::subflow_routes), so the transfer alone finishes at isolated_time.
  topology::FabricSpec s = test::leaf_spine(16, 8, 4);
  s.planes = 2;
  s.nic_rate = 2 * test::kRate;
  const std::string degraded = topology::build_fabric(s).link(topology::build_fabric(s).access_link(0, 1)).name;
  topology::FailureSpec d;
  d.type = topology::FailureSpec::Type::Degrade;
  d.element = degraded;
  d.factor = 0.5;
  s.failures.push_back(d);
  const auto f = topology::build_fabric(s);
  REQUIRE(f.planes() == 2);
  network::FlowNetwork net(f);
  const double bytes = 1e8;
  for (std::uint64_t h : {1ull, 7ull, 12345ull}) {
    for (int dst : {1, 9}) {
      Schedule sch;
      sch.activities = {transfer(0, dst, bytes, h)};
      const auto r = net.run(sch);
      const double iso = network::isolated_time(f, 0, dst, bytes, h);
      CHECK(iso > bytes / 2 / (test::kRate / 2));  // the degraded plane's half at half rate
      CHECK(r.finish[0] == Approx(iso).epsilon(1e-6));
    }
  }
}
