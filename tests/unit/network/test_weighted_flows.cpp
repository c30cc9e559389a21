// Weighted and bounded flows, traffic groups and Delay activities (issue 18, several jobs on one
// fabric): closed forms of weighted max-min sharing (Bertsekas & Gallager, Data Networks, §6.5.2:
// progressive filling with rates in proportion to weights, bounded flows frozen at their bound).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/sharing.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::Activity;
using network::FlowNetwork;
using network::Schedule;
using network::TimedFailure;
using network::detail::MaxMinSharing;
using test::kRate;
using test::leaf_spine;
using test::transfer;
using topology::Fabric;
using topology::FailureSpec;

namespace {

std::map<int, double> solve(MaxMinSharing& m) {
  std::map<int, double> r;
  m.solve([&](int tag, double rate) { r[tag] = rate; });
  return r;
}

Activity weighted(int src, int dst, double bytes, double weight, double limit = 0, int group = 0,
                  std::uint64_t hash = 0) {
  Activity a = transfer(src, dst, bytes, hash);
  a.weight = weight;
  a.rate_limit = limit;
  a.group = group;
  return a;
}

Activity delay(double s, std::vector<int> after = {}) {
  Activity a;
  a.kind = Activity::Kind::Delay;
  a.amount = s;
  a.after = std::move(after);
  return a;
}

double lat(const Fabric& f, int s, int d, std::uint64_t h = 0) { return f.latency(f.route(s, d, h)); }

}  // namespace

TEST_CASE("solver: weights share a resource in proportion; a bound caps an item", "[network][sharing][weights]") {
  MaxMinSharing m;
  const int A = m.add_resource(9);
  const int a[] = {A};
  m.add_item(a, 1, 1, 2.0);
  const auto h = m.add_item(a, 1, 2, 1.0);
  auto r = solve(m);
  CHECK(r[1] == Approx(6));  // 2/3 of 9
  CHECK(r[2] == Approx(3));  // 1/3
  m.remove_item(h);
  m.add_item(a, 1, 3, 1.0, 1.5);  // bounded at 1.5: the other takes the remaining 7.5
  r = solve(m);
  CHECK(r[3] == Approx(1.5));
  CHECK(r[1] == Approx(7.5));
  // A bound above the fair share does not bind (weights 2:1 again -> 6 and 3).
  MaxMinSharing m2;
  const int B = m2.add_resource(9);
  const int b[] = {B};
  m2.add_item(b, 1, 1, 2.0);
  m2.add_item(b, 1, 2, 1.0, 5.0);
  r = solve(m2);
  CHECK(r[1] == Approx(6));
  CHECK(r[2] == Approx(3));
  CHECK_THROWS_AS(m2.add_item(b, 1, 4, 0.0), SimulationError);
  CHECK_THROWS_AS(m2.add_item(b, 1, 4, -1.0), SimulationError);
}

TEST_CASE("two flows on one link: half each; weights 2:1 get 2/3 and 1/3", "[network][weights]") {
  // GPUs 1 and 2 send to GPU 0 (same leaf): both cross GPU 0's access link at rate R.
  const Fabric f = topology::build_fabric(leaf_spine(32, 16, 8));
  FlowNetwork net(f);
  const double B = 1e8, L = lat(f, 1, 0);
  REQUIRE(lat(f, 2, 0) == L);
  Schedule s;
  s.activities = {weighted(1, 0, B, 1.0), weighted(2, 0, B, 1.0)};
  auto r = net.run(s);
  CHECK(r.finish[0] == Approx(L + 2 * B / kRate).epsilon(1e-9));  // R/2 each, together
  CHECK(r.finish[1] == Approx(L + 2 * B / kRate).epsilon(1e-9));
  // 2:1 -> the heavy flow at 2R/3 ends at 1.5 B/R; the light one has sent B/2 then, the rest at R.
  s.activities = {weighted(1, 0, B, 2.0), weighted(2, 0, B, 1.0)};
  r = net.run(s);
  CHECK(r.finish[0] == Approx(L + 1.5 * B / kRate).epsilon(1e-9));
  CHECK(r.finish[1] == Approx(L + 2.0 * B / kRate).epsilon(1e-9));
  // Only the ratio matters: 0.5 : 0.25 is 2:1 too.
  s.activities = {weighted(1, 0, B, 0.5), weighted(2, 0, B, 0.25)};
  const auto r2 = net.run(s);
  CHECK(r2.finish[0] == Approx(r.finish[0]).epsilon(1e-12));
  CHECK(r2.finish[1] == Approx(r.finish[1]).epsilon(1e-12));
}

