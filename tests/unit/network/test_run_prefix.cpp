// Prefix reuse (FlowNetwork::set_prefix_capture, run_prefix.cpp): a run with one link down that
// continues from the healthy run's kept state must be the whole run, bit for bit (every start
// and finish time, bytes per link), and runs it does not apply to must be simulated whole.
#include <catch2/catch.hpp>

#include <algorithm>

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

/// 32 GPUs on 8 leaves: rounds of computations then transfers, each round after the previous
/// one; the transfers stay inside their leaf but in the last round, whose main transfers cross the
/// spines (hashed, 4 sub-flows each, some merged on a shared route): a link-down run is the
/// healthy run for most of the schedule, while many flows are in progress on the leaves. Weights
/// and bounds that do not sum exactly (the solver's sums then depend on the order of each link's
/// flows, which a continuation must reproduce), delays, two traffic groups.
Schedule step(int rounds) {
  Schedule s;
  s.gpu_flops = {1e15};
  std::vector<int> last(32, -1);
  auto in_leaf = [](int i, int k) { return (i & ~3) | ((i + k) & 3); };
  for (int r = 0; r < rounds; ++r)
    for (int i = 0; i < 32; ++i) {
      std::vector<int> after;
      if (last[i] >= 0) after.push_back(last[i]);
      s.activities.push_back(compute(i, 1e12 * (1 + 0.37 * ((i + r) % 5)), after));
      const int c = static_cast<int>(s.activities.size()) - 1;
      for (int extra = 1; extra <= 2; ++extra) {  // 3 or more flows on each NIC link
        auto x = transfer(i, in_leaf(i, extra + r % 2), 1.1e7 * extra, 31 * r + 7 * i + extra, {c});
        x.weight = 0.7 + 0.1 * ((3 * i + extra + r) % 7);
        s.activities.push_back(x);
      }
      const int dst = r + 1 < rounds ? in_leaf(i, 3) : (i * 5 + 7) % 32;
      auto t = transfer(i, dst, 2e7 * (1 + 0.013 * ((11 * i + 5 * r) % 17)), 97 * r + 13 * i + 1, {c});
      t.weight = 1 + 0.1 * ((7 * i + r) % 9);
      if (i % 7 == 0) t.rate_limit = 20e9 + 1e8 * i;
      if (i % 4 == 1) t.delay = 1e-6;
      t.group = i % 2;
      s.activities.push_back(t);
      last[dst] = static_cast<int>(s.activities.size()) - 1;
    }
  return s;
}

