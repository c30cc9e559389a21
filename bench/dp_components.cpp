// Benchmark (prints figures; not a timed test): how the DP rings of a zero2 / fsdp step share the
// fabric (issue 13, the Llama 3 405B 16K row with PP inside DP). Plans the step of a scenario
// scaled to DP replicas as bench/step_zero2 does, takes every distinct DP transfer of the plan
// (one per ring hop: a (stage, rail) ring repeats the same pair and hash for every layer and
// microbatch) as one wave, all rings in flight at once (the busiest moment of the step), and
// prints:
// - connected components of the sharing problem (sub-flow routes joined by a shared link
//   direction): over every link, and without the GPUs' NIC links (do rails / planes decompose?);
// - per link tier: directions used, sub-flows per direction (mean, max), distinct rails and
//   stages per direction, and how many are over-subscribed by the rings' demand (every transfer
//   at its NIC rate, split over its sub-flows);
// - the max-min rates of the wave (SimGrid's lmm, as FlowNetwork::run solves them): distinct
//   rates (each a distinct completion time for equal bytes), min / max per NIC rate, the CPU of
//   the first solve and of re-solving after one item ends (the cost of one event).
// Usage: dp_components [dp=8] [zero=zero2] [scenario=tests/validation/large_runs/llama3-405b/16384-gpus.yaml] [pp=0]
// pp = 1: the distinct PP sends (activations, gradients) join the wave.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bench/process_usage.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/sharing.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/step.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;
using bench::cpu_now;

