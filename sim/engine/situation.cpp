#include "sim/engine/situation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "models/common/errors.hpp"
#include "models/common/units.hpp"
#include "models/reliability/checkpoint.hpp"
#include "models/thermal/run_windows.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/step_run.hpp"
#include "sim/engine/step_variants.hpp"

namespace aidcsim {
namespace {

// The priced BOM's switch and NIC power (with their optics) replaces the thermal model's flat
// per-switch and per-GPU NIC estimates unless the scenario sets power.switch_power / nic_per_gpu,
// so fabric power reaches IT power, the room heat and PUE.
void fabric_power_into_layout(const Scenario& sc, const topology::FabricCost& c, thermal::SiteLayout& layout) {
  double switch_optics = 0, nic_optics = 0;
  for (const auto& o : c.optics) (o.switch_end ? switch_optics : nic_optics) += o.modules * o.power;
  if (!sc.params.given("power.switch_power") && c.switches > 0 && !c.switch_model.empty())
    layout.switch_power = (c.power_switches + switch_optics) / c.switches;
  if (!sc.params.given("power.nic_per_gpu") && c.nics > 0)
    layout.nic_power_per_gpu = (c.power_nics + nic_optics) / c.nics;
}

std::vector<thermal::GpuLoad> loads_of(const workload::StepBreakdown& b) {
  return {thermal::GpuLoad{std::clamp(b.gpu_busy_compute_fraction, 0.0, 1.0),
                           std::clamp(b.gpu_busy_comm_fraction, 0.0, 1.0)}};
}

double max_clock_change(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

/// Whether two clock factors are the same input to a step, bit for bit (-0.0 is not 0.0 here).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

std::string clock_text(double c) {
  char t[32];
  std::snprintf(t, sizeof t, "%.6g", c);
  return t;
}

}  // namespace

double checkpoint_bytes(const Scenario& sc, double parameters) {
  const double given = sc.training.reliability.checkpoint_bytes;
  return given > 0 ? given : reliability::model_state_bytes(parameters);
}

std::size_t plan_capacity_for(const SituationOutcome& done, int gpus) {
  const int before = done.fabric_spec.gpus;
  if (done.plan_activities == 0 || before <= 0 || gpus < before) return 0;
  return static_cast<std::size_t>(
      std::ceil(1.15 * static_cast<double>(done.plan_activities) * static_cast<double>(gpus) / before));
}

SituationOutcome simulate_situation(const Scenario& sc, int gpus, const std::string& name, const std::string& key,
                                    std::uint64_t seed, const std::function<void(const std::string&, double)>& progress,
                                    std::size_t plan_capacity, std::unique_ptr<topology::Fabric> built) {
  auto report = [&](const std::string& stage, double f) {
    if (progress) progress(name + ": " + stage, f);
  };
  SituationOutcome out;
  out.name = name;
  out.fabric_spec = situation_fabric_spec(sc, gpus);
  out.job = scaled_job(sc, gpus, key);

  report("fabric graph", 0.0);
  topology::Fabric fabric = built ? std::move(*built) : topology::build_fabric(out.fabric_spec);
  built.reset();
  check_fabric_failures(sc, fabric, gpus);
  out.bom = fabric.bom();
  out.cost = topology::price_fabric(fabric, sc.bom);
  out.fabric_warnings = fabric.warnings();

  report("flow network", 0.1);
  network::FlowNetwork net(fabric);
  net.set_timeline_bins(network::kStepTimelineBins);
  // The training step's route table is kept (FlowNetwork::set_route_reuse) only where a run of the
  // same transfers follows: the step at the cooling faults' or the day's lowest clock, the link-down
  // samples of degrade mode, a throttled re-run (below). Else it would only add to the peak RSS.
  const bool degrade = sc.training.reliability.link_mode == reliability::LinkFailureMode::Degrade;
  const bool clock_variants = !sc.cooling.faults.empty() || thermal::has_daily_cycle(sc.cooling);
  net.set_route_reuse(clock_variants || degrade);
  if (degrade && run_reuse_enabled()) arm_link_down_prefixes(net, seed);  // prefixes for the link-down samples

  report("training step (flows)", 0.2);
  StepRun step = run_step(out.job, sc.gpu, fabric, net, {}, seed, plan_capacity);
  net.set_timeline_bins(network::kStepTimelineBins, step.run.makespan);  // later runs: no bin merges
  out.step_unthrottled = step.breakdown;

  report("thermal network", 0.6);
  out.layout = thermal_layout(sc, gpus, out.bom.switches);
  fabric_power_into_layout(sc, out.cost, out.layout);
  out.clocks.assign(static_cast<std::size_t>(gpus), 1.0);
  out.shutdown_temperature = sc.cooling.throttle.shutdown_temp;
  out.thermal = thermal::steady_state(sc.cooling, out.layout, loads_of(step.breakdown), out.clocks);

  // Throttling closed loop: GPUs above their limit run at the clock that holds the limit; the step
  // is re-simulated at those clocks, which changes the busy profile, hence power and temperature.
  const thermal::ThrottleLoop loop;
  while (out.thermal.gpus_over_limit > 0 && out.throttle_iterations < loop.max_iterations) {
    ++out.throttle_iterations;
    net.set_route_reuse(true);  // the next iteration, if any, re-runs these transfers
    report("throttled step (flows)", 0.6 + 0.1 * out.throttle_iterations);
    std::vector<double> clocks = thermal::solve_throttled_clocks(sc.cooling, out.layout, loads_of(step.breakdown));
    const double change = max_clock_change(clocks, out.clocks);
    // The same clocks, bit for bit, as the step just run (from the second iteration on, when it
    // ran at out.clocks): its re-run would give the same step and the same steady state, and the
    // loop would stop on it (change 0); so it stops here without it (run_reuse_enabled).
    if (out.throttle_iterations > 1 && same_bits(clocks, out.clocks) && run_reuse_enabled()) {
      out.reused_runs.push_back("the throttled step of iteration " + std::to_string(out.throttle_iterations) +
                                " (the same clocks as iteration " + std::to_string(out.throttle_iterations - 1) +
                                "'s, which converged)");
      break;
    }
    out.clocks = std::move(clocks);
    // The re-plan replaces the step (its plan and run): the old activities are released first, so
    // that the two schedules are not alive at once (the new one reserves their count).
    const std::size_t planned = step.plan.schedule.activities.size();
    std::vector<network::Activity>().swap(step.plan.schedule.activities);
    step.run = network::RunResult{};  // nor the two runs' results (times, timeline) at once
    step = run_step(out.job, sc.gpu, fabric, net, out.clocks, seed, planned);
    out.thermal = thermal::steady_state(sc.cooling, out.layout, loads_of(step.breakdown), out.clocks);
    if (change < loop.clock_tolerance) break;
  }
  out.plan = std::move(step.plan);
  out.step = step.breakdown;
  net.set_timeline_bins(0);  // `step` keeps the final step's timeline; the variants below need none
  out.thermal.swing = thermal::power_swing(out.layout, loads_of(out.step), out.clocks, out.step.step_time,
                                           out.thermal.state.power.server_fans);

  // Thermal transients first; the steps they ask for (at the faults' and the day's lowest
  // clock) come after the variants that run the training step's own schedule (link down, timed
  // failures need it), so that those steps run in the schedule's memory (run_step_on: their plans
  // take its end-of-step DP traffic) and it can be released after them: the peak then holds one
  // step schedule, not two (~60 MB at 31K GPUs). Every step's inputs are the same in
  // either order (FlowNetwork's route memo changes no result, test_network "[route_memo]").
  if (!sc.cooling.faults.empty()) {
    report("cooling-fault transient", 0.8);
    // Training time lost to a clock f: the step takes 1 + k (1/f - 1) times as long; k is the share of
    // the step that scales with 1/clock. Estimated as the compute share until the step is
    // re-simulated at the faults' lowest clock, which measures it.
    out.clock_sensitivity = out.step.step_time > 0 ? std::clamp(out.step.compute / out.step.step_time, 0.0, 1.0) : 1.0;
    const thermal::TransientOptions topt = thermal::fault_transient_options(sc.cooling, out.clock_sensitivity);
    out.fault_transient = thermal::simulate_transient(sc.cooling, out.layout, loads_of(out.step), topt);
    out.fault_transient_duration = topt.duration;
    out.has_fault_transient = true;
    out.step_during_fault = out.step;
  }
  if (thermal::has_daily_cycle(sc.cooling)) {
    report("daily outdoor-cycle transient", 0.82);
    thermal::CoolingSpec day = sc.cooling;
    day.faults.clear();  // the faults have their own transient (which also sees the cycle)
    out.daily_transient =
        thermal::simulate_transient(day, out.layout, loads_of(out.step), thermal::daily_transient_options());
    out.has_daily_transient = true;
    out.step_daily_worst = out.step;
  }
  const bool fault_step = out.has_fault_transient && out.fault_transient.min_clock < 1.0;
  const bool day_step = out.has_daily_transient && out.daily_transient.min_clock < 1.0;

  report("congestion", 0.84);
  out.traffic = network::step_traffic(fabric, step.run, out.step.step_time);
  // Nothing reads the step's run after this but its makespan (an async checkpoint's alongside
  // runs): its per-activity times and link timeline (~25 MB at 31K GPUs) are released before the
  // variants' runs, which otherwise held them through the link-down samples' peak.
  const double step_makespan = step.run.makespan;
  step.run = network::RunResult{};
  // Step variants for the time-to-train model, at the final clocks on the same platform. Timed
  // fabric failures come last: they leave the fabric failed.
  const StepContext ctx{sc, out.job, fabric, net, out.clocks, seed};
  if (degrade) {
    report("step with a link down (flows)", 0.86);
    out.link_down = degraded_link_step(ctx, out.plan, out.traffic.link_utilization, out.step.step_time);
    if (!fault_step && !day_step) net.set_route_reuse(false);
  }
  // Nothing reads the step's schedule after this but the steps at lower clocks, an async
  // checkpoint written on the fabric alongside the steps and the timed fabric failures (results
  // take the plan's figures, not its activities): without the last two it is released as soon as
  // the first are done (a rollout's later phases then reuse its memory instead of adding theirs).
  out.plan_activities = out.plan.schedule.activities.size();
  const bool storage = fabric.storage_count() > 0;
  const bool schedule_needed = (storage && sc.training.reliability.mode == reliability::CheckpointMode::Async) ||
                               std::any_of(sc.fabric.failures.begin(), sc.fabric.failures.end(),
                                           [](const topology::FailureSpec& f) { return f.at > 0; });
  // The steps at a lower clock run on the schedule's activities (run_step_on: their plan takes its
  // end-of-step DP traffic instead of emitting it again, and runs in its memory).
  const bool clock_steps = fault_step || day_step;
  if (!schedule_needed && !clock_steps) std::vector<network::Activity>().swap(out.plan.schedule.activities);
  // The steps at a lower clock are a function of that clock alone here (the job, fabric state,
  // platform, seed and schedule stay as they are between them): one at the same clock, bit for
  // bit, as an earlier one is that step (the faults' and the day's lowest clock are often both
  // the governor's floor, cooling.throttle.min_clock), not simulated again (run_reuse_enabled).
  std::vector<std::pair<double, workload::StepBreakdown>> at_clock;
  auto step_at = [&](double clock, const char* what) {
    for (const auto& [c, b] : at_clock)
      if (same_bits(c, clock) && run_reuse_enabled()) {
        out.reused_runs.push_back(std::string("the step at ") + what + " (clock " + clock_text(clock) +
                                  ", the same as an earlier step's)");
        return b;
      }
    const std::vector<double> slow(static_cast<std::size_t>(gpus), clock);
    // keep_held: later variants read the schedule as planned (else it is released after these steps)
    workload::StepBreakdown b =
        run_step_on(out.job, sc.gpu, fabric, net, slow, seed, out.plan, schedule_needed).step.breakdown;
    at_clock.emplace_back(clock, b);
    return b;
  };
  if (out.has_fault_transient) {
    if (fault_step) {
      report("step at the fault's clocks (SimGrid)", 0.88);
      const double c_min = out.fault_transient.min_clock;
      out.step_during_fault = step_at(c_min, "the cooling faults' lowest clock");
      if (c_min > 0 && out.step_during_fault.step_time > out.step.step_time) {
        out.clock_sensitivity = (out.step_during_fault.step_time / out.step.step_time - 1) / (1 / c_min - 1);
        out.clock_sensitivity_measured = true;
      }
    }
    report("cooling-fault verdicts", 0.9);
    out.fault_verdicts = thermal::judge_faults(sc.cooling, out.layout, loads_of(out.step),
                                               thermal::fault_verdict_options(out.clock_sensitivity));
    out.action_verdicts = thermal::judge_actions(out.fault_verdicts);
  }
  if (day_step) {
    report("step at the day's lowest clock (flows)", 0.92);
    out.step_daily_worst = step_at(out.daily_transient.min_clock, "the day's lowest clock");
  }
  net.set_route_reuse(false);  // no run of the training step's transfers follows
  if (!schedule_needed) std::vector<network::Activity>().swap(out.plan.schedule.activities);

  if (storage) {
    // The checkpoint as flows to the storage servers: alone (a sync checkpoint: training waits),
    // and for an async one alongside back-to-back steps (it persists while training goes on).
    // One report before each flow run (the write alone, then each alongside run: the stage's time,
    // ~4 s CPU at 8K GPUs), naming it; FlowNetwork reports nothing during a run.
    report("checkpoint write to storage, alone (flows)", 0.94);
    out.checkpoint_write = write_checkpoint(fabric, net, gpus, checkpoint_bytes(sc, out.plan.parameters), seed);
    if (sc.training.reliability.mode == reliability::CheckpointMode::Async) {
      int runs = 0;
      auto before_run = [&](int steps) {
        report("checkpoint write alongside " + std::to_string(steps) + " training step" + (steps > 1 ? "s" : "") +
                   " (flows)",
               0.945 + 0.005 * runs++);
      };
      write_checkpoint_alongside(out.checkpoint_write, fabric, net, gpus, out.plan.schedule, step_makespan, seed, true,
                                 nullptr, before_run);
    }
    out.has_checkpoint_write = true;
  }
  if (!sc.training.batch_schedule.empty()) {
    report("step per batch size (flows)", 0.96);
    std::vector<double> batches;
    for (const auto& b : sc.training.batch_schedule) batches.push_back(b.global_batch);
    out.step_by_batch = batch_step_times(ctx, batches, out.step.step_time);
  }
  report("timed fabric failures (flows)", 0.98);
  out.fabric_events = fabric_event_steps(ctx, out.plan);
  std::vector<network::Activity>().swap(out.plan.schedule.activities);
  report("done", 1.0);
  return out;
}

}  // namespace aidcsim
