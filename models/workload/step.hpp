#pragma once
// One training step as a network::Schedule, and its breakdown after FlowNetwork::run.
//
// Fidelity tiers (collapsed symmetry, DESIGN.md "Scale"):
// - simulated op by op: the pipeline schedule (forward/backward per microbatch and model chunk,
//   1F1B or interleaved) of ONE representative DP replica's TP-rank-0 / CP-rank-0 GPUs, with the
//   PP activations sent as flows between its stages, so the bubble comes out of the schedule;
// - the layer collectives whose group leaves the NVLink domain (EP all-to-all, CP ring-attention
//   KV exchange, TP all-reduces) as flows on the fabric for every group of the stage, each
//   layer's op a chain of compute and these collectives (step_layers.cpp), within a flow budget
//   (StepOptions::max_layer_flows); inside the NVLink domain or above the budget analytic inside
//   each op (alpha-beta, collectives::estimate_time);
// - simulated as flows for ALL GPUs at once (every TP rank's DP group, so every rail carries its
//   own traffic): the DP gradient reduction (ring steps collapsed into one flow per ring
//   neighbour pair), bucketed per model chunk and started when the representative stage's
//   backward of that chunk ends, so it overlaps the rest of the backward;
//   ZeRO-1 adds the parameter all-gather after the optimizer step, FSDP all-gathers before use;
// - analytic extension: microbatches beyond the simulated ones add their steady-state time.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/common/schedule.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/compute/kernels.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {

/// Activity tags of a step schedule (network::Activity::tag).
enum StepTag {
  kTagForward = 1,
  kTagBackward = 2,
  kTagPp = 3,
  kTagDp = 4,
  kTagOptimizer = 5,
  kTagDpGather = 6,
  kTagEmbedding = 7,  ///< tied word-embedding gradient all-reduce between the first and last stage
  /// layer collectives run as flows (StepPlan::fidelity says which): EP all-to-all, CP ring
  /// exchange, TP all-reduce of a TP group that leaves its NVLink domain
  kTagEp = 8,
  kTagCp = 9,
  kTagTp = 10,
};
constexpr int kStepTags = 11;  ///< tags are < kStepTags

struct StepOptions {
  std::vector<double> clock_factor;  ///< per GPU, empty = 1.0; DVFS from the thermal model
  std::uint64_t seed = 0;            ///< ECMP hash seed of the step's flows, and the stragglers' draw
  compute::Efficiency efficiency;    ///< compute-model constants (docs/validation-megatron.md)
  collectives::Protocol protocol;    ///< NCCL protocol constants
  /// Microbatches simulated per step (the rest are added at steady state); 0 = automatic
  /// (all of them up to max(32, 2 pp); interleaved: whole microbatch groups plus the last group).
  int max_simulated_microbatches = 0;
  /// DP collectives' ring / tree steps: true (default) collapsed into one transfer per pair
  /// carrying every step (collectives::Collective::collapse; exact on an idle fabric, measured
  /// against the exact run by tests/unit/engine/test_step_fidelity.cpp); false: every step one
  /// transfer with its true dependencies. StepPlan::fidelity says which ran.
  bool collapse_collectives = true;
  /// Collapsed rings of several channels: each NVLink pair's channel hops as one weighted transfer
  /// (collectives::Collective::merge_channels; exact under weighted max-min). false: one transfer per
  /// channel and hop, the reference tests/unit/engine/test_step_fidelity.cpp measures it against.
  bool merge_ring_channels = true;
  /// Budget of flows per step (transfers x repetitions) for the layer collectives that leave the
  /// NVLink domain (EP all-to-all, CP ring, TP all-reduce): within it, those of every group of each
  /// stage run as flows; above it, only those of the groups holding the representative replica's
  /// GPUs (the other groups' traffic is missing from the fabric); above it again they are analytic
  /// (alpha-beta, blind to the fabric's load). StepPlan::fidelity says which. 0 = no budget;
  /// -1 = the job's (JobSpec::layer_flow_budget, workload.layer_flow_budget).
  /// Error of each fallback on a small case: tests/unit/engine/test_step_traffic.cpp.
  long long max_layer_flows = -1;
  /// Activities reserved in StepPlan::schedule before planning (a capacity, not a count: the plan
  /// does not depend on it). The engine passes the size of an earlier plan of the same job, so a
  /// re-plan at other clocks writes its schedule once instead of growing it by doubling (each
  /// doubling moves and first-touches the whole schedule: page zeroing, peak RSS). 0 = none.
  std::size_t schedule_capacity = 0;
};

/// A compute op of the representative pipeline that waited for transfers: `transfers` (one
/// collective's or send's flows, tag `kind`: kTagPp, kTagDpGather, ...), the op `op`, and the op
/// before it on its GPU (`prev`, -1 for the first). analyse_step books the wait as exposed
/// communication of that kind when these transfers were the op's last dependency.
struct StepWait {
  std::vector<int> transfers;
  int op = 0, prev = -1, kind = 0;
};

