// What the mutation test (tests/cli/mutate_scenarios.py) and the fuzzers (tests/fuzz/) found the
// loader accepting or failing on: each is now an error naming the key (and line), and stays one.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "scenario_text.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/unit_parser.hpp"

using namespace aidcsim;
using test::default_with;
using test::line_of;

namespace {
ScenarioError error_of(const std::string& text) {
  try {
    load_scenario_text(text, "bad.yaml");
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("bad scenario loaded without error");
  throw std::logic_error("unreachable");
}
}  // namespace

TEST_CASE("a second YAML document is an error at its first line, not dropped", "[mutation]") {
  // yaml-cpp's Load read the first document only: a file holding two scenarios ran the first.
  const std::string text = std::string(default_scenario_text()) + "---\nname: second\nseed: 7\n";
  const ScenarioError e = error_of(text);
  CHECK(e.where().line == line_of(text, "---\nname: second"));
  CHECK_THAT(e.what(), Catch::Contains("a second YAML document starts here"));
  // A document end marker without a second document is one document.
  CHECK_NOTHROW(load_scenario_text(std::string(default_scenario_text()) + "...\n", "ok.yaml"));
}

TEST_CASE("a document starting with ',' is a YAML error, quickly", "[mutation]") {
  // Found by tests/fuzz/fuzz_scenario: yaml-cpp 0.7's LoadAll never returns on it (empty
  // documents without end, memory growing by GBs); YAML::Load reads it as an empty document.
  for (const std::string text : {",", ",\nname: x\n", ",000 GPUs\nseed: 1\n"}) {
    const ScenarioError e = error_of(text);
    CHECK(e.where().line == 1);
    CHECK_THAT(e.what(), Catch::Contains("invalid YAML: ',' cannot start a value"));
  }
}

TEST_CASE("a component twice in reliability.failures is an error, not a silent override", "[mutation]") {
  const std::string text = std::string(default_scenario_text()) +
                           "reliability:\n  failures:\n    - component: cdu\n      mtbf: \"50000 h\"\n"
                           "    - component: cdu\n      mtbf: \"20000 h\"\n";
  const ScenarioError e = error_of(text);
  CHECK(e.where().line == line_of(text, "    - component: cdu\n      mtbf: \"20000 h\""));
  CHECK(e.key() == "reliability.failures[1].component");
  CHECK_THAT(e.what(), Catch::Contains("each component once") && Catch::Contains("reliability.failures[0]"));
}

TEST_CASE("a reliability.failures entry with neither mtbf nor count is an error", "[mutation]") {
  const std::string text = std::string(default_scenario_text()) + "reliability:\n  failures:\n    - component: cdu\n";
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "reliability.failures[0].component");
  CHECK(e.where().line == line_of(text, "- component: cdu"));
  CHECK_THAT(e.what(), Catch::Contains("an mtbf or a count"));
}

TEST_CASE("a liquid fraction between 0 and 1 % is an error, not a singular thermal network", "[mutation]") {
  // 0.85 x 1e-30 used to pass the schema and fail in `validate` with "singular matrix" (exit 1).
  for (const char* v : {"8.5e-31", "1e-6", "0.009"}) {
    const std::string text = default_with("liquid_fraction: 0.85", std::string("  liquid_fraction: ") + v);
    const ScenarioError e = error_of(text);
    CHECK(e.key() == "cooling.liquid_fraction");
    CHECK(e.where().line == line_of(text, "liquid_fraction:"));
    CHECK_THAT(e.what(), Catch::Contains("0 (air-cooled) or a fraction from 0.01 to 1"));
  }
  CHECK_NOTHROW(load_scenario_text(default_with("liquid_fraction: 0.85", "  liquid_fraction: 0"), "air.yaml"));
  CHECK_NOTHROW(load_scenario_text(default_with("liquid_fraction: 0.85", "  liquid_fraction: 0.01"), "low.yaml"));
}

TEST_CASE("a value that overflows once converted to SI is an error, not infinity", "[fuzz]") {
  // Found by tests/fuzz/fuzz_units: "1.0e+308 EFLOP/s" parsed to +inf FLOP/s, which a key without
  // a maximum would have taken.
  CHECK_THROWS_AS(parse_quantity(Quantity::FlopRate, "1.0e+308 EFLOP/s", "k"), InvalidParameter);
  CHECK_THROWS_AS(parse_quantity(Quantity::Power, "1e308 MW", "k"), InvalidParameter);
  CHECK_THROWS_AS(parse_quantity(Quantity::Count, "1e300T", "k"), InvalidParameter);
  CHECK_THROWS_AS(parse_quantity(Quantity::Ratio, "1e308:1e-308", "k"), InvalidParameter);
  CHECK_THROWS_AS(parse_quantity(Quantity::Energy, "1e308 kWh", "k"), InvalidParameter);
  CHECK_THAT(error_of(default_with("link_rate: \"400 Gbps\"", "  link_rate: \"1e308 Tbps\"")).what(),
             Catch::Contains("fabric.link_rate") && Catch::Contains("too large once converted to SI units"));
  CHECK(parse_quantity(Quantity::FlopRate, "1e290 EFLOP/s", "k") == 1e290 * 1e18);  // still finite
}

