// In-network reductions: NVLS (NVSwitch multicast / ld_reduce), NVLSTree (NVLS inside domains,
// double binary trees between them), CollNet (SHARP in the fabric switches); and all-to-all.
#include <algorithm>

#include "models/collectives/flow_plan.hpp"

namespace aidcsim::collectives::detail {

namespace {

int heads_of(const Layout& l, int g) {
  const int nics = l.nics_per_node > 0 ? std::max(1, l.nics_per_node * g / std::max(1, l.gpus_per_node)) : g;
  return std::max(1, std::min(nics, g));
}

/// NVLS inside each domain. All-reduce: every GPU sends its whole buffer into the switch
/// (multimem ld_reduce by the heads) and the heads' multicast stores bring it back: (g+1)/g x S
/// through each GPU's NVLink port in each direction. All-gather / reduce-scatter: (g-1)/g x S.
/// Emulated as a shift permutation GPU i -> i+1 of the domain, which loads each GPU's NVLink
/// uplink and downlink once.
void add_nvls(FlowPlan& plan, const std::vector<std::vector<int>>& doms, Op op, double bytes) {
  for (const auto& d : doms) {
    const int g = static_cast<int>(d.size());
    if (g < 2) continue;
    const double payload = op == Op::AllReduce ? (g + 1.0) / g * bytes : (g - 1.0) / g * bytes;
    for (int i = 0; i < g; ++i) plan.done.push_back(plan.add(d[i], d[(i + 1) % g], payload, 0));
  }
}

/// SHARP across domains: each head (rail j < h) sends its S/h slice up the switch tree and gets
/// the reduced slice back through its NIC; emulated as a rail-aligned shift between domains that
/// loads every head's NIC once in each direction, and each switch uplink on the way at most once
/// per leaf and rail. The shift's streams are spread over the equal-cost paths rather than hashed:
/// the aggregation manager places the tree's edges on distinct links, so two tree edges never
/// collide on one uplink as two hashed flows can (which made the busbw depend on N's parity with
/// the fabric: 504 GB/s at 512 and 2,048 nodes, 259 at 1,024 and 4,096 on the default clos3).
void add_sharp(FlowPlan& plan, const std::vector<std::vector<int>>& doms, int h, double bytes) {
  const int N = static_cast<int>(doms.size());
  for (int j = 0; j < h; ++j)
    for (int a = 0; a < N; ++a) {
      const int f = plan.add(doms[a][j], doms[(a + 1) % N][j], bytes / h, 0);
      plan.flows[f].spread = true;
      plan.done.push_back(f);
    }
}

/// Distance of the k-th of K sampled shift permutations of n ranks (r -> r + d), g GPUs per node.
/// Stratified: the midpoint of the k-th of K equal slices of 1..n-1, moved within its slice to the
/// residue mod g that spreads the samples evenly over the node positions (k mod g when K >= g).
/// The residue decides whether a shift stays on its rail (d = 0 mod g: rail-aligned, the traffic of
/// 1/g of the pairs) or changes rails; evenly spaced distances alone fell on multiples of g (256
/// GPUs, K = 8: 7 of 8 samples rail-aligned, -34 % against every permutation).
int sampled_shift(int n, int K, int g, int k) {
  const long base = 1 + (static_cast<long>(2 * k + 1) * (n - 1)) / (2L * K);
  if (g <= 1 || n <= g) return static_cast<int>(base);
  const long r = K >= g ? k % g : (static_cast<long>(k) * g) / K;
  long d = base - base % g + r;
  if (d < 1) d += g;
  while (d > n - 1) d -= g;
  return static_cast<int>(std::max(1L, d));
}

}  // namespace

FlowPlan plan_nvls(const EmitContext& ctx, const std::vector<std::vector<int>>& doms, bool across_sharp,
                   bool across_tree) {
  const auto& c = ctx.c;
  FlowPlan plan;
  add_nvls(plan, doms, c.op, c.bytes);
  const int N = static_cast<int>(doms.size());
  if (N < 2) return plan;
  int g = static_cast<int>(doms[0].size());
  for (const auto& d : doms) g = std::min(g, static_cast<int>(d.size()));
  const int h = heads_of(ctx.layout, g);
  if (across_sharp) add_sharp(plan, doms, h, c.bytes);
  if (across_tree) {
    // NVLSTree: each head's slice S/h is all-reduced between domains on both of NCCL's trees
    // (S / 2h each), up to the parent and back down.
    const double share = c.bytes / (2.0 * h);
    for (int j = 0; j < h; ++j)
      for (int t = 0; t < 2; ++t)
        for (int a = 0; a < N; ++a) {
          const int p = dtree_parent(N, a, t);
          if (p < 0) continue;
          plan.done.push_back(plan.add(doms[a][j], doms[p][j], share, 0));
          plan.done.push_back(plan.add(doms[p][j], doms[a][j], share, 0));
        }
  }
  return plan;
}

FlowPlan plan_collnet(const EmitContext& ctx, const std::vector<std::vector<int>>& doms) {
  // CollNet (direct and chain): inside the domain the data is reduce-scattered to the heads and
  // all-gathered back over NVLink (2 (g-1)/g x S through each GPU's port per direction), and the
  // heads all-reduce their slices in the fabric switches (SHARP).
  const auto& c = ctx.c;
  FlowPlan plan;
  for (const auto& d : doms) {
    const int g = static_cast<int>(d.size());
    if (g < 2) continue;
    for (int i = 0; i < g; ++i) plan.done.push_back(plan.add(d[i], d[(i + 1) % g], 2.0 * (g - 1) / g * c.bytes, 0));
  }
  int g = static_cast<int>(doms[0].size());
  for (const auto& d : doms) g = std::min(g, static_cast<int>(d.size()));
  add_sharp(plan, doms, heads_of(ctx.layout, g), c.bytes);
  return plan;
}

FlowPlan plan_alltoall(const EmitContext& ctx, int max_pairs) {
  // Direct all-to-all: every rank sends S/n to each other rank. Above max_pairs transfers the
  // n - 1 shift permutations (rank r -> r + d) are sampled: K stratified distances
  // (sampled_shift), each carrying the bytes of (n - 1) / K distances, spread over the equal-cost
  // paths as the many pairs it stands for would be by their hashes (the note says so).
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  FlowPlan plan;
  plan.per_port_efficiency = true;
  const long pairs = static_cast<long>(n) * (n - 1);
  if (pairs <= max_pairs) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) plan.done.push_back(plan.add(c.gpus[i], c.gpus[j], c.bytes / n, 0));
    return plan;
  }
  const int K = std::max(1, max_pairs / n);
  const double weight = double(n - 1) / K;
  const int g = std::max(1, ctx.layout.gpus_per_node);
  for (int k = 0; k < K; ++k) {
    const int d = sampled_shift(n, K, g, k);
    for (int i = 0; i < n; ++i) {
      const int f = plan.add(c.gpus[i], c.gpus[(i + d) % n], c.bytes / n * weight, 0);
      plan.flows[f].spread = true;
      plan.done.push_back(f);
    }
  }
  plan.note = "all-to-all sampled: " + std::to_string(K) + " of " + std::to_string(n - 1) +
              " shift permutations simulated, each carrying the bytes of " + std::to_string(weight).substr(0, 6) +
              " (spread over the equal-cost paths, distances stratified over the node positions; 8 sampled vs "
              "all at 128-512 GPUs: -9 % to +6 %, tests/unit/collectives/test_alltoall_sampling.cpp)";
  return plan;
}

}  // namespace aidcsim::collectives::detail
