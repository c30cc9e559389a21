#pragma once
// Time-to-train under failures: the engine supplies step times per situation (cluster state),
// this turns them into a Monte Carlo distribution of the wall time to train the target tokens.
//
// Model (one draw, event-driven, never per training step):
// - Failures: superposed Poisson process in wall time with the summed rate of the situation's
//   failure processes (failures.hpp); each event's cause is drawn in proportion to the rates.
// - A stopping failure loses the work since the last durable checkpoint, then the job restarts
//   (restart_time + checkpoint load) once every node the failures took is back: a hot spare, or
//   when hot spares are limited and all are in use, a repaired node. Failures during the wait or
//   the restart restart it again and count as interruptions.
// - A link failure in degrade mode does not stop the job: the step time grows to the degraded one
//   until the link is repaired.
// - Checkpoints every `interval` s of work: sync stalls for the write; async stalls for the
//   snapshot and becomes durable only when the background write ends.
// - Step time may vary with time (thermal throttling, daily outdoor cycle, cooling faults):
//   a piecewise-constant step-time multiplier profile from the engine.
// - Planned interruptions every reliability.planned_interval: checkpoint, restart, no lost work.
// - Rollout phases: at each phase's start the job checkpoints, restarts on the larger
//   allocation (planned, no lost work) and continues with that phase's step time and rates.
// Draw d uses its own std::mt19937_64 seeded from (seed, d): results do not depend on the number
// of threads or on the order draws are run in.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/reliability/failures.hpp"
#include "models/reliability/training_spec.hpp"