/// Leaf-spine links in `order` of the given run's loaded ones.
std::vector<int> loaded_links(const Fabric& f, const RunResult& r) {
  std::vector<int> out;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::LeafSpine && r.link_bytes_fwd[l] + r.link_bytes_rev[l] > 0) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("link-down runs continuing from the healthy run's prefix are whole runs bit for bit",
          "[network][run_prefix]") {
  auto spec = leaf_spine(32, 8, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  const Schedule s = step(4);
  const RunResult healthy = test::fresh_run(f, s);
  const std::vector<int> loaded = loaded_links(f, healthy);
  REQUIRE(loaded.size() >= 16);

  FlowNetwork net(f);
  // 8 links per healthy run (a byte of targets), as the engine's: a timeline in the healthy run,
  // none in the link-down runs.
  for (std::size_t first = 0; first < loaded.size(); first += 8) {
    const std::vector<int> targets(loaded.begin() + static_cast<std::ptrdiff_t>(first),
                                   loaded.begin() + static_cast<std::ptrdiff_t>(std::min(first + 8, loaded.size())));
    net.set_prefix_capture([&](const Fabric&, const std::vector<double>& fwd, const std::vector<double>& rev) {
      for (int l : targets) CHECK(fwd[l] + rev[l] > 0);  // the run's bytes per link, before it runs
      return targets;
    });
    net.set_timeline_bins(16);
    same_run(net.run(s), healthy);  // capturing changes nothing
    net.set_prefix_capture(nullptr);
    net.set_timeline_bins(0);
    CHECK(net.prefix_links() == targets);
    for (int l : targets) {
      f.set_link_up(l, false);
      const RunResult down = net.run(s);
      const long long k = net.last_run_prefix();
      same_run(down, test::fresh_run(f, s));
      CHECK(down.link_bytes_fwd[l] + down.link_bytes_rev[l] == 0);
      f.set_link_up(l, true);
      CHECK(k > static_cast<long long>(s.activities.size()) / 2);  // most of the run taken from the prefix
    }
    net.drop_prefixes();
    CHECK(net.prefix_links().empty());
  }
}

TEST_CASE("a kept prefix serves only the same schedule with its one link down", "[network][run_prefix]") {
  auto spec = leaf_spine(32, 8, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  const Schedule s = step(4);
  const RunResult healthy = test::fresh_run(f, s);
  const std::vector<int> loaded = loaded_links(f, healthy);
  REQUIRE(loaded.size() >= 3);
  FlowNetwork net(f);
  // The latest-triggered of the loaded links: the one whose prefix is longest.
  int late = -1;
  long long best = 0;
  for (std::size_t first = 0; first < loaded.size(); first += 8) {
    const std::vector<int> targets(loaded.begin() + static_cast<std::ptrdiff_t>(first),
                                   loaded.begin() + static_cast<std::ptrdiff_t>(std::min(first + 8, loaded.size())));
    net.set_prefix_capture(
        [&](const Fabric&, const std::vector<double>&, const std::vector<double>&) { return targets; });
    net.run(s);
    net.set_prefix_capture(nullptr);
    for (int l : targets) {
      f.set_link_up(l, false);
      net.run(s);
      if (net.last_run_prefix() > best) best = net.last_run_prefix(), late = l;
      f.set_link_up(l, true);
    }
  }
  REQUIRE(late >= 0);
  const int other = late == loaded[0] ? loaded[1] : loaded[0];
  auto keep_late = [&] {
    net.set_prefix_capture(
        [&](const Fabric&, const std::vector<double>&, const std::vector<double>&) { return std::vector<int>{late}; });
    net.run(s);
    net.set_prefix_capture(nullptr);
    REQUIRE(net.prefix_links() == std::vector<int>{late});
  };

  keep_late();
  f.set_link_up(other, false);  // another link down: no prefix for it
  same_run(net.run(s), test::fresh_run(f, s));
  CHECK(net.last_run_prefix() == 0);
  f.set_link_up(late, false);  // two links down
  same_run(net.run(s), test::fresh_run(f, s));
  CHECK(net.last_run_prefix() == 0);
  f.set_link_up(other, true);

  Schedule slower = s;  // one computation's amount differs: another schedule
  slower.activities[0].amount *= 1.5;
  same_run(net.run(slower), test::fresh_run(f, slower));
  CHECK(net.last_run_prefix() == 0);
  same_run(net.run(s), test::fresh_run(f, s));  // the kept prefix still serves its own schedule
  CHECK(net.last_run_prefix() == best);
  f.set_link_up(late, true);

  net.drop_prefixes();
  f.set_link_up(late, false);
  same_run(net.run(s), test::fresh_run(f, s));
  CHECK(net.last_run_prefix() == 0);
  f.set_link_up(late, true);

  // A capturing run with relaxed tiers keeps nothing (their solver differs from the link-down run's).
  net.set_relaxed_tiers(1u << static_cast<unsigned>(topology::Tier::LeafSpine));
  net.set_prefix_capture(
      [&](const Fabric&, const std::vector<double>&, const std::vector<double>&) { return std::vector<int>{late}; });
  net.run(s);
  CHECK(net.prefix_links().empty());
}

TEST_CASE("no prefix is kept past a timeline bin boundary that completed an item early", "[network][run_prefix]") {
  // The healthy run has a timeline (as the engine's training step), the link-down runs none. A
  // computation due 0.5 ns after the first bin boundary completes at the boundary in the healthy
  // run (items due within 1 ns complete together), at its own time without a timeline: from there
  // the two runs differ, so the transfer after it, which crosses the link, finds no kept state.
  auto spec = leaf_spine(32, 8, 4);
  Fabric f = topology::build_fabric(spec);
  Schedule s;
  s.gpu_flops = {1e15};
  s.activities.push_back(compute(0, (1e-3 + 0.5e-9) * 1e15));
  s.activities.push_back(transfer(0, 20, 1e8, 7, {0}));
  const RunResult healthy = test::fresh_run(f, s);
  const std::vector<int> loaded = loaded_links(f, healthy);
  REQUIRE(!loaded.empty());
  FlowNetwork net(f);
  net.set_prefix_capture([&](const Fabric&, const std::vector<double>&, const std::vector<double>&) { return loaded; });
  net.set_timeline_bins(4, 4e-3);  // boundaries every 1 ms
  const RunResult with_timeline = net.run(s);
  CHECK(with_timeline.finish[0] < healthy.finish[0]);  // completed at the boundary
  net.set_prefix_capture(nullptr);
  net.set_timeline_bins(0);
  CHECK(net.prefix_links().empty());
  f.set_link_up(loaded[0], false);
  same_run(net.run(s), test::fresh_run(f, s));
  CHECK(net.last_run_prefix() == 0);
}

namespace {

/// step(rounds) on GPUs 0-31 with repetitions (as CP rings) beside it: in two of the leaves it
/// loads, a ring of their 4 GPUs after round rounds - 2's computations there, still running when the
/// last round's transfers cross the spines; on GPUs 32-63 (leaves of their own) a ring per leaf
/// from the start, alone on its links (waves that repeat a template: fast-forwarded as groups
/// while the step goes on) until two transfers of the last round come in; then a ring across
/// those leaves after everything (only repeated transfers in progress: the periodic
/// fast-forward's case).
Schedule step_with_rings(int rounds, int steps) {
  Schedule s = step(rounds);
  auto ring = [&s](const std::vector<int>& gpus, double bytes, int reps, const std::vector<int>& after, int hash) {
    const int n = static_cast<int>(gpus.size()), first = static_cast<int>(s.activities.size());
    for (int i = 0; i < n; ++i) {
      auto a = transfer(gpus[i], gpus[(i + 1) % n], bytes, hash + i, after);
      a.repeat = reps;
      a.after_previous = {first + (i + n - 1) % n};
      s.activities.push_back(a);
    }
  };
  // round rounds - 2's computation on GPU g: activity 4 (32 (rounds - 2) + g) (compute + 3 transfers)
  for (int leaf : {1, 6})
    ring({4 * leaf, 4 * leaf + 1, 4 * leaf + 2, 4 * leaf + 3}, 6e6, steps, {4 * (32 * (rounds - 2) + 4 * leaf)},
         500 + 10 * leaf);
  for (int leaf = 8; leaf < 16; ++leaf)
    ring({4 * leaf, 4 * leaf + 1, 4 * leaf + 2, 4 * leaf + 3}, 5e6 + 1e5 * leaf, 40 * steps, {}, 600 + 10 * leaf);
  // Into the leaves of their own, during the last round: onto a fast-forwarded ring's links
  // (materialised from there, from its template's rates).
  for (int g : {2, 13}) s.activities.push_back(transfer(g, 32 + g, 3e7, 77 + g, {4 * (32 * (rounds - 1) + g)}));
  std::vector<int> all(s.activities.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  ring({32, 37, 42, 47, 52, 57, 62, 35}, 4e6, 8 * steps, all, 900);
  return s;
}

}  // namespace

TEST_CASE("runs with repetitions: link-down runs continuing from the prefix are whole runs bit for bit",
          "[network][run_prefix][repeat]") {
  // CP rings (Activity::repeat): the kept state has their counts, waves, fast-forwarded groups and
  // the periodic state; the capturing run has the timeline, whose bin boundaries cut periodic jumps
  // short (nothing is kept from there), the link-down runs none.
  auto spec = leaf_spine(64, 16, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  for (int steps : {3, 7}) {
    INFO(steps << " ring steps");
    const Schedule s = step_with_rings(4, steps);
    const RunResult healthy = test::fresh_run(f, s);
    REQUIRE(healthy.repetitions_fast_forwarded > 0);
    // With repetitions the timeline changes the run (its bin boundaries cut periodic jumps short).
    FlowNetwork timed(f);
    timed.set_timeline_bins(16);
    const RunResult healthy_timeline = timed.run(s);
    const std::vector<int> loaded = loaded_links(f, healthy);
    REQUIRE(loaded.size() >= 16);
    FlowNetwork net(f);
    long long continued = 0, with_rings = 0;
    for (std::size_t first = 0; first < loaded.size(); first += 8) {
      const std::vector<int> targets(loaded.begin() + static_cast<std::ptrdiff_t>(first),
                                     loaded.begin() + static_cast<std::ptrdiff_t>(std::min(first + 8, loaded.size())));
      net.set_prefix_capture(
          [&](const Fabric&, const std::vector<double>&, const std::vector<double>&) { return targets; });
      net.set_timeline_bins(16);
      same_run(net.run(s), healthy_timeline);  // capturing changes nothing
      net.set_prefix_capture(nullptr);
      net.set_timeline_bins(0);
      for (int l : net.prefix_links()) {
        f.set_link_up(l, false);
        const RunResult down = net.run(s);
        const long long k = net.last_run_prefix();
        same_run(down, test::fresh_run(f, s));
        f.set_link_up(l, true);
        continued += k > 0;
        // the in-leaf rings begin after round rounds - 2: a longer prefix holds some of them
        with_rings += k > 32 * 4 * 3;
      }
      net.drop_prefixes();
    }
    CHECK(continued > 0);
    CHECK(with_rings > 0);
  }
}

TEST_CASE("no prefix is kept past a periodic jump a timeline bin boundary cut short", "[network][run_prefix][repeat]") {
  // Two rings across leaves 8-15 alone (a periodic regime), then transfers across leaves 0-7 after
  // the shorter one. The healthy run's timeline ends each jump before a bin boundary; a run
  // without it jumps over those periods at once: from the first cut jump the two runs differ, so
  // the transfers that begin after it find no kept state (without a timeline they do). Here a
  // boundary that completes items early (the jumps end just before one) stops the capture as well:
  // with either stop the link-down runs equal whole runs, with neither they do not.
  auto spec = leaf_spine(64, 16, 4);
  spec.flows_per_pair = 4;
  Fabric f = topology::build_fabric(spec);
  Schedule s;
  auto ring = [&s](const std::vector<int>& gpus, double bytes, int reps, int hash) {
    const int n = static_cast<int>(gpus.size()), first = static_cast<int>(s.activities.size());
    for (int i = 0; i < n; ++i) {
      auto a = transfer(gpus[i], gpus[(i + 1) % n], bytes, hash + i);
      a.repeat = reps;
      a.after_previous = {first + (i + n - 1) % n};
      s.activities.push_back(a);
    }
  };
  ring({32, 37, 42, 47, 52, 57, 62, 35}, 4e6, 400, 100);
  ring({33, 38, 43, 44, 53, 58, 63, 34}, 4e6, 120, 200);
  std::vector<int> shorter(8);
  for (int i = 0; i < 8; ++i) shorter[i] = 8 + i;
  for (int g = 0; g < 8; ++g) s.activities.push_back(transfer(g, 31 - g, 2e7, 300 + g, shorter));
  const RunResult healthy = test::fresh_run(f, s);
  REQUIRE(healthy.repetitions_fast_forwarded > 0);
  const std::vector<int> loaded = loaded_links(f, healthy);
  for (int bins : {0, 16}) {
    INFO(bins << " timeline bins in the capturing run");
    FlowNetwork net(f);
    net.set_prefix_capture([&](const Fabric&, const std::vector<double>&, const std::vector<double>&) {
      return std::vector<int>(loaded.begin(), loaded.begin() + std::min<std::size_t>(8, loaded.size()));
    });
    net.set_timeline_bins(bins);
    const RunResult captured = net.run(s);
    net.set_prefix_capture(nullptr);
    net.set_timeline_bins(0);
    long long kept = 0;
    for (int l : std::vector<int>(loaded.begin(), loaded.begin() + std::min<std::size_t>(8, loaded.size()))) {
      f.set_link_up(l, false);
      same_run(net.run(s), test::fresh_run(f, s));
      kept += net.last_run_prefix();
      f.set_link_up(l, true);
    }
    if (bins == 0) {
      same_run(captured, healthy);
      CHECK(kept > 0);  // the transfers after the shorter ring continue from the kept state
    } else {
      CHECK(captured.repetitions_fast_forwarded < healthy.repetitions_fast_forwarded);  // jumps cut short
      CHECK(kept == 0);
    }
  }
}
