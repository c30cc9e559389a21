// Closed forms: effectiveness-NTU (Incropera & DeWitt Tables 11.3/11.4), Dittus-Boelter scaling,
// Magnus dew point, coolant table, DVFS power and the throttle map.
#include <catch2/catch.hpp>

#include <cmath>
#include "models/common/errors.hpp"

#include "models/thermal/coolant.hpp"
#include "models/thermal/hx.hpp"
#include "models/thermal/power.hpp"
#include "models/thermal/psychrometrics.hpp"

using namespace aidcsim::thermal;

TEST_CASE("counter-flow effectiveness matches the closed form and inverts", "[thermal][hx]") {
  for (double cr : {0.0, 0.3, 0.7, 0.999, 1.0}) {
    for (double ntu : {0.1, 1.0, 3.0, 8.0}) {
      const double eps = counterflow_effectiveness(ntu, cr);
      const double expect =
          cr == 1.0 ? ntu / (1 + ntu) : (1 - std::exp(-ntu * (1 - cr))) / (1 - cr * std::exp(-ntu * (1 - cr)));
      CHECK(eps == Approx(expect).epsilon(1e-12));
      CHECK(counterflow_ntu(eps, cr) == Approx(ntu).epsilon(1e-9));
    }
  }
  CHECK(wall_effectiveness(2.0) == Approx(1 - std::exp(-2.0)).epsilon(1e-14));
}

TEST_CASE("CDU UA from the approach reproduces the approach at the design point", "[thermal][hx]") {
  const double q = 1.2e6, ch = 1.2e6 / 10.0, cc = ch, tc_in = 291.15, approach = 4.0;
  const double ua = cdu_ua_from_approach(q, approach, ch, cc);
  const HxResult r = counterflow(ua, tc_in + approach + q / ch, ch, tc_in, cc);
  CHECK(r.q == Approx(q).epsilon(1e-9));
  CHECK(r.th_out - tc_in == Approx(approach).epsilon(1e-9));
  CHECK_THROWS(cdu_ua_from_approach(q, 0.0, ch, cc));
}

TEST_CASE("Dittus-Boelter scaling of the cold-plate conductance", "[thermal][hx]") {
  CHECK(cold_plate_ha(100.0, 2.0, 1.0, 0.8) == Approx(100.0 * std::pow(2.0, 0.8)).epsilon(1e-14));
  CHECK(cold_plate_ha(100.0, 0.0, 1.0, 0.8) == 0.0);
  CHECK(convection_factor_vs_water(coolant("water")) == Approx(1.0).epsilon(1e-14));
  CHECK(convection_factor_vs_water(coolant("pg25")) < 1.0);
}

TEST_CASE("Magnus dew point", "[thermal][psychro]") {
  // 25 °C, 60 % RH -> 16.7 °C; 100 % RH -> the dry-bulb itself.
  CHECK(dew_point(298.15, 0.60) - 273.15 == Approx(16.69).margin(0.05));
  CHECK(dew_point(293.15, 1.0) == Approx(293.15).epsilon(1e-12));
}

TEST_CASE("coolant table and unknown coolant", "[thermal][coolant]") {
  const Coolant& w = coolant("water");
  // Q = m_dot cp dT: 700 W into 1 L/min of water -> ~10 K.
  CHECK(700.0 / w.capacity_rate(1.0 / 60000) == Approx(10.08).margin(0.01));
  CHECK(coolant("pg25").cp < w.cp);
  CHECK_THROWS_AS(coolant("mercury"), aidcsim::InvalidParameter);
}

TEST_CASE("GPU power and DVFS", "[thermal][power]") {
  CHECK(gpu_power(1200, 150, 1.0, 1.0) == Approx(1200));
  CHECK(gpu_power(1200, 150, 0.0, 1.0) == Approx(150));
  CHECK(gpu_power(1200, 150, 1.0, 0.8) == Approx(150 + 1050 * 0.512));
  CHECK(gpu_utilization({0.6, 0.4}, 0.35) == Approx(0.74));
  CHECK(gpu_utilization({0.9, 0.5}, 0.35) == Approx(1.0));
  const double f = clock_for_power_cap(960, 1200, 150, 1.0, 3.0, 0.5);
  CHECK(gpu_power(1200, 150, 1.0, f) == Approx(960).epsilon(1e-12));
  CHECK(clock_for_power_cap(2000, 1200, 150, 1.0, 3.0, 0.5) == 1.0);
  CHECK(throttle_clock_factor(350.0, 360.15) == 1.0);
  CHECK(throttle_clock_factor(362.65, 360.15, 5.0, 0.5) == Approx(0.75));
  CHECK(throttle_clock_factor(380.0, 360.15, 5.0, 0.5) == 0.5);
}
