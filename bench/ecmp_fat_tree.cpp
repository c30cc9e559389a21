// Benchmark (prints figures; not a timed test): ECMP realism on k-ary fat trees (Al-Fares et al.,
// SIGCOMM 2008, §3: k pods, k^3/4 hosts, radix-k switches, 1:1). A seeded random permutation
// (every host sends 64 MiB to one other host, every host receives once) is carried
//  - with single-path per-flow hash ECMP (Fabric::route with ecmp_hash), and
//  - with spraying (EcmpMode::Spray: each flow split evenly over all its equal-cost paths).
// A permutation on a non-blocking fat tree can be routed at full line rate (ideal = every NIC at
// 100 %), so throughput is reported as a fraction of the NIC rate:
//  - "steady": mean max-min fair rate of long-lived flows at t = 0 (computed here by progressive
//    filling over the same routes: the figure Al-Fares 2008 and Raiciu 2011 report);
//  - "mean FCT": mean over flows of bytes / (FCT - latency) in the SimGrid run (flows that finish
//    early release capacity, so this is above "steady");
//  - "phase": bytes / (makespan - latency): the slowest flow, i.e. what a collective phase sees.
// Usage: ecmp_fat_tree [seed=1] [k list, default 8 16 24 32]. docs/ecmp-fat-tree.md has a run.
// The spray run is made for k <= AIDCSIM_SPRAY_MAX_K (default 8; k = 16 sprays 1024 x 64
// sub-flows and takes ~40 s of CPU); above it the ideal is the analytic 1.0.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "models/network/flow_network.hpp"

using namespace aidcsim;

