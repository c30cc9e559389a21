#pragma once
// Internal to models/workload: what the parts of plan_step share (step.cpp sizes the step and costs
// its ops, step_ops.cpp emits the pipeline's compute ops and the per-unit ZeRO / FSDP traffic,
// step_dp.cpp the end-of-step DP reduction and the optimizer, step_analysis.cpp reads the run).
#include <array>
#include <map>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/workload/placement.hpp"
#include "models/workload/step.hpp"

namespace aidcsim::workload::detail {

/// One unit of a model chunk: a transformer layer, the input embedding or the output layer + loss.
/// FSDP gathers parameters per unit, ZeRO-2 / FSDP reduce gradients per unit.
struct Unit {
  double time = 0;     ///< s on one GPU for one microbatch (all of compute and analytic TP/CP/EP)
  double params = 0;   ///< parameters of the unit on one GPU (TP rank)
  bool layer = false;  ///< a transformer layer: emitted as Builder::layer_segs when those hold flows
};

/// One step of a transformer layer's forward or backward op on the stage's GPU (step_layers.cpp):
/// compute, a layer collective run as flows on the fabric, or compute overlapped with the CP ring.
struct LayerSeg {
  enum Kind { Compute, Ep, Tp, CpRing };
  Kind kind = Compute;
  double time = 0;   ///< s of compute (Compute; CpRing: the attention the ring overlaps)
  double bytes = 0;  ///< CpRing: bytes each CP rank sends per ring step
};

/// Which layer collectives (TP / CP / EP inside a layer) run as flows on the fabric and on which
/// groups (step_layers.cpp: plan_layer_flows).
struct LayerFlows {
  bool ep = false, cp = false, tp = false;  ///< as flows (else analytic inside the op)
  bool all_groups = true;                   ///< every group of the stage; false: only the representative replica's
  long long flows = 0;                      ///< flows simulated per step for them (transfers x repetitions)
  double ep_bytes = 0, tp_bytes = 0;        ///< nccl-tests sizes of one EP all-to-all, one TP all-reduce
  std::string note;                         ///< for StepPlan::fidelity
  bool any() const { return ep || cp || tp; }
};

/// Cost of one forward or backward op of a chunk for one microbatch (s) and its units in execution
/// order (backward: reversed).
struct OpCost {
  double compute = 0, tp = 0, cp = 0, ep = 0;
  std::vector<Unit> units;
  double total() const { return compute + tp + cp + ep; }
};

/// Layout::from(f, g) for one plan, whose fabric state does not change while it is planned: its
/// one_route answers are kept per GPU pair (the DP collectives of a stage's chunks ask the same
/// ring pairs; each answer computed is a route of the fabric, looked up in its route cache).
collectives::Layout plan_layout(const topology::Fabric& f, const compute::GpuSpec& g);

struct Builder {
  const JobSpec& job;
  const compute::GpuSpec& gpu;
  const topology::Fabric& fabric;
  const StepOptions& opt;
  StepPlan& plan;
  Placement place;
  collectives::Layout layout;
  int pp = 1, v = 1, VS = 1, m = 1, msim = 1;
  int group = 0;              ///< microbatch group size N of the interleaved schedule (pipeline.hpp; 0 with v = 1)
  int rep = 0;                ///< the representative DP replica
  std::vector<double> clk;    ///< clock factor of each stage (slowest GPU)
  std::vector<double> speed;  ///< straggler speed factor of each stage (slowest GPU)
  std::vector<std::vector<OpCost>> fwd, bwd;  ///< [stage][chunk]
  LayerFlows layer_flows;
  std::vector<std::array<std::vector<LayerSeg>, 2>> layer_segs;  ///< [stage][0 forward, 1 backward]
  // compute ops (step_ops.cpp)
  int pieces_per_chunk = 1;
  /// [virtual stage][microbatch]: first activity of each forward / backward op (incoming
  /// activations and gradients wait there) and the last one (what is sent on).
  std::vector<std::vector<int>> f_in, f_idx, b_out, b_in;
  std::vector<std::vector<std::vector<int>>> last_pieces;  ///< [stage][chunk]: pieces of the last backward
  std::vector<int> prev_on_gpu;                            ///< activity -> previous op on its GPU
  std::vector<std::vector<int>> unit_reductions;           ///< [stage]: per-unit gradient reduce-scatters
  std::vector<double> stage_params;                        ///< parameters per GPU of each stage

