#pragma once
// A global batch of training.batch_schedule (tokens per step) as the step simulates it: whole
// microbatches per DP replica, a count the pipeline schedule accepts. Owner: models/workload.
#include <string>

#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {

/// One batch-schedule entry as simulated.
struct ScheduledBatch {
  double written = 0;       ///< tokens per step as written
  double exact = 0;         ///< microbatches per DP replica the written tokens make (unrounded)
  int whole = 0;            ///< exact rounded to the nearest whole count, at least 1
  int microbatches = 0;     ///< per DP replica as simulated: the accepted count nearest `whole`
  long long sequences = 0;  ///< global batch as simulated, sequences (microbatches x dp x microbatch_size)
  double tokens = 0;        ///< global batch as simulated, tokens (sequences x sequence_length)
  /// Why `microbatches` != `whole`: the pipeline schedule's refusal of `whole` (interleaving_error);
  /// "" when whole microbatches alone set the count.
  std::string refused;
  /// Whether the simulated batch differs from the written one by more than 1e-9 relative.
  bool changed() const;
};

/// `tokens` (tokens per step, > 0) of training.batch_schedule for `job`: microbatches per DP
/// replica = tokens / (sequence_length x dp x microbatch_size), rounded to the nearest whole count
/// (>= 1), then to the nearest count the interleaved schedule accepts (Megatron-core's rules or
/// the flexible schedule's: nearest_valid_microbatches, the larger one on a tie). Throws
/// aidcsim::Error when no count is accepted (nearest_valid_microbatches).
ScheduledBatch scheduled_batch(const JobSpec& job, double tokens);

/// The warning for an entry simulated at another batch than written (`key` names it, e.g.
/// "training.batch_schedule[0].global_batch"): the value written, the value simulated, and why
/// (whole microbatches per DP replica; the pipeline schedule's rule), worded like
/// workload.global_batch's error for the scenario's own batch. "" when `b` is not changed().
std::string batch_rounding_warning(const std::string& key, const ScheduledBatch& b, const JobSpec& job);

}  // namespace aidcsim::workload
