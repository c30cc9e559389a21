// FlowNetwork keeps the route phase of its last run (RouteMemo, flow_network.cpp) and reuses it
// when the next run has the same transfers on the same fabric state: every run must still be
// bit-identical to a first run of a fresh FlowNetwork, whatever ran before on the object.
#include <catch2/catch.hpp>

#include "models/common/cancel.hpp"
#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"
#include "tests/unit/network/same_run.hpp"

using namespace aidcsim;
using network::FlowNetwork;
using network::RunResult;
using network::Schedule;
using test::compute;
using test::leaf_spine;
using test::same_run;
using test::transfer;
using topology::Fabric;

namespace {

/// 16 GPUs on 4 leaves, 4 hashed sub-flows per transfer (some merged on a shared route),
/// computations feeding transfers, repeated transfers and two traffic groups.
Schedule step(double flop, double bytes) {
  Schedule s;
  s.gpu_flops = {1e15};
  for (int i = 0; i < 16; ++i) {
    s.activities.push_back(compute(i, flop * (1 + i % 3)));
    auto t = transfer(i, (i * 7 + 5) % 16, bytes, 11 * i + 1, {2 * i});
    t.repeat = 1 + i % 3;
    t.group = i % 2;
    s.activities.push_back(t);
  }
  return s;
}

}  // namespace

TEST_CASE("a run reusing the previous run's routes is bit-identical to a first run", "[network][route_memo]") {
  auto spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  const Schedule base = step(1e12, 3e7);
  FlowNetwork net(f);
  const RunResult first = net.run(base);
  same_run(net.run(base), first);  // same transfers, same fabric: the table is reused

  // Slower computations (a clock change), same transfers: reused; timing changes as a fresh run's.
  const Schedule slow = step(1.7e12, 3e7);
  const RunResult r_slow = net.run(slow);
  CHECK(r_slow.makespan != first.makespan);
  same_run(r_slow, test::fresh_run(f, slow));

  // Other bytes: not reused (the table holds the bytes per sub-flow and per link).
  const Schedule bigger = step(1e12, 5e7);
  same_run(net.run(bigger), test::fresh_run(f, bigger));

  // A link down between two runs changes routes: not reused; back up: the first run again.
  int loaded = -1;
  for (int l = 0; l < f.link_count() && loaded < 0; ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && first.link_bytes_fwd[l] + first.link_bytes_rev[l] > 0)
      loaded = l;
  REQUIRE(loaded >= 0);
  net.run(base);
  f.set_link_up(loaded, false);
  const RunResult down = net.run(base);
  CHECK(down.link_bytes_fwd[loaded] + down.link_bytes_rev[loaded] == 0);
  same_run(down, test::fresh_run(f, base));
  f.set_link_up(loaded, true);
  same_run(net.run(base), first);

  // A run with failure events in between neither uses nor leaves a table.
  network::TimedFailure ev;
  ev.time = 1e-4;
  ev.failure.type = topology::FailureSpec::Type::LinkDown;
  ev.failure.element = f.link(loaded).name;
  const RunResult with_events = net.run(base, {ev});
  CHECK(with_events.link_bytes_fwd != first.link_bytes_fwd);
  same_run(net.run(base), first);

  // The spray cap is an input of the table.
  net.set_spray_subflows(2);
  same_run(net.run(base), first);  // hashed ECMP: the cap does not apply, a fresh table all the same

  // Two links down, then a spine down, after a run on the healthy fabric: the healthy table is
  // taken per transfer where its routes hold, the rest asked again; as a fresh run each time.
  int second = -1;
  for (int l = loaded + 1; l < f.link_count() && second < 0; ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && first.link_bytes_fwd[l] + first.link_bytes_rev[l] > 0)
      second = l;
  REQUIRE(second >= 0);
  f.set_link_up(loaded, false);
  f.set_link_up(second, false);
  same_run(net.run(base), test::fresh_run(f, base));
  same_run(net.run(slow), test::fresh_run(f, slow));
  f.set_link_up(loaded, true);
  f.set_link_up(second, true);
  same_run(net.run(base), first);
  topology::FailureSpec spine;
  spine.type = topology::FailureSpec::Type::SwitchDown;
  spine.element = f.node(f.link(second).b).name;
  f.apply(spine);
  same_run(net.run(base), test::fresh_run(f, base));
}

