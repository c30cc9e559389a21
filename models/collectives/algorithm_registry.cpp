// The collective algorithms by name (see algorithm_registry.hpp).
#include "models/collectives/algorithm_registry.hpp"

#include "models/common/errors.hpp"

namespace aidcsim::collectives::detail {
namespace {

using A = Algorithm;
constexpr Op kAllReduce = Op::AllReduce, kAllGather = Op::AllGather, kReduceScatter = Op::ReduceScatter,
             kAllToAll = Op::AllToAll, kBroadcast = Op::Broadcast, kReduce = Op::Reduce, kSendRecv = Op::SendRecv;

// Ring also runs broadcast / reduce (NCCL's pipelined chain) and send/recv (as point to point).
FlowPlan ring(const EmitContext& ctx, const Domains&) {
  const Op op = ctx.c.op;
  if (op == Op::Broadcast || op == Op::Reduce) return plan_chain(ctx, op == Op::Reduce);
  return plan_ring(ctx, op);
}
FlowPlan tree(const EmitContext& ctx, const Domains& d) { return plan_tree(ctx, d); }
// NVLS across domains reduces in the fabric's switches (SHARP); inside one domain it is NVSwitch only.
FlowPlan nvls(const EmitContext& ctx, const Domains& d) { return plan_nvls(ctx, d, d.size() > 1, false); }
FlowPlan nvls_tree(const EmitContext& ctx, const Domains& d) { return plan_nvls(ctx, d, false, true); }
FlowPlan collnet(const EmitContext& ctx, const Domains& d) { return plan_collnet(ctx, d); }
FlowPlan pat(const EmitContext& ctx, const Domains&) { return plan_pat(ctx); }
FlowPlan halving_doubling(const EmitContext& ctx, const Domains&) { return plan_halving_doubling(ctx); }

// The registry table (long by nature: one entry per algorithm, in enum order).
std::vector<AlgorithmEntry> make_registry() {
  const std::vector<Op> all = {kAllReduce, kAllGather, kReduceScatter, kAllToAll, kBroadcast, kReduce, kSendRecv};
  return {
      {A::Auto,
       "auto",
       "NCCL's tuner picks the algorithm and protocol by least predicted time (NCCL v2.28.3-1 tuning.cc / enqueue.cc)",
       {},
       all,
       {nccl::kTree, nccl::kRing, nccl::kCollNetDirect, nccl::kCollNetChain, nccl::kNvls, nccl::kNvlsTree, nccl::kPat},
       nullptr},
      {A::Ring,
       "ring",
       "NCCL ring: channels of rings over NVLink and the rails; chain for broadcast/reduce",
       {},
       {kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kSendRecv},
       {nccl::kRing},
       ring},
      {A::Tree,
       "tree",
       "NCCL double binary tree between NVLink domains, chains inside them",
       {},
       {kAllReduce},
       {nccl::kTree},
       tree},
      {A::Nvls,
       "nvls",
       "NVLink SHARP: reduction in the NVSwitch; across domains with in-network reduction (SHARP)",
       {},
       {kAllReduce, kAllGather, kReduceScatter},
       {nccl::kNvls},
       nvls},
      {A::NvlsTree,
       "nvls_tree",
       "NVLS inside each domain, double binary tree between domains",
       {"nvlstree"},
       {kAllReduce},
       {nccl::kNvlsTree},
       nvls_tree},
      {A::CollNetDirect,
       "collnet_direct",
       "CollNet direct: every GPU to the fabric's in-network reduction (SHARP)",
       {"collnet"},
       {kAllReduce},
       {nccl::kCollNetDirect},
       collnet},
      {A::CollNetChain,
       "collnet_chain",
       "CollNet chain: a chain in the domain to the in-network reduction (SHARP)",
       {},
       {kAllReduce},
       {nccl::kCollNetChain},
       collnet},
      {A::Pat,
       "pat",
       "NCCL PAT (parallel aggregated trees) for all-gather / reduce-scatter, one GPU per domain",
       {},
       {kAllGather, kReduceScatter},
       {nccl::kPat},
       pat},
      {A::Sharp,
       "sharp",
       "Any in-network reduction NCCL would pick: CollNet direct / chain or multi-node NVLS",
       {},
       {kAllReduce},
       {nccl::kCollNetDirect, nccl::kCollNetChain, nccl::kNvls},
       nullptr},
      {A::Hierarchical,
       "hierarchical",
       "Reduce-scatter in each NVLink domain, all-reduce across domains per rail, all-gather back (ring phases)",
       {},
       {kAllReduce},
       {},
       plan_hierarchical,
       estimate_hierarchical,
       emit_hierarchical},
      {A::HalvingDoubling,
       "halving_doubling",
       "Rabenseifner's recursive halving / doubling (power-of-two groups)",
       {},
       {kAllReduce},
       {},
       halving_doubling,
       estimate_halving_doubling},
      {A::Direct,
       "direct",
       "Point to point: every pair directly (all-to-all, send/recv; broadcast/reduce as ring)",
       {},
       {kAllToAll, kBroadcast, kReduce, kSendRecv},
       {},
       plan_direct,
       estimate_direct},
  };
}

}  // namespace

const std::vector<AlgorithmEntry>& algorithm_registry() {
  static const std::vector<AlgorithmEntry> registry = make_registry();
  return registry;
}

const AlgorithmEntry& algorithm_entry(Algorithm a) {
  for (const auto& e : algorithm_registry())
    if (e.id == a) return e;
  throw Error("collective algorithm " + std::to_string(static_cast<int>(a)) + " is not registered");
}

std::string algorithm_names() {
  std::string out;
  for (const auto& e : algorithm_registry()) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

}  // namespace aidcsim::collectives::detail
