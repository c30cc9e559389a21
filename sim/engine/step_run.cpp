#include "sim/engine/step_run.hpp"

namespace aidcsim {

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

}  // namespace aidcsim
