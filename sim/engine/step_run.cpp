#include "sim/engine/step_run.hpp"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

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

}  // namespace

StepOnHeld run_step_on(const workload::JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                       network::FlowNetwork& net, const std::vector<double>& clocks, std::uint64_t seed,
                       workload::StepPlan& held) {
  workload::StepOptions opts;
  opts.schedule_capacity = held.schedule.activities.size();
  opts.clock_factor = clocks;
  opts.seed = seed;
  StepOnHeld out;
  StepRun& s = out.step;
  s.plan = workload::plan_step(job, gpu, fabric, opts);
  auto& mine = s.plan.schedule.activities;
  if (!same_but_amounts(s.plan.schedule, held.schedule)) {
    s.run = net.run(s.plan.schedule);
    s.breakdown = workload::analyse_step(s.plan, s.run);
    std::vector<network::Activity>().swap(mine);
    return out;
  }
  out.reused = true;
  std::vector<double> amounts(mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) amounts[i] = mine[i].amount;
  std::vector<network::Activity>().swap(mine);  // freed before the run allocates
  auto& theirs = held.schedule.activities;
  swap_amounts(theirs, amounts);  // held's activities at `clocks`; `amounts` keeps held's own
  mine.swap(theirs);
  auto give_back = [&] {
    mine.swap(theirs);
    swap_amounts(theirs, amounts);
  };
  try {
    s.run = net.run(s.plan.schedule);
    s.breakdown = workload::analyse_step(s.plan, s.run);
  } catch (...) {
    give_back();
    throw;
  }
  give_back();
  return out;
}

}  // namespace aidcsim
