// The network engine's --profile parts (aidcsim run --profile): SimGrid's System::solve timed apart
// from reading the changed rates, and SimGrid's work outside the solve (adding and removing items,
// adding resources) counted per call.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "models/common/profile.hpp"
#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::FlowNetwork;
using network::Schedule;
using test::compute;
using test::leaf_spine;
using test::transfer;

namespace {

const profile::Entry* find(const std::vector<profile::Entry>& all, const std::string& name) {
  for (const auto& e : all)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("the profile splits the solver into System::solve and reading rates, and counts lmm calls",
          "[network][profile]") {
  const topology::Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  Schedule s;
  s.gpu_flops = {1e15};
  s.activities = {compute(0, 1e12), transfer(0, 5, 1e8, 1, {0}), transfer(1, 9, 1e8, 2), transfer(2, 13, 2e8, 3)};
  profile::enable(true);
  profile::reset();
  const auto r = FlowNetwork(f).run(s);
  const auto all = profile::entries();
  profile::enable(false);
  const auto* solver = find(all, "network: solver (SimGrid max-min, incl. reading rates)");
  const auto* solve = find(all, "network: - lmm solve (SimGrid System::solve)");
  const auto* read = find(all, "network: - reading rates, completion times (items)");
  const auto* items = find(all, "network: lmm add/remove items, add resources (est.)");
  REQUIRE(solver != nullptr);
  REQUIRE(solve != nullptr);
  REQUIRE(read != nullptr);
  REQUIRE(items != nullptr);
  CHECK(solve->calls == solver->calls);
  CHECK(solve->cpu + read->cpu == Approx(solver->cpu).margin(1e-12));
  CHECK(solve->wall + read->wall == Approx(solver->wall).margin(1e-12));
  CHECK(read->calls >= 4);  // every item is reported at least once (its first rate)
  // 4 items added and removed (one sub-flow per transfer), one resource per GPU computing and per
  // link direction the transfers cross.
  std::set<std::pair<int, bool>> dirs;
  for (const auto& a : s.activities)
    if (a.kind == network::Activity::Kind::Transfer)
      for (const auto& h : f.route(a.gpu, a.dst_gpu, a.flow_hash)) dirs.insert({h.link, h.forward});
  CHECK(items->calls == 2 * 4 + 1 + static_cast<long long>(dirs.size()));
  CHECK(items->wall >= 0);
  CHECK(r.finish[1] > r.finish[0]);
}