struct StepPlan {
  network::Schedule schedule;          ///< one training step (representative pipeline + all DP flows)
  double tokens_per_step = 0;          ///< global_batch x sequence_length
  double model_flops_per_step = 0;     ///< 6ND-style model FLOPs without recompute (MFU)
  double hardware_flops_per_step = 0;  ///< including recompute when enabled (Megatron eq. 3)
  double parameters = 0;               ///< Megatron eq. 2 generalised (GQA, SwiGLU, MoE)
  std::string fidelity;                ///< which parts are simulated vs analytic, one line
  int gpus = 0;                        ///< GPUs of the job
  int representative_replica = 0;      ///< DP replica whose pipeline is simulated op by op (the slowest)
  int stragglers = 0;                  ///< GPUs below nominal speed (workload::gpu_speed_factors)
  /// First activity of the end-of-step part of the schedule (DP gradient reduction, tied-embedding
  /// all-reduce, optimizer, ZeRO's parameter all-gather: most of the activities at scale); the
  /// ones before it are the pipeline's ops and the traffic between them. plan_step_reusing takes
  /// that part from an earlier plan.
  std::size_t dp_tail_begin = 0;
  /// The fabric's state the plan was made on, as far as the end-of-step part reads it (routes,
  /// NVLink ports): the links that are down, then -(node + 1) for each node (switch) that is down.
  /// plan_step_reusing reuses that part only on the same state. (Link rates, which a degradation
  /// changes, shape no route and no planned collective.)
  std::vector<int> fabric_down;

  // --- what analyse_step needs ---
  int pp = 1, chunks = 1, microbatches = 1, simulated_microbatches = 1;
  std::vector<int> layers;                      ///< transformer layers of each virtual stage (chunk x pp + stage)
  std::vector<int> stage_gpu;                   ///< representative GPU of each stage
  std::vector<int> stage_last_backward;         ///< activity index of each stage's last backward op
  std::vector<int> stage_optimizer;             ///< activity index of each stage's optimizer step
  std::vector<std::vector<int>> stage_dp_done;  ///< per stage: transfers ending its DP gradient reduction
  std::vector<int> embedding_transfers;         ///< tied-embedding gradient all-reduce (stages 0 and pp-1)
  /// Per stage: activities after the optimizer step that end the stage's step (ZeRO parameter
  /// all-gathers); the stage's step ends when they and the optimizer have finished.
  std::vector<std::vector<int>> stage_after_optimizer;
  /// Per stage, seconds of the simulated part: pure compute, exposed TP / CP / EP inside ops,
  /// optimizer step; and the analytic steady-state extension's parts.
  std::vector<double> compute, tp, cp, ep, optimizer;
  std::vector<StepWait> waits;  ///< ops that waited for transfers (PP sends, FSDP gathers, ...)
  double extra_time = 0;        ///< s added after the simulated part (analytic extension)
  /// zero2 / fsdp: the extension is measured instead: each microbatch beyond the simulated ones adds
  /// the simulated steady-state period (stage 0's backward completions, `microbatch_done`, over its
  /// 1F1B steady state: see `microbatch_steady`), which includes the per-microbatch gathers it waits
  /// for, or the period of a stage's reduce-scatter stream when slower (`microbatch_reduced`: they
  /// pile up behind the compute); at least the analytic one.
  bool measured_extension = false;
  /// Blocking exchanges (DeepSpeed's engine, Megatron-core without overlap_p2p_comm), v = 1: the
  /// extension is the simulated 1F1B steady-state period measured as for `measured_extension`, which
  /// includes the blocking exchanges each microbatch waits for; at least the analytic one.
  bool measured_steady_pipeline = false;
  int extra_microbatches = 0;
  std::vector<int> microbatch_done;  ///< stage 0: activity ending each microbatch's last backward (chunk 0)
  /// Per `microbatch_done`: true when that backward directly follows a forward in stage 0's order
  /// (the steady 1F1B phase, between the warm-up forwards and the cool-down backwards).
  std::vector<bool> microbatch_steady;
  int microbatch_group = 1;  ///< interleaved (v > 1): microbatch group size N of the schedule; else 1
  /// zero2 / fsdp with dp > 1, [stage][microbatch]: the representative GPU's transfers of the last
  /// gradient reduce-scatter issued by the stage's chunk-0 backward of that microbatch (its stream
  /// runs them in issue order; the compute does not wait for them); empty otherwise. With
  /// JobSpec::zero_reduce_scatter_aggregation k > 1, every microbatch of a group holds the group's
  /// (one aggregated reduce-scatter carries them all), so the stream's period measured between two
  /// microbatches is between their groups' ends: within a group's size of the exact count.
  std::vector<std::vector<std::vector<int>>> microbatch_reduced;
  int param_gather_buckets = 0;  ///< overlap_param_gather: parameter all-gather buckets (all stages)
  std::vector<double> extra_compute, extra_tp, extra_cp, extra_ep;  ///< per stage, parts of extra_time
  /// Per stage: one microbatch's ops without the layer collectives run as flows (s; what
  /// extra_time counts per extra microbatch). analyse_step adds those collectives' mean wait per
  /// simulated microbatch of the stage for each extra microbatch.
  std::vector<double> per_microbatch;
};

