#include "sim/engine/step_run.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace aidcsim {

bool run_reuse_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("AIDCSIM_NO_RUN_REUSE");
    return v == nullptr || *v == '\0' || std::strcmp(v, "0") == 0;
  }();
  return on;
}

StepRun run_step(const workload::JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                 network::FlowNetwork& net, const std::vector<double>& clocks, std::uint64_t seed,
                 std::size_t capacity) {
  workload::StepOptions opts;
  opts.schedule_capacity = capacity;
  opts.clock_factor = clocks;
  opts.seed = seed;
  StepRun s;
  s.plan = workload::plan_step(job, gpu, fabric, opts);
  s.run = net.run(s.plan.schedule);
  s.breakdown = workload::analyse_step(s.plan, s.run);
  return s;
}

namespace {

bool same_but_amounts(const network::Schedule& a, const network::Schedule& b) {
  if (a.activities.size() != b.activities.size() || a.gpu_flops.size() != b.gpu_flops.size()) return false;
  for (std::size_t i = 0; i < a.gpu_flops.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a.gpu_flops[i]) != std::bit_cast<std::uint64_t>(b.gpu_flops[i])) return false;
  for (std::size_t i = 0; i < a.activities.size(); ++i)
    if (!network::same_but_amount(a.activities[i], b.activities[i])) return false;
  return true;
}

// Exchanges the amounts of `acts` with `amounts` (same size).
void swap_amounts(std::vector<network::Activity>& acts, std::vector<double>& amounts) {
  for (std::size_t i = 0; i < acts.size(); ++i) std::swap(acts[i].amount, amounts[i]);
}

// Runs `s`'s plan and analyses it, then `give_back` (also when the run throws): the held plan's
// activities, lent to `s` for the run, go back to it.
template <class GiveBack>
void run_then(StepRun& s, network::FlowNetwork& net, GiveBack&& give_back) {
  try {
    s.run = net.run(s.plan.schedule);
    s.breakdown = workload::analyse_step(s.plan, s.run);
  } catch (...) {
    give_back();
    throw;
  }
  give_back();
}

/// The step of plan `s.plan` (whole, planned without reuse) run on held's activities with the
/// plan's amounts written in when the two schedules differ only in amounts (a re-plan on a fabric
/// state other than held's that changed no activity: a timed failure no DP hop crosses), its own
/// activities freed first; held's amounts restored after (also on a throw). False: not run.
bool run_on_held_amounts(StepRun& s, network::FlowNetwork& net, workload::StepPlan& held) {
  auto& mine = s.plan.schedule.activities;
  if (!same_but_amounts(s.plan.schedule, held.schedule)) return false;
  std::vector<double> amounts(mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) amounts[i] = mine[i].amount;
  std::vector<network::Activity>().swap(mine);  // freed before the run allocates
  auto& theirs = held.schedule.activities;
  swap_amounts(theirs, amounts);  // held's activities with the plan's amounts; `amounts` keeps held's own
  mine.swap(theirs);
  auto give_back = [&] {
    mine.swap(theirs);
    swap_amounts(theirs, amounts);
  };
  run_then(s, net, give_back);
  return true;
}

}  // namespace

StepOnHeld run_step_on(const workload::JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                       network::FlowNetwork& net, const std::vector<double>& clocks, std::uint64_t seed,
                       workload::StepPlan& held, bool keep_held) {
  workload::StepOptions opts;
  opts.schedule_capacity = held.schedule.activities.size();
  opts.clock_factor = clocks;
  opts.seed = seed;
  StepOnHeld out;
  StepRun& s = out.step;
  auto& theirs = held.schedule.activities;
  // held's pipeline part (thousands of activities), put back after the run: the plan at `clocks`
  // takes held's activities with its own pipeline part written over that one
  const std::size_t front = std::min(held.dp_tail_begin, theirs.size());
  std::vector<network::Activity> held_front;
  if (keep_held) held_front.assign(theirs.begin(), theirs.begin() + static_cast<std::ptrdiff_t>(front));
  s.plan = workload::plan_step_reusing(job, gpu, fabric, opts, held, !keep_held, &out.reused);
  auto& mine = s.plan.schedule.activities;
  if (!out.reused) {
    if (keep_held && run_on_held_amounts(s, net, held)) {
      out.reused = true;
      return out;
    }
    s.run = net.run(s.plan.schedule);
    s.breakdown = workload::analyse_step(s.plan, s.run);
    std::vector<network::Activity>().swap(mine);
    return out;
  }
  auto give_back = [&] {
    theirs.swap(mine);
    std::vector<network::Activity>().swap(mine);
    if (keep_held) std::move(held_front.begin(), held_front.end(), theirs.begin());
  };
  run_then(s, net, give_back);
  return out;
}

}  // namespace aidcsim
