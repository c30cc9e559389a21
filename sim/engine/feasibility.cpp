#include "sim/engine/feasibility.hpp"

#include <cmath>

#include "models/common/errors.hpp"
#include "models/reliability/scaling_law.hpp"
#include "models/thermal/site.hpp"
#include "models/thermal/site_model.hpp"
#include "models/thermal/transient.hpp"
#include "models/topology/rack_layout.hpp"
#include "models/workload/dp_collective.hpp"
#include "models/workload/model.hpp"
#include "models/workload/schedule_batch.hpp"
#include "sim/engine/jobs_run.hpp"

namespace aidcsim {
namespace {

using topology::FailureSpec;

std::string key_of(const FailureSpec& f) { return f.key.empty() ? std::string("fabric.failures[]") : f.key; }

bool exists(const topology::Fabric& fabric, const std::string& element) {
  return fabric.find_node(element) >= 0 || !fabric.find_links(element).empty();
}

/// Whether the element is an NVSwitch or an NVLink link.
bool is_nvlink(const topology::Fabric& fabric, const std::string& element) {
  const int node = fabric.find_node(element);
  if (node >= 0) return fabric.node(node).kind == topology::NodeKind::NvSwitch;
  for (int l : fabric.find_links(element))
    if (fabric.link(l).tier == topology::Tier::NvLink) return true;
  return false;
}

std::string gpu_list(const std::vector<int>& gpus) {
  std::string s = "GPU " + std::to_string(gpus.front());
  if (gpus.size() > 1) s += " and " + std::to_string(gpus.size() - 1) + " more";
  return s;
}

[[noreturn]] void disconnects(const FailureSpec& f, const std::vector<int>& gpus) {
  throw InvalidParameter(key_of(f) + ".element", f.element,
                         "an element whose failure leaves every GPU of the job connected; it disconnects " +
                             gpu_list(gpus) + " from the fabric");
}

/// The key of entry `i` of training.batch_schedule, as read (its path) or by index.
std::string entry_key(const std::vector<reliability::BatchStage>& sched, std::size_t i) {
  return sched[i].key.empty() ? "training.batch_schedule[" + std::to_string(i) + "]" : sched[i].key;
}

}  // namespace

workload::JobSpec scaled_job(const Scenario& sc, int gpus, const std::string& key) {
  workload::JobSpec job = sc.job;
  if (gpus == sc.fabric.gpus) return job;
  const int model_parallel = job.par.tp * job.par.pp * job.par.cp;
  if (gpus % model_parallel != 0)
    throw InvalidParameter((key.empty() ? std::string("cluster") : key) + ".gpus", std::to_string(gpus),
                           "a GPU count divisible by tp x pp x cp = " + std::to_string(model_parallel));
  const int dp = gpus / model_parallel;
  // Weak scaling: each DP replica keeps its microbatches per step, so the global batch grows with DP.
  job.global_batch = job.global_batch / job.par.dp * dp;
  job.par.dp = dp;
  return job;
}

topology::FabricSpec situation_fabric_spec(const Scenario& sc, int gpus) {
  topology::FabricSpec spec = sc.fabric;
  spec.gpus = gpus;
  spec.failures.clear();
  for (const auto& f : sc.fabric.failures)
    if (!(f.at > 0)) spec.failures.push_back(f);
  return spec;
}

void check_fabric_failures(const Scenario& sc, const topology::Fabric& fabric, int gpus) {
  for (const auto& f : sc.fabric.failures)
    if (exists(fabric, f.element) && is_nvlink(fabric, f.element))
      throw InvalidParameter(key_of(f) + ".element", f.element,
                             "a scale-out element (leaf, spine, core or a link between them): failures inside an "
                             "NVLink domain are not modelled (TP/CP/EP collectives there are analytic)");
  const std::vector<int> cut = fabric.disconnected_gpus(gpus);
  if (cut.empty()) return;
  // Name the failure from the start that disconnects them: apply them one by one.
  topology::FabricSpec spec = fabric.spec();
  spec.failures.clear();
  topology::Fabric probe = topology::build_fabric(spec);
  for (const auto& f : sc.fabric.failures) {
    if (f.at > 0 || !exists(probe, f.element)) continue;
    probe.apply(f);
    const std::vector<int> now = probe.disconnected_gpus(gpus);
    if (!now.empty()) disconnects(f, now);
  }
  throw InvalidParameter("fabric.failures", std::to_string(cut.size()) + " GPUs disconnected",
                         "failures that leave every GPU of the job connected");
}

void check_still_connected(const FailureSpec& f, const topology::Fabric& fabric, int gpus) {
  const std::vector<int> cut = fabric.disconnected_gpus(gpus);
  if (!cut.empty()) disconnects(f, cut);
}

void check_batch_schedule(const Scenario& sc, const workload::JobSpec& job) {
  const double minimum = 1.0 * job.par.dp * job.microbatch_size * job.model.sequence_length;
  const auto& sched = sc.training.batch_schedule;
  for (std::size_t i = 0; i < sched.size(); ++i)
    if (sched[i].global_batch < minimum) {
      const std::string key = entry_key(sched, i);
      char got[32], need[32];
      std::snprintf(got, sizeof got, "%.6g", sched[i].global_batch);
      std::snprintf(need, sizeof need, "%.0f", minimum);
      throw InvalidParameter(key + ".global_batch", got,
                             std::string("at least one microbatch per DP replica: dp x microbatch_size x "
                                         "sequence_length = ") +
                                 need + " tokens (dp " + std::to_string(job.par.dp) + ")");
    }
}

std::vector<std::string> batch_schedule_warnings(const Scenario& sc, const workload::JobSpec& job) {
  std::vector<std::string> out;
  const auto& sched = sc.training.batch_schedule;
  for (std::size_t i = 0; i < sched.size(); ++i) {
    const std::string w = workload::batch_rounding_warning(entry_key(sched, i) + ".global_batch",
                                                           workload::scheduled_batch(job, sched[i].global_batch), job);
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

reliability::TrainingSpec resolved_training(const Scenario& sc) {
  reliability::TrainingSpec training = sc.training;
  reliability::resolve_target(training, workload::parameters(sc.job.model));
  // N of the loss fit, also behind the Kaplan critical batch (training.convergence).
  if (!(training.parameters > 0)) training.parameters = workload::parameters(sc.job.model);
  return training;
}

thermal::SiteLayout thermal_layout(const Scenario& sc, int gpus, int switches) {
  return thermal::make_layout(sc.cooling, gpus, topology::gpus_per_rack(sc.bom.layout, sc.fabric.nvlink_domain),
                              sc.gpu.tdp, sc.gpu.idle_power, switches);
}

void check_cooling(const Scenario& sc, const topology::Fabric& fabric, int gpus) {
  const thermal::SiteLayout layout = thermal_layout(sc, gpus, fabric.bom().switches);
  const thermal::SiteModel site(sc.cooling, layout);  // sizes the CDUs: an unreachable approach throws
  thermal::check_fault_targets(sc.cooling, site.racks(), site.cdus());
}

void check_sharp_in_use(const Scenario& sc, bool used, const std::string& why) {
  if (!sc.fabric.sharp || used) return;
  throw InvalidParameter(
      "fabric.sharp", "true",
      "no fabric.sharp: true unless a DP group of dp_algorithm sharp or nvls spans NVLink domains (" + why +
          "; the fabric's switches reduce only for DP groups across domains, so the key would be "
          "ignored)");
}

namespace {
/// Why no DP collective of `job` reduces in the fabric's switches, for check_sharp_in_use.
std::string why_not_in_network(const workload::JobSpec& job, int nvlink_domain) {
  if (job.par.dp * job.par.cp < 2) return "the job has no DP traffic: dp x cp = 1";
  return "every DP group of dp_algorithm '" + job.par.dp_algorithm + "' lies inside one NVLink domain of " +
         std::to_string(nvlink_domain) + " GPUs, where NVLS reduces in the NVSwitches";
}
}  // namespace

void check_scenario(const Scenario& sc, std::vector<std::string>* warnings, std::unique_ptr<topology::Fabric>* first,
                    std::vector<topology::BillOfMaterials>* boms) {
  if (sc.params.has("jobs")) {  // several jobs: their own checks (sim/engine/jobs_run.hpp)
    check_jobs(sc);
    return;
  }
  resolved_training(sc);  // a target loss the model size can reach
  struct Situation {
    int gpus;
    std::string key, name;
  };
  std::vector<Situation> situations;
  if (sc.training.phases.empty()) situations.push_back({sc.fabric.gpus, "", ""});
  for (std::size_t i = 0; i < sc.training.phases.size(); ++i) {
    const auto& p = sc.training.phases[i];
    situations.push_back({p.gpus, p.key.empty() ? "rollout.phases[" + std::to_string(i) + "]" : p.key, p.name});
  }
  std::vector<char> found(sc.fabric.failures.size(), 0);
  bool in_network = false;  // some situation's DP collective reduces in the switches (fabric.sharp)
  for (const auto& situation : situations) {
    const auto& [gpus, key, name] = situation;
    const workload::JobSpec job = scaled_job(sc, gpus, key);
    check_batch_schedule(sc, job);
    if (warnings)  // entries simulated at another batch than written, worded as the run's results word them
      for (const auto& w : batch_schedule_warnings(sc, job))
        warnings->push_back(situations.size() > 1 ? "phase " + name + ": " + w : w);
    // Every phase judges the failures from the start, the timed ones and the cooling faults on its
    // own fabric and site (an element one phase's fabric has may be missing from another's): an
    // error says whose.
    try {
      topology::Fabric fabric = topology::build_fabric(situation_fabric_spec(sc, gpus));
      if (boms) boms->push_back(fabric.bom());  // as built, before the timed failures (as the run's)
      if (warnings)                             // the fabric as built, worded as the run's results word it
        for (const auto& w : fabric.warnings())
          warnings->push_back(situations.size() > 1 ? "phase " + name + ": " + w : w);
      check_fabric_failures(sc, fabric, gpus);
      workload::check_dp_algorithm(job, sc.gpu, fabric);  // its DP groups on this fabric's NVLink domains
      in_network = in_network || workload::dp_reduces_in_network(job, fabric);
      check_cooling(sc, fabric, gpus);
      bool applied = false;
      for (std::size_t i = 0; i < sc.fabric.failures.size(); ++i) {
        const auto& f = sc.fabric.failures[i];
        if (!(f.at > 0) || !exists(fabric, f.element)) continue;
        found[i] = 1;
        applied = true;
        fabric.apply(f);
        check_still_connected(f, fabric, gpus);
      }
      if (first && !applied && &situations.front() == &situation)
        *first = std::make_unique<topology::Fabric>(std::move(fabric));
    } catch (const InvalidParameter& e) {
      if (situations.size() < 2) throw;
      throw InvalidParameter(e.key(), e.value(), e.expected() + " in rollout phase " + (name.empty() ? key : name),
                             e.hint());
    }
  }
  for (std::size_t i = 0; i < sc.fabric.failures.size(); ++i) {
    const auto& f = sc.fabric.failures[i];
    if (f.at > 0 && !found[i])
      throw InvalidParameter(key_of(f) + ".element", f.element,
                             "a node or link name of the fabric of some situation (e.g. \"leaf2\", \"spine0.3\", "
                             "\"leaf2-spine0.3\")");
  }
  check_sharp_in_use(sc, in_network, why_not_in_network(sc.job, sc.fabric.nvlink_domain));
}

}  // namespace aidcsim