/// Plans one training step of `job` on `fabric` (placement: workload::Placement, GPU = rank).
/// Throws InvalidParameter ("workload.*" keys) for inconsistent sizes and aidcsim::Error when the
/// fabric is smaller than the job.
StepPlan plan_step(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                   const StepOptions& options);

/// plan_step(job, gpu, fabric, options), the same plan bit for bit, taking the end-of-step part of
/// its schedule (from StepPlan::dp_tail_begin on) from `held` instead of emitting it again. `held`
/// must come from plan_step or plan_step_reusing for the same job, GPU, fabric and seed, at any clocks (StepOptions::clock_factor), with its schedule whole:
/// that part depends on the clocks only through the pipeline ops before it (their number,
/// dependencies, GPUs: the representative replica), which are compared with held's (all but their
/// amounts), and on the fabric's state through its routes (StepPlan::fabric_down, compared too:
/// a timed failure applied since held was planned). Where both are the same, held's activities are moved into the result (held keeps an
/// empty schedule, its other fields as they were), so two schedules are never alive at once, and
/// `*reused` (if given) is set true. Where they differ the part is emitted as plan_step does and
/// held's activities are released first when `release_held` is true (else they stay).
/// Cost when reused: the pipeline's ops (thousands of activities) instead of the whole step (~0.6 M
/// activities at 31K GPUs). Same throws as plan_step.
StepPlan plan_step_reusing(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                           const StepOptions& options, StepPlan& held, bool release_held, bool* reused = nullptr);

/// Seconds per step and where they go; averaged over pipeline stages, so
/// compute + exposed_* + bubble = step_time for every stage. Per stage:
/// - before its last backward: ops (compute, exposed TP/CP/EP inside them); idle time where an op
///   waited for a transfer still on the wire (min(flow duration, wait)) is exposed communication of
///   that transfer's kind (PP send, FSDP gather, ...); the rest is bubble (fill, stage imbalance);
/// - after it: its optimizer step is compute; the rest of the time until the step ends is booked by
///   what the critical stage (the one ending last) was doing then: waiting for its DP reduction or
///   ZeRO all-gather is exposed DP, for the tied-embedding all-reduce between the first and last
///   stage (PP-group traffic) exposed PP, running its pipeline (the drain) or optimizer bubble. So
///   pipeline drain is never booked as DP, and DP hidden behind the drain is not exposed.
/// Fractions are of step_time (power model input).
struct StepBreakdown {
  double step_time = 0, compute = 0, exposed_tp = 0, exposed_pp = 0, exposed_dp = 0, exposed_cp = 0, exposed_ep = 0,
         bubble = 0;
  /// The GPU load of the power and thermal models (thermal::GpuLoad), fractions of step_time from
  /// the same partition: compute / step_time (communication hidden under compute is compute time:
  /// the GPU draws its compute power then, capped at its power limit), and (exposed_tp + _pp + _dp +
  /// _cp + _ep) / step_time, at most 1 - the first; the rest of the step (bubble) is idle.
  double gpu_busy_compute_fraction = 0, gpu_busy_comm_fraction = 0;
  /// Per pipeline stage (its representative GPU; every DP / TP rank of a stage runs the same ops),
  /// [stage], s: the same partition of step_time as above before the mean over stages:
  /// stage_compute[s] + stage_exposed_comm[s] + stage_bubble[s] = step_time (to rounding), and
  /// their means over the stages are compute, exposed_tp + _pp + _dp + _cp + _ep, and bubble (the
  /// means zero a rounding residue below 1e-12 step_time; the stage values are kept as summed).
  /// Empty when the plan has no pipeline (plan.pp == 0).
  std::vector<double> stage_compute, stage_exposed_comm, stage_bubble;
};

StepBreakdown analyse_step(const StepPlan& plan, const network::RunResult& run);

/// analyse_step(plan, run).step_time, bit for bit, without the rest of the breakdown (s): the
/// run's makespan plus the extension of the microbatches beyond the simulated ones (the same code
/// computes it for both). For callers that read only the step time (the link-down samples of
/// degrade mode); `run` must be a run of plan.schedule. Cost: the ops' transfer waits when the
/// extension reads them (extra microbatches), nothing else (no pass over the schedule).
double step_time(const StepPlan& plan, const network::RunResult& run);

}  // namespace aidcsim::workload
