#include "models/reliability/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace aidcsim::reliability {

double young_interval(double delta, double mtbf) {
  if (delta <= 0 || mtbf <= 0) return 0;
  return std::sqrt(2.0 * delta * mtbf);
}

double daly_interval(double delta, double mtbf) {
  if (delta <= 0 || mtbf <= 0) return 0;
  if (delta >= 2.0 * mtbf) return mtbf;
  const double x = delta / (2.0 * mtbf);
  return std::sqrt(2.0 * delta * mtbf) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta;
}

CheckpointCost checkpoint_cost(const ReliabilitySpec& spec, double bytes) {
  CheckpointCost c;
  c.write = bytes / spec.storage_bandwidth;
  c.load = c.write;
  c.stall = spec.mode == CheckpointMode::Sync ? c.write : std::min(spec.async_stall, c.write);
  return c;
}

double checkpoint_interval(const ReliabilitySpec& spec, const CheckpointCost& cost, double job_mtbf, double step_time) {
  if (spec.policy == CheckpointPolicy::Fixed) return spec.checkpoint_interval;  // as written, never clamped
  if (!std::isfinite(job_mtbf)) return std::numeric_limits<double>::infinity();
  double t = daly_interval(cost.stall, job_mtbf);
  // An async checkpoint is durable only when its background write ends, and the next one cannot
  // start before that: a shorter interval only adds waits (with a zero stall Daly's optimum is 0).
  if (spec.mode == CheckpointMode::Async) t = std::max(t, cost.write);
  return std::max(t, step_time);  // checkpoints are taken between optimizer steps
}

}  // namespace aidcsim::reliability
