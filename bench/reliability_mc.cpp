// Benchmark of the time-to-train Monte Carlo (models/reliability): a 90-day training run on
// 31,104 GB200 GPUs (432 NVL72 racks), Llama 3 failure rates, Young/Daly async checkpoints,
// 1,000 draws, with thermal coupling as the engine would pass it: an hourly step-time multiplier
// over the whole run (daily outdoor-temperature cycle, Llama 3 §3.3.1: 1-2 % diurnal throughput
// variation, plus a scheduled 6-hour CDU fault on day 40 at +30 % step time).
// Prints the wall time of the study and its figures; it is not a timed test.
// `reliability_mc rollout`: the Monte Carlo of scenarios/stargate-uk-rollout.yaml instead (8K -> 16K
// -> 31K GB200 phases as that run simulates them, 200T tokens with the Kaplan critical batch, a
// cooling-fault step-time profile, degrade-mode links, 32 hot spares; ~9,000 interruptions per
// draw), the largest Monte Carlo of the bundled scenarios; prints CPU s (getrusage) too.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "models/common/units.hpp"
#include "models/reliability/time_to_train.hpp"

using namespace aidcsim::reliability;

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// The rollout scenario's Monte Carlo: its three phases with the step times, batches and dates that
/// `aidcsim run scenarios/stargate-uk-rollout.yaml` simulates (JSON "phases"), component counts of
/// its fabric (GB200 trays of 4 GPUs, switches and cables of the 64-port clos3), the cooling faults'
/// step-time windows of its first day.
int rollout() {
  using aidcsim::units::kDay;
  using aidcsim::units::kHour;
  const int gpus[] = {8064, 16128, 31104};
  const double step[] = {6.462978317108961, 6.4795006382449944, 7.415825182544673};
  const double batch[] = {16515072.0, 33030144.0, 63700992.0};
  const double start[] = {1772323200.0, 1788220800.0, 1803859200.0};
  const double switches[] = {640, 1280, 2476};
  std::vector<PhaseSituation> phases;
  for (int i = 0; i < 3; ++i) {
    Situation s;
    s.gpus = gpus[i];
    s.step_time = step[i];
    s.tokens_per_step = batch[i];
    s.checkpoint_bytes = 405.9e9 * 16;  // bf16 weights + fp32 master + Adam moments
    s.counts.gpus = gpus[i];
    s.counts.nodes = gpus[i] / 4.0;
    s.counts.switches = switches[i];
    s.counts.links = 2.5 * gpus[i];
    s.counts.cdus = gpus[i] / 576.0;
    s.degraded_step_time = step[i];  // the rollout's sampled links cost no step time
    // cooling faults: pump at 2 h (1 h), CDU loss at 6 h (15 min), heat wave at 12 h (4 h), door fans at 20 h (2 h)
    s.profile.times = {0,          2 * kHour,  3 * kHour,  6 * kHour, 6.25 * kHour,
                       12 * kHour, 16 * kHour, 20 * kHour, 22 * kHour};
    s.profile.multipliers = {1, 1.01, 1, 1.08, 1, 1.03, 1, 1.002, 1};
    phases.push_back({i == 0 ? "8K" : i == 1 ? "16K" : "31K", start[i], s});
  }
  TrainingSpec t;
  t.tokens = 200e12;
  t.parameters = 405.9e9;
  t.convergence.model = ConvergenceModel::Kaplan;
  t.reliability.draws = 1000;
  t.reliability.failures.push_back({Component::Cdu, 50000 * 3600.0, -1, ""});  // the scenario's assumption
  t.reliability.restart_time = 600;
  t.reliability.hot_spares = 32;
  t.reliability.repair_time = kDay;
  t.reliability.link_mode = LinkFailureMode::Degrade;
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  const PhasedResult r = time_to_train_phased(t, phases, 42);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds() - c0;
  std::printf("reliability_mc rollout: 8K -> 16K -> 31K GPUs, %.0f T tokens, %d draws\n", t.tokens / 1e12,
              t.reliability.draws);
  std::printf("  time-to-train mean %.3f d, p10 %.3f, p50 %.3f, p90 %.3f d; ideal %.3f d\n",
              r.overall.expected_mean / kDay, r.overall.p10 / kDay, r.overall.p50 / kDay, r.overall.p90 / kDay,
              r.overall.ideal / kDay);
  std::printf("  %.1f interruptions, %.1f degradations per draw; ETTR %.6f\n", r.overall.expected_interruptions,
              r.overall.expected_degradations, r.overall.ettr);
  std::printf("  lost GPU-hours per draw by cause:");
  for (const auto& [cause, h] : r.overall.lost_gpu_hours_by_cause)
    if (h > 0) std::printf(" %s %.17g;", cause.c_str(), h);
  std::printf("\n  sample checksum %.17g\n", [&] {
    double x = 0;
    for (double v : r.overall.samples) x = x * 1.0000001 + v;
    return x;
  }());
  std::printf("  CPU %.2f s, wall %.2f s\n", cpu, wall);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "rollout") == 0) return rollout();
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
