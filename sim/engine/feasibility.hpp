#pragma once
// What a scenario must satisfy beyond its schema before anything is simulated, shared by
// `aidcsim run` (simulate) and `aidcsim validate`: each situation's job fits its GPU count, its
// fabric builds, fabric failures touch only what the step simulates (no NVLink element) and leave
// every GPU of the job connected, timed failures name an element of some phase's fabric, and each
// batch of the schedule holds at least one microbatch per DP replica.
// Every check throws InvalidParameter with the scenario key (mapped to file:line by the caller).
#include <memory>
#include <string>
#include <vector>

#include "models/thermal/site.hpp"
#include "models/topology/fabric.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// The job on `gpus` GPUs (a rollout phase; `key` = "rollout.phases[i]" for errors): DP and the
/// global batch scale with the GPU count (weak scaling: the same microbatches per DP replica).
/// Throws InvalidParameter(key + ".gpus") when gpus is not a multiple of tp x pp x cp.
workload::JobSpec scaled_job(const Scenario& scenario, int gpus, const std::string& key);

/// Fabric spec of a situation: the scenario's, with `gpus` GPUs and without the timed failures
/// (at > 0), which the engine applies at their time (an element may exist only in a later phase).
topology::FabricSpec situation_fabric_spec(const Scenario& scenario, int gpus);

/// Checks `fabric` (built with the failures from the start) for a job on its first `gpus` GPUs:
/// no failure of the scenario names an NVLink element (the TP/CP/EP collectives inside an NVLink
/// domain are analytic, so such a failure would silently change nothing), and no GPU of the job is
/// disconnected (the step simulates the DP flows of some TP ranks only, so a dead NIC link can miss
/// every simulated flow). Throws InvalidParameter("fabric.failures[i].element").
void check_fabric_failures(const Scenario& scenario, const topology::Fabric& fabric, int gpus);

/// After timed failure `f` was applied to `fabric`: every GPU of the job is still connected.
/// Throws InvalidParameter(f.key + ".element") naming the disconnected GPUs.
void check_still_connected(const topology::FailureSpec& f, const topology::Fabric& fabric, int gpus);

/// Batches of training.batch_schedule hold at least one microbatch per DP replica of `job`:
/// global_batch >= dp x microbatch_size x sequence_length tokens. Throws
/// InvalidParameter("training.batch_schedule[i].global_batch").
void check_batch_schedule(const Scenario& scenario, const workload::JobSpec& job);

/// One warning per entry of training.batch_schedule that `job`'s step simulates at another batch
/// than written (workload::scheduled_batch, workload::batch_rounding_warning): key, value written,
/// value simulated and why. Empty without a schedule or when every entry is simulated as written.
std::vector<std::string> batch_schedule_warnings(const Scenario& scenario, const workload::JobSpec& job);

/// The training target with training.target_loss turned into tokens (Chinchilla fit with the
/// workload's parameter count, or training.parameters), and training.parameters set (the
/// workload's count when not given: the Kaplan critical batch needs it). Throws InvalidParameter
/// ("training.target_loss") for a loss the model size cannot reach.
reliability::TrainingSpec resolved_training(const Scenario& scenario);

/// Thermal site of a situation on `gpus` GPUs with `switches` scale-out switches: racks of
/// topology::gpus_per_rack(bom.layout, fabric.nvlink_domain) GPUs, the same racks the priced bill of
/// materials lays out (not one rack per NVLink domain: an 8-GPU HGX domain is a server, not a rack).
/// The engine, the feasibility check and the Python bindings all build the site here.
thermal::SiteLayout thermal_layout(const Scenario& scenario, int gpus, int switches);

/// The cooling site of a situation builds (CDUs sized for the approach at the design heat) and
/// every cooling.faults[i].target names one of its CDUs or racks. Throws InvalidParameter.
void check_cooling(const Scenario& scenario, const topology::Fabric& fabric, int gpus);

/// fabric.sharp: true with no DP collective that reduces in the fabric's switches (`used`:
/// workload::dp_reduces_in_network for some situation or job): the key would change nothing.
/// The loader (keys_in_use.hpp) refuses it without a sharp or nvls dp_algorithm; this is the case
/// only the built fabric tells, nvls whose every DP group lies inside one NVLink domain (or no DP
/// traffic). `why`: why none does, a clause of the message. Throws
/// InvalidParameter("fabric.sharp") worded as the loader's "no KEY unless ..." errors.
void check_sharp_in_use(const Scenario& scenario, bool used, const std::string& why);

/// Every check above for every situation (rollout phases or the scenario itself), plus: each
/// timed failure names an element of at least one situation's fabric. Builds the fabrics (~0.02 s
/// at 31K GPUs), simulates nothing. The one function `aidcsim validate` and `run` (simulate) both
/// call before simulating: what validate accepts, run does not reject before its first step.
/// (The Monte Carlo's event budget depends on the simulated step time: time_to_train checks it
/// after the step is simulated.) `warnings`, when given, receives each situation's fabric built
/// otherwise than asked (topology::Fabric::warnings, "phase NAME: " first in a rollout), the
/// same lines the run's results carry.
/// `first` (optional): set to the first situation's fabric as the checks built it, for
/// simulate_situation to take instead of building it again (site-100k: 0.2 s CPU); left null when a
/// timed failure was applied to it or for a `jobs:` scenario. Only the first: holding a rollout's
/// later fabrics until their phase would add to the peak RSS (rollout +38 MiB).
/// `boms` (optional): receives each situation's bill of materials as built, in order (the job, or
/// each rollout phase), for check_monte_carlo_before_step's failure counts; left empty for a
/// `jobs:` scenario.
void check_scenario(const Scenario& scenario, std::vector<std::string>* warnings = nullptr,
                    std::unique_ptr<topology::Fabric>* first = nullptr,
                    std::vector<topology::BillOfMaterials>* boms = nullptr);

}  // namespace aidcsim
