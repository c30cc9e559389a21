// Direct point to point (all-to-all, send/recv): every pair directly, each transfer at its port's
// NCCL efficiency; NCCL's Simple-protocol latencies (estimate.hpp).
#include <algorithm>

#include "models/collectives/estimate.hpp"

namespace aidcsim::collectives::detail {

SimpleLatency simple_latency(const EstimateContext& x) {
  const bool one = x.doms.size() == 1;
  return {(one ? (x.sys.nvlink ? 3.4 : 5.7) : 14.0) * 1e-6,  // hwLat Ring/Simple NVLINK, PCI, NET
          8.4e-6};                                           // baseLat Ring/Simple
}

Selection estimate_direct(const EstimateContext& x) {
  const Collective& c = x.c;
  const Layout& l = x.l;
  const int n = static_cast<int>(c.gpus.size());
  const auto [hop, base] = simple_latency(x);
  Selection s;
  s.algorithm = Algorithm::Direct;
  s.proto = Proto::Simple;
  s.channels = 1;
  double nv = 0, nic = 0;
  p2p_efficiency(l, x.sys, &nv, &nic);
  const int g = static_cast<int>(x.doms[0].size());
  if (c.op == Op::SendRecv) {
    const bool same = l.domain_of(c.gpus.front()) == l.domain_of(c.gpus.back());
    s.bw_time = c.bytes / (same ? nv * l.nvlink_rate : nic * l.nic_rate);
    s.latency = base + (same ? hop : 14e-6);
  } else {
    s.bw_time = std::max(c.bytes * (g - 1) / n / (nv * l.nvlink_rate), c.bytes * (n - g) / n / (nic * l.nic_rate));
    s.latency = base + hop;
  }
  s.nccl_time = s.time();
  return s;
}

FlowPlan plan_direct(const EmitContext& ctx, const std::vector<std::vector<int>>&) {
  if (ctx.c.op != Op::SendRecv) return plan_alltoall(ctx, 1 << 18);
  FlowPlan plan;
  plan.per_port_efficiency = true;
  const auto& g = ctx.c.gpus;
  if (g.front() != g.back()) plan.done.push_back(plan.add(g.front(), g.back(), ctx.c.bytes, 0));
  return plan;
}

}  // namespace aidcsim::collectives::detail
