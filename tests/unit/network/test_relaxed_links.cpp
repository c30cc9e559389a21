// FlowNetwork::set_relaxed_tiers: link directions left out of the max-min solver while they have
// slack, put back when they would bind. Exact: every activity ends when it ends with every link in
// the solver (to the solver's rounding), whether the relaxed links never bind (the core of a
// 3-tier fabric that is not the bottleneck) or do (all of one pod sending to the other).
#include <catch2/catch.hpp>

#include <string>

#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::test;
using network::FlowNetwork;
using network::Schedule;
using topology::Tier;

namespace {

constexpr std::uint32_t kCore = 1u << static_cast<unsigned>(Tier::SpineCore);
constexpr std::uint32_t kSpines = kCore | (1u << static_cast<unsigned>(Tier::LeafSpine));

/// 3-tier clos: 64 GPUs, 4 per leaf, radix 16, 3:1 at the spines: 2 pods (12 + 4 leaves).
topology::Fabric clos3(int flows_per_pair) {
  topology::FabricSpec s = leaf_spine(64, 16, 4);
  s.kind = topology::FabricKind::Clos3;
  s.oversub_spine = 3.0;
  s.flows_per_pair = flows_per_pair;
  return topology::build_fabric(s);
}

/// Every activity's finish: relaxed (tiers) within 1e-9 of the full solve; returns both makespans.
std::pair<double, double> compare(const topology::Fabric& fab, const Schedule& s, std::uint32_t tiers) {
  FlowNetwork full(fab), relaxed(fab);
  relaxed.set_relaxed_tiers(tiers);
  const auto a = full.run(s);
  const auto b = relaxed.run(s);
  REQUIRE(a.finish.size() == b.finish.size());
  for (std::size_t i = 0; i < a.finish.size(); ++i) {
    INFO("activity " << i);
    CHECK(b.finish[i] == Approx(a.finish[i]).epsilon(1e-9));
  }
  for (std::size_t l = 0; l < a.link_bytes_fwd.size(); ++l) {
    CHECK(b.link_bytes_fwd[l] == Approx(a.link_bytes_fwd[l]).epsilon(1e-9).margin(1e-3));
    CHECK(b.link_bytes_rev[l] == Approx(a.link_bytes_rev[l]).epsilon(1e-9).margin(1e-3));
  }
  return {a.makespan, b.makespan};
}

/// Profile count of a line, 0 when absent.
long long profiled(const std::string& name) {
  for (const auto& e : profile::entries())
    if (e.name == name) return e.calls;
  return 0;
}

}  // namespace

TEST_CASE("relaxed core links that never bind: the same finishes as the full solve", "[network][relaxed_links]") {
  const auto fab = clos3(4);
  REQUIRE(fab.bom().tiers == 3);
  // Rings over both pods in two waves with computations between them: the core carries the pod
  // crossings, well below its capacity.
  Schedule s;
  s.gpu_flops = {1e15};
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 64; ++i) {
      std::vector<int> after;
      if (w > 0) after = {static_cast<int>(i)};  // the previous wave's transfer from this GPU
      s.activities.push_back(transfer(i, (i + 4) % 64, 2e8 * (1 + i % 3), 977 * i + w, after));
    }
  for (int i = 0; i < 64; ++i) s.activities.push_back(compute(i, 1e12 * (1 + i % 5), {64 + i}));
  for (std::uint32_t tiers : {kCore, kSpines}) {
    INFO("tiers " << tiers);
    compare(fab, s, tiers);
  }
}

TEST_CASE("relaxed core links that bind are put back: the same finishes as the full solve",
          "[network][relaxed_links]") {
  const auto fab = clos3(4);
  // Pod 1 (GPUs 48-63) sends everything to pod 0 at once: its 4 leaves x 4 uplinks meet the core
  // at 3:1, so the core, not the NICs, sets the rates; as transfers of different sizes end, the
  // core's load falls again.
  Schedule s;
  for (int i = 48; i < 64; ++i)
    for (int j = 0; j < 4; ++j)
      s.activities.push_back(transfer(i, (i * 3 + j * 11) % 48, 1e9 * (1 + (i + j) % 4), 31 * i + j));
  profile::enable(true);
  profile::reset();
  const auto [full, relaxed] = compare(fab, s, kCore);
  const long long put_back = profiled("network: relaxed link directions put back in the solver (count)");
  const long long again = profiled("network: relaxed link directions relaxed again (count)");
  profile::enable(false);
  // The core binds: the run is longer than the NICs alone allow (10 GB per GPU at 50 GB/s).
  CHECK(full > 1.5 * 10e9 / kRate);
  CHECK(relaxed == Approx(full).epsilon(1e-9));
  CHECK(put_back > 0);
  CHECK(again > 0);  // flows ending leave the core below 90 %: those directions leave the solver again
}

TEST_CASE("relaxation: off by default, switch tiers only, not under failure events", "[network][relaxed_links]") {
  const auto fab = clos3(1);
  FlowNetwork net(fab);
  CHECK(net.relaxed_tiers() == 0);
  net.set_relaxed_tiers(kCore);
  CHECK(net.relaxed_tiers() == kCore);
  CHECK_THROWS_AS(net.set_relaxed_tiers(1u << static_cast<unsigned>(Tier::Access)), InvalidParameter);
  // Failure events: the run solves every link (routes change), with the same result.
  network::Schedule s;
  for (int i = 0; i < 64; ++i) s.activities.push_back(transfer(i, (i + 20) % 64, 1e8, 7 * i));
  FlowNetwork full(fab);
  network::TimedFailure degrade;
  degrade.time = 1e-3;
  degrade.failure.type = topology::FailureSpec::Type::Degrade;
  degrade.failure.element = fab.link(fab.access_link(0)).name;
  degrade.failure.factor = 0.5;
  CHECK(net.run(s, {degrade}).makespan == full.run(s, {degrade}).makespan);
}
