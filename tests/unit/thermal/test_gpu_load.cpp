// The GPU load is a partition of the step (compute, exposed communication, idle): each part at its
// own power, the steady state's mean and the transient's phases the same load, and a load that
// counts a time twice (compute + communication > 1) rejected.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/thermal/site.hpp"
#include "models/thermal/transient.hpp"

using namespace aidcsim;
using namespace aidcsim::thermal;

namespace {
// One 1,000 W GPU idling at 100 W, nothing else drawing power: IT power is the GPU's.
SiteLayout one_gpu() {
  SiteLayout l;
  l.gpus = 1;
  l.gpus_per_rack = 1;
  l.gpu_tdp = 1000;
  l.gpu_idle_power = 100;
  l.cpu_power_per_gpu = l.nic_power_per_gpu = l.rack_overhead_power = 0;
  l.psu_efficiency = 1;
  l.comm_power_factor = 0.35;
  return l;
}

CoolingSpec plenty_of_cooling() {
  CoolingSpec s;
  s.liquid_fraction = 1.0;
  s.cdu.racks_per_cdu = 1;
  return s;
}
}  // namespace

TEST_CASE("GPU load: compute at TDP, exposed communication at comm_factor, idle at idle power", "[thermal][gpu_load]") {
  const CoolingSpec s = plenty_of_cooling();
  const SiteLayout l = one_gpu();
  auto power = [&](GpuLoad load) { return steady_state(s, l, {load}, {}).state.gpu_power[0]; };
  CHECK(power({1, 0}) == Approx(1000.0).epsilon(1e-12));            // compute (overlapped comm included)
  CHECK(power({0, 1}) == Approx(100 + 0.35 * 900).epsilon(1e-12));  // exposed communication only
  CHECK(power({0, 0}) == Approx(100.0).epsilon(1e-12));             // bubble: idle
  CHECK(power({0.6, 0.3}) == Approx(100 + 900 * (0.6 + 0.35 * 0.3)).epsilon(1e-12));  // time-weighted mean
}

TEST_CASE("GPU load: compute + communication above 1 counts a time twice and is rejected", "[thermal][gpu_load]") {
  // the busyfrac defect: 0.716 compute + 0.394 communication (DP traffic hidden under compute)
  const CoolingSpec s = plenty_of_cooling();
  const SiteLayout l = one_gpu();
  CHECK_THROWS_AS(steady_state(s, l, {GpuLoad{0.716, 0.394}}, {}), SimulationError);
  CHECK_THROWS_AS(solve_throttled_clocks(s, l, {GpuLoad{0.716, 0.394}}), SimulationError);
  CHECK_THROWS_AS(power_swing(l, {GpuLoad{0.716, 0.394}}, {}, 1.0, 0.0), SimulationError);
  TransientOptions o;
  o.duration = 10;
  CHECK_THROWS_AS(simulate_transient(s, l, {GpuLoad{0.716, 0.394}}, o), SimulationError);
  CHECK_THROWS_AS(steady_state(s, l, {GpuLoad{-0.1, 0.2}}, {}), SimulationError);
  CHECK_NOTHROW(steady_state(s, l, {GpuLoad{0.7, 0.3 + 1e-12}}, {}));  // rounding of a partition
}

TEST_CASE("GPU load: the transient's phases within a step average to the steady state's power", "[thermal][gpu_load]") {
  // 100 steps of 1 s at dt = 10 ms: compute for 60 of each 100 time steps, exposed communication
  // for 30, idle for 10; the mean IT power over whole steps is the steady state's (one GPU, no
  // other load), to the time steps' sampling of the phase boundaries.
  const CoolingSpec s = plenty_of_cooling();
  const SiteLayout l = one_gpu();
  const GpuLoad load{0.605, 0.3};  // boundaries between time steps: each phase a whole number of them
  TransientOptions o;
  o.step_time = 1.0;
  o.dt = 0.01;
  o.duration = 100.0;
  o.sample_interval = 0;
  o.throttle = false;
  const TransientResult t = simulate_transient(s, l, {load}, o);
  double sum = 0;
  long n = 0;
  for (const Sample& x : t.samples)
    if (x.time < o.duration - 1e-9) sum += x.it_power, ++n;  // whole steps: [0, duration)
  REQUIRE(n == 10000);
  const double steady = steady_state(s, l, {load}, {}).it_power;
  CHECK(steady == Approx(100 + 900 * (0.605 + 0.35 * 0.3)).epsilon(1e-9));
  CHECK(sum / n == Approx(100 + 900 * (0.61 + 0.35 * 0.3)).epsilon(1e-9));  // 61 / 30 / 9 time steps
  CHECK(sum / n == Approx(steady).epsilon(0.01));
}
