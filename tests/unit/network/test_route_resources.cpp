// Solver resources per distinct route (RunCtx::route_off / flow_span / route_res in
// flow_network_internal.hpp): outside failure events, the sub-flows that share a route object
// share one table of its link directions' solver resources (and one list of timeline rows),
// created at the first start of a flow on it. A run with a failure event that never fires looks
// every hop up again at every start (events mode) and must give the same times bit for bit; the
// link timeline must put every byte of a run on the links its flows crossed.
#include <catch2/catch.hpp>

#include <numeric>
#include <random>
#include <unordered_map>

#include "models/network/flow_network.hpp"
#include "models/network/flow_network_internal.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::FlowNetwork;
using network::Schedule;
using network::TimedFailure;
using test::leaf_spine;
using test::transfer;

namespace {

/// Overlapping rounds of transfers on 16 GPUs on 4 leaves and 4 spines: each round repeats the ends and
/// hashes of the first (so its transfers share the first round's route objects) and starts when
/// the previous round's first transfer ends, so transfers on the same route and transfers on
/// different routes of the same ends (another hash) contend in the solver.
Schedule rounds() {
  Schedule s;
  std::vector<int> prev;
  for (int r = 0; r < 4; ++r) {
    std::vector<int> now;
    for (int i = 0; i < 12; ++i) {
      now.push_back(static_cast<int>(s.activities.size()));
      const int src = i % 8, dst = 8 + (i * 3) % 8;
      const std::uint64_t hash = 11 + (i < 8 ? i : 3 * i);  // ends of i and i + 8 repeat, other hashes
      s.activities.push_back(transfer(src, dst, (1 + i % 3) * 2e7, hash,
                                      prev.empty() ? std::vector<int>{} : std::vector<int>{prev[r % 3]}));
    }
    prev = now;
  }
  return s;
}

}  // namespace

TEST_CASE("sub-flows sharing a route share its solver resources: the same times as per-hop lookups",
          "[network][route_resources]") {
  const topology::Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  const Schedule s = rounds();
  const auto fixed = FlowNetwork(f).run(s);
  // A degradation of a link no flow crosses, long after the run: the run is in events mode (routes
  // may change, every start looks its hops up) but nothing changes.
  TimedFailure never;
  never.time = 1e6;
  never.failure.type = topology::FailureSpec::Type::Degrade;
  never.failure.element = f.link(f.link_count() - 1).name;
  never.failure.factor = 0.5;
  const auto events = FlowNetwork(f).run(s, {never});
  REQUIRE(fixed.finish.size() == s.activities.size());
  for (std::size_t i = 0; i < s.activities.size(); ++i) {
    CHECK(fixed.start[i] == events.start[i]);
    CHECK(fixed.finish[i] == events.finish[i]);
  }
  CHECK(fixed.makespan == events.makespan);
  // Contention is real: the slowest transfer takes longer than alone on the fabric.
  double alone = 0;
  for (std::size_t i = 0; i < s.activities.size(); ++i)
    alone = std::max(alone, network::isolated_time(f, s.activities[i].gpu, s.activities[i].dst_gpu,
                                                   s.activities[i].amount, s.activities[i].flow_hash));
  double slowest = 0;
  for (std::size_t i = 0; i < s.activities.size(); ++i) slowest = std::max(slowest, fixed.finish[i] - fixed.start[i]);
  CHECK(slowest > 1.5 * alone);
}

TEST_CASE("the link timeline of routes shared by sub-flows holds each link's bytes", "[network][route_resources]") {
  const topology::Fabric f = topology::build_fabric(leaf_spine(16, 8, 4));
  const Schedule s = rounds();
  FlowNetwork net(f);
  net.set_timeline_bins(16);
  const auto r = net.run(s);
  REQUIRE(r.timeline_bins > 0);
  // Per link direction: the timeline's bytes over all bins = the run's bytes on it.
  std::vector<double> by_row(r.timeline_links.size(), 0.0);
  for (std::size_t k = 0; k < r.timeline_cell_row.size(); ++k)
    by_row[r.timeline_cell_row[k]] += r.timeline_cell_bytes[k];
  double total = 0;
  for (std::size_t row = 0; row < r.timeline_links.size(); ++row) {
    const int l = r.timeline_links[row] / 2;
    const double want = r.timeline_links[row] % 2 == 0 ? r.link_bytes_fwd[l] : r.link_bytes_rev[l];
    CHECK(by_row[row] == Approx(want).epsilon(1e-9));
    total += want;
  }
  const double sent = std::accumulate(r.link_bytes_fwd.begin(), r.link_bytes_fwd.end(), 0.0) +
                      std::accumulate(r.link_bytes_rev.begin(), r.link_bytes_rev.end(), 0.0);
  CHECK(total == Approx(sent).epsilon(1e-12));  // every link direction with bytes has a row
}

TEST_CASE("RouteIds numbers route objects in order of first use, as a hash map does", "[network][route_resources]") {
  // Keys as FlowNetwork::run sees them: addresses of route objects (8-byte aligned, clustered),
  // each repeated by several sub-flows in any order, and nullptr (the empty route).
  std::vector<long long> objects(20000);
  std::vector<const void*> keys;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 60000; ++i) {
    const auto k = static_cast<std::size_t>(rng() % (i < 30000 ? 4000 : objects.size()));
    keys.push_back(i % 997 == 0 ? nullptr : static_cast<const void*>(&objects[k]));
  }
  network::detail::RouteIds ids;
  std::unordered_map<const void*, int> ref;
  for (const void* k : keys) {
    const int fresh = static_cast<int>(ref.size());
    const int want = ref.try_emplace(k, fresh).first->second;
    REQUIRE(ids.find_or_add(k, fresh) == want);  // grows from 1024 slots past 16K keys
  }
  CHECK(ids.size() == static_cast<int>(ref.size()));
  CHECK(ref.size() > 16000);
  for (const auto& [k, v] : ref) CHECK(ids.find_or_add(k, -7) == v);  // found again after every growth
}
