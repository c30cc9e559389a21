// Benchmark: thermal network of a ~31,000-GPU site (432 GB200 NVL72 racks = 31,104 GPUs, 54 CDUs)
// advancing 72 simulated hours at 1 s implicit steps, with a synchronized 10 s training-step power
// swing, per-pipeline-stage loads, a pump failure with failover, a rear-door fan failure and a
// 6-hour heat wave. Prints wall time (target <= 10 s) for the grouped tier, and the per-step cost
// of the per-GPU tier (every GPU its own 3 nodes) extrapolated to the same run.
// Not a test: figures only.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "models/common/units.hpp"
#include "models/thermal/transient.hpp"

using namespace aidcsim::thermal;

int main() {
  CoolingSpec spec;
  SiteLayout layout;
  layout.gpus = 432 * 72;
  layout.switches = 2000;  // 3-tier 64-port Clos for ~31K endpoints [estimate]
  // Pipeline stage = rack % 9: later stages wait more in the bubble; two GPU kinds per rack
  // (TP ranks holding the embedding/LM head are busier).
  std::vector<GpuLoad> loads(layout.gpus);
  for (int g = 0; g < layout.gpus; ++g) {
    const int stage = (g / 72) % 9, tray = (g % 72) / 4;
    loads[g] = {0.62 + 0.02 * stage + (tray == 0 ? 0.05 : 0.0), 0.15};
  }
  spec.faults = {{"pump_failure", 6 * 3600.0, 3600.0, 3, 0},
                 {"rdhx_fan_failure", 12 * 3600.0, 2 * 3600.0, 10, 0},
                 {"supply_excursion", 30 * 3600.0, 6 * 3600.0, -1, 5.0}};
  TransientOptions opt;
  opt.duration = 72 * 3600.0;
  opt.dt = 1.0;
  opt.sample_interval = 600;
  opt.step_time = 10.0;

  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  const TransientResult r = simulate_transient(spec, layout, loads, opt);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf("thermal_31k: %d GPUs, %d racks, grouped tier\n", layout.gpus, layout.racks());
  std::printf("  simulated          %.0f h at dt = %.0f s (%ld implicit steps)\n", opt.duration / 3600, opt.dt,
              r.steps);
  std::printf("  wall time          %.2f s (target <= 10 s); CPU time %.2f s (wall > CPU on a shared machine)\n", wall,
              cpu);
  std::printf("  network nodes      %d (max over the run; per-GPU tier would be ~%d)\n", r.max_network_nodes,
              3 * layout.gpus + layout.racks() + 2 * ((layout.racks() + 7) / 8) + 1);
  std::printf("  factorizations     %d, rebuilds %d\n", r.factorizations, r.rebuilds);
  std::printf("  energy balance     |E_diss - E_stored - E_removed| / E_diss = %.3e (worst step %.3e)\n",
              r.energy_error, r.max_step_error);
  std::printf("  max GPU junction   %.2f degC, min clock %.3f, throttled %.0f s, alerts %zu\n",
              aidcsim::units::to_celsius(r.max_gpu_temp), r.min_clock, r.throttled_time, r.alerts.size());
  if (!r.samples.empty())
    std::printf("  IT power %.2f MW, facility %.2f MW, PUE %.4f (first sample)\n", r.samples[0].it_power / 1e6,
                r.samples[0].facility_power / 1e6, r.samples[0].pue);

  // Per-GPU tier: same site, 30 steps, extrapolated.
  TransientOptions one = opt;
  one.duration = 30;
  one.group_identical = false;
  spec.faults.clear();
  t0 = std::chrono::steady_clock::now();
  const TransientResult p = simulate_transient(spec, layout, loads, one);
  const double wall_p = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("per-GPU tier: %d nodes, %ld steps in %.2f s (incl. build + factorization) -> ~%.0f s for 72 h\n",
              p.max_network_nodes, p.steps, wall_p, wall_p / p.steps * 72 * 3600);
  return 0;
}
