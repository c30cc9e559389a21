#pragma once
// Checkpoint interval and cost: Young (1974) / Daly (2006) optimum, write/read times from the
// storage bandwidth.
#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {

/// Model state a checkpoint writes per parameter, B: BF16 weights (2 B) + FP32 master weights
/// (4 B) + Adam moments (2 x 4 B) = 14 B (Megatron-LM SC21, Narayanan et al. 2021, §5.10: 13.8 TB
/// for its 1T-parameter model).
inline constexpr double kModelStateBytesPerParameter = 14.0;

/// B of model state of a model of `parameters` parameters (kModelStateBytesPerParameter each).
inline double model_state_bytes(double parameters) { return parameters * kModelStateBytesPerParameter; }

/// Young's first-order optimum checkpoint interval tau = sqrt(2 * delta * M) (s of work between
/// checkpoints). delta: checkpoint stall (s) > 0; M: job MTBF (s) > 0.
/// Source: J. W. Young, "A first order approximation to the optimum checkpoint interval",
/// CACM 17(9), 1974.
double young_interval(double delta, double mtbf);

/// Daly's higher-order optimum: tau = sqrt(2 delta M) [1 + sqrt(delta/(2M))/3 + delta/(18 M)]
/// - delta for delta < 2M, else tau = M. Source: J. T. Daly, "A higher order estimate of the
/// optimum checkpoint interval for restart dumps", FGCS 22(3), 2006, eq. (37).
/// Falls back to Young's value when delta <= 0 (no stall: returns 0, i.e. the caller must clamp).
double daly_interval(double delta, double mtbf);

/// Checkpoint timing of a situation (all s).
struct CheckpointCost {
  double write = 0;  ///< bytes / storage_bandwidth: time until a checkpoint is durable
  double stall = 0;  ///< training stalled per checkpoint (sync: write; async: async_stall, <= write)
  double load = 0;   ///< bytes / storage_bandwidth: reading it back at restart
};
/// Write/stall/load times for `bytes` of model state (B) and the spec's storage bandwidth
/// (Llama 3 §3.3.1: Tectonic 2 TB/s sustained, published-figures.md §2.2).
CheckpointCost checkpoint_cost(const ReliabilitySpec& spec, double bytes);

/// Interval (s of work between checkpoints) the spec asks for: the fixed one as written, or (policy
/// young_daly) Daly's optimum for the stall and the job MTBF (1 / stop rate), but at least one
/// step (`step_time`, s: checkpoints are taken between optimizer steps) and, in async mode, at
/// least the write time (the next checkpoint cannot start before the previous one is durable;
/// with a zero stall Daly's optimum would be 0). +inf for an infinite job MTBF (young_daly).
double checkpoint_interval(const ReliabilitySpec& spec, const CheckpointCost& cost, double job_mtbf,
                           double step_time = 0);

}  // namespace aidcsim::reliability