  Builder(const JobSpec& j, const compute::GpuSpec& g, const topology::Fabric& f, const StepOptions& o, StepPlan& p)
      : job(j), gpu(g), fabric(f), opt(o), plan(p), place(j.par), layout(plan_layout(f, g)) {}
  double unit() const { return gpu.bf16_flops; }
  std::vector<network::Activity>& acts() { return plan.schedule.activities; }
  int add(network::Activity a) {
    acts().push_back(std::move(a));
    return static_cast<int>(acts().size()) - 1;
  }
  double chunk_params(int j) const;
  /// Of those, the ones with fp32 gradients (model.hpp fp32_gradient_parameters).
  double chunk_fp32_grad_params(int j) const;
  /// zero2 / fsdp: gradients reduce-scattered per unit every microbatch (not once per step).
  bool per_unit_reduction() const { return job.par.zero == "zero2" || job.par.zero == "fsdp"; }
  int dp_size() const { return job.par.dp * job.par.cp; }
};

/// A CUDA stream of collectives: NCCL runs a GPU's collectives on one stream in order, so a GPU
/// starts its part of the next one when its part of the previous one (what it sends and receives)
/// is done. Per GPU, the transfers of its part of the last collective (indexed by GPU, grown on
/// use; a flat table, not a map: an FSDP step issues ~10^4 collectives of ~10^3 GPUs each).
struct GpuStream {
  std::vector<std::vector<int>> last;  ///< [gpu]: transfers of its part of the last collective
  std::vector<std::vector<int>> next;  ///< [gpu]: the collective being emitted (scratch)
  std::vector<int> touched;            ///< GPUs with a part in the collective being emitted
};

/// One DP collective of stage `s` for every TP rank's DP group (every rail), with the job's
/// dp_algorithm, started after `after` and, when `stream` is given, after each GPU's part of the
/// stream's previous collective (O(1) dependencies per transfer, not all of them); appends the
/// transfers that end it to `done` (may be null).
void emit_dp(Builder& b, int s, collectives::Op op, double bytes, std::vector<int> after, int tag,
             std::vector<int>* done, GpuStream* stream = nullptr);
/// The transfers of `done` that start or end at `gpu`.
std::vector<int> transfers_of(const Builder& b, const std::vector<int>& done, int gpu);

/// Decides which layer collectives run as flows and on which groups, within
/// StepOptions::max_layer_flows (step_layers.cpp); call after size_step / stage_clocks.
void plan_layer_flows(Builder& b);
/// First and last activity of an op's piece on the stage's GPU.
struct PieceActs {
  int first = -1, last = -1;
};
/// The units `group` of op `c` (stage s) as activities on the stage's GPU, the first after
/// `after`: one compute activity, or, when some of them are layers with collectives on the fabric,
/// a chain of compute, those collectives' flows (every group of the scope) and joins
/// (step_layers.cpp). Records the waits for the flows in plan.waits.
PieceActs emit_piece(Builder& b, int s, const OpCost& c, const std::vector<int>& group, bool forward,
                     std::vector<int> after, int tag);

void emit_compute_ops(Builder& b);       ///< step_ops.cpp
void link_pipeline(Builder& b);          ///< step_ops.cpp
void emit_dp_and_optimizer(Builder& b);  ///< step_dp.cpp

}  // namespace aidcsim::workload::detail