TEST_CASE("a bounded flow keeps its bound; the other takes the rest", "[network][weights]") {
  const Fabric f = topology::build_fabric(leaf_spine(32, 16, 8));
  FlowNetwork net(f);
  const double B = 1e8, L = lat(f, 1, 0);
  Schedule s;
  s.activities = {weighted(1, 0, B, 1.0, kRate / 4), weighted(2, 0, B, 1.0)};
  const auto r = net.run(s);
  CHECK(r.finish[0] == Approx(L + 4 * B / kRate).epsilon(1e-9));       // R/4 all along
  CHECK(r.finish[1] == Approx(L + B / (0.75 * kRate)).epsilon(1e-9));  // the other 3R/4
  // Alone it still keeps its bound (offered load, not the link rate).
  s.activities = {weighted(1, 0, B, 1.0, kRate / 10)};
  CHECK(net.run(s).finish[0] == Approx(L + 10 * B / kRate).epsilon(1e-9));
  // A transfer split in ECMP sub-flows is bounded as a whole: each sub-flow gets limit / F.
  topology::FabricSpec spec = leaf_spine(32, 16, 8);
  spec.flows_per_pair = 4;
  const Fabric f4 = topology::build_fabric(spec);
  FlowNetwork net4(f4);
  s.activities = {weighted(0, 20, B, 1.0, kRate / 10, 0, 3)};  // cross-leaf
  const auto r4 = net4.run(s);
  double Lmax = 0;  // the transfer waits for its slowest sub-flow route's latency
  for (int k = 0; k < 4; ++k)
    Lmax = std::max(Lmax, lat(f4, 0, 20, k == 0 ? 3 : topology::splitmix64(3 + 0x9e3779b97f4a7c15ull * k)));
  CHECK(r4.finish[0] == Approx(Lmax + 10 * B / kRate).epsilon(1e-9));
}

TEST_CASE("a flow whose rate never changes while its component is re-solved ends on time", "[network][weights]") {
  // The bounded flow 1 -> 0 (R/4 all along) shares GPU 0's access link with a chain of 8 transfers
  // 2 -> 0 (3R/4 each): every start and end of the chain re-solves and reports the bounded flow
  // with its unchanged rate, whose pending completion entry is then kept (flow_network.cpp).
  const Fabric f = topology::build_fabric(leaf_spine(32, 16, 8));
  FlowNetwork net(f);
  const double B = 1e8, L = lat(f, 1, 0), L2 = lat(f, 2, 0);
  Schedule s;
  s.activities = {weighted(1, 0, B, 1.0, kRate / 4)};
  for (int k = 0; k < 8; ++k) {
    Activity a = weighted(2, 0, B / 8, 1.0);
    if (k > 0) a.after = {k};
    s.activities.push_back(a);
  }
  const auto r = net.run(s);
  CHECK(r.finish[0] == Approx(L + 4 * B / kRate).epsilon(1e-12));
  for (int k = 0; k < 8; ++k) CHECK(r.finish[k + 1] == Approx((k + 1) * (L2 + B / 8 / (0.75 * kRate))).epsilon(1e-12));
}

TEST_CASE("a Delay starts its successors after its time", "[network][weights]") {
  const Fabric f = topology::build_fabric(leaf_spine(32, 16, 8));
  FlowNetwork net(f);
  const double B = 1e8, L = lat(f, 1, 0);
  Schedule s;
  s.activities = {delay(1e-3), weighted(1, 0, B, 1.0), weighted(2, 0, B, 1.0)};
  s.activities[1].after = {0};
  auto r = net.run(s);
  CHECK(r.finish[0] == Approx(1e-3).epsilon(1e-12));
  CHECK(r.start[1] == r.finish[0]);
  // Flow 2 runs alone until the delayed one starts sending at 1 ms + L (B/2 sent: B/R = 2 ms),
  // then at R/2 for 2 ms; flow 1 has then sent B/2 and ends 1 ms later at R.
  REQUIRE(B / kRate == Approx(2e-3));
  CHECK(r.finish[2] == Approx(3e-3 + L).epsilon(1e-9));
  CHECK(r.finish[1] == Approx(4e-3 + L).epsilon(1e-9));
  // Repeated: 3 x 1 ms; zero delay finishes at once.
  s.activities = {delay(1e-3), delay(0, {0})};
  s.activities[0].repeat = 3;
  r = net.run(s);
  CHECK(r.finish[0] == Approx(3e-3).epsilon(1e-12));
  CHECK(r.finish[1] == r.finish[0]);
  CHECK(r.groups.empty());
}

