// Ring-family traffic: NCCL rings (rail-aligned channels), PAT, pipelined chains (broadcast /
// reduce).
#include <cmath>

#include "models/collectives/flow_plan.hpp"
#include "models/common/errors.hpp"

namespace aidcsim::collectives::detail {

namespace {

/// Ring orders ("channels") of the group: one ring when the group is inside one domain or has
/// unequal domain shares; else one channel per local GPU, each entering a domain at one GPU and
/// leaving it through another so that every domain-to-domain hop stays on one rail (alternating
/// entry/exit, NCCL's rail-aligned rings), and every NIC sends one channel and receives one.
std::vector<std::vector<int>> ring_channels(const std::vector<int>& gpus, const Layout& l) {
  auto doms = by_domain(gpus, l);
  const int g = static_cast<int>(doms[0].size());
  bool equal = true;
  for (auto& d : doms) equal = equal && static_cast<int>(d.size()) == g;
  if (doms.size() == 1 || !equal || g == 1) return {gpus};
  std::vector<std::vector<int>> ch(g);
  for (int c = 0; c < g; ++c)
    for (std::size_t d = 0; d < doms.size(); ++d) {
      const auto& L = doms[d];
      for (int k = 0; k < g; ++k) {
        // even domain: c, c-1, ..., c+1 (enter c, leave c+1); odd: c+1, c+2, ..., c (enter c+1, leave c)
        const int idx = (d % 2 == 0) ? ((c - k) % g + g) % g : (c + 1 + k) % g;
        ch[c].push_back(L[idx]);
      }
    }
  return ch;
}

}  // namespace

FlowPlan plan_ring(const EmitContext& ctx, Op op) {
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  const int steps = op == Op::AllReduce ? 2 * (n - 1) : n - 1;
  const auto ch = ring_channels(c.gpus, ctx.layout);
  const double per_step = c.bytes / n / ch.size();
  FlowPlan plan;
  for (const auto& ring : ch) {
    if (c.collapse) {
      for (int i = 0; i < n; ++i) plan.done.push_back(plan.add(ring[i], ring[(i + 1) % n], per_step * steps, 0));
      continue;
    }
    // Step by step: each position's transfer repeated once per step (network::Activity::repeat);
    // step k+1 leaves a GPU once its own step k has left and step k of the previous position has
    // come in (after_previous).
    std::vector<int> pos(n);
    for (int i = 0; i < n; ++i) pos[i] = plan.add_repeated(ring[i], ring[(i + 1) % n], per_step, steps, {});
    for (int i = 0; i < n; ++i) plan.flows[pos[i]].after_previous = {pos[(i + n - 1) % n]};
    plan.done.insert(plan.done.end(), pos.begin(), pos.end());
  }
  if (!c.collapse) plan.ring_orders = static_cast<int>(ch.size());
  return plan;
}

FlowPlan plan_pat(const EmitContext& ctx) {
  // PAT (NCCL 2.23, all-gather / reduce-scatter with one GPU per node): log2(n) exchanges at
  // distances 1, 2, 4, ...; distance 2^k carries min(2^k, n - 2^k) blocks of S/n (Bruck's
  // schedule: n - 1 blocks in all, so every rank sends and receives (n-1)/n S).
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  const double block = c.bytes / n;
  FlowPlan plan;
  std::vector<int> into(n, -1);
  int wave = 0;
  for (int d = 1; d < n; d *= 2, ++wave) {
    const double payload = block * std::min(d, n - d);
    std::vector<int> cur(n, -1);
    for (int r = 0; r < n; ++r) {
      std::vector<int> deps;
      if (!c.collapse && into[r] >= 0) deps.push_back(into[r]);
      const int to = (r + d) % n;
      cur[to] = plan.add(c.gpus[r], c.gpus[to], payload, c.collapse ? 0 : wave, std::move(deps));
      if (c.collapse) plan.done.push_back(cur[to]);
    }
    into = cur;
  }
  if (!c.collapse) plan.done = into;
  return plan;
}

FlowPlan plan_chain(const EmitContext& ctx, bool reduce) {
  // NCCL broadcast / reduce: a pipelined chain (ring order, root first; reduce runs it backwards).
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  auto at = [&](int i) { return reduce ? c.gpus[n - 1 - i] : c.gpus[i]; };
  FlowPlan plan;
  if (c.collapse) {
    for (int i = 0; i + 1 < n; ++i) plan.done.push_back(plan.add(at(i), at(i + 1), c.bytes, 0));
    return plan;
  }
  // Step by step: each hop repeated once per pipeline chunk, chunk k after chunk k of the hop before
  const int chunks = std::max(1, c.chunks);
  int prev = -1;
  for (int i = 0; i + 1 < n; ++i) {
    prev = plan.add_repeated(at(i), at(i + 1), c.bytes / chunks, chunks, {},
                             prev >= 0 ? std::vector<int>{prev} : std::vector<int>{});
    plan.done.push_back(prev);
  }
  return plan;
}

}  // namespace aidcsim::collectives::detail
