#pragma once
// Pipeline-parallel operation order per stage: 1F1B (PipeDream-Flush, Narayanan et al. 2021 §2.2)
// and interleaved 1F1B with v model chunks per stage (same paper, Fig. 4), as Megatron-LM's
// schedules.py orders them (warm-up forwards, steady one-forward-one-backward, cool-down).
#include <vector>

namespace aidcsim::workload {

struct PipelineOp {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  ///< model chunk on this stage (0..v-1); virtual stage = chunk * pp + stage
};

/// Ops of pipeline stage `stage` (0..pp-1) for `microbatches` microbatches and `chunks` model
/// chunks per stage, in execution order. Interleaved: microbatches go in groups of pp through
/// every chunk (Megatron-core's microbatch_group_size_per_vp_stage = pp); a last partial group is
/// allowed. Warm-up forwards: (pp - stage - 1) x 2 + (v - 1) x pp (+ `extra_warmup`), capped.
std::vector<PipelineOp> pipeline_order(int stage, int pp, int microbatches, int chunks, int extra_warmup = 0);

/// True when the ops of all stages, with their data dependencies (forward of virtual stage j
/// after forward of j-1; backward of j after backward of j+1 and its own forward), can run
/// without deadlock (the dependency graph is acyclic).
bool pipeline_feasible(int pp, int microbatches, int chunks, int extra_warmup = 0);

/// Idle fraction of the ideal schedule: (pp-1)/(v m) of the compute time (SC21 §2.2).
double ideal_bubble_fraction(int pp, int microbatches, int chunks);

}  // namespace aidcsim::workload
