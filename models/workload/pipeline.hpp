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
#include <string>
#include <vector>

namespace aidcsim::workload {

struct PipelineOp {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  ///< model chunk on this stage (0..v-1); virtual stage = chunk * pp + stage
};

/// Why `microbatches` microbatches cannot run the interleaved schedule with `chunks` > 1 chunks
/// per stage and microbatch group size `group` (0 = pp), by Megatron-core's rules above; "" when
/// they can (always for chunks == 1).
std::string interleaving_error(int pp, int chunks, int group, int microbatches);

/// The smallest number of microbatches >= `microbatches` that interleaving_error accepts (with the
/// group size `group`, 0 = pp).
int valid_microbatches(int pp, int chunks, int group, int microbatches);
/// The accepted number of microbatches nearest to `microbatches` (>= 1; the larger one on a tie).
/// Used to round a batch-size ramp to schedules Megatron-core runs.
int nearest_valid_microbatches(int pp, int chunks, int group, int microbatches);

/// Ops of pipeline stage `stage` (0..pp-1) for `microbatches` microbatches and `chunks` model
/// chunks per stage, in execution order, with microbatch group size `group` (0 = pp). Throws
/// aidcsim::Error for bad sizes or a combination interleaving_error refuses.
std::vector<PipelineOp> pipeline_order(int stage, int pp, int microbatches, int chunks, int group = 0);

/// True when the ops of all stages, with their data dependencies (forward of virtual stage j
/// after forward of j-1; backward of j after backward of j+1 and its own forward), can run
/// without deadlock (the dependency graph is acyclic).
bool pipeline_feasible(int pp, int microbatches, int chunks, int group = 0);

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
