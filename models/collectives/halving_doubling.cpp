// Rabenseifner's recursive halving / doubling all-reduce (Thakur, Rabenseifner and Gropp 2005,
// "Optimization of collective communication operations in MPICH"): log2 n halving steps of
// reduce-scatter, then log2 n doubling steps of all-gather between partners i xor dist.
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