TEST_CASE("bytes by group add up to bytes per link", "[network][weights]") {
  const Fabric f = topology::build_fabric(leaf_spine(32, 16, 8));
  FlowNetwork net(f);
  Schedule s;
  s.activities = {weighted(0, 20, 3e8, 1.0, 0, 3, 1), weighted(1, 20, 1e8, 2.0, 0, 7, 2),
                  weighted(9, 17, 2e8, 1.0, kRate / 3, 0, 5), weighted(2, 3, 5e7, 1.0, 0, 3, 4)};
  s.activities[3].repeat = 4;
  const auto r = net.run(s);
  REQUIRE(r.groups == std::vector<int>{0, 3, 7});
  const std::size_t L = static_cast<std::size_t>(f.link_count());
  REQUIRE(r.link_bytes_group_fwd.size() == 3 * L);
  for (std::size_t l = 0; l < L; ++l) {
    CHECK(r.link_bytes_group_fwd[l] + r.link_bytes_group_fwd[L + l] + r.link_bytes_group_fwd[2 * L + l] ==
          Approx(r.link_bytes_fwd[l]).margin(1e-3));
    CHECK(r.link_bytes_group_rev[l] + r.link_bytes_group_rev[L + l] + r.link_bytes_group_rev[2 * L + l] ==
          Approx(r.link_bytes_rev[l]).margin(1e-3));
  }
  // Group 3 sent 3e8 (0 -> 20) and 4 x 5e7 (2 -> 3) out of its GPUs' NICs.
  CHECK(r.link_bytes_group_fwd[L + f.access_link(0)] == Approx(3e8));
  CHECK(r.link_bytes_group_fwd[L + f.access_link(2)] == Approx(2e8));
  CHECK(r.link_bytes_group_fwd[2 * L + f.access_link(1)] == Approx(1e8));
  CHECK(r.link_bytes_group_fwd[2 * L + f.access_link(0)] == 0);
  // Every group 0: no split.
  for (auto& a : s.activities) a.group = 0;
  CHECK(net.run(s).groups.empty());
  s.activities[0].group = -1;
  CHECK_THROWS_AS(net.run(s), InvalidParameter);
  s.activities[0].group = 0;
  s.activities[0].weight = 0;
  CHECK_THROWS_AS(net.run(s), InvalidParameter);
  s.activities[0].weight = 1;
  s.activities[0].rate_limit = -1;
  CHECK_THROWS_AS(net.run(s), InvalidParameter);
}

TEST_CASE("a rerouted flow keeps its weight, its bound and its group", "[network][weights][failures]") {
  // 4 leaves x 2 GPUs, 2 spines (see test_midrun_failures.cpp). GPU 0 -> 2 crosses one spine.
  const Fabric f = topology::build_fabric(leaf_spine(8, 4, 2));
  const double B = 1e9, L = lat(f, 0, 2, 7);
  topology::Hop up{};
  for (const auto& hop : f.route(0, 2, 7))
    if (f.link(hop.link).tier == topology::Tier::LeafSpine) {
      up = hop;
      break;
    }
  auto down_at = [&](double t) {
    TimedFailure e;
    e.time = t;
    e.failure.type = FailureSpec::Type::LinkDown;
    e.failure.element = f.link(up.link).name;
    return std::vector<TimedFailure>{e};
  };
  FlowNetwork net(f);
  // Bounded at R/4: half sent at L + 2B/R, restart after L more, the other half at R/4 again.
  Schedule s;
  s.activities = {weighted(0, 2, B, 1.0, kRate / 4, 5, 7)};
  const double tf = L + 2 * B / kRate;
  auto r = net.run(s, down_at(tf));
  CHECK(r.reroutes[0] == 1);
  CHECK(r.finish[0] == Approx(tf + L + 2 * B / kRate).epsilon(1e-9));
  REQUIRE(r.groups == std::vector<int>{5});
  CHECK(r.link_bytes_group_fwd[up.link] == Approx(B / 2).epsilon(1e-9));
  CHECK(r.link_bytes_group_fwd[f.access_link(0)] == Approx(B).epsilon(1e-9));
  // Weight 3 against a weight-1 flow into the same GPU (GPU 4, another leaf): 3R/4 before and
  // after the reroute; the other takes R while the rerouted one waits its latency.
  REQUIRE(lat(f, 4, 2, 1) == L);
  s.activities = {weighted(0, 2, B, 3.0, 0, 1, 7), weighted(4, 2, 10 * B, 1.0, 0, 2, 1)};
  const double tw = L + (B / 2) / (0.75 * kRate);
  r = net.run(s, down_at(tw));
  CHECK(r.reroutes[0] == 1);
  CHECK(r.finish[0] == Approx(tw + L + (B / 2) / (0.75 * kRate)).epsilon(1e-9));
  for (std::size_t l = 0; l < static_cast<std::size_t>(f.link_count()); ++l)
    CHECK(r.link_bytes_group_fwd[l] + r.link_bytes_group_fwd[f.link_count() + l] ==
          Approx(r.link_bytes_fwd[l]).margin(1e-3));
}
