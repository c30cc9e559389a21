// NCCL's tree all-reduce: chains inside each NVLink domain and, across domains, the double binary
// tree (src/graph/trees.cc) on every rail.
#include <algorithm>

#include "models/collectives/flow_plan.hpp"

namespace aidcsim::collectives::detail {

namespace {

/// Chains inside each domain: channel j's chain starts at its head GPU j (the one on rail j) and
/// runs through the others; up (reduce) and down (broadcast) every chain link carries S / g. Summed
/// over the g chains, hop i -> i+1 and hop i+1 -> i each carry (g-1)/g x S.
void add_chains(FlowPlan& plan, const std::vector<std::vector<int>>& doms, double bytes) {
  for (const auto& d : doms) {
    const int g = static_cast<int>(d.size());
    if (g < 2) continue;
    const double payload = (g - 1.0) / g * bytes;
    for (int i = 0; i < g; ++i) {
      plan.done.push_back(plan.add(d[i], d[(i + 1) % g], payload, 0));
      if (g > 2) plan.done.push_back(plan.add(d[(i + 1) % g], d[i], payload, 0));
    }
  }
}

}  // namespace

FlowPlan plan_tree(const EmitContext& ctx, const std::vector<std::vector<int>>& doms) {
  const auto& c = ctx.c;
  const int N = static_cast<int>(doms.size());
  int rails = static_cast<int>(doms[0].size());
  for (const auto& d : doms) rails = std::min(rails, static_cast<int>(d.size()));
  FlowPlan plan;
  add_chains(plan, doms, c.bytes);
  if (N < 2) return plan;
  // Each rail j runs both trees (NCCL alternates tree 0 / tree 1 over channels), each with S / (2 R):
  // reduce up to the parent, broadcast down from it, between the rail-j GPUs of the two domains.
  const double share = c.bytes / (2.0 * rails);
  if (c.collapse) {
    for (int j = 0; j < rails; ++j)
      for (int t = 0; t < 2; ++t)
        for (int a = 0; a < N; ++a) {
          const int p = dtree_parent(N, a, t);
          if (p < 0) continue;
          plan.done.push_back(plan.add(doms[a][j], doms[p][j], share, 0));
          plan.done.push_back(plan.add(doms[p][j], doms[a][j], share, 0));
        }
    return plan;
  }
  // Step by step: `chunks` pipeline chunks; a chunk goes up an edge when it has come up from the
  // child's children and the previous chunk has left; down an edge when the parent has it.
  const int K = std::max(1, c.chunks);
  std::vector<std::vector<int>> kids(N);
  for (int j = 0; j < rails; ++j)
    for (int t = 0; t < 2; ++t) {
      std::vector<int> parent(N);
      for (auto& k : kids) k.clear();
      int root = 0;
      for (int a = 0; a < N; ++a) {
        parent[a] = dtree_parent(N, a, t);
        if (parent[a] >= 0) kids[parent[a]].push_back(a);
        else root = a;
      }
      // post-order (children before parents) for the up phase
      std::vector<int> order, stack{root};
      while (!stack.empty()) {
        const int a = stack.back();
        stack.pop_back();
        order.push_back(a);
        for (int k : kids[a]) stack.push_back(k);
      }
      std::vector<int> up(N, -1), down(N, -1);
      for (int k = 0; k < K; ++k) {
        std::vector<int> up_k(N, -1), down_k(N, -1);
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
          const int a = *it;
          if (parent[a] < 0) continue;
          std::vector<int> deps;
          for (int ch : kids[a]) deps.push_back(up_k[ch]);
          if (up[a] >= 0) deps.push_back(up[a]);
          up_k[a] = plan.add(doms[a][j], doms[parent[a]][j], share / K, k, std::move(deps));
        }
        for (int a : order) {  // pre-order: a parent has its chunk before its children
          const int p = parent[a];
          if (p < 0) continue;
          std::vector<int> deps;
          if (parent[p] < 0) {
            for (int ch : kids[p]) deps.push_back(up_k[ch]);  // the root has reduced chunk k
          } else {
            deps.push_back(down_k[p]);
          }
          if (down[a] >= 0) deps.push_back(down[a]);
          down_k[a] = plan.add(doms[p][j], doms[a][j], share / K, k, std::move(deps));
        }
        up = up_k;
        down = down_k;
      }
      for (int a = 0; a < N; ++a)
        if (down[a] >= 0) plan.done.push_back(down[a]);
    }
  return plan;
}

}  // namespace aidcsim::collectives::detail
