// display_check's choice of display unit for checklist items in seconds: from the magnitudes of
// value and limit together, so a fault's minutes above a limit of 0 s read in seconds while
// network latencies (microseconds against a limit of microseconds) still read in us.
#include <catch2/catch.hpp>

#include "models/thermal/thermal_report.hpp"

using namespace aidcsim;
using namespace aidcsim::thermal;

namespace {
Check shown(double value, double limit) {
  ChecklistItem c;
  c.item = "t";
  c.value = value;
  c.limit = limit;
  c.unit = "s";
  c.headroom = limit - value;
  c.pass = c.headroom >= 0;
  return display_check(c);
}
}  // namespace

TEST_CASE("display_check: a time above a limit of 0 s stays in seconds", "[thermal][report]") {
  // The cdu_loss fault of scenarios/stargate-uk-rollout.yaml: 701 s with a GPU throttling, limit 0 s.
  const Check d = shown(701.0, 0.0);
  CHECK(d.unit == "s");
  CHECK(d.value == 701.0);
  CHECK(d.limit == 0.0);
  CHECK(d.headroom == -701.0);
}

TEST_CASE("display_check: both zero stays in seconds", "[thermal][report]") {
  const Check d = shown(0.0, 0.0);
  CHECK(d.unit == "s");
  CHECK(d.headroom == 0.0);
}

TEST_CASE("display_check: sub-millisecond checks read in microseconds", "[thermal][report]") {
  // RDMA p99 latency 12 us against a 10 us limit.
  const Check a = shown(12e-6, 10e-6);
  CHECK(a.unit == "us");
  CHECK(a.value == Approx(12.0));
  CHECK(a.limit == Approx(10.0));
  CHECK(a.headroom == Approx(-2.0));
  // A latency of a few ms against a us limit: still us, next to its limit.
  const Check b = shown(4e-3, 10e-6);
  CHECK(b.unit == "us");
  CHECK(b.value == Approx(4000.0));
  // A fault's half millisecond above a limit of 0 s.
  const Check c = shown(0.5e-3, 0.0);
  CHECK(c.unit == "us");
  CHECK(c.value == Approx(500.0));
  CHECK(c.limit == 0.0);
}

TEST_CASE("display_check: second-scale checks stay in seconds", "[thermal][report]") {
  // Pump failover 3 s against a 5 s limit.
  const Check d = shown(3.0, 5.0);
  CHECK(d.unit == "s");
  CHECK(d.value == 3.0);
  CHECK(d.limit == 5.0);
}
