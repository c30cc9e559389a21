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

double checkpoint_interval(const ReliabilitySpec& spec, const CheckpointCost& cost, double job_mtbf) {
  if (spec.policy == CheckpointPolicy::Fixed) return std::max(spec.checkpoint_interval, 1.0);
  if (!std::isfinite(job_mtbf)) return std::numeric_limits<double>::infinity();
  return std::max(daly_interval(cost.stall, job_mtbf), 1.0);
}

}  // namespace aidcsim::reliability
