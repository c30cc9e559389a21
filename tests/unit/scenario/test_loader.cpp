// The default scenario loads into the expected SI values; defaults, lists and locations.
#include <catch2/catch.hpp>

#include "scenario_text.hpp"
#include "sim/scenario/default_scenario.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/schema_registry.hpp"
#include "sim/scenario/unit_parser.hpp"
#include "sim/scenario/validate.hpp"

using namespace aidcsim;

namespace {
/// What loading the default scenario with `overrides` (reported as `origin`) raises, "loaded" if
/// nothing; an override's error is on the command line (line 0).
std::string override_error(std::vector<Override> overrides, const std::string& origin) {
  LoadOptions opt;
  opt.overrides = std::move(overrides);
  opt.overrides_origin = origin;
  try {
    load_scenario_text(default_scenario_text(), "d.yaml", opt);
  } catch (const ScenarioError& e) {
    CHECK(e.where().line == 0);
    return e.what();
  }
  return "loaded";
}
}  // namespace

TEST_CASE("the default scenario loads with the expected SI values", "[loader]") {
  const Scenario s = load_default_scenario();
  CHECK(s.name == "stargate-uk-8k");
  CHECK(s.file == default_scenario_name());
  CHECK(s.seed == 42);
  CHECK(s.text == default_scenario_text());
  // fabric: 400 Gbps = 400e9 / 8 B/s
  CHECK(s.fabric.gpus == 8064);
  CHECK(s.fabric.gpus_per_node == 4);
  CHECK(s.fabric.nvlink_domain == 72);
  CHECK(s.fabric.kind == topology::FabricKind::Clos3);
  CHECK(s.fabric.switch_radix == 64);
  CHECK(s.fabric.link_rate == Approx(50e9));
  CHECK(s.fabric.nic_rate == Approx(50e9));
  CHECK(s.fabric.oversub_leaf == 1.0);
  CHECK(s.fabric.switch_latency == Approx(600e-9));
  CHECK(s.fabric.link_latency == Approx(100e-9));
  // workload: 8 x 9 x 112 = 8064
  CHECK(s.job.par.tp == 8);
  CHECK(s.job.par.pp == 9);
  CHECK(s.job.par.dp == 112);
  CHECK(s.job.model.layers == 126);
  CHECK(s.job.global_batch == 2016);
  CHECK(s.job.precision == "bf16");
  CHECK_FALSE(s.job.activation_recompute);
  CHECK(s.gpu.name == "GB200");
  // cooling: 1 L/min = 1e-3 m^3 / 60 s; 18 degC = 291.15 K
  CHECK(s.cooling.flow_per_gpu == Approx(1.6667e-5).epsilon(1e-4));
  CHECK(s.cooling.facility_supply == Approx(291.15));
  CHECK(s.cooling.cdu_approach == Approx(4.0));
  CHECK(s.cooling.liquid_fraction == Approx(0.85));
  CHECK(s.cooling.limits.inlet_max == Approx(298.15));
  CHECK(s.cooling.limits.outlet_max == Approx(313.15));
  CHECK(s.cooling.limits.delta_t_max == Approx(15.0));
  // training: "15T" tokens
  CHECK(s.training.tokens == Approx(15e12));
  // raw text kept for messages, SI value in params
  CHECK(s.params.raw("fabric.link_rate") == "400 Gbps");
  CHECK(s.params.number("fabric.link_rate") == Approx(50e9));
  CHECK(s.params.given("fabric.link_rate"));
}

TEST_CASE("the file on disk is the built-in default", "[loader]") {
  const Scenario s = load_scenario_file(AIDCSIM_SOURCE_DIR "/scenarios/stargate-uk-8k.yaml");
  CHECK(s.file == AIDCSIM_SOURCE_DIR "/scenarios/stargate-uk-8k.yaml");
  CHECK(s.text == default_scenario_text());
  CHECK(s.training.tokens == Approx(15e12));
}

