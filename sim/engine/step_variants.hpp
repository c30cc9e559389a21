#pragma once
// Variants of a situation's step that the time-to-train model needs, each re-simulated on the
// same fabric and SimGrid platform at the situation's final clocks:
// - the step at every global batch of training.batch_schedule (Llama 3 grew 4M -> 16M tokens);
// - the step with one scale-out link down (reliability.link_failure_mode: degrade);
// - the step after each timed fabric failure (fabric.failures[] with at > 0).
#include <cstdint>
#include <string>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/reliability/time_to_train.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/step.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// What a step variant runs on: the situation's job, fabric, platform, clocks and ECMP seed.
struct StepContext {
  const Scenario& scenario;
  const workload::JobSpec& job;  ///< scaled to the situation's GPU count
  topology::Fabric& fabric;      ///< mutated and restored by degraded_link_step; mutated for good by fabric_event_steps
  network::FlowNetwork& net;     ///< built on `fabric`
  const std::vector<double>& clocks;  ///< per GPU clock factor (final, after throttling)
  std::uint64_t seed;
};

/// Step time at each global batch of `batches` (tokens per step, training.batch_schedule).
/// A batch becomes whole microbatches per DP replica, a count the pipeline schedule accepts
/// (workload::scheduled_batch), so the tokens in the result are those simulated, which may differ from the request. `base` is the
/// situation's own step time (reused when a batch rounds to its sequence count). Result: one entry per
/// distinct simulated batch, increasing global_batch (tokens), step_time in s.
std::vector<reliability::BatchStepTime> batch_step_times(const StepContext& ctx, const std::vector<double>& batches,
                                                         double base_step_time);

/// The step with one scale-out link down, in expectation over which link fails.
struct LinkDownStep {
  int candidates = 0;               ///< leaf-spine and spine-core links (0: no such tier)
  int loaded = 0;                   ///< of them, links that carry traffic in the step
  std::vector<std::string> links;   ///< sampled loaded links, each re-simulated down
  std::vector<double> step_times;   ///< s, step with that link down and its flows rerouted
  std::vector<int> rerouted_flows;  ///< transfers of the step whose route crossed that link
  double step_time = 0;             ///< s, mean of step_times (expected step with a link down)
  /// Per sample: activities taken from the base step's run (begun before the first transfer
  /// over the link; 0: simulated whole), of `activities` (arm_link_down_prefixes).
  std::vector<long long> prefix_activities;
  long long activities = 0;
};

/// Expected step with one leaf-spine or spine-core link down (the degrade mode of the reliability
/// model: Llama 3 §3.3.4, the job runs on through a rerouted fabric): the mean over `samples`
/// (seeded, distinct) links drawn among those that carry traffic in the step, each re-simulated
/// down. Idle links are not discounted: the step simulation collapses symmetric TP ranks onto one
/// rail, so links it leaves idle carry the same traffic in the real job. Choosing the busiest link
/// instead would be biased: under hash ECMP it is the worst collision, and failing it spreads the
/// collision out. `utilization` is per fabric link (the base step's). Each link is brought up again
/// before returning; step_time = base_step_time when no link carries traffic. `plan` is the
/// situation's step plan at ctx.clocks on the fabric with every link up (the base step's; a link
/// down changes routes, not the plan, so every sample runs it as it is instead of planning again).
LinkDownStep degraded_link_step(const StepContext& ctx, const workload::StepPlan& plan,
                                const std::vector<double>& utilization, double base_step_time, int samples = 3);

/// Before the training step's run (and its throttled re-runs): `net` keeps, in each, the run's
/// state just before the first transfer over each link degraded_link_step will sample (the same
/// draw, from the links the run's routes load), so that each sample continues from it instead of
/// simulating its prefix again (FlowNetwork::set_prefix_capture: bit for bit the whole run; a link
/// drawn otherwise is simulated whole). degraded_link_step turns it off and drops the prefixes.
/// Call only when run reuse is on (run_reuse_enabled).
void arm_link_down_prefixes(network::FlowNetwork& net, std::uint64_t seed, int samples = 3);

/// The fabric after a timed failure, from its time on (failures are cumulative and permanent).
struct FabricEvent {
  double at = 0;           ///< s since the training start
  std::string what;        ///< "link_down leaf2-spine0.3", "switch_down spine0.3", "degrade ... to 50 %"
  double step_time = 0;    ///< s, with this and every earlier timed failure applied
  int rerouted_flows = 0;  ///< transfers of the previous step whose route crosses an element now down
};

/// Applies scenario.fabric.failures with at > 0 in time order (equal times: list order) and
/// re-simulates the step after each; failures of elements this fabric does not have (a later
/// rollout phase's) are skipped. Throws InvalidParameter (fabric.failures[i].element) when a
/// failure disconnects GPUs of the job. Leaves `ctx.fabric` with all of them applied.
/// `base_plan`: the step's plan at ctx.clocks; each re-plan runs on its activities when only
/// their amounts differ (run_step_on), which leaves it as it was.
std::vector<FabricEvent> fabric_event_steps(const StepContext& ctx, workload::StepPlan& base_plan);

}  // namespace aidcsim
