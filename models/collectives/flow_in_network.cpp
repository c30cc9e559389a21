// In-network reductions: NVLS (NVSwitch multicast / ld_reduce), NVLSTree (NVLS inside domains,
// double binary trees between them), CollNet (SHARP in the fabric switches); and all-to-all.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <utility>

#include "models/collectives/flow_plan.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::collectives::detail {

namespace {

/// Scale-out NICs of a domain of g GPUs.
int nics_of(const Layout& l, int g) {
  return l.nics_per_node > 0 ? std::max(1, l.nics_per_node * g / std::max(1, l.gpus_per_node)) : g;
}

/// CollNet direct's heads: one GPU per NIC.
int heads_of(const Layout& l, int g) { return std::max(1, std::min(nics_of(l, g), g)); }

/// NVLS heads of a domain of g GPUs: min(g, 32) on one domain, min(NICs, g, 32) across domains,
/// where each head is a GPU with its own NIC (nccl::nvls_heads; search.cc v2.26.2-1 .. v2.30.7-1).
int nvls_heads_of(const Layout& l, int g, bool across) {
  return std::max(1, nccl::nvls_heads(g, across ? nics_of(l, g) : 0));
}

/// NVLS inside each domain. All-reduce: the heads' multimem ld_reduce reads every GPU's whole
/// buffer through the switch and their multicast stores bring it back: S through each GPU's
/// NVLink port in each direction, plus the head's own reduced slice S/h in and out (h = NCCL's
/// heads, nvls_heads_of; the first h GPUs of the domain). So (h+1)/h x S on a head's port, S on
/// the others' (h = g up to 32 GPUs on one domain: every GPU a head). All-gather /
/// reduce-scatter: (g-1)/g x S. Emulated as a shift permutation GPU i -> i+1 of the domain, each
/// transfer carrying its sender's load, which loads each GPU's NVLink uplink and downlink once.
/// Stepped or collapsed, one transfer per GPU: NCCL's loops per channel (nccl::pipeline_chunks;
/// all_gather.h / reduce_scatter.h / all_reduce.h v2.28.3-1) stream back to back on the same
/// NVLS connection (a FIFO of NCCL_STEPS chunks), so under max-min sharing the one transfer is
/// their exact sum, NCCL's latency and the fill (the execution model's) paid once before them.
/// A transfer repeated per loop pays a latency share or its route per loop, which NCCL's
/// streaming loops do not (tried: docs/validation-busbw.md, "NVLS all-gather / reduce-scatter
/// in NCCL's chunks").
void add_nvls(FlowPlan& plan, const std::vector<std::vector<int>>& doms, const Layout& l, Op op, double bytes) {
  const bool across = doms.size() > 1;
  for (const auto& d : doms) {
    const int g = static_cast<int>(d.size());
    if (g < 2) continue;
    const int h = nvls_heads_of(l, g, across);
    for (int i = 0; i < g; ++i) {
      const double payload = op != Op::AllReduce ? (g - 1.0) / g * bytes : i < h ? (h + 1.0) / h * bytes : bytes;
      plan.done.push_back(plan.add(d[i], d[(i + 1) % g], payload, 0));
    }
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

/// The k-th of K sampled permutations among the M = (N - 1) g that send GPU p of domain a to GPU
/// (p + e) mod g of domain (a + D) mod N (D in 1..N-1, e in 0..g-1), as (D, e). Stratified: the
/// midpoint of the k-th of K equal slices of the M permutations in (D, e) order, its e moved to the
/// residue that spreads the samples evenly over the positions in the domain (k mod g when K >= g).
/// e decides whether a permutation stays on its rail (e = 0: 1/g of the pairs) or changes rails;
/// slices alone fell on e = 0 (256 GPUs, K = 8: 7 of 8 samples rail-aligned, -34 %).
std::pair<int, int> sampled_permutation(int N, int g, int K, int k) {
  const long M = static_cast<long>(N - 1) * g;
  const long mid = (static_cast<long>(2 * k + 1) * M) / (2L * K);
  const int D = 1 + static_cast<int>(mid / g);
  const int e = g <= 1 ? 0 : static_cast<int>(K >= g ? k % g : (static_cast<long>(k) * g) / K);
  return {D, e};
}

/// Van der Corput's base-2 radical inverse of t (its bits reversed) as a fraction of 2^64: any 2^m
/// consecutive t fall one in each 2^-m of [0, 1), so the transfers of a run of t start at evenly
/// spaced paths, however many paths there are.
std::uint64_t radical_inverse(std::uint64_t t) {
  std::uint64_t r = 0;
  for (int b = 0; b < 64; ++b, t >>= 1) r = (r << 1) | (t & 1);
  return r;
}

}  // namespace

FlowPlan plan_nvls(const EmitContext& ctx, const std::vector<std::vector<int>>& doms, bool across_sharp,
                   bool across_tree) {
  const auto& c = ctx.c;
  FlowPlan plan;
  add_nvls(plan, doms, ctx.layout, c.op, c.bytes);
  const int N = static_cast<int>(doms.size());
  if (N < 2) return plan;
  int g = static_cast<int>(doms[0].size());
  for (const auto& d : doms) g = std::min(g, static_cast<int>(d.size()));
  const int h = nvls_heads_of(ctx.layout, g, true);
  if (across_sharp) add_sharp(plan, doms, h, c.bytes);
  // NVLSTree: each head's slice S/h is all-reduced between domains on both of NCCL's trees (S / 2h
  // each: channel c runs tree c % 2, connect.cc connectNvls), up to the parent and back down;
  // stepped, in NCCL's chunks of a head per loop (ctx.chunks); over the CPU budget as the tree's
  // three transfers per edge (add_dtrees: NCCL's fill and drain kept; collapsed, as before, it
  // left out the fill through 2 log2 N levels).
  if (across_tree) add_dtrees(plan, ctx, doms, h, c.bytes / (2.0 * h), "NVLSTree's tree");
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
  // Direct all-to-all: every rank sends S/n to each other rank. Above max_pairs transfers, the
  // pairs inside an NVLink domain stay exact (their bytes per port) and the M = (N - 1) g permutations between the N
  // domains of g GPUs are sampled: K stratified ones (sampled_permutation), each transfer carrying
  // the bytes of W = M / K pairs. What the W pairs it stands for would put on the fabric, by their
  // own ECMP hashes: on each link, a mean (their bytes spread evenly over the equal-cost paths)
  // and a spread about it (which pairs hash onto the same link). The transfer reproduces both:
  //  - 1 - a of its bytes spread over the equal-cost paths (network::Activity::spread): one path
  //    in each m-th of the path ranks (m = the fabric's spray sub-flows, 16), at the phase
  //    (spread_phase) van der Corput's sequence over the domains gives it (Fabric::routes_strided,
  //    seed_is_phase). A leaf's transfers to one destination leaf are a run of consecutive
  //    domains, whose phases fall about one in each 2^-j of [0, 1): each link gets its mean share
  //    whatever the path count (every leaf-spine link within 5 % of it at 128-512 GPUs, see the test);
  //  - a = sqrt(1 / W) of its bytes as one hashed flow. A link crossed by T such flows of
  //    a W w bytes each (w = S / n) gets the variance T p (1 - p) (a W w)^2 = T W p (1 - p) w^2
  //    (p: the chance to hash onto it), that of the T W pairs' own hashes.
  // Measured against every pair (n = 128-512 GPUs, K = 8): tests/unit/collectives/test_alltoall_sampling.cpp.
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  FlowPlan plan;
  plan.per_port_efficiency = true;
  const long pairs = static_cast<long>(n) * (n - 1);
  const double w = c.bytes / n;
  if (pairs <= max_pairs) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) plan.done.push_back(plan.add(c.gpus[i], c.gpus[j], w, 0));
    return plan;
  }
  // Domains of equal size g (else every GPU its own domain: plain shifts r -> r + D).
  std::vector<std::vector<int>> doms = by_domain(c.gpus, ctx.layout);
  const auto g0 = doms[0].size();
  if (doms.size() < 2 || !std::all_of(doms.begin(), doms.end(), [&](const auto& d) { return d.size() == g0; })) {
    doms.clear();
    for (int r : c.gpus) doms.push_back({r});
  }
  const int N = static_cast<int>(doms.size()), g = static_cast<int>(doms[0].size());
  // Inside a domain each GPU sends (g - 1) w through its NVLink port and receives as much: one
  // transfer to its neighbour in the domain carrying them loads every port exactly so (the
  // NVSwitch is one non-blocking hop), with n instead of n (g - 1) transfers.
  if (g > 1)
    for (const auto& d : doms)
      for (int p = 0; p < g; ++p) plan.done.push_back(plan.add(d[p], d[(p + 1) % g], (g - 1) * w, 0));
  const long M = static_cast<long>(N - 1) * g;
  const int K = static_cast<int>(std::min<long>(M, std::max(1, max_pairs / n)));
  const double W = double(M) / K;
  const double a = std::sqrt(1.0 / W);
  std::uint64_t t = 0;
  for (int k = 0; k < K; ++k) {
    const auto [D, e] = sampled_permutation(N, g, K, k);
    for (int p = 0; p < g; ++p)  // position-major: a leaf's transfers (one rail, adjacent domains) in a row
      for (int x = 0; x < N; ++x) {
        const int src = doms[x][p], dst = doms[(x + D) % N][(p + e) % g];
        ++t;
        if (a < 1 && !ctx.nvlink(src, dst)) {  // (one domain of all the GPUs: NVLink, no paths to spread over)
          const int f = plan.add(src, dst, w * W * (1 - a), 0);
          plan.flows[f].spread = true;
          // Digit-scrambled (XOR: it keeps one start per 2^-m of any 2^m consecutive x) per
          // sample and position, so that the runs do not all start at the same paths.
          const std::uint64_t r = radical_inverse(static_cast<std::uint64_t>(x)) ^
                                  topology::splitmix64(static_cast<std::uint64_t>(k) * g + p + 1);
          plan.flows[f].spread_phase = r ? r : 1;
          plan.done.push_back(f);
        }
        plan.done.push_back(plan.add(src, dst, w * W * (ctx.nvlink(src, dst) ? 1 : a), 0));
      }
  }
  if (K == M) return plan;  // every pair (W = 1, a = 1)
  plan.note = fmt::format(
      "all-to-all sampled: pairs inside NVLink domains exact, {} of {} permutations between domains simulated, "
      "each transfer carrying the bytes of {:.1f} pairs (spread evenly over the equal-cost paths, 1/sqrt({:.1f}) of "
      "them hashed: the mean and spread of the pairs' own ECMP collisions); against the mean of every pair over 5 "
      "hash seeds at 128-512 GPUs -6.0 % to +2.4 % (held within {:.0f} %); one seed's makespan is within 3 % of that "
      "mean "
      "(tests/unit/collectives/test_alltoall_sampling.cpp)",
      K, M, W, W, 100 * kSampledAllToAllError);
  return plan;
}

}  // namespace aidcsim::collectives::detail
