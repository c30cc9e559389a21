// Rabenseifner's recursive halving / doubling all-reduce (Thakur, Rabenseifner and Gropp 2005,
// "Optimization of collective communication operations in MPICH"): log2 n halving steps of
// reduce-scatter, then log2 n doubling steps of all-gather between partners i xor dist.
#include "models/collectives/halving_doubling.hpp"

#include <algorithm>
#include <cmath>

#include "models/collectives/estimate.hpp"
#include "models/collectives/flow_plan.hpp"

namespace aidcsim::collectives::detail {

// Bandwidth: NCCL's ring bus bandwidth for the group (the same links at NCCL's efficiency) moving
// 2 (n - 1) / n of the data; latency: 2 log2 n steps of NCCL's Simple hop.
Selection estimate_halving_doubling(const EstimateContext& x) {
  const Collective& c = x.c;
  const int n = static_cast<int>(c.gpus.size());
  const auto [hop, base] = simple_latency(x);
  Selection s;
  s.algorithm = Algorithm::HalvingDoubling;
  s.proto = Proto::Simple;
  s.channels = 1;
  const nccl::Model m = nccl::build_model(x.sys);
  const double ring_bus = m.bandwidth[nccl::kAllReduce][nccl::kRing][nccl::kSimple] * 2.0 * (n - 1) / n;  // GB/s
  s.bw_time = 2.0 * (n - 1) / n * c.bytes / (ring_bus * 1e9);
  s.latency = base + 2 * std::log2(double(n)) * hop;
  s.nccl_time = s.time();
  return s;
}

FlowPlan plan_halving_doubling(const EmitContext& ctx) {
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  const int lg = static_cast<int>(std::lround(std::log2(double(n))));
  FlowPlan plan;
  plan.flows.reserve(2 * static_cast<std::size_t>(lg) * n);
  // into[i]: the flow GPU i received in the step before (-1 before the first step): every step is
  // a permutation, so one each.
  std::vector<int> into(n, -1), cur(n);
  int wave = 0;
  auto step = [&](int dist, double data) {
    for (int i = 0; i < n; ++i) {
      const int j = i ^ dist;
      cur[j] = into[i] < 0 ? plan.add(c.gpus[i], c.gpus[j], data, wave)
                           : plan.add(c.gpus[i], c.gpus[j], data, wave, {into[i]});
    }
    into.swap(cur);
    ++wave;
  };
  for (int k = 0; k < lg; ++k) step(n >> (k + 1), c.bytes / (2 << k));       // reduce-scatter, halving
  for (int k = lg - 1; k >= 0; --k) step(n >> (k + 1), c.bytes / (2 << k));  // all-gather, doubling
  plan.done = into;
  return plan;
}

}  // namespace aidcsim::collectives::detail

namespace aidcsim::collectives {

std::optional<network::RegularWaves> halving_doubling_waves(const Collective& c, const Layout& l,
                                                            const Selection& sel) {
  const int n = static_cast<int>(c.gpus.size());
  if (sel.algorithm != Algorithm::HalvingDoubling || n < 2 || (n & (n - 1)) != 0 || !(c.bytes > 0) || !c.after.empty())
    return std::nullopt;
  {
    std::vector<int> sorted = c.gpus;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return std::nullopt;
  }
  network::RegularWaves w;
  w.gpus = c.gpus;
  w.domain.resize(n);
  for (int r = 0; r < n; ++r) w.domain[r] = l.domain_of(c.gpus[r]);
  // plan_halving_doubling's steps: their distances and payloads.
  const int lg = static_cast<int>(std::lround(std::log2(double(n))));
  std::vector<double> payload;
  for (int k = 0; k < lg; ++k) {
    w.dist.push_back(n >> (k + 1));
    payload.push_back(c.bytes / (2 << k));
  }
  for (int k = lg - 1; k >= 0; --k) {
    w.dist.push_back(n >> (k + 1));
    payload.push_back(c.bytes / (2 << k));
  }
  const int W = static_cast<int>(w.dist.size());
  auto nv = [&](int r, int wave) { return w.domain[r] == w.domain[r ^ w.dist[wave]]; };
  auto rate = [&](bool v) { return v ? l.nvlink_rate : nic_port_rate(l); };  // materialize's
  // materialize's longest path, in its flow order (wave-major, ranks in order): transfer (wave,
  // r) after the one rank r received in the wave before, from r ^ dist[wave - 1]; its one
  // dependency is always taken (hop count wave + 1 > 0), repeat 1 (last = first repetition).
  double tmax = 0;
  int dmax = 1;
  std::vector<double> prev(n, 0.0), cur(n, 0.0);
  for (int wave = 0; wave < W; ++wave) {
    for (int r = 0; r < n; ++r) {
      const double t0 = wave == 0 ? 0.0 : prev[r ^ w.dist[wave - 1]];
      cur[r] = t0 + payload[wave] / rate(nv(r, wave));
      if (cur[r] > tmax || (cur[r] == tmax && wave + 1 > dmax)) {
        tmax = cur[r];
        dmax = wave + 1;
      }
    }
    prev.swap(cur);
  }
  // Its port totals: a rank's out and in ports of a class each carry one transfer of every wave
  // of that class (each wave a permutation), summed in wave order.
  for (int r = 0; r < n; ++r) {
    double total[2] = {0, 0};
    for (int wave = 0; wave < W; ++wave) total[nv(r, wave) ? 1 : 0] += payload[wave];
    for (int v = 0; v < 2; ++v)
      if (total[v] != 0) tmax = std::max(tmax, total[v] / rate(v == 1));
  }
  const double scale = tmax > 0 ? sel.bw_time / tmax : 1.0;
  const double lat_per_hop = sel.latency / std::max(1, dmax);
  for (int v = 0; v < 2; ++v) {
    const double route = v == 1 ? l.nvlink_latency : l.net_latency;
    for (int wave = 0; wave < W; ++wave) {
      w.amount[v].push_back(payload[wave] * scale);
      w.delay[v].push_back(std::max(0.0, lat_per_hop - route));
    }
  }
  w.hash_base = c.hash * 0x9E3779B97F4A7C15ULL;
  return w;
}

}  // namespace aidcsim::collectives