namespace {

struct Dsu {
  std::vector<int> p;
  explicit Dsu(int n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int find(int x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  }
  void join(int a, int b) { p[find(a)] = find(b); }
};

struct Item {
  int transfer, mult;
  std::vector<int> dirs;
};

/// Components of `items` joined by a shared direction for which keep(dir) holds; returns
/// {components, largest component's items}.
template <class Keep>
std::pair<int, int> components(const std::vector<Item>& items, int dirs, Keep keep) {
  Dsu u(static_cast<int>(items.size()));
  std::vector<int> owner(dirs, -1);
  for (int i = 0; i < static_cast<int>(items.size()); ++i)
    for (int d : items[i].dirs) {
      if (!keep(d)) continue;
      if (owner[d] < 0)
        owner[d] = i;
      else
        u.join(i, owner[d]);
    }
  std::map<int, int> size;
  for (int i = 0; i < static_cast<int>(items.size()); ++i) ++size[u.find(i)];
  int big = 0;
  for (const auto& [r, n] : size) big = std::max(big, n);
  return {static_cast<int>(size.size()), big};
}

}  // namespace

int main(int argc, char** argv) {
  const int dp = argc > 1 ? std::atoi(argv[1]) : 8;
  const std::string zero = argc > 2 ? argv[2] : "zero2";
  const std::string path = argc > 3 ? argv[3] : "tests/validation/large_runs/llama3-405b/16384-gpus.yaml";
  const bool with_pp = argc > 4 && std::atoi(argv[4]) != 0;  // the PP sends in flight too
  LoadOptions o;
  o.check_hbm_fit = false;
  Scenario sc = load_scenario_file(path, o);
  const int per_replica = sc.job.par.tp * sc.job.par.cp * sc.job.par.pp;
  const int per_dp_batch = sc.job.global_batch / sc.job.par.dp;
  sc.job.par.dp = dp;
  sc.job.par.zero = zero;
  sc.job.global_batch = per_dp_batch * dp;
  sc.fabric.gpus = per_replica * dp;
  const auto fabric = topology::build_fabric(sc.fabric);
  workload::StepOptions opts;
  opts.seed = sc.seed;
  const auto plan = workload::plan_step(sc.job, sc.gpu, fabric, opts);

  // Distinct DP transfers (ends and hash): the ring hops of every (stage, rail) ring.
  std::set<std::tuple<int, int, std::uint64_t>> seen;
  std::vector<network::Activity> wave;
  for (const auto& a : plan.schedule.activities)
    if (a.kind == network::Activity::Kind::Transfer &&
        (a.tag == workload::kTagDp || (with_pp && a.tag == workload::kTagPp)) && a.gpu != a.dst_gpu &&
        seen.insert({a.gpu, a.dst_gpu, a.flow_hash}).second)
      wave.push_back(a);
  const int L = fabric.link_count();
  const int D = 2 * L;
  std::vector<Item> items;
  for (int i = 0; i < static_cast<int>(wave.size()); ++i) {
    std::map<std::vector<int>, int> routes;  // merged as FlowNetwork::run merges hashed sub-flows on one route
    network::for_each_subflow_route(fabric, wave[i], 16, [&](const std::vector<topology::Hop>& hops) {
      std::vector<int> dirs;
      for (const auto& h : hops) dirs.push_back(2 * h.link + (h.forward ? 0 : 1));
      ++routes[dirs];
    });
    for (auto& [dirs, m] : routes) items.push_back({i, m, dirs});
  }
  const int fpp = std::max(1, sc.fabric.flows_per_pair);
  std::printf(
      "dp_components: %d GPUs (DP %d, %s), %d tiers, %zu distinct DP transfers (rings x hops)%s, %zu items "
      "(sub-flows merged per route; %d per pair)\n",
      per_replica * dp, dp, zero.c_str(), fabric.bom().tiers, wave.size(), with_pp ? " and PP sends" : "", items.size(),
      fpp);

  auto tier = [&](int d) { return fabric.link(d / 2).tier; };
  const auto all = components(items, D, [](int) { return true; });
  const auto no_nic = components(items, D, [&](int d) { return tier(d) != topology::Tier::Access; });
  const auto core = components(items, D, [&](int d) { return tier(d) == topology::Tier::SpineCore; });
  const auto no_core = components(items, D, [&](int d) { return tier(d) != topology::Tier::SpineCore; });
  std::printf(
      "components: all links %d (largest %d items); without NIC links %d (largest %d); core links only %d "
      "(largest %d); without core links %d (largest %d)\n",
      all.first, all.second, no_nic.first, no_nic.second, core.first, core.second, no_core.first, no_core.second);

  // Per tier: sub-flows, rails and stages per direction, demand / capacity.
  struct Use {
    int subflows = 0;
    double demand = 0;
    std::set<int> rails, stages;
  };
  std::vector<Use> use(D);
  const int tp = sc.job.par.tp;
  for (const Item& it : items) {
    const auto& a = wave[it.transfer];
    const double nic = fabric.sharing_rate(fabric.access_link(a.gpu));
    for (int d : it.dirs) {
      use[d].subflows += it.mult;
      use[d].demand += nic * it.mult / fpp;
      use[d].rails.insert(a.gpu % tp);
      use[d].stages.insert((a.gpu / tp) % sc.job.par.pp);
    }
  }
  for (auto t : {topology::Tier::Access, topology::Tier::LeafSpine, topology::Tier::SpineCore}) {
    int dirs = 0, maxsub = 0, over = 0;
    double sub = 0, rails = 0, stages = 0, maxload = 0;
    for (int d = 0; d < D; ++d) {
      if (tier(d) != t || use[d].subflows == 0) continue;
      ++dirs;
      sub += use[d].subflows;
      maxsub = std::max(maxsub, use[d].subflows);
      rails += use[d].rails.size();
      stages += use[d].stages.size();
      const double load = use[d].demand / fabric.sharing_rate(d / 2);
      maxload = std::max(maxload, load);
      over += load > 1 + 1e-9;
    }
    if (!dirs) continue;
    std::printf(
        "  %-10s %6d directions used: sub-flows %.1f mean, %d max; rails %.2f, stages %.2f per direction; "
        "over-subscribed %d (max load %.2f)\n",
        topology::tier_name(t), dirs, sub / dirs, maxsub, rails / dirs, stages / dirs, over, maxload);
  }

  // Max-min rates of the wave, as the event loop's solver computes them.
  network::detail::MaxMinSharing mm;
  for (int l = 0; l < L; ++l) {
    mm.add_resource(fabric.sharing_rate(l));
    mm.add_resource(fabric.sharing_rate(l));
  }
  std::vector<std::uint32_t> handle(items.size());
  for (int i = 0; i < static_cast<int>(items.size()); ++i)
    handle[i] = mm.add_item(items[i].dirs.data(), static_cast<int>(items[i].dirs.size()), i, items[i].mult);
  std::vector<double> rate(items.size(), 0);
  double c0 = cpu_now();
  std::size_t n0 = mm.solve([&](int tag, double r) { rate[tag] = r; });
  const double first = cpu_now() - c0;
  const double nic = fabric.sharing_rate(fabric.access_link(wave[0].gpu));
  std::set<long long> distinct;  // per unit weight, to 1e-6 of the NIC rate
  std::set<long long> transfer_ends;
  double lo = 1e300, hi = 0;
  std::vector<double> slowest(wave.size(), 1e300);
  for (int i = 0; i < static_cast<int>(items.size()); ++i) {
    const double per = rate[i] / items[i].mult;
    distinct.insert(std::llround(per / nic * 1e6));
    lo = std::min(lo, per * fpp / nic);
    hi = std::max(hi, per * fpp / nic);
    slowest[items[i].transfer] = std::min(slowest[items[i].transfer], per);
  }
  for (double r : slowest) transfer_ends.insert(std::llround(r / nic * 1e6));
  // One event: the first item ends; the re-solve and what it reports.
  c0 = cpu_now();
  const int events = std::min<int>(200, static_cast<int>(items.size()));
  std::size_t reported = 0;
  for (int e = 0; e < events; ++e) {
    mm.remove_item(handle[e * (items.size() / events)]);
    reported += mm.solve([](int, double) {});
  }
  const double per_event = (cpu_now() - c0) / events;
  std::printf(
      "max-min: %zu items reported by the first solve (%.3f s CPU); %zu distinct rates per unit weight, "
      "per sub-flow x %d / NIC rate %.3f .. %.3f; %zu distinct slowest-sub-flow rates over %zu transfers\n",
      n0, first, distinct.size(), fpp, lo, hi, transfer_ends.size(), wave.size());
  std::printf("one event (an item removed, re-solve): %.1f us CPU, %.0f items reported (mean of %d)\n", per_event * 1e6,
              static_cast<double>(reported) / events, events);
  return 0;
}
