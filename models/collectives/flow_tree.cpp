// NCCL's tree all-reduce: chains inside each NVLink domain and, across domains, the double binary
// tree (src/graph/trees.cc) on every rail.
#include <fmt/format.h>

#include <algorithm>

#include "models/collectives/flow_plan.hpp"

namespace aidcsim::collectives::detail {

namespace {

/// Chains inside each domain: channel j's chain starts at its head GPU j (the one on rail j) and
/// runs through the others; up (reduce) and down (broadcast) every chain link carries S / g. Summed
/// over the g chains, hop i -> i+1 and hop i+1 -> i each carry (g-1)/g x S; at g = 2 both are
/// the one link, whose each direction carries chain 0's S/2 (down) and chain 1's S/2 (up): S. One
/// transfer each, stepped or not (a stepped tree's chains pay NCCL's latency once: materialize).
void add_chains(FlowPlan& plan, const std::vector<std::vector<int>>& doms, double bytes) {
  for (const auto& d : doms) {
    const int g = static_cast<int>(d.size());
    if (g < 2) continue;
    const double payload = g == 2 ? bytes : (g - 1.0) / g * bytes;
    for (int i = 0; i < g; ++i) {
      plan.done.push_back(plan.add(d[i], d[(i + 1) % g], payload, 0));
      if (g > 2) plan.done.push_back(plan.add(d[(i + 1) % g], d[i], payload, 0));
    }
  }
}

}  // namespace

void add_dtrees(FlowPlan& plan, const EmitContext& ctx, const std::vector<std::vector<int>>& doms, int rails,
                double share, const char* what, bool collapse_over_budget) {
  const int N = static_cast<int>(doms.size());
  if (N < 2) return;
  const double edges = 4.0 * rails * (N - 1);  // per rail, both trees, up and down
  int K = std::max(1, ctx.chunks);
  // NCCL's chunks beyond the CPU budget: in groups, as many repetitions as the budget allows,
  // at least 8 (or collapsed, `collapse_over_budget`)
  const int sim = std::min(K, std::max(8, static_cast<int>(kPipelineWork / (edges * edges))));
  const bool over = !ctx.c.collapse && ctx.c.chunks <= 0 && sim < K;
  if (over)
    plan.note = collapse_over_budget
                    ? fmt::format(
                          "{}: NCCL's {} pipeline chunks per channel over the CPU budget: the tree's edges "
                          "collapsed (one transfer each)",
                          what, K)
                    : fmt::format(
                          "{}: NCCL's {} pipeline chunks per channel simulated as {} repetitions of {:.1f} "
                          "chunks each (CPU budget); the stepped pipeline's fill grows as 1 / repetitions",
                          what, K, sim, double(K) / sim);
  if (ctx.c.collapse || (over && collapse_over_budget)) {
    for (int j = 0; j < rails; ++j)
      for (int t = 0; t < 2; ++t)
        for (int a = 0; a < N; ++a) {
          const int p = dtree_parent(N, a, t);
          if (p < 0) continue;
          plan.done.push_back(plan.add(doms[a][j], doms[p][j], share, 0));
          plan.done.push_back(plan.add(doms[p][j], doms[a][j], share, 0));
        }
    return;
  }
  if (over) K = sim;
  // Step by step: NCCL's pipeline chunks per channel (ctx.chunks, nccl::pipeline_chunks: one at
  // small messages, 512 KiB each for the tree with Simple); the channels of a rail and tree move
  // their chunks side by side, so each repetition carries a chunk of every one of them
  // (network::Activity::repeat). A chunk goes up an edge once it has come up from the child's
  // children (after_same), down an edge once the parent has it (after_same: the edge into the
  // parent, or at the root the edges up into it).
  plan.pipelines = true;
  std::vector<std::vector<int>> kids(N);
  for (int j = 0; j < rails; ++j)
    for (int t = 0; t < 2; ++t) {
      std::vector<int> parent(N), up(N, -1), down(N, -1);
      for (auto& k : kids) k.clear();
      for (int a = 0; a < N; ++a) {
        parent[a] = dtree_parent(N, a, t);
        if (parent[a] >= 0) kids[parent[a]].push_back(a);
      }
      for (int a = 0; a < N; ++a)
        if (parent[a] >= 0) up[a] = plan.add_repeated(doms[a][j], doms[parent[a]][j], share / K, K, {});
      for (int a = 0; a < N; ++a)
        if (parent[a] >= 0) down[a] = plan.add_repeated(doms[parent[a]][j], doms[a][j], share / K, K, {});
      for (int a = 0; a < N; ++a) {
        if (parent[a] < 0) continue;
        for (int ch : kids[a]) plan.flows[up[a]].after_same.push_back(up[ch]);
        const int p = parent[a];
        if (parent[p] < 0) {
          for (int ch : kids[p]) plan.flows[down[a]].after_same.push_back(up[ch]);
        } else {
          plan.flows[down[a]].after_same.push_back(down[p]);
        }
        plan.done.push_back(down[a]);
      }
    }
}

FlowPlan plan_tree(const EmitContext& ctx, const std::vector<std::vector<int>>& doms) {
  const auto& c = ctx.c;
  int rails = static_cast<int>(doms[0].size());
  for (const auto& d : doms) rails = std::min(rails, static_cast<int>(d.size()));
  FlowPlan plan;
  add_chains(plan, doms, c.bytes);
  // Each rail j runs both trees (NCCL alternates tree 0 / tree 1 over channels), each with S / (2 R):
  // reduce up to the parent, broadcast down from it, between the rail-j GPUs of the two domains.
  // Over the CPU budget in groups of NCCL's chunks, as the stepped tree ran 8 before NCCL's count.
  add_dtrees(plan, ctx, doms, rails, c.bytes / (2.0 * rails), "tree", false);
  return plan;
}

}  // namespace aidcsim::collectives::detail
