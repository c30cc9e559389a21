// Keys a choice of another key leaves unread (sim/scenario/keys_in_use.cpp): an error at the key's
// line, not a run bit-identical to one without it. Case step/01's kind (dp_algorithm with zero1:
// an option silently ignored in combination, ../shared/cases/step/01-dp-algorithm-ignored-with-zero1.yaml);
// on 1e9e09c each of these validated and gave the same summary, figure for figure, as the bundled
// 8K scenario without the key.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "scenario_text.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;
using test::default_with;
using test::line_of;

namespace {
// The default scenario with `lines` written in its cooling section (before `rdhx:`).
std::string with_cooling(const std::string& lines) { return default_with("  rdhx:", lines + "  rdhx:"); }

void check_refused(const std::string& text, const std::string& line_text, const std::string& key,
                   const std::string& selector) {
  try {
    load_scenario_text(text, "k.yaml");
    FAIL("loaded: " << key << " unread with this " << selector);
  } catch (const ScenarioError& e) {
    CHECK(e.where().line == line_of(text, line_text));
    CHECK_THAT(e.what(), Catch::Contains(key + ": got") &&
                             Catch::Contains("expected no " + key + " unless " + selector) &&
                             Catch::Contains("would be ignored"));
  }
}
}  // namespace

TEST_CASE("a key its selector's choice leaves unread is an error at its line", "[loader][keys_in_use]") {
  // Default plant: chip cold_plate, rack rdhx, cdu liquid_to_liquid, heat_rejection chiller.
  check_refused(with_cooling("  heat_rejection:\n    tower_approach: \"6 K\"\n"),
                "tower_approach:", "cooling.heat_rejection.tower_approach", "cooling.plant.heat_rejection");
  check_refused(with_cooling("  in_row_cooler:\n    capacity: \"10 kW\"\n"),
                "capacity:", "cooling.in_row_cooler.capacity", "cooling.plant.rack");
  check_refused(with_cooling("  immersion_tank:\n    r_case_fluid: \"0.05 K/W\"\n"),
                "r_case_fluid:", "cooling.immersion_tank.r_case_fluid", "cooling.plant.chip");
  check_refused(with_cooling("  cdu:\n    air_delta_t: \"20 K\"\n"), "air_delta_t:", "cooling.cdu.air_delta_t",
                "cooling.plant.cdu");
  check_refused(
      with_cooling(
          "  plant:\n    heat_rejection: cooling_tower\n  heat_rejection:\n    dry_cooler_approach: \"8 K\"\n"),
      "dry_cooler_approach:", "cooling.heat_rejection.dry_cooler_approach", "cooling.plant.heat_rejection");
  // The bundled scenario's own rdhx.effectiveness with another rack cooler.
  check_refused(with_cooling("  plant:\n    rack: in_row_cooler\n"), "effectiveness: 0.7", "cooling.rdhx.effectiveness",
                "cooling.plant.rack");
  const std::string zero1 = "    zero: zero1 ";
  check_refused(default_with(zero1, "    zero: zero1\n    ddp_bucket_size: 100M"),
                "ddp_bucket_size:", "workload.parallelism.ddp_bucket_size",
                "workload.parallelism.overlap_param_gather");
  check_refused(default_with(zero1,
                             "    zero: zero1\n    overlap_param_gather: true\n    param_gather_buckets: layer\n"
                             "    ddp_bucket_size: 100M"),
                "ddp_bucket_size:", "workload.parallelism.ddp_bucket_size",
                "workload.parallelism.param_gather_buckets");
}

TEST_CASE("the same keys with the choice that reads them load", "[loader][keys_in_use]") {
  CHECK_NOTHROW(load_scenario_text(
      with_cooling("  plant:\n    heat_rejection: cooling_tower\n  heat_rejection:\n    tower_approach: \"6 K\"\n"),
      "ok.yaml"));
  CHECK_NOTHROW(load_scenario_text(
      with_cooling("  plant:\n    heat_rejection: dry_cooler\n  heat_rejection:\n    dry_cooler_approach: \"8 K\"\n"),
      "ok.yaml"));
  CHECK_NOTHROW(load_scenario_text(
      default_with("    zero: zero1 ", "    zero: zero1\n    overlap_param_gather: true\n    ddp_bucket_size: 100M"),
      "ok.yaml"));
  // The defaults of an unread section are no error: only keys the file writes are (here `rdhx:`
  // stays, empty).
  std::string no_door = default_with("    effectiveness: 0.7", "");
  no_door.replace(no_door.find("  rdhx:"), 7, "  plant:\n    rack: in_row_cooler\n  rdhx:");
  CHECK_NOTHROW(load_scenario_text(no_door, "ok.yaml"));
}
