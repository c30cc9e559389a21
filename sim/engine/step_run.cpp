#include "sim/engine/step_run.hpp"

#include <algorithm>
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
