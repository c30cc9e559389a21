// Daily outdoor cycle: the closed-form outdoor temperature, no change with a zero swing (or a fixed
// heat rejection), and a dry cooler whose facility supply and GPU temperatures follow the cycle.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/thermal/transient.hpp"

using namespace aidcsim::thermal;

namespace {
TransientOptions day_options() {
  TransientOptions o;
  o.duration = 86400.0;
  o.dt = 10.0;
  o.sample_interval = 600.0;
  return o;
}
SiteLayout small_site() {
  SiteLayout l;
  l.gpus = 8 * 72;
  return l;
}
}  // namespace

TEST_CASE("outdoor temperature follows the cosine daily cycle", "[thermal][daily]") {
  HeatRejectionSpec r;
  r.outdoor_temp = 293.15;
  CHECK(outdoor_temperature_at(r, 12345.0) == 293.15);  // swing 0: constant
  r.outdoor_daily_swing = 10.0;
  r.outdoor_peak_time = 15 * 3600.0;
  CHECK(outdoor_temperature_at(r, 15 * 3600.0) == Approx(298.15));
  CHECK(outdoor_temperature_at(r, 3 * 3600.0) == Approx(288.15));
  CHECK(outdoor_temperature_at(r, 9 * 3600.0) == Approx(293.15));
  CHECK(outdoor_temperature_at(r, 15 * 3600.0 + 86400.0) == Approx(298.15));  // periodic
  CoolingSpec c;
  c.rejection = r;
  c.plant.heat_rejection = "chiller";
  CHECK(has_daily_cycle(c));
  c.plant.heat_rejection = "fixed";
  CHECK_FALSE(has_daily_cycle(c));
}

TEST_CASE("a zero swing or a fixed heat rejection leaves the transient unchanged", "[thermal][daily]") {
  CoolingSpec base;
  base.plant.heat_rejection = "dry_cooler";
  base.rejection.outdoor_temp = 298.15;
  CoolingSpec zero = base;
  zero.rejection.outdoor_peak_time = 4 * 3600.0;  // no effect without a swing
  CoolingSpec fixed_base = base, fixed_swing = base;
  fixed_base.plant.heat_rejection = fixed_swing.plant.heat_rejection = "fixed";
  fixed_swing.rejection.outdoor_daily_swing = 12.0;
  const auto o = day_options();
  const auto a = simulate_transient(base, small_site(), {GpuLoad{1, 0}}, o);
  const auto b = simulate_transient(zero, small_site(), {GpuLoad{1, 0}}, o);
  const auto c = simulate_transient(fixed_base, small_site(), {GpuLoad{1, 0}}, o);
  const auto d = simulate_transient(fixed_swing, small_site(), {GpuLoad{1, 0}}, o);
  REQUIRE(a.samples.size() == b.samples.size());
  REQUIRE(c.samples.size() == d.samples.size());
  for (size_t i = 0; i < a.samples.size(); ++i) {
    CHECK(a.samples[i].max_gpu_temp == b.samples[i].max_gpu_temp);
    CHECK(a.samples[i].facility_power == b.samples[i].facility_power);
    CHECK(c.samples[i].max_gpu_temp == d.samples[i].max_gpu_temp);
    CHECK(c.samples[i].facility_power == d.samples[i].facility_power);
  }
}

TEST_CASE("dry cooler: facility supply and GPU temperature follow the daily cycle", "[thermal][daily]") {
  CoolingSpec s;
  s.plant.heat_rejection = "dry_cooler";
  s.rejection.outdoor_temp = 293.15;  // 20 °C mean
  s.rejection.outdoor_daily_swing = 12.0;
  s.rejection.outdoor_peak_time = 15 * 3600.0;
  const auto r = simulate_transient(s, small_site(), {GpuLoad{1, 0}}, day_options());
  REQUIRE(r.samples.size() == 145);
  const auto hottest = std::max_element(r.samples.begin(), r.samples.end(), [](const Sample& x, const Sample& y) {
    return x.max_gpu_temp < y.max_gpu_temp;
  });
  const auto coolest = std::min_element(r.samples.begin(), r.samples.end(), [](const Sample& x, const Sample& y) {
    return x.max_gpu_temp < y.max_gpu_temp;
  });
  // Supply = max(set point 18 °C, outdoor + 5 K approach) at every sample (closed form).
  for (const auto& x : r.samples) {
    CHECK(x.outdoor_temp == Approx(outdoor_temperature_at(s.rejection, x.time)));
    CHECK(x.facility_supply == Approx(std::max(s.facility_supply, x.outdoor_temp + s.rejection.dry_cooler_approach)));
  }
  // The GPUs lag the supply by the loop's time constants (minutes): the peak is near 15:00.
  CHECK(std::abs(hottest->time - 15 * 3600.0) <= 3600.0);
  CHECK(std::abs(coolest->time - 3 * 3600.0) <= 3600.0);
  // Swing of the GPU temperature ~ the supply swing (12 K), attenuated at most a little.
  CHECK(hottest->max_gpu_temp - coolest->max_gpu_temp == Approx(12.0).margin(1.5));
  CHECK(r.energy_error < 1e-9);
}
