#include "models/workload/stragglers.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace aidcsim::workload {
namespace {

/// Uniform in [0, 1) from the top 53 bits (portable, unlike std::uniform_real_distribution).
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double draw(const SpeedDistribution& d, std::mt19937_64& rng) {
  double x = 1.0;
  if (d.kind == "uniform") {
    x = d.min + (d.max - d.min) * uniform01(rng);
  } else if (d.kind == "normal") {
    const double u1 = 1.0 - uniform01(rng), u2 = uniform01(rng);  // u1 in (0, 1]
    x = d.mean + d.sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  return std::clamp(x, d.min, d.max);
}

}  // namespace

std::vector<double> gpu_speed_factors(const JobSpec& job, int gpus, int gpus_per_node, std::uint64_t seed) {
  const auto& dist = job.speed_distribution;
  const bool drawn = dist.kind == "normal" || dist.kind == "uniform";
  if (!drawn && job.gpu_speed.empty()) return {};
  const int per_node = std::max(1, gpus_per_node);
  std::vector<double> f(static_cast<std::size_t>(gpus), 1.0);
  if (drawn) {
    std::mt19937_64 rng(seed ^ 0x7374726167676c72ULL);  // "straggl r"
    if (dist.per == "node") {
      for (int n = 0; n * per_node < gpus; ++n) {
        const double x = draw(dist, rng);
        for (int g = n * per_node; g < std::min(gpus, (n + 1) * per_node); ++g) f[g] = x;
      }
    } else {
      for (auto& x : f) x = draw(dist, rng);
    }
  }
  for (const auto& s : job.gpu_speed) {
    if (s.gpu >= 0 && s.gpu < gpus) f[s.gpu] = s.factor;
    if (s.node >= 0)
      for (int g = s.node * per_node; g < std::min(gpus, (s.node + 1) * per_node); ++g) f[g] = s.factor;
  }
  if (std::all_of(f.begin(), f.end(), [](double x) { return x == 1.0; })) return {};
  return f;
}

}  // namespace aidcsim::workload