TEST_CASE("a run that stops while it borrows the healthy table's routes leaves no broken table",
          "[network][route_memo]") {
  // A link-down run borrows (moves) the healthy table's routes where they hold and gives them back
  // after the run. If it stops in between (here: cancelled, which throw_if_cancelled reports just
  // before the event loop, after the route phase), the table must not be reused with routes moved
  // out: the next run on the healthy fabric is the first run again, timeline included (it credits
  // every hop of every route).
  auto spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  const Schedule base = step(1e12, 3e7);
  FlowNetwork net(f);
  net.set_timeline_bins(8);
  const RunResult first = net.run(base);
  REQUIRE(!first.timeline_cell_bytes.empty());
  auto timeline_same = [](const RunResult& a, const RunResult& b) {
    CHECK(a.timeline_bins == b.timeline_bins);
    CHECK(a.timeline_bin_start == b.timeline_bin_start);
    CHECK(a.timeline_cell_row == b.timeline_cell_row);
    CHECK(a.timeline_cell_bytes == b.timeline_cell_bytes);
  };
  int loaded = -1;
  for (int l = 0; l < f.link_count() && loaded < 0; ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && first.link_bytes_fwd[l] + first.link_bytes_rev[l] > 0)
      loaded = l;
  REQUIRE(loaded >= 0);
  f.set_link_up(loaded, false);
  request_cancel(0);
  CHECK_THROWS_AS(net.run(base), Cancelled);
  reset_cancel();
  f.set_link_up(loaded, true);
  const RunResult after = net.run(base);
  same_run(after, first);
  timeline_same(after, first);

  // After a link-down run that completes, the table is whole again: reused as is.
  f.set_link_up(loaded, false);
  same_run(net.run(base), test::fresh_run(f, base));
  f.set_link_up(loaded, true);
  const RunResult again = net.run(base);
  same_run(again, first);
  timeline_same(again, first);
}

TEST_CASE("route reuse off: no table kept, turning it off drops the one kept", "[network][route_memo]") {
  auto spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  const Schedule base = step(1e12, 3e7);
  const RunResult first = test::fresh_run(f, base);
  FlowNetwork net(f);
  CHECK(net.route_reuse());  // on by default
  net.set_route_reuse(false);
  same_run(net.run(base), first);
  CHECK_FALSE(net.holds_route_table());  // nothing built for a next run
  same_run(net.run(base), first);
  net.set_route_reuse(true);
  same_run(net.run(base), first);
  CHECK(net.holds_route_table());  // kept for the next run ...
  same_run(net.run(base), first);  // ... which takes it
  CHECK(net.holds_route_table());
  net.set_route_reuse(false);
  CHECK_FALSE(net.holds_route_table());  // dropped at once, not at the next run
  same_run(net.run(base), first);
}

TEST_CASE("link-down runs on NVLink domains take the healthy table where routes hold: as a fresh run",
          "[network][route_memo]") {
  // Pairs of GPUs share an NVLink domain: transfers inside one stay on NVLink whatever else is
  // down (Fabric::built_route_holds), others between GPUs of one leaf or over the spines. Each
  // loaded link down in turn, after a run on the healthy fabric, then back up: as fresh runs.
  auto spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 4;
  spec.gpus_per_node = 2;
  spec.nvlink_domain = 2;
  spec.nvlink_bandwidth = 4 * test::kRate;
  Fabric f = topology::build_fabric(spec);
  Schedule base = step(1e12, 3e7);
  for (int i = 0; i < 16; ++i) base.activities.push_back(transfer(i, i ^ 1, 2e7, 5 * i + 3, {2 * i}));
  FlowNetwork net(f);
  const RunResult first = net.run(base);
  int tried = 0;
  for (int l = 0; l < f.link_count(); ++l) {
    // An access link down would cut its GPU off (one plane): NVLink ports and leaf-spine links.
    if (first.link_bytes_fwd[l] + first.link_bytes_rev[l] == 0 || f.link(l).tier == topology::Tier::Access) continue;
    ++tried;
    f.set_link_up(l, false);
    same_run(net.run(base), test::fresh_run(f, base));
    f.set_link_up(l, true);
  }
  CHECK(tried > 16);  // the 16 NVLink ports and leaf-spine links
  same_run(net.run(base), first);
}

TEST_CASE("a run that keeps its route table does not also cache its routes in the Fabric", "[network][route_memo]") {
  // The RouteMemo serves the next run of the same transfers; a second copy of every route in
  // Fabric::route's cache only cost a hash insert per sub-flow and its memory. The routes and
  // results are those of a run that caches them (route_uncached gives route()'s hops).
  auto spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  const Schedule base = step(1e12, 3e7);
  FlowNetwork net(f);
  REQUIRE(net.route_reuse());
  const RunResult first = net.run(base);
  CHECK(net.holds_route_table());
  CHECK(f.cached_route_hops() == 0);
  // A link-down run takes the healthy table where routes hold and asks the fabric for the rest:
  // as a run on a fabric whose route cache was filled on the healthy state first.
  Fabric g = topology::build_fabric(spec);
  for (const auto& a : base.activities)
    if (a.kind == network::Activity::Kind::Transfer) (void)g.route(a.gpu, a.dst_gpu, a.flow_hash);
  REQUIRE(g.cached_route_hops() > 0);  // route() caches: the count sees it
  int tried = 0;
  for (int l = 0; l < f.link_count(); ++l) {
    if (first.link_bytes_fwd[l] + first.link_bytes_rev[l] == 0 || f.link(l).tier == topology::Tier::Access) continue;
    ++tried;
    f.set_link_up(l, false);
    g.set_link_up(l, false);
    same_run(net.run(base), test::fresh_run(g, base));
    CHECK(f.cached_route_hops() == 0);
    f.set_link_up(l, true);
    g.set_link_up(l, true);
  }
  CHECK(tried > 4);
  same_run(net.run(base), first);
}