TEST_CASE("a count is a whole number: a denormal or a fraction of a count is an error", "[mutation]") {
  // Case input/01's kind (a denormal through a range check, ../shared/cases/input/01, 22, 23): a
  // count's range from 0 let reliability.failures[].count '1e-320' or '0.5' and
  // workload.parallelism.ddp_bucket_size '1e-320' through (runs with a fraction of a component or
  // of a parameter, no note); training.tokens '1.5' too. Every count key is checked by the parser.
  for (const char* text : {"1e-320", "0.5", "1.5", "5e-324", "0.0005K", "1.0000001"})
    CHECK_THROWS_WITH(parse_quantity(Quantity::Count, text, "k"), Catch::Contains("not a whole number"));
  CHECK(parse_quantity(Quantity::Count, "0", "k") == 0);
  CHECK(parse_quantity(Quantity::Count, "1.1K", "k") == 1.1 * 1e3);  // whole within rounding, kept as read
  CHECK(parse_quantity(Quantity::Count, "15.6T", "k") == 15.6 * 1e12);
  CHECK(parse_quantity(Quantity::Count, "2e8", "k") == 2e8);
  const std::string text = default_with("tokens: \"15T\"", "  tokens: \"1.5\"");
  const ScenarioError e = error_of(text);
  CHECK(e.where().line == line_of(text, "tokens: \"1.5\""));
  CHECK_THAT(e.what(), Catch::Contains("training.tokens: got '1.5'") && Catch::Contains("not a whole number"));
}

TEST_CASE("a key the file does not give is shown as a number, not std::to_string's", "[mutation]") {
  // Case input/05's second complaint (a value re-formatted, '1.000000'): a key written is quoted as
  // written; one the file does not give (here rh_max's default, blamed for an rh_min above it) was
  // quoted as '0.600000' on 1e9e09c.
  const std::string text = default_with("  liquid_fraction: 0.85", "  liquid_fraction: 0.85\n  room:\n    rh_min: 0.9");
  const ScenarioError e = error_of(text);
  CHECK_THAT(e.what(), Catch::Contains("expected at most cooling.room.rh_max (0.6, its default)"));
}

TEST_CASE("a humidity band out of order blames the end the file gives", "[mutation]") {
  // 0abac4e blamed cooling.room.rh_max (its default, at the `room:` line) for an rh_min above it:
  // the file's rh_min is the key to change. rh_max alone below the default rh_min is rh_max's fault.
  std::string text = default_with("  liquid_fraction: 0.85", "  liquid_fraction: 0.85\n  room:\n    rh_min: 0.7");
  ScenarioError e = error_of(text);
  CHECK(e.key() == "cooling.room.rh_min");
  CHECK(e.where().line == line_of(text, "    rh_min: 0.7"));
  CHECK_THAT(e.what(), Catch::Contains("cooling.room.rh_min: got '0.7', expected at most cooling.room.rh_max (0.6, "
                                       "its default): the band's low end"));
  text = default_with("  liquid_fraction: 0.85", "  liquid_fraction: 0.85\n  room:\n    rh_max: 0.3");
  e = error_of(text);
  CHECK(e.key() == "cooling.room.rh_max");
  CHECK(e.where().line == line_of(text, "    rh_max: 0.3"));
  CHECK_THAT(e.what(), Catch::Contains("cooling.room.rh_max: got '0.3', expected at least cooling.room.rh_min (0.4, "
                                       "its default): the band's high end"));
  // Both given: the low end, naming the high end's value.
  text = default_with("  liquid_fraction: 0.85", "  liquid_fraction: 0.85\n  room:\n    rh_min: 0.55\n    rh_max: 0.5");
  e = error_of(text);
  CHECK(e.key() == "cooling.room.rh_min");
  CHECK(e.where().line == line_of(text, "    rh_min: 0.55"));
  CHECK_THAT(e.what(), Catch::Contains("expected at most cooling.room.rh_max (0.5): the band's low end"));
}
