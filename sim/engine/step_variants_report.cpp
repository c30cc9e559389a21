#include "sim/engine/step_variants_report.hpp"

#include <cstdio>
#include <string>

#include "models/common/units.hpp"

namespace aidcsim {

using units::kDay;

void report_step_variants(Results& r, const Scenario& sc, const SituationOutcome& o, double time_to_train_p90) {
  if (!o.step_by_batch.empty()) {
    std::vector<double> batch, step;
    for (const auto& b : o.step_by_batch) {
      batch.push_back(b.global_batch);
      step.push_back(b.step_time);
    }
    r.datasets.push_back(vector_dataset("/step/by_batch/global_batch", batch, "1",
                                        "Global batches of training.batch_schedule as simulated, tokens per step",
                                        "global_batch"));
    r.datasets.push_back(vector_dataset("/step/by_batch/step_time", step, "s",
                                        "Step time at each global batch of /step/by_batch/global_batch",
                                        "global_batch"));
  }
  if (!o.link_down.links.empty()) {
    const auto& d = o.link_down;
    r.add("step_time_link_down", d.step_time, "s",
          "Mean step time with one loaded leaf-spine/spine-core link down and its flows rerouted (degrade mode)");
    r.datasets.push_back(vector_dataset("/network/link_down/step_time", d.step_times, "s",
                                        "Step time with each sampled loaded link down", "link"));
    std::vector<double> rerouted(d.rerouted_flows.begin(), d.rerouted_flows.end());
    r.datasets.push_back(vector_dataset("/network/link_down/rerouted_flows", rerouted, "1",
                                        "Transfers of the step whose route crossed the sampled link", "link"));
    r.labels.push_back({"/network/link_down/link", d.links, "Sampled loaded links, failed one at a time"});
  }
  if (!o.fabric_events.empty()) {
    std::vector<double> at, step, rerouted;
    std::vector<std::string> what;
    for (const auto& e : o.fabric_events) {
      at.push_back(e.at);
      step.push_back(e.step_time);
      rerouted.push_back(e.rerouted_flows);
      what.push_back(e.what);
    }
    r.add("step_time_after_fabric_failures", step.back(), "s",
          "Step time after every timed fabric failure (fabric.failures with at > 0)");
    r.datasets.push_back(vector_dataset("/network/failures/time", at, "s",
                                        "Time of each timed fabric failure, from the training start", "failure"));
    r.datasets.push_back(vector_dataset("/network/failures/step_time", step, "s",
                                        "Step time re-simulated with this and every earlier failure applied",
                                        "failure"));
    r.datasets.push_back(vector_dataset("/network/failures/rerouted_flows", rerouted, "1",
                                        "Transfers of the step whose route crossed an element this failure took down",
                                        "failure"));
    r.labels.push_back({"/network/failures/element", what, "Timed fabric failures: type and element", "failure"});
  }
  if (!o.step_by_batch.empty()) {
    std::string steps;
    for (const auto& b : o.step_by_batch) {
      char item[96];
      std::snprintf(item, sizeof item, "%s%.3gM tokens %.3f s", steps.empty() ? "" : ", ", b.global_batch / 1e6,
                    b.step_time);
      steps += item;
    }
    // One simulated batch (every entry rounds to the scenario's own): nothing to interpolate.
    const bool one = o.step_by_batch.size() == 1;
    r.notes.push_back(
        "batch schedule: the step is re-simulated at each global batch (whole microbatches per DP "
        "replica, a count the pipeline schedule accepts: a multiple of pp when interleaved; the warnings name "
        "each entry simulated at another batch than written): " +
        steps +
        (one ? "; time-to-train trains every entry at this batch's tokens/s"
             : "; time-to-train interpolates the step time between them, linearly in the batch, and trains an entry "
               "below the smallest at the smallest's tokens/s, above the largest at the largest's") +
        " (tokens_per_step and tokens_per_second above are the scenario's own batch)");
  }
  if (!o.link_down.links.empty()) {
    std::string note = "degrade mode: a link failure costs the mean step with one of " +
                       std::to_string(o.link_down.links.size()) + " sampled loaded fabric links down (of " +
                       std::to_string(o.link_down.loaded) + " loaded), not the default penalty";
    // Link-down runs that continued from the base step's run (FlowNetwork::set_prefix_capture).
    std::string reused;
    for (std::size_t i = 0; i < o.link_down.prefix_activities.size() && i < o.link_down.links.size(); ++i) {
      const long long k = o.link_down.prefix_activities[i];
      if (k <= 0 || o.link_down.activities <= 0) continue;
      char pct[48];
      std::snprintf(pct, sizeof pct, " (%.1f %% of its activities)", 100.0 * k / o.link_down.activities);
      reused += (reused.empty() ? "" : ", ") + o.link_down.links[i] + pct;
    }
    if (!reused.empty())
      note += "; run reuse: the runs with " + reused +
              " down continued from the base step's run up to the first transfer over the link, not simulated "
              "again (the same results bit for bit; AIDCSIM_NO_RUN_REUSE=1 simulates them whole)";
    r.notes.push_back(note);
  }
  if (!o.fabric_events.empty())
    r.notes.push_back(
        "timed fabric failures: the step is re-simulated after each (cumulative, not repaired); "
        "time-to-train slows from each failure's time (cause fabric_failures)");
  for (const auto& f : sc.fabric.failures)
    if (f.at > 0 && f.at >= time_to_train_p90) {
      char when[96];
      std::snprintf(when, sizeof when, " at %.4g d comes after the training ends (p90 %.4g d): it changes nothing",
                    f.at / kDay, time_to_train_p90 / kDay);
      r.notes.push_back("fabric failure " + f.element + when);
    }
}

}  // namespace aidcsim
