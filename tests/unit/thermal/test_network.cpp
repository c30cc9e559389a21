// RC network: Q = m_dot cp dT in steady state, single RC step response, factorization reuse,
// energy balance per step.
#include <catch2/catch.hpp>

#include <cmath>
#include "models/common/errors.hpp"

#include "models/thermal/coolant.hpp"
#include "models/thermal/network.hpp"

using namespace aidcsim::thermal;

TEST_CASE("steady state: Q = m_dot cp dT to 1e-6", "[thermal][network]") {
  const Coolant& w = coolant("water");
  for (double lpm : {0.5, 1.0}) {
    const double c = w.capacity_rate(lpm / 60000);
    RcNetwork net;
    const int in = net.add_boundary(295.15);
    const int plate = net.add_node(400);
    const int out = net.add_node(100);
    net.add_transfer(plate, out, plate, in, 50.0);  // plate -> stream, against the inlet
    net.add_advection(in, out, c);
    net.set_source(plate, 700.0);
    net.solve_steady();
    const double dt = net.temperature(out) - net.temperature(in);
    CHECK(c * dt == Approx(700.0).epsilon(1e-6));
    CHECK(dt == Approx(lpm == 0.5 ? 20.16 : 10.08).margin(0.01));
  }
}

TEST_CASE("single RC step response matches exp(-t/RC)", "[thermal][network]") {
  const double c = 500.0, g = 2.0, p = 100.0, t0 = 300.0, tau = c / g;
  RcNetwork net;
  const int amb = net.add_boundary(t0);
  const int n = net.add_node(c, 1.0, t0);
  net.add_conductance(n, amb, g);
  net.set_source(n, p);
  const double dt = tau / 4000;
  for (int k = 1; k <= 8000; ++k) {
    net.step(dt);
    if (k % 1000 == 0) {
      const double t = k * dt;
      const double exact = t0 + p / g * (1 - std::exp(-t / tau));
      const double euler = t0 + p / g * (1 - std::pow(1 + dt / tau, -k));  // backward Euler exactly
      CHECK(net.temperature(n) == Approx(euler).epsilon(1e-12));
      CHECK(std::abs(net.temperature(n) - exact) < 1e-3 * p / g);
    }
    CHECK(std::abs(net.last_dissipated() - net.last_stored() - net.last_removed()) < 1e-9 * net.last_dissipated());
  }
  CHECK(net.factorizations() == 1);  // reused while the network is unchanged
}

TEST_CASE("grouped copies: one node standing for n identical nodes", "[thermal][network]") {
  // 10 identical heaters on one shared node vs the same built one by one.
  auto build = [](bool grouped) {
    RcNetwork net;
    const int amb = net.add_boundary(300);
    const int shared = net.add_node(1000);
    net.add_conductance(shared, amb, 5.0);
    if (grouped) {
      const int h = net.add_node(10, 10);
      net.add_conductance(h, shared, 1.0, 10);
      net.set_source(h, 20);
    } else {
      for (int i = 0; i < 10; ++i) {
        const int h = net.add_node(10);
        net.add_conductance(h, shared, 1.0);
        net.set_source(h, 20);
      }
    }
    for (int k = 0; k < 100; ++k) net.step(1.0);
    return std::make_pair(net.temperature(shared), net.temperature(2));
  };
  auto a = build(true), b = build(false);
  CHECK(a.first == Approx(b.first).epsilon(1e-12));
  CHECK(a.second == Approx(b.second).epsilon(1e-12));
}

TEST_CASE("a heated node with no path to a boundary is reported", "[thermal][network]") {
  RcNetwork net;
  net.add_boundary(300);
  const int n = net.add_node(10);
  net.set_source(n, 1);
  CHECK_THROWS_AS(net.solve_steady(), aidcsim::SimulationError);
}