TEST_CASE("an unreadable file is an aidcsim::Error naming the path", "[loader]") {
  try {
    load_scenario_file("/nonexistent/dir/x.yaml");
    FAIL("no exception");
  } catch (const ScenarioError&) {
    FAIL("a missing file is not a scenario error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("/nonexistent/dir/x.yaml"));
  }
}

TEST_CASE("locations of every written key are 1-based line:column", "[loader]") {
  const std::string text = default_scenario_text();
  const Scenario s = load_default_scenario();
  const SourceLocation l = s.locations.at("fabric.link_rate");
  CHECK(l.file == default_scenario_name());
  CHECK(l.line == test::line_of(text, "  link_rate:"));
  CHECK(l.column == 3);
  CHECK(s.locations.at("fabric.oversubscription.spine").line == test::line_of(text, "spine: \"1:1\""));
  CHECK(s.locations.at("fabric.oversubscription.spine").column == 5);
  CHECK(s.locations.at("name").line == test::line_of(text, "name: stargate"));
  CHECK(s.locations.at("name").column == 1);
  CHECK(s.locations.count("fabric.ecmp.flows_per_pair") == 1);
}

TEST_CASE("keys not written take their schema defaults", "[loader]") {
  const std::string text =
      "cluster: {gpus: 64}\n"
      "workload:\n"
      "  model: {layers: 2, hidden: 1024, heads: 8, vocab: 32000, sequence_length: 2048}\n"
      "  parallelism: {tp: 8, pp: 1, dp: 8}\n"
      "  global_batch: 64\n"
      "training: {tokens: 1B}\n";
  const Scenario s = load_scenario_text(text, "minimal.yaml");
  CHECK(s.name == "minimal");
  CHECK(s.seed == 0);
  CHECK(s.fabric.link_rate == Approx(50e9));  // default "400 Gbps"
  CHECK_FALSE(s.params.given("fabric.link_rate"));
  CHECK(s.params.raw("fabric.link_rate").empty());
  CHECK(s.cooling.facility_supply == Approx(291.15));
  CHECK(s.job.model.ffn_hidden == 4 * 1024);  // no default in the schema: the model's rule
  CHECK(s.training.tokens == Approx(1e9));
  CHECK(s.locations.at("cluster.gpus").line == 1);
}

TEST_CASE("loading is deterministic", "[loader]") {
  const Scenario a = load_default_scenario();
  const Scenario b = load_default_scenario();
  REQUIRE(a.params.values().size() == b.params.values().size());
  for (const auto& [key, value] : a.params.values()) {
    INFO(key);
    REQUIRE(b.params.has(key));
    const auto& other = b.params.values().at(key);
    CHECK(value.index() == other.index());
    if (const double* d = std::get_if<double>(&value)) CHECK(*d == std::get<double>(other));
    if (const auto* t = std::get_if<std::string>(&value)) CHECK(*t == std::get<std::string>(other));
  }
  CHECK(a.locations.size() == b.locations.size());
}

TEST_CASE("every schema default parses and lies in its own range; keys are declared once", "[loader][schema]") {
  const Schema schema = full_schema();
  CHECK(duplicate_keys().empty());
  for (const Field& f : schema) {
    INFO("key " << f.key);
    if (f.quantity != Quantity::Map) CHECK_FALSE(f.doc.empty());
    if (f.default_value.empty() || !is_numeric(f.quantity)) continue;
    double v = 0;
    CHECK_NOTHROW(v = parse_quantity(f.quantity, f.default_value, f.key));
    if (f.min) CHECK((f.min_exclusive ? v > *f.min : v >= *f.min));
    if (f.max) CHECK(v <= *f.max);
  }
  for (const Field& f : schema)
    if (f.quantity == Quantity::String && !f.choices.empty() && !f.default_value.empty()) {
      INFO("key " << f.key);
      CHECK(std::find(f.choices.begin(), f.choices.end(), f.default_value) != f.choices.end());
    }
}

// A small schema with a list, as the rollout keys will look.
static Schema list_schema() {
  using Q = Quantity;
  return {
      {"rollout", Q::Map, "", false, {}, {}, false, {}, "Rollout."},
      {"rollout.phases", Q::List, "", false, {}, {}, false, {}, "Phases."},
      {"rollout.phases[].gpus", Q::Integer, "", true, 1, 1e6, false, {}, "GPUs."},
      {"rollout.phases[].start", Q::Date, "", true, {}, {}, false, {}, "Start date."},
      {"rollout.phases[].power", Q::Power, "1 MW", false, 0, {}, false, {}, "Power."},
  };
}

TEST_CASE("list items are validated against <key>[].<field> with their own defaults", "[loader][list]") {
  const std::string text =
      "rollout:\n"
      "  phases:\n"
      "    - gpus: 8064\n"
      "      start: 2026-03-01\n"
      "    - gpus: 16128\n"
      "      start: 2026-09-01\n"
      "      power: \"2.5 MW\"\n";
  std::map<std::string, SourceLocation> where;
  const Params p = validate_scenario_text(text, "l.yaml", list_schema(), where);
  const Params::List& phases = p.list("rollout.phases");
  REQUIRE(phases.size() == 2);
  CHECK(phases[0].integer("gpus") == 8064);
  CHECK(phases[0].number("start") == 1772323200.0);
  CHECK(phases[0].number("power") == 1e6);
  CHECK_FALSE(phases[0].given("power"));
  CHECK(phases[1].number("power") == 2.5e6);
  CHECK(phases[1].path() == "rollout.phases[1]");
  CHECK(phases[1].full_key("gpus") == "rollout.phases[1].gpus");
  CHECK(where.at("rollout.phases[1].gpus").line == 5);
  CHECK(where.at("rollout.phases[1].gpus").column == 7);
  CHECK(where.at("rollout.phases[1]").line == 5);
  CHECK(where.at("rollout.phases[1].power").line == 7);
}

TEST_CASE("list item errors name the item", "[loader][list]") {
  std::map<std::string, SourceLocation> where;
  const std::string bad_item =
      "rollout:\n"
      "  phases:\n"
      "    - gpus: 8064\n"
      "      start: 2026-03-01\n"
      "    - gpus: 0\n"
      "      start: 2026-09-01\n";
  try {
    validate_scenario_text(bad_item, "l.yaml", list_schema(), where);
    FAIL("no exception");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "rollout.phases[1].gpus");
    CHECK(std::string(e.what()) ==
          "l.yaml:5:7: rollout.phases[1].gpus: got '0', expected an integer from 1 to 1000000");
  }
  const std::string missing =
      "rollout:\n"
      "  phases:\n"
      "    - gpus: 8064\n";
  try {
    validate_scenario_text(missing, "l.yaml", list_schema(), where);
    FAIL("no exception");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "rollout.phases[0].start");
    CHECK(e.where().line == 3);
    CHECK_THAT(e.what(), Catch::Contains("required key missing under 'rollout.phases[0]'"));
  }
  const std::string misspelt =
      "rollout:\n"
      "  phases:\n"
      "    - gpus: 8064\n"
      "      strat: 2026-03-01\n";
  try {
    validate_scenario_text(misspelt, "l.yaml", list_schema(), where);
    FAIL("no exception");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "rollout.phases[0].strat");
    CHECK(e.hint() == "did you mean 'start'?");
    CHECK(e.where().line == 4);
  }
  try {
    validate_scenario_text("rollout:\n  phases: 3\n", "l.yaml", list_schema(), where);
    FAIL("no exception");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "rollout.phases");
    CHECK_THAT(e.what(), Catch::Contains("a list of mappings"));
  }
}

