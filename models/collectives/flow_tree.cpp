// NCCL's tree all-reduce: chains inside each NVLink domain and, across domains, the double binary
// tree (src/graph/trees.cc) on every rail.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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
                double share, const char* what) {
  const int N = static_cast<int>(doms.size());
  if (N < 2) return;
  const double edges = 4.0 * rails * (N - 1);  // per rail, both trees, up and down
  const int K = std::max(1, ctx.chunks);
  // NCCL's chunks beyond the CPU budget (Collective::pipeline_work, else kPipelineWork): `sim`
  // repetitions per edge at most, at least 8; over it in one group of three turns per edge
  // (below). One group: 2 / 3 groups measured no closer to
  // every chunk at 1 GiB (64 nodes -0.50 / -0.34 / -0.76 %) and farther at 16 MiB (+0.1 / -7.6 /
  // -4.0 %), at more CPU.
  const double budget = ctx.c.pipeline_work > 0 ? ctx.c.pipeline_work : kPipelineWork;
  const int sim = static_cast<int>(std::min<double>(K, std::max(8.0, std::floor(budget / (edges * edges)))));
  const bool over = !ctx.c.collapse && ctx.c.chunks <= 0 && sim < K;
  const int G = over ? 1 : K;
  if (over)
    plan.note = fmt::format(
        "{}: NCCL's {} pipeline chunks per channel simulated as 3 transfers per edge "
        "(CPU budget): the first and last chunk step through the tree, the {} between "
        "stream behind the feeding edge",
        what, K, K - 2);
  if (ctx.c.collapse) {
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
  // Step by step: NCCL's pipeline chunks per channel (ctx.chunks, nccl::pipeline_chunks: one at
  // small messages, 512 KiB each for the tree with Simple); the channels of a rail and tree move
  // their chunks side by side, so each repetition carries a chunk of every one of them
  // (network::Activity::repeat). A chunk goes up an edge once it has come up from the child's
  // children (after_same), down an edge once the parent has it (after_same: the edge into the
  // parent, or at the root the edges up into it).
  //
  // Over the budget, each edge takes three turns (one connection, one ECMP hash; the code allows G
  // such groups of K / G chunks): the first chunk (share / K) as above, after the feeding edges'
  // first chunk; the K - 2 between, right after it, streaming beside the feeding edges' and paying
  // their K - 2 latency shares (PlannedFlow::hops); the last chunk, after them and the feeding
  // edges' last chunk. The first chunks keep NCCL's fill (chunk by chunk through the levels), the
  // last ones its drain (an edge ends a chunk after its feeders). Groups each waiting for the
  // feeders' whole group (the plan before) paid a group's time per level: 64 x 8 H100 at 1 GiB
  // +20 % over every chunk; now -0.5 % (docs/collectives.md, "Stepped pipelines in NCCL's chunks").
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
      // the edges feeding a's edge up (its children's) and down (the parent's, or at the root the
      // edges up into it), in `e_up` / `e_down`
      auto feeds_up = [&](int a, const std::vector<int>& e_up) {
        network::DepList d;
        for (int ch : kids[a]) d.push_back(e_up[ch]);
        return d;
      };
      auto feeds_down = [&](int a, const std::vector<int>& e_up, const std::vector<int>& e_down) {
        const int p = parent[a];
        return parent[p] < 0 ? feeds_up(p, e_up) : network::DepList{e_down[p]};
      };
      for (int a = 0; a < N; ++a)
        if (parent[a] >= 0) up[a] = plan.add_repeated(doms[a][j], doms[parent[a]][j], share / K, G, {});
      for (int a = 0; a < N; ++a)
        if (parent[a] >= 0) down[a] = plan.add_repeated(doms[parent[a]][j], doms[a][j], share / K, G, {});
      for (int a = 0; a < N; ++a) {
        if (parent[a] < 0) continue;
        plan.flows[up[a]].after_same = feeds_up(a, up);
        plan.flows[down[a]].after_same = feeds_down(a, up, down);
        if (!over) plan.done.push_back(down[a]);
      }
      if (!over) continue;
      // the rest and the last chunk of each group, on the first chunk's connection
      std::vector<int> up_rest(N, -1), down_rest(N, -1), up_last(N, -1), down_last(N, -1);
      auto turns = [&](int first, std::vector<int>& rest, std::vector<int>& last, int a) {
        const int src = plan.flows[first].src, dst = plan.flows[first].dst;
        const auto hash = static_cast<std::uint32_t>(first) + 1;
        rest[a] = plan.add_repeated(src, dst, share / G - 2 * share / K, G, {}, {first});
        last[a] = plan.add_repeated(src, dst, share / K, G, {}, {rest[a]});
        plan.flows[rest[a]].hash_index = plan.flows[last[a]].hash_index = hash;
        // the rest pays its chunks' latency shares in series, as they are on NCCL's connection
        // (as 1 hop: 16 MiB, 15 chunks in 1 group on 16 / 32 nodes -6.6 / -8.6 % from every chunk)
        plan.flows[rest[a]].hops = std::max(1, static_cast<int>(std::lround(double(K) / G)) - 2);
        plan.flows[first].after_previous = {last[a]};
      };
      for (int a = 0; a < N; ++a)
        if (parent[a] >= 0) turns(up[a], up_rest, up_last, a);
      for (int a = 0; a < N; ++a)
        if (parent[a] >= 0) turns(down[a], down_rest, down_last, a);
      for (int a = 0; a < N; ++a) {
        if (parent[a] < 0) continue;
        for (int x : feeds_up(a, up_last)) plan.flows[up_last[a]].after_same.push_back(x);
        for (int x : feeds_down(a, up_last, down_last)) plan.flows[down_last[a]].after_same.push_back(x);
        plan.done.push_back(down_last[a]);
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
  // Over the CPU budget NCCL's chunks as three transfers per edge (add_dtrees).
  add_dtrees(plan, ctx, doms, rails, c.bytes / (2.0 * rails), "tree");
  return plan;
}

}  // namespace aidcsim::collectives::detail
