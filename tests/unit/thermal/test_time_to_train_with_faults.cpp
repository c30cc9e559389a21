// time_to_train_with_faults (d): every cooling fault counted once. time_to_train (reliability)
// has the faults that start within the shared fault transient in its step-time profile; only the
// faults that start after that transient add their verdict's lost time, for those that start
// before the (lengthened) training ends. cooling_faults_lost_training_time (h) is the verdicts'
// own estimate and is added to nothing.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "models/common/units.hpp"
#include "models/thermal/thermal_report.hpp"

using namespace aidcsim;
using namespace aidcsim::thermal;

namespace {
FaultVerdict fault(int index, double at, double lost) {
  FaultVerdict v;
  v.index = index;
  v.name = "fault " + std::to_string(index + 1) + ": pump_failure";
  v.description = "test";
  v.fault.type = "pump_failure";
  v.fault.at = at;
  v.fault.duration = 600;
  v.lost_training_time = lost;
  return v;
}
}  // namespace

TEST_CASE("time_to_train_with_faults: faults in the fault transient are not added twice", "[thermal][report][faults]") {
  // The faults start within the 2-day transient: time_to_train's step-time profile has them. The
  // old figure added their 1,920 s again on top of it.
  const double ttt = 2 * units::kDay, transient = 2 * units::kDay;
  const std::vector<FaultVerdict> vs = {fault(0, 3600, 120), fault(1, 7200, 1800), fault(2, 86400, 0)};
  std::vector<int> late;
  CHECK(time_to_train_with_faults(ttt, vs, transient, &late) == ttt);
  CHECK(late.empty());

  Results r;
  report_fault_verdicts(r, vs, {}, 0.9, true, ttt, transient);
  CHECK(r.scalar("cooling_faults_lost_training_time") == Approx((120.0 + 1800.0) / units::kHour).epsilon(1e-15));
  CHECK(r.scalar("time_to_train_with_faults") == Approx(ttt / units::kDay).epsilon(1e-15));
  for (const auto& s : r.summary)
    if (s.key == "time_to_train_with_faults") CHECK(s.unit == "d");
}

TEST_CASE("time_to_train_with_faults adds the faults after the transient", "[thermal][report][faults]") {
  // Transient over the first 5,000 s: the fault at 3,600 s is in time_to_train, the two later ones
  // are added from their verdicts.
  const double ttt = 2 * units::kDay;
  const std::vector<FaultVerdict> vs = {fault(0, 3600, 120), fault(1, 7200, 1800), fault(2, 86400, 30)};
  std::vector<int> late;
  CHECK(time_to_train_with_faults(ttt, vs, 5000, &late) == ttt + 1800 + 30);
  CHECK(late.empty());

  Results r;
  report_fault_verdicts(r, vs, {}, 0.9, true, ttt, 5000);
  CHECK(r.scalar("time_to_train_with_faults") == Approx((ttt + 1830.0) / units::kDay).epsilon(1e-15));
}

TEST_CASE("time_to_train_with_faults: a fault after the training ends is not counted", "[thermal][report][faults]") {
  const double ttt = 1000;  // no fault in the transient (length 0)
  // In start order: 900 s (inside: the training now ends at 1500 s), 1400 s (inside, thanks to the
  // first one's delay: ends at 1600 s), 5000 s (after the end: not counted, named in a note).
  const std::vector<FaultVerdict> vs = {fault(0, 5000, 700), fault(1, 1400, 100), fault(2, 900, 500)};
  std::vector<int> late;
  CHECK(time_to_train_with_faults(ttt, vs, 0.0, &late) == 1600);
  REQUIRE(late.size() == 1);
  CHECK(late[0] == 0);

  Results r;
  report_fault_verdicts(r, vs, {}, 0.9, true, ttt, 0.0);
  CHECK(r.scalar("cooling_faults_lost_training_time") == Approx(1300.0 / units::kHour).epsilon(1e-15));
  CHECK(r.scalar("time_to_train_with_faults") == Approx(1600.0 / units::kDay).epsilon(1e-15));
  bool noted = false;
  for (const auto& n : r.notes)
    noted = noted || n.find("fault(s) 1 start after the training ends") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("time_to_train_with_faults: a fault past its verdict's run goes on at its last state",
          "[thermal][report][faults]") {
  // A later fault judged over its first 1,800 s (judged_until) that lasts longer: the training left
  // then runs at the run's last step-time multiplier until the fault ends. Before, only the 300 s
  // judged were added: a fault not repaired cost as much as its first half hour.
  const double ttt = 10000;  // no fault in the transient (length 0)
  FaultVerdict v = fault(0, 3600, 300);
  v.judged_until = 3600 + 1800;
  v.final_slowdown = 1.25;
  v.fault.duration = std::numeric_limits<double>::infinity();  // not repaired
  // 10,300 s at full speed; 4,900 s of it left at 5,400 s, taking 1.25 x as long.
  CHECK(time_to_train_with_faults(ttt, {v}, 0.0) == 5400 + 4900 * 1.25);
  v.fault.duration = 3800;  // repaired at 7,400 s: 2,000 s at 1.25 do 1,600 s of it
  CHECK(time_to_train_with_faults(ttt, {v}, 0.0) == 7400 + (4900 - 1600));
  v.final_slowdown = 1;  // back at full speed by the end of its run
  CHECK(time_to_train_with_faults(ttt, {v}, 0.0) == ttt + 300);
  v.final_slowdown = std::numeric_limits<double>::infinity();  // the job halted until the repair
  CHECK(time_to_train_with_faults(ttt, {v}, 0.0) == 7400 + 4900);
  v.fault.duration = std::numeric_limits<double>::infinity();  // ... for good: never ends
  CHECK(std::isinf(time_to_train_with_faults(ttt, {v}, 0.0)));
  v.judged_until = 20000;  // the training ends within the run: what was judged
  CHECK(time_to_train_with_faults(ttt, {v}, 0.0) == ttt + 300);
}