TEST_CASE("a required key whose section is not written points at the document's start", "[loader]") {
  const Schema schema = {
      {"site", Quantity::Map, "", false, {}, {}, false, {}, "Site."},
      {"site.name", Quantity::String, "", true, {}, {}, false, {}, "Name."},
      {"other", Quantity::Map, "", false, {}, {}, false, {}, "Other."},
      {"other.x", Quantity::Integer, "1", false, {}, {}, false, {}, "X."},
  };
  std::map<std::string, SourceLocation> where;
  try {
    validate_scenario_text("other: {x: 2}\n", "m.yaml", schema, where);
    FAIL("no exception");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "site.name");
    CHECK(e.where().line == 1);
    CHECK(std::string(e.what()) ==
          "m.yaml:1:1: site.name: got (nothing), expected a string (required key missing: no 'site' section in "
          "m.yaml)");
  }
}

TEST_CASE("LoadOptions::overrides: set before validation, errors at the command line", "[loader][overrides]") {
  LoadOptions o;
  o.overrides = {{"fabric.link_rate", "100 Gbps"}, {"fabric.link_rate", "'800 Gbps'"}, {"seed", "7"}};
  const Scenario s = load_scenario_text(default_scenario_text(), "d.yaml", o);
  CHECK(s.fabric.link_rate == Approx(100e9));  // the last of one key wins, YAML quotes read as YAML
  CHECK(s.seed == 7);
  CHECK(s.text == default_scenario_text());  // the text as read; the overrides are the caller's to record
  CHECK(s.location_of("seed").line == 0);
  CHECK(s.location_of("seed").file == "d.yaml (set on the command line with --set)");
  CHECK(s.location_of("cluster.gpus").line > 0);  // keys not set keep their lines

  auto error_of = [](std::vector<Override> overrides) {
    return override_error(std::move(overrides), "set on the command line with --set-all");
  };
  CHECK(error_of({{"cluster.gpus", "abc"}}) ==
        "d.yaml (set on the command line with --set-all): cluster.gpus: got 'abc', expected a plain integer such as "
        "64 (not a number)");
  // A mapping the file lacks, created by the override, is named as the override's.
  CHECK_THAT(error_of({{"fabric.typo.x", "1"}}),
             Catch::StartsWith("d.yaml (set on the command line with --set-all): fabric.typo: got 'typo'"));
  // List items: index == length appends (a new rollout phase: its required keys are then missing),
  // a larger index is an error naming the list's length.
  CHECK_THAT(error_of({{"rollout.phases[0].gpus", "8064"}}),
             Catch::StartsWith("d.yaml (set on the command line with --set-all): rollout.phases[0]."));
  CHECK(error_of({{"rollout.phases[2].gpus", "8064"}}) ==
        "d.yaml (set on the command line with --set-all): rollout.phases[2]: got '8064', expected index 0 to append "
        "an item (rollout.phases is empty)");
  // A scalar on the way is replaced (as Scenario.__setitem__ does), a mapping indexed as a list is not.
  CHECK(error_of({{"cluster.gpus[0]", "1"}}) ==
        "d.yaml (set on the command line with --set-all): cluster.gpus: got a list [1], expected a plain integer such "
        "as 64");
  CHECK(error_of({{"fabric[0].x", "1"}}) ==
        "d.yaml (set on the command line with --set-all): fabric: got a mapping, expected a list, as fabric[0] "
        "indexes it");
  CHECK(error_of({{"rollout.phases[0].gpus", "1"}, {"rollout.phases.x", "1"}}) ==
        "d.yaml (set on the command line with --set-all): rollout.phases: got a list, expected a mapping, as "
        "rollout.phases.x is a key under it");
  CHECK_THAT(error_of({{"fabric..x", "1"}}), Catch::Contains("expected a dotted scenario key"));
  CHECK_THAT(error_of({{"seed", "[1,"}}), Catch::Contains("seed: got '[1,', expected a YAML value"));
}

TEST_CASE("an override's bytes are checked as the file's: UTF-8, no control characters", "[loader][overrides]") {
  // Case input/03's kind (bytes that are not UTF-8 in a value, ../shared/cases/input/03): the file
  // is checked before parsing, but `--set name=caf\xE9` (Latin-1 from a shell) was not; on 1e9e09c
  // it validated and the results held U+FFFD.
  auto error_of = [](const std::string& key, const std::string& value) {
    return override_error({{key, value}}, LoadOptions{}.overrides_origin);
  };
  CHECK(error_of("name", "caf\xE9") ==
        "d.yaml (set on the command line with --set): name: got 'caf\\xE9', expected UTF-8 text without control "
        "characters (invalid UTF-8 (byte 0xE9) in the value)");
  CHECK_THAT(error_of("na\xFFme", "x"), Catch::Contains("na\\xFFme: got 'x'") && Catch::Contains("in the key"));
  CHECK_THAT(error_of("description", "a\x1B[2Jb"), Catch::Contains("U+001B") && Catch::Contains("in the value"));
  CHECK(error_of("name", "caf\xC3\xA9 \xE6\x95\xB0\xE6\x8D\xAE") == "loaded");  // UTF-8 as the file takes it
}
