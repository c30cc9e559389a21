#pragma once
// One "situation" of the cluster: a GPU count, a fabric and a job layout. Simulating it runs the
// whole per-step chain (fabric graph -> SimGrid step -> power -> thermal -> throttled clocks ->
// SimGrid step again) and keeps what the results and the reliability model need.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/network/step_traffic.hpp"
#include "models/thermal/site.hpp"
#include "models/thermal/transient.hpp"
#include "models/thermal/verdict.hpp"
#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/step.hpp"
#include "sim/engine/checkpoint_write.hpp"
#include "sim/engine/step_variants.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

struct SituationOutcome {
  std::string name;  ///< phase name, or the scenario name
  topology::FabricSpec fabric_spec;
  workload::JobSpec job;
  topology::BillOfMaterials bom;
  topology::FabricCost cost;                 ///< priced BOM: media, optics, power, indicative cost
  std::vector<std::string> fabric_warnings;  ///< topology::Fabric::warnings(): built otherwise than asked
  workload::StepPlan plan;                   ///< at the final (possibly throttled) clocks
  workload::StepBreakdown step;              ///< at the final clocks
  workload::StepBreakdown step_unthrottled;  ///< at full clocks
  network::StepTraffic traffic;              ///< the (final) step's load on the fabric
  thermal::SiteLayout layout;
  thermal::SiteReport thermal;      ///< at the final clocks
  double shutdown_temperature = 0;  ///< K, GPU thermal shutdown used
  std::vector<double> clocks;       ///< per GPU clock factor (1 = full clock)
  int throttle_iterations = 0;
  /// Scheduled cooling faults (cooling.faults): the thermal transient through them, and the step
  /// re-simulated at the lowest clock the governor reached (the slowest GPU paces a synchronous
  /// step). Empty when the scenario schedules no fault.
  bool has_fault_transient = false;
  thermal::TransientResult fault_transient;
  double fault_transient_duration = 0;        ///< s simulated
  workload::StepBreakdown step_during_fault;  ///< at the transient's lowest clock
  /// Each fault judged in its own transient (thermal/verdict.hpp), and the monitoring actions that
  /// fired in them. clock_sensitivity: share of the step that scales with 1/clock used for the
  /// training time lost (measured from step_during_fault when the faults throttle, else the compute
  /// share of the step); clock_sensitivity_measured says which.
  std::vector<thermal::FaultVerdict> fault_verdicts;
  std::vector<thermal::ActionVerdict> action_verdicts;
  double clock_sensitivity = 1.0;
  bool clock_sensitivity_measured = false;
  /// Daily outdoor cycle (cooling.heat_rejection.outdoor_daily_swing > 0, heat rejection not fixed):
  /// a 24 h transient from midnight with the step's loads and no faults, and the step re-simulated
  /// at the lowest clock the governor reached. Empty otherwise.
  bool has_daily_transient = false;
  thermal::TransientResult daily_transient;
  workload::StepBreakdown step_daily_worst;  ///< at the day's lowest clock (= step when no throttling)
  /// Step time per global batch of training.batch_schedule (tokens as simulated, increasing);
  /// empty without a schedule.
  std::vector<reliability::BatchStepTime> step_by_batch;
  /// The expected step with one random leaf-spine/spine-core link down (reliability.
  /// link_failure_mode: degrade); links empty otherwise.
  LinkDownStep link_down;
  /// The step after each timed fabric failure (fabric.failures[] with at > 0) whose element this
  /// situation's fabric has (a rollout phase may not have it yet), in time order.
  std::vector<FabricEvent> fabric_events;
  /// A checkpoint written to the fabric's storage servers (fabric.storage), alone and alongside
  /// training steps; has_checkpoint_write false without storage servers.
  bool has_checkpoint_write = false;
  CheckpointWrite checkpoint_write;
  /// Activities of the step's plan (its schedule is released once the situation is done): a later,
  /// larger rollout phase reserves from it (plan_capacity_for).
  std::size_t plan_activities = 0;
  /// Steps not simulated because their inputs were those of a step already simulated, bit for
  /// bit (so the same result; run_reuse_enabled), each named for the run's notes.
  std::vector<std::string> reused_runs;
};

/// Simulates one situation. `gpus` overrides the scenario's GPU count (rollout phases; `key` =
/// "rollout.phases[i]" for errors, "" otherwise): DP and the global batch scale with it (weak
/// scaling: the same microbatches per DP replica). Throws InvalidParameter (caller maps it to
/// file:line) or SimulationError.
/// B a checkpoint writes: reliability.checkpoint_bytes when given, else the model state of
/// `parameters` (reliability::model_state_bytes).
double checkpoint_bytes(const Scenario& scenario, double parameters);

/// `plan_capacity`: activities the first step plan reserves (StepOptions::schedule_capacity; 0 =
/// none, the schedule then grows by doubling); it changes no result. `fabric`: this situation's
/// fabric as check_scenario built it, unfailed (taken instead of building it again); null: built here.
SituationOutcome simulate_situation(const Scenario& scenario, int gpus, const std::string& name, const std::string& key,
                                    std::uint64_t seed, const std::function<void(const std::string&, double)>& progress,
                                    std::size_t plan_capacity = 0, std::unique_ptr<topology::Fabric> fabric = nullptr);

/// Activities to reserve for the step plan of a situation of `gpus` GPUs after one of `done.gpus`
/// whose plan had done.plan_activities: that count scaled by the GPU ratio, 15 % over (a step's
/// activities follow its GPUs only roughly: NCCL's channel count per collective, and so a ring's
/// copies, changes with the group and the message size; the 70B rollout-phases test grows 2.21x
/// from 288 to 576 GPUs). Enough, mostly, for the whole schedule in one allocation instead of a
/// doubling vector's copies and their fresh pages (a plan that outgrows it doubles: CPU and
/// memory, no figure); a reservation beyond what is used is never touched. 0 when `done` has no
/// plan or more GPUs.
std::size_t plan_capacity_for(const SituationOutcome& done, int gpus);

}  // namespace aidcsim
