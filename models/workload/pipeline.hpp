#pragma once
// Pipeline-parallel operation order per stage: 1F1B (PipeDream-Flush, Narayanan et al. 2021 §2.2)
// and interleaved 1F1B with v model chunks per stage (same paper, Fig. 4), as Megatron-core's
// schedules.py orders them (warm-up forwards, steady one-forward-one-backward, cool-down), and the
// layers of each virtual stage.
//
// Megatron-core (megatron/core/pipeline_parallel/schedules.py, NVIDIA/Megatron-LM commit 00611e6,
// get_schedule_table / get_pp_rank_microbatches / forward_backward_pipelining_with_interleaving):
// - microbatches go through the chunks in groups of N = microbatch_group_size_per_vp_stage
//   (default pp); the last group holds the rest;
// - it refuses N outside [pp, m] and a last group of fewer than pp microbatches (0 < m mod N < pp):
//   such a group leaves dependency bubbles. With the default N = pp the number of microbatches m
//   must be a multiple of pp;
// - warm-up forwards of stage r: (pp - r - 1) x 2 + (v - 1) x N, capped at m v (1F1B: pp - r - 1).
//
// The flexible schedule (`flexible` below; workload.parallelism.interleaved_schedule: flexible) is
// Llama 3's (Llama Team 2024, arXiv:2407.21783 §3.3.2, Fig. 6): N, "the number of contiguous
// micro-batches for the same stage's forward or backward", is tunable, so that a batch may hold any
// number of microbatches, fewer than pp included. Its public implementation is PyTorch's
// ScheduleFlexibleInterleaved1F1B (torch/distributed/pipelining/schedules.py, pytorch/pytorch, 2024;
// its docstring's example pp 4, m 10 -> N 5 is the paper's Fig. 6):
// - N = m / rounds with rounds = max(1, floor(m / pp)), and m must be a multiple of rounds; so N >= pp
//   whenever m >= pp (N = pp when m is a multiple of pp: the same order as Megatron's default), and
//   N = m < pp only when m < pp;
// - the same order as above: forward k runs chunk (k / N) mod v, warm-up (pp - r - 1) x 2 + (v - 1) x N;
// - an N set explicitly (the paper: "allows setting N flexibly") must divide m and be >= pp or = m:
//   with several groups of N < pp this order deadlocks (a stage's steady state asks for a backward
//   whose forward waits behind it; pipeline_feasible, tests/unit/workload/test_model.cpp). So the
//   flexible rules add to Megatron-core's only N = m < pp (fewer microbatches than stages) and the
//   default N for m not a multiple of pp.
// A group of N < pp microbatches cannot keep pp stages busy: a stage's next chunk of a group waits for
// the group's first microbatch to come round the pipeline (dependency stalls). The step simulation
// orders ops as here and lets each op wait for its input, so those stalls are in its timing; the
// bubble is (pp - 1) / (v m) only for N >= pp (the paper's ratio).
#include <string>
#include <vector>

namespace aidcsim::workload {

struct PipelineOp {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  ///< model chunk on this stage (0..v-1); virtual stage = chunk * pp + stage
};

/// The microbatch group size N the interleaved schedule runs with: `group` if set (> 0), else pp
/// (Megatron-core) or m / max(1, floor(m / pp)) (`flexible`, PyTorch ScheduleFlexibleInterleaved1F1B);
/// `microbatches` with chunks == 1 (plain 1F1B has one group).
int microbatch_group(int pp, int chunks, int group, int microbatches, bool flexible = false);

/// Why `microbatches` microbatches cannot run the interleaved schedule with `chunks` > 1 chunks
/// per stage and microbatch group size `group` (0 = the default above), by Megatron-core's rules
/// or (`flexible`) the flexible schedule's; "" when they can (always for chunks == 1).
std::string interleaving_error(int pp, int chunks, int group, int microbatches, bool flexible = false);

/// The smallest number of microbatches >= `microbatches` that interleaving_error accepts (with the
/// group size `group`, 0 = the default); 0 when there is none (an explicit N < pp).
int valid_microbatches(int pp, int chunks, int group, int microbatches, bool flexible = false);
/// The accepted number of microbatches nearest to `microbatches` (>= 1; the larger one on a tie).
/// Used to round a batch-size ramp to schedules the pipeline runs. Throws aidcsim::Error when
/// no count is accepted.
int nearest_valid_microbatches(int pp, int chunks, int group, int microbatches, bool flexible = false);

/// Ops of pipeline stage `stage` (0..pp-1) for `microbatches` microbatches and `chunks` model
/// chunks per stage, in execution order, with microbatch group size `group` (0 = the default) and
/// the rules of Megatron-core or (`flexible`) the flexible schedule. Throws aidcsim::Error for bad
/// sizes or a combination interleaving_error refuses.
std::vector<PipelineOp> pipeline_order(int stage, int pp, int microbatches, int chunks, int group = 0,
                                       bool flexible = false);

/// True when the ops of all stages in pipeline_order's order for group size `group` (even one
/// interleaving_error refuses), with their data dependencies (forward of virtual stage j after
/// forward of j-1; backward of j after backward of j+1 and its own forward), can run without
/// deadlock (the dependency graph is acyclic).
bool pipeline_feasible(int pp, int microbatches, int chunks, int group = 0, bool flexible = false);

/// Idle fraction of the ideal schedule: (pp-1)/(v m) of the compute time (SC21 §2.2).
double ideal_bubble_fraction(int pp, int microbatches, int chunks);

/// Transformer layers of each virtual stage j = chunk x pp + stage (size pp x chunks).
/// `first` / `last` (0 = not set) put that many layers on the first / last pipeline stage
/// (Megatron-LM --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers, used to
/// balance the embedding and the output layer + loss); the other layers are spread evenly over the
/// other stages, and a stage's layers over its chunks, any remainder going to the earlier ones. A
/// first / last stage set this way counts the embedding / the output layer + loss as one more slot
/// of its first / last chunk (Megatron-LM --account-for-embedding/loss-in-pipeline-split), so with
/// v chunks and v - 1 layers that chunk holds the embedding or the loss alone (Llama 3's layout).
/// Throws InvalidParameter (workload.parallelism.first_stage_layers / last_stage_layers /
/// virtual_stages) when a stage or chunk would get no layer.
std::vector<int> virtual_stage_layers(int layers, int pp, int chunks, int first = 0, int last = 0);

}  // namespace aidcsim::workload
