// Benchmark: the thermal stages of scenarios/stargate-uk-rollout.yaml outside the network - the
// cooling-fault transient (81,000 s at 1 s steps) and the four fault verdicts - at its three phase
// sizes (8K, 16K, 31K GPUs), with CPU seconds per stage and a hash of every result field (samples,
// alerts, actions, totals, final clocks) to check that a change to models/thermal keeps the results
// bit-identical: build it at both commits and compare the hashes. The GPU load (busy fractions) and
// the switch count are fixed stand-ins for the simulated step's, so the figures are the engine's
// stages in size, not in value. Not a test: figures only. Argument: another scenario file.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "models/thermal/run_windows.hpp"
#include "models/thermal/transient.hpp"
#include "models/thermal/verdict.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;
using namespace aidcsim::thermal;

static std::uint64_t h = 1469598103934665603ull;
static void mix(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  h = (h ^ b) * 1099511628211ull;
}
static void mix(const TransientResult& r) {
  for (const auto& s : r.samples)
    for (double v :
         {s.time, s.max_gpu_temp, s.max_cold_plate_temp, s.coolant_inlet, s.coolant_outlet, s.min_flow_per_gpu,
          s.max_air_inlet, s.min_clock, s.mean_clock, s.it_power, s.cooling_power, s.facility_power, s.pue,
          s.facility_supply, s.outdoor_temp, s.max_loop_delta_t, s.max_coolant_temp})
      mix(v);
  for (const auto& a : r.alerts) {
    mix(a.time);
    mix(a.value);
    mix(a.threshold);
    for (char c : a.message) mix(c);
  }
  for (const auto& a : r.actions)
    for (double v :
         {a.time, a.cleared, a.release_due, a.lost_training_time, a.peak_gpu_temp_after, a.shutdown_time_after})
      mix(v);
  for (double v : {r.dissipated,
                   r.stored,
                   r.removed,
                   r.energy_error,
                   r.max_step_error,
                   r.max_gpu_temp,
                   r.min_clock,
                   r.throttled_time,
                   r.mean_slowdown,
                   r.halted_time,
                   r.time_above_throttle,
                   r.lost_training_time,
                   r.flow_deficit_time,
                   r.max_cold_plate_temp,
                   r.max_coolant_inlet,
                   r.max_coolant_outlet,
                   r.max_loop_delta_t,
                   r.max_air_inlet,
                   r.max_coolant_temp,
                   r.min_flow_per_gpu,
                   r.min_loop_flow})
    mix(v);
  mix(r.steps);
  mix(r.factorizations);
  mix(r.rebuilds);
  mix(r.max_network_nodes);
  mix(r.gpus_shutdown);
  for (double v : r.final_clock) mix(v);
}

int main(int argc, char** argv) {
  const Scenario sc = load_scenario_file(argc > 1 ? argv[1] : "scenarios/stargate-uk-rollout.yaml");
  const std::vector<GpuLoad> loads{{0.744, 0.05}};
  double tt = 0, tv = 0;
  for (int gpus : {8064, 16128, 31104}) {
    const SiteLayout layout = thermal_layout(sc, gpus, gpus / 12);
    std::clock_t c0 = std::clock();
    const TransientOptions topt = fault_transient_options(sc.cooling, 0.8);
    const TransientResult r = simulate_transient(sc.cooling, layout, loads, topt);
    std::clock_t c1 = std::clock();
    const auto v = judge_faults(sc.cooling, layout, loads, fault_verdict_options(0.8));
    std::clock_t c2 = std::clock();
    mix(r);
    for (const auto& x : v) {
      mix(x.transient);
      mix(x.pass);
    }
    const double a = double(c1 - c0) / CLOCKS_PER_SEC, b = double(c2 - c1) / CLOCKS_PER_SEC;
    tt += a;
    tv += b;
    std::printf("%6d GPUs: transient %.3f s (%ld steps, %d rebuilds, %d fact, %d nodes), verdicts %.3f s\n", gpus, a,
                r.steps, r.rebuilds, r.factorizations, r.max_network_nodes, b);
  }
  std::printf("total transient %.3f verdicts %.3f  checksum %016llx\n", tt, tv, (unsigned long long)h);
}
