#pragma once
// Internal to models/collectives: the execution-model time of one collective, for the registry's
// algorithms. NCCL's algorithms share nccl_selection (NCCL's tuner and cost model, nccl_model.hpp);
// an algorithm outside NCCL's tuner gives its own estimate in its own file (direct.cpp,
// halving_doubling.cpp, hierarchical.cpp), registered in algorithm_registry.cpp.
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/collectives/flow_plan.hpp"
#include "models/collectives/nccl_model.hpp"
#include "models/common/schedule.hpp"

namespace aidcsim::collectives::detail {

/// What an estimate sees: the collective, the fabric's layout, the protocol options, NCCL's view of
/// the system (nccl_system) and the group's GPUs by NVLink domain (by_domain).
struct EstimateContext {
  const Collective& c;
  const Layout& l;
  const Protocol& p;
  const nccl::System& sys;
  const std::vector<std::vector<int>>& doms;
};

/// NCCL's Simple-protocol latencies for stacks outside NCCL's tuner (NCCL 2.23 src/graph/tuning.cc):
/// `hop` = hwLat[Ring][Simple] of the group's links (NVLink 3.4 us or PCI 5.7 us inside one domain,
/// NET 14 us across domains), `base` = baseLat[Ring][Simple] = 8.4 us. Seconds.
struct SimpleLatency {
  double hop = 0, base = 0;
};
SimpleLatency simple_latency(const EstimateContext& x);

/// The execution model of the NCCL algorithm the tuner picks among those `requested` allows
/// (collective.hpp). Throws aidcsim::Error when none is available for this collective.
Selection nccl_selection(const Collective& c, const Layout& l, const Protocol& p, const nccl::System& sys,
                         Algorithm requested);

/// Point to point at NCCL's efficiency per port (fractions): NVLink = the single-domain ring
/// graph's bandwidth over the NVLink line rate; NIC = the NET speed NCCL reaches (min(NIC, PCIe))
/// over the NIC rate.
void p2p_efficiency(const Layout& l, const nccl::System& sys, double* nv, double* nic);

// The algorithms outside NCCL's tuner (one file each): estimate, and flow plan where it is their own.
Selection estimate_direct(const EstimateContext& x);
/// All-to-all (every pair, sampled above 2^18 pairs) or the send/recv transfer, at port efficiency.
FlowPlan plan_direct(const EmitContext& ctx, const std::vector<std::vector<int>>& doms);
Selection estimate_halving_doubling(const EstimateContext& x);
Selection estimate_hierarchical(const EstimateContext& x);
/// Hierarchical's flow plan where its phases do not apply (one domain, unequal domains): a ring.
FlowPlan plan_hierarchical(const EmitContext& ctx, const std::vector<std::vector<int>>& doms);

/// Hierarchical's traffic as ring phases on equal domains (reduce-scatter in each domain, all-reduce
/// per rail, all-gather back); false (nothing emitted) otherwise, when its flow plan (a ring) runs.
bool emit_hierarchical(network::Schedule& s, const EmitContext& ctx, const std::vector<std::vector<int>>& doms,
                       std::vector<int>* done);

}  // namespace aidcsim::collectives::detail