namespace {

constexpr double kRate = 50e9;  // 400 Gb/s NICs and switch ports

/// Max-min fair rates by progressive filling (Bertsekas & Gallager, Data Networks, 2nd ed.,
/// §6.5.2): all unfrozen flows grow at the same rate until a link direction saturates; its flows
/// freeze. `routes[f]` = link-direction ids (2 l + reverse), `cap` per link direction.
std::vector<double> max_min_rates(const std::vector<std::vector<int>>& routes, std::vector<double> cap) {
  const std::size_t F = routes.size();
  std::vector<double> rate(F, 0.0);
  std::vector<char> frozen(F, 0);
  std::vector<std::vector<int>> on(cap.size());
  for (std::size_t f = 0; f < F; ++f)
    for (int d : routes[f]) on[d].push_back(static_cast<int>(f));
  std::vector<int> active(cap.size(), 0);
  for (std::size_t d = 0; d < cap.size(); ++d) active[d] = static_cast<int>(on[d].size());
  std::size_t left = F;
  while (left > 0) {
    double inc = std::numeric_limits<double>::infinity();
    for (std::size_t d = 0; d < cap.size(); ++d)
      if (active[d] > 0) inc = std::min(inc, cap[d] / active[d]);
    for (std::size_t f = 0; f < F; ++f)
      if (!frozen[f]) rate[f] += inc;
    for (std::size_t d = 0; d < cap.size(); ++d)
      if (active[d] > 0) cap[d] -= inc * active[d];
    for (std::size_t d = 0; d < cap.size(); ++d) {
      if (active[d] == 0 || cap[d] > 1e-9 * kRate) continue;
      for (int f : on[d])
        if (!frozen[f]) {
          frozen[f] = 1;
          --left;
          for (int e : routes[f]) --active[e];
        }
    }
  }
  return rate;
}

struct Figures {
  double steady = 0, mean_fct = 0, phase = 0, seconds = 0;
};

Figures measure(int k, topology::EcmpMode mode, const std::vector<int>& perm, std::uint64_t seed) {
  topology::FabricSpec spec;
  spec.gpus = k * k * k / 4;
  spec.gpus_per_node = 1;
  spec.nvlink_domain = 1;
  spec.kind = topology::FabricKind::Clos3;
  spec.wiring = topology::Wiring::RackLocal;
  spec.switch_radix = k;
  spec.link_rate = spec.nic_rate = kRate;
  spec.ecmp = mode;
  const topology::Fabric f = topology::build_fabric(spec);
  const int n = spec.gpus;
  const double bytes = 64.0 * 1024 * 1024;
  network::Schedule s;
  for (int g = 0; g < n; ++g) {
    network::Activity a;
    a.kind = network::Activity::Kind::Transfer;
    a.gpu = g;
    a.dst_gpu = perm[g];
    a.amount = bytes;
    a.flow_hash = topology::ecmp_hash(seed, g, perm[g], 0);
    s.activities.push_back(a);
  }
  Figures out;
  const auto t0 = std::chrono::steady_clock::now();
  network::FlowNetwork net(f);
  net.set_spray_subflows(k * k / 4);  // all (k/2)^2 paths between pods
  const auto r = net.run(s);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double lat = f.latency(f.route(0, perm[0], s.activities[0].flow_hash));
  double sum = 0, worst = 0;
  for (int g = 0; g < n; ++g) {
    const double l = f.latency(f.route(g, perm[g], s.activities[g].flow_hash));
    sum += bytes / (r.finish[g] - r.start[g] - l) / kRate;
    worst = std::max(worst, r.finish[g] - r.start[g] - l);
  }
  (void)lat;
  out.mean_fct = sum / n;
  out.phase = bytes / worst / kRate;
  if (mode == topology::EcmpMode::Hash) {
    std::vector<std::vector<int>> routes(n);
    for (int g = 0; g < n; ++g)
      for (const auto& h : f.route(g, perm[g], s.activities[g].flow_hash))
        routes[g].push_back(2 * h.link + (h.forward ? 0 : 1));
    std::vector<double> cap(2 * static_cast<std::size_t>(f.link_count()));
    for (int l = 0; l < f.link_count(); ++l) cap[2 * l] = cap[2 * l + 1] = f.link(l).rate;
    const auto rates = max_min_rates(routes, cap);
    out.steady = std::accumulate(rates.begin(), rates.end(), 0.0) / (n * kRate);
  } else {
    out.steady = out.mean_fct;  // see the table note: sprayed flows all run at line rate
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  std::vector<int> ks;
  for (int i = 2; i < argc; ++i) ks.push_back(std::atoi(argv[i]));
  if (ks.empty()) ks = {8, 16, 24, 32};

  std::printf("ECMP on k-ary fat trees (clos3, radix k, k^3/4 hosts, 1:1, 400G), random permutation, seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::printf("throughput as a fraction of line rate (ideal for a permutation on a non-blocking fat tree = 1)\n\n");
  std::printf(
      "   k  hosts | hash ECMP: steady  mean-FCT  phase | spray: mean-FCT  phase | steady ECMP/ideal | wall s (hash, "
      "spray)\n");
  for (int k : ks) {
    const int n = k * k * k / 4;
    std::mt19937_64 rng(seed * 1000003ull + static_cast<std::uint64_t>(k));
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int g = 0; g < n; ++g)  // no host sends to itself: swap fixed points with a neighbour
      if (perm[g] == g) std::swap(perm[g], perm[(g + 1) % n]);
    const Figures h = measure(k, topology::EcmpMode::Hash, perm, seed);
    const char* env = std::getenv("AIDCSIM_SPRAY_MAX_K");
    const bool spray = k <= (env ? std::atoi(env) : 8);
    const Figures sp = spray ? measure(k, topology::EcmpMode::Spray, perm, seed) : Figures{1.0, 1.0, 1.0, 0.0};
    std::printf("%4d %6d |            %6.3f    %6.3f %6.3f |          %6.3f %6.3f%s |            %6.3f | %6.2f %6.2f\n",
                k, n, h.steady, h.mean_fct, h.phase, sp.mean_fct, sp.phase, spray ? " " : "*", h.steady / 1.0,
                h.seconds, sp.seconds);
    std::fflush(stdout);
  }
  std::printf(
      "\nspray: each flow over all (k/2)^2 equal-cost paths; * = not simulated (AIDCSIM_SPRAY_MAX_K), analytic\n");
  std::printf("ideal 1.0 (a permutation on a non-blocking fat tree, split evenly at every hop, loads no link above\n");
  std::printf(
      "its rate). hash mean-FCT = steady: with equal sizes a flow never shares its max-min bottleneck with a\n");
  std::printf("faster flow, so no flow speeds up before it ends (SimGrid vs progressive filling cross-check).\n");
  std::printf("Published (quoted from memory, check the papers before citing):\n");
  std::printf("  Al-Fares, Loukissas, Vahdat, SIGCOMM 2008: per-flow hashing / static multipath on a fat tree\n");
  std::printf("    reaches roughly 40-60 %% of ideal bisection bandwidth for random traffic.\n");
  std::printf("  Raiciu et al., SIGCOMM 2011 (MPTCP): single-path TCP over ECMP on a fat tree under a random\n");
  std::printf("    permutation gets roughly 40-50 %% of optimal; MPTCP with 8 subflows ~90 %%.\n");
  return 0;
}
