// Benchmark of the time-to-train Monte Carlo (models/reliability): a 90-day training run on
// 31,104 GB200 GPUs (432 NVL72 racks), Llama 3 failure rates, Young/Daly async checkpoints,
// 1,000 draws, with thermal coupling as the engine would pass it: an hourly step-time multiplier
// over the whole run (daily outdoor-temperature cycle, Llama 3 §3.3.1: 1-2 % diurnal throughput
// variation, plus a scheduled 6-hour CDU fault on day 40 at +30 % step time).
// Prints the wall time of the study and its figures; it is not a timed test.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "models/common/units.hpp"
#include "models/reliability/time_to_train.hpp"

using namespace aidcsim::reliability;

int main() {
  using aidcsim::units::kDay;
  const double pi = std::acos(-1.0);
  Situation s;
  s.gpus = 31104;
  s.step_time = 5.5;                  // s, illustrative 405B-class step on 31K GPUs
  s.tokens_per_step = 1792.0 * 8192;  // 14.7M tokens per step
  s.checkpoint_bytes = 405e9 * 16;    // bf16 weights + fp32 master + Adam moments
  s.counts.nodes = 31104 / 4;         // compute trays
  s.counts.nics = 31104;
  s.counts.links = 3 * 31104;           // NIC-leaf, leaf-spine, spine-core, non-blocking
  s.counts.switches = 972 + 972 + 486;  // 64-port leaves, spines, cores
  s.counts.cdus = 54;
  // hourly multiplier over the run (+ margin): diurnal cycle peaking at 15:00, CDU fault day 40
  const int hours = 24 * 120;
  for (int h = 0; h < hours; ++h) {
    double m = 1.0 + 0.0075 * (1.0 + std::cos(2 * pi * ((h % 24) - 15) / 24.0));
    if (h >= 40 * 24 + 12 && h < 40 * 24 + 18) m *= 1.3;
    s.profile.times.push_back(h * 3600.0);
    s.profile.multipliers.push_back(m);
  }
  TrainingSpec t;
  t.tokens = 90 * kDay / s.step_time * s.tokens_per_step;  // 90 ideal days
  t.reliability.draws = 1000;
  t.reliability.failures.push_back({Component::Cdu, 50000 * 3600.0, -1, ""});  // assumption: 50,000 h
  t.reliability.hot_spares = 32;

  const auto t0 = std::chrono::steady_clock::now();
  const auto r = time_to_train(t, s, 42);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("reliability_mc: %d GPUs, %.1f T tokens, %d draws, %zu-entry throttling profile\n", s.gpus,
              t.tokens / 1e12, t.reliability.draws, s.profile.times.size());
  std::printf("  job MTBF %.2f h, checkpoint every %.0f s (Daly, stall %.1f s)\n", r.job_mtbf / 3600,
              r.checkpoint_interval, r.checkpoint_stall);
  std::printf("  ideal %.2f d; time-to-train mean %.2f d, p10 %.2f, p50 %.2f, p90 %.2f d\n", r.ideal / kDay,
              r.expected_mean / kDay, r.p10 / kDay, r.p50 / kDay, r.p90 / kDay);
  std::printf("  ETTR %.3f, goodput %.3g tokens/s, %.0f interruptions per run\n", r.ettr, r.goodput,
              r.expected_interruptions);
  std::printf("  lost GPU-hours per run by cause:");
  for (const auto& [cause, h] : r.lost_gpu_hours_by_cause)
    if (h > 0) std::printf(" %s %.0f;", cause.c_str(), h);
  std::printf("\n  wall time of the study: %.2f s (target <= 60 s)\n", wall);
  return 0;
}
