#include "models/thermal/power.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "models/common/errors.hpp"

namespace aidcsim::thermal {

void check_gpu_load(const GpuLoad& load, const char* what) {
  const double c = load.compute_busy, m = load.comm_busy;
  if (!(std::isfinite(c) && std::isfinite(m) && c >= 0 && m >= 0 && c + m <= 1 + 1e-9))
    throw SimulationError(std::string(what) + ": GPU load compute_busy " + std::to_string(c) + ", comm_busy " +
                          std::to_string(m) +
                          ": expected fractions of the step >= 0 that add to at most 1 (compute, exposed "
                          "communication, idle: a partition)");
}

double gpu_utilization(const GpuLoad& load, double k_comm) {
  return std::clamp(load.compute_busy + k_comm * load.comm_busy, 0.0, 1.0);
}

double gpu_power(double tdp, double idle, double utilization, double clock, double exponent) {
  const double fn = exponent == 3.0 ? clock * clock * clock : std::pow(clock, exponent);
  return idle + (tdp - idle) * utilization * fn;
}

double clock_for_power_cap(double power_cap, double tdp, double idle, double utilization, double exponent,
                           double min_clock) {
  const double dyn = (tdp - idle) * utilization;
  if (dyn <= 0 || power_cap >= idle + dyn) return 1.0;
  const double x = std::max(0.0, (power_cap - idle) / dyn);
  return std::clamp(std::pow(x, 1.0 / exponent), min_clock, 1.0);
}

double throttle_clock_factor(double junction_temp, double limit, double band, double min_clock) {
  if (junction_temp <= limit) return 1.0;
  if (band <= 0 || junction_temp >= limit + band) return min_clock;
  return 1.0 - (1.0 - min_clock) * (junction_temp - limit) / band;
}

}  // namespace aidcsim::thermal