namespace aidcsim::reliability {

/// Piecewise-constant step-time multiplier m(t) >= 1 (1 = nominal), t in s since the job start:
/// m(t) = multipliers[i] for times[i] <= t' < times[i+1], t' = t mod period when period > 0
/// (e.g. a daily outdoor-temperature cycle: period 86400), else the last value holds after the end.
/// Empty = constant 1. times[0] must be 0 and times increasing.
/// Days a one-off step-time profile is spelled out for when it combines a fault window with a
/// periodic daily cycle (beyond them the daily-mean multiplier holds): a year covers every
/// time-to-train simulated.
inline constexpr int kCombinedProfileDays = 366;

struct StepTimeProfile {
  std::vector<double> times;        ///< s
  std::vector<double> multipliers;  ///< dimensionless, > 0; +inf = halted (no progress)
  double period = 0;                ///< s; 0 = not periodic
};

/// Step time as a function of the global batch (tokens per step), for the batch schedule.
struct BatchStepTime {
  double global_batch = 0;  ///< tokens per step
  double step_time = 0;     ///< s
};

/// One cluster state as simulated by the engine.
struct Situation {
  int gpus = 0;                 ///< GPUs in the job
  double step_time = 0;         ///< s per optimizer step at `tokens_per_step`
  double tokens_per_step = 0;   ///< global batch in tokens
  double checkpoint_bytes = 0;  ///< B of model state (weights + optimizer); overridden by reliability.checkpoint_bytes
  /// B/s the checkpoint traffic actually gets when storage shares the fabric (engine: checkpoint
  /// bytes / simulated write time); 0 = use reliability.storage_bandwidth. When set, it is used
  /// alone, or the smaller of the two when reliability.storage_bandwidth is written in the scenario.
  double storage_bandwidth = 0;
  ComponentCounts counts;  ///< for the failure rates (counts.gpus = 0 -> gpus)
  /// Step time with one link down (degrade mode); 0 = step_time * (1 + reliability.link_degrade_penalty).
  double degraded_step_time = 0;
  /// Step times for other global batches (batch schedule); empty = same tokens/s at every batch.
  std::vector<BatchStepTime> step_time_by_batch;
  StepTimeProfile profile;  ///< throttling over time; empty = none
  /// Step-time multiplier of timed fabric failures (fabric.failures[] with at > 0) over time,
  /// multiplying `profile`; its slowdown is lost GPU time of cause "fabric_failures". Empty = none.
  StepTimeProfile fabric_profile;
};

/// A rollout phase as the engine simulated it.
struct PhaseSituation {
  std::string name;
  double start = 0;  ///< s since 1970-01-01 UTC (rollout.phases[i].start)
  Situation situation;
};

struct TimeToTrainResult {
  double tokens = 0;  ///< tokens trained (target; at the reference batch with a convergence model)
  /// Mean tokens actually trained to reach the target (kept work only, not the work failures
  /// lost): = tokens without a convergence model, more when batches above the reference cost more
  /// (TrainingSpec::convergence). tokens_trained - tokens = the extra tokens of the larger batches.
  double tokens_trained = 0;
  double reference_batch = 0;        ///< tokens per step the target counts in (0 without a convergence model)
  double ideal = 0;                  ///< s without failures or checkpoints: sum of tokens / (tokens/s), unthrottled
  double expected_mean = 0;          ///< s, Monte Carlo mean wall time to train
  double p10 = 0, p50 = 0, p90 = 0;  ///< s, quantiles of the draws (linear interpolation)
  double ettr = 0;     ///< effective training time ratio: mean over draws of retained work time / wall time
  double goodput = 0;  ///< tokens per s of wall time: tokens / expected_mean
  double expected_interruptions = 0;  ///< mean stopping failures per draw (restarts included)
  double expected_degradations = 0;   ///< mean link failures absorbed in degrade mode per draw
  double expected_planned = 0;        ///< mean planned interruptions per draw (reliability.planned_interval)
  double checkpoint_interval = 0;     ///< s of work between checkpoints, in the phase where training ends
  double checkpoint_stall = 0;        ///< s per checkpoint, same phase
  double job_mtbf = 0;                ///< s, 1 / stop rate, same phase (each phase: PhaseReport)
  /// GPU-hours (GPU-s / 3600) lost per draw on average, by cause: each component (lost work +
  /// restart), "checkpoint" (stalls), "spare_wait", "phase_transition", "throttling" (step-time
  /// profile), "fabric_failures" (fabric_profile), "planned" (planned interruptions). A degraded fabric's slowdown counts under "link".
  std::vector<std::pair<std::string, double>> lost_gpu_hours_by_cause;
  /// Mean stopping failures per draw by component (degradations not included), enum order.
  std::vector<std::pair<std::string, double>> interruptions_by_cause;
  std::vector<double> samples;  ///< s, one wall time per draw, in draw order
  /// Values used otherwise than written (an async stall longer than the write, an interval
  /// shorter than a step), one sentence each, for the run's warnings.
  std::vector<std::string> warnings;
  /// Loop iterations of a draw (checkpoints, failures, restarts, planned stops, phase and profile
  /// edges, ~2 per event), mean over the draws, and as estimated before drawing to bound the run
  /// (1e9 over all draws; docs/reliability.md "Bounds"): diagnostics, not written to the results.
  double events = 0, events_estimated = 0;
};

struct PhaseReport {
  std::string name;
  int gpus = 0;
  double start = 0;                ///< s since epoch
  double step_time = 0;            ///< s
  double tokens_per_s = 0;         ///< nominal throughput
  double job_mtbf = 0;             ///< s
  double checkpoint_interval = 0;  ///< s of work
  double mean_tokens = 0;          ///< tokens trained in this phase (mean over draws)
  double mean_wall = 0;            ///< s the job spent in this phase (mean over draws)
  double mean_interruptions = 0;
  double mean_tokens_trained = 0;  ///< tokens actually trained in the phase (mean over draws)
  double batch = 0;           ///< tokens per step where the phase starts on average (batch schedule at its mean start)
  double critical_batch = 0;  ///< tokens, B_crit where the phase starts on average (0: no convergence model)
};

struct PhasedResult {
  TimeToTrainResult overall;  ///< samples/quantiles in s from the first phase's start
  std::vector<PhaseReport> phases;
  /// The phase where training ends: the last one starting at or before the mean time-to-train
  /// (overall.expected_mean). A rollout can finish before its last phase starts; the summary's
  /// job figures (overall.job_mtbf, checkpoint_interval, checkpoint_stall) are this phase's.
  std::size_t end_phase = 0;
};

/// Time-to-train distribution for one situation, `spec.reliability.draws` Monte Carlo draws.
/// With a convergence model (spec.convergence) the target counts tokens at the reference batch
/// and every token trained at batch B advances it by 1 / batch_token_cost(B, reference, B_crit)
/// (convergence.hpp; B_crit from spec.parameters, which must then be set for the Kaplan model).
/// Throws InvalidParameter (training.tokens, reliability.*) for non-positive targets/intervals,
/// and before drawing when the Monte Carlo would need more than 1e9 loop steps (a job that cannot
/// make progress, restarts waiting for hot spares that ran out, a 10,000-year run, a checkpoint
/// every second): the key says what to change. The bound counts events, it does not bound time:
/// near it the Monte Carlo took 1-12 s of CPU for the 8K job, 32 s for the rollout whose spares
/// are short (measured, time_to_train.cpp).
/// SimulationError when the step time or tokens per step is not positive, or a draw still runs
/// away (20 x its estimated events, or 1000 years of simulated time). Cancelled (cancel.hpp)
/// between draws after request_cancel().
TimeToTrainResult time_to_train(const TrainingSpec& spec, const Situation& situation, std::uint64_t seed);

/// The Monte Carlo takes identical checkpoint periods between two other events at once (see
/// time_to_train.cpp, skip_steady_checkpoints). false: one loop iteration per checkpoint, the
/// reference the tests compare it with. Process-wide; default true.
void set_checkpoint_batching(bool on);

/// The Monte Carlo walks the step-time profiles and batch regimes from where it last was instead
/// of searching them at every event; its results are bit-identical to the reference walk
/// (false: a binary search per event), which the tests compare it with. Process-wide; default true.
void set_fast_walk(bool on);

/// Same over rollout phases (the job grows at each phase start). phases[0].start is the job
/// start; starts must increase and GPU counts must not shrink (InvalidParameter with the
/// "rollout.phases[i].*" key otherwise).
PhasedResult time_to_train_phased(const TrainingSpec& spec, const std::vector<PhaseSituation>& phases,
                                  std::uint64_t seed);

/// The size check time_to_train_phased makes before drawing, alone: throws the InvalidParameter
/// it would throw when the draws need more than 1e9 loop steps (the key to change in it), else
/// returns the loop steps estimated for all draws. Cheap (one ideal draw, no Monte Carlo): for a
/// check before the engine has simulated the step, with a lower bound of the step time
/// (sim/engine/monte_carlo_bound.hpp). Same other errors as time_to_train_phased.
double monte_carlo_events(const TrainingSpec& spec, const std::vector<PhaseSituation>& phases);

/// Fixed-window study (no target, no convergence model): run for `duration` s of wall time and report interruptions,
/// ETTR (retained work time / duration) and lost GPU-hours. `tokens` in the result = mean tokens
/// retained; samples = retained work time per draw (s).
TimeToTrainResult simulate_window(const TrainingSpec& spec, const Situation& situation, double duration,
                                  std::uint64_t seed);

}  // namespace aidcsim::reliability
