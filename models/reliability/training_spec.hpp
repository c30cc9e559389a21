#pragma once
// TrainingSpec: the training target (tokens or a target loss, batch-size schedule), what
// interrupts it (failure processes, restarts, spares), how it is protected (checkpointing), how
// many Monte Carlo draws, and the rollout phases. Owner: models/reliability. SI units throughout
// (s, B, B/s; dates as s since 1970-01-01 UTC). Filled by reliability::spec_from().
#include <string>
#include <vector>

#include "models/common/units.hpp"

namespace aidcsim::reliability {

/// Component classes with their own failure process. Counts per class come from the engine
/// (reliability::Situation); rates per component from a preset or the scenario.
/// `node` is the 8-GPU node equivalent of Kokolis et al. 2025 (r_f per node-day), counted as
/// gpus / 8 whatever the real server size.
enum class Component { Gpu, Hbm, Nic, Host, Switch, Link, Pump, Cdu, Software, Node };
inline constexpr int kComponents = 10;

/// Default per-component rates. llama3: Llama 3 Table 5 (+ Alibaba HPN for switches/links);
/// rsc1 / rsc2: Kokolis et al. 2025 node failure rate r_f; none: no default failures.
enum class FailurePreset { Llama3, Rsc1, Rsc2, None };

/// One scenario override of a component's failure process (reliability.failures[i]).
struct FailureOverride {
  Component component = Component::Gpu;
  double mtbf = 0;        ///< s, per single component; 0 = keep the preset rate
  double count = -1;      ///< number of components; < 0 = the engine's count
  std::string key;        ///< dotted key of the item ("reliability.failures[2]") for errors
  std::string mtbf_text;  ///< mtbf as written ("1000 h"), for messages; "" when not given
};

enum class CheckpointPolicy { Fixed, YoungDaly };
enum class CheckpointMode { Sync, Async };
enum class LinkFailureMode { Stop, Degrade };

struct ReliabilitySpec {
  int draws = 1000;  ///< Monte Carlo draws
  FailurePreset preset = FailurePreset::Llama3;
  std::vector<FailureOverride> failures;
  double restart_time = 600;  ///< s, detect + reschedule + warm-up (u0), without checkpoint load
  CheckpointPolicy policy = CheckpointPolicy::YoungDaly;
  double checkpoint_interval = 0;  ///< s of training work between checkpoints (Fixed only)
  CheckpointMode mode = CheckpointMode::Async;
  double async_stall = 10;          ///< s, GPU->host snapshot stall of an async checkpoint
  bool async_stall_given = false;   ///< written in the scenario (a cap on it is then a warning)
  double storage_bandwidth = 2e12;  ///< B/s aggregate checkpoint write/read bandwidth
  /// reliability.storage_bandwidth written in the scenario: with storage on the fabric it then caps
  /// the simulated bandwidth; not written, the simulated bandwidth alone is used.
  bool storage_bandwidth_given = false;
  double checkpoint_bytes = 0;       ///< B; 0 = from the engine (model state)
  int hot_spares = -1;               ///< spare nodes; -1 = unlimited (a node is always available)
  double repair_time = units::kDay;  ///< s to return a failed node to the spare pool
  LinkFailureMode link_mode = LinkFailureMode::Stop;
  double link_repair_time = 4 * units::kHour;  ///< s a failed link stays down in degrade mode
  double link_degrade_penalty = 0.05;  ///< relative step-time increase with a link down, if the engine gives none
  double planned_interval = 0;         ///< s between planned interruptions (maintenance); 0 = none
};

/// Global batch from a token count on (Llama 3 §3.4.1: 4M -> 8M after 252M -> 16M after 2.87T).
struct BatchStage {
  double after_tokens = 0;  ///< tokens already trained when this batch size starts
  double global_batch = 0;  ///< tokens per optimizer step
  std::string key;
};

/// One rollout phase: the cluster grows to `gpus` on `start`; the job grows with it.
struct PhaseSpec {
  std::string name;
  int gpus = 0;
  double start = 0;  ///< s since 1970-01-01 UTC
  std::string key;   ///< "rollout.phases[i]"
};

/// Convergence against the global batch (convergence.hpp): none (tokens fixed whatever the batch),
/// kaplan (B_crit from the loss, Kaplan et al. 2020 §5.1) or fixed (one B_crit throughout).
enum class ConvergenceModel { None, Kaplan, Fixed };

struct ConvergenceSpec {
  ConvergenceModel model = ConvergenceModel::None;
  double b_star = 2e8;         ///< tokens, Kaplan fit coefficient B_*
  double alpha_b = 0.21;       ///< Kaplan fit exponent alpha_B
  double critical_batch = 0;   ///< tokens, the fixed model's B_crit
  double reference_batch = 0;  ///< tokens per step the target is given at; 0 = the run's first batch
  int cells = 256;             ///< grid cells of the token-cost integral (convergence_grid)
};

struct TrainingSpec {
  double tokens = 0;                       ///< tokens to train; resolved from target_loss when that is given
  double target_loss = 0;                  ///< nats/token; 0 = not given (train `tokens`)
  double parameters = 0;                   ///< model parameters N for the loss fit; 0 = from the workload (engine)
  std::vector<BatchStage> batch_schedule;  ///< empty = the workload's global batch throughout
  /// Tokens needed against the batch: with a model, `tokens` (and batch_schedule's after_tokens)
  /// count tokens at the reference batch, and larger batches need more (convergence.hpp).
  ConvergenceSpec convergence;
  ReliabilitySpec reliability;
  std::vector<PhaseSpec> phases;  ///< rollout.phases, in date order; empty = one phase
};

/// Scenario name of a component ("gpu", "hbm", ...).
const char* component_name(Component c);

}  // namespace aidcsim::reliability
