// Inputs that are not scenarios: bytes that are not UTF-8, control characters, YAML tags, deep
// nesting, alias "bombs", endless devices. Each is a ScenarioError at a line and column, quickly,
// never a hang, a crash or a value silently dropped. Cases ../shared/cases/input/03, 17, 18, 19.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "scenario_text.hpp"
#include "sim/scenario/input_limits.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/schema_registry.hpp"
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

TEST_CASE("bytes that are not UTF-8 are an error at their line and column", "[limits]") {
  // Case input/03: a Latin-1 name used to pass validation and then fail writing the JSON (exit 1,
  // the HDF5 file left behind).
  const std::string text = default_with("name: stargate-uk-8k", "name: caf\xE9-\xE0\xA0");
  const ScenarioError e = error_of(text);
  CHECK(e.where().line == line_of(text, "name: caf"));
  CHECK(e.where().column == 10);
  CHECK_THAT(e.what(), Catch::Contains("invalid UTF-8 (byte 0xE9)"));
  // Truncated sequence at the end, overlong '/', a UTF-16 surrogate, beyond U+10FFFF.
  for (const char* bad : {"name: x\xC3", "name: \xC0\xAF", "name: \xED\xA0\x80", "name: \xF4\x90\x80\x80"})
    CHECK_THAT(error_of(default_with("name: stargate-uk-8k", bad)).what(), Catch::Contains("invalid UTF-8"));
  // Valid multi-byte text passes: accented letters, CJK, an emoji, a leading byte order mark.
  CHECK(load_scenario_text(default_with("name: stargate-uk-8k", "name: \"café 数据中心 \xF0\x9F\x94\xA5\""), "ok.yaml")
            .name == "café 数据中心 \xF0\x9F\x94\xA5");
  CHECK_NOTHROW(load_scenario_text("\xEF\xBB\xBF" + default_with("seed: 42", "seed: 42"), "bom.yaml"));
}

TEST_CASE("control characters are an error", "[limits]") {
  const ScenarioError e = error_of(default_with("name: stargate-uk-8k",
                                                "name: \"a\x07"
                                                "b\""));
  CHECK_THAT(e.what(), Catch::Contains("invalid character U+0007"));
  CHECK(e.where().column == 9);
  CHECK_THAT(error_of(std::string("name: a\0b\n", 10)).what(), Catch::Contains("U+0000"));
}

TEST_CASE("a control character written by an escape is an error, as one in the text is", "[limits]") {
  // The raw text holds only printable characters, but a double-quoted escape decodes to any: 0.1.0
  // stored name "a\0b" as "a" in the HDF5 attribute and printed the NUL and ESC bytes raw.
  for (const auto& [line, cp] :
       std::vector<std::pair<std::string, std::string>>{{R"(name: "a\0b")", "U+0000"},
                                                        {R"(description: "bell\a")", "U+0007"},
                                                        {R"(  gpu: "GB200\e[31m")", "U+001B"},
                                                        {R"(name: "a\x7Fb")", "U+007F"},
                                                        {R"(name: "\x9B")", "U+009B"},
                                                        {R"(description: "\uFFFE")", "U+FFFE"}}) {
    const std::string key = line.substr(line.find_first_not_of(' '), line.find(':') - line.find_first_not_of(' '));
    const std::string text = key == "gpu"           ? default_with("gpu: GB200", line)
                             : key == "description" ? default_with("description: Stargate", line)
                                                    : default_with("name: stargate-uk-8k", line);
    const ScenarioError e = error_of(text);
    INFO(line << " -> " << e.what());
    CHECK(e.where().line == line_of(text, line.substr(line.find_first_not_of(' '))));
    CHECK(e.key() == (key == "gpu" ? "cluster.gpu" : key));
    CHECK_THAT(e.what(), Catch::Contains("expected text without control characters (an escape writes " + cp));
    CHECK(std::string(e.what()).find('\0') == std::string::npos);
    CHECK(std::string(e.what()).find('\x1B') == std::string::npos);  // the message is printable too
  }
  // In a key as well.
  const ScenarioError k = error_of(default_with("seed: 42", R"("se\0ed": 42)"));
  CHECK_THAT(k.what(), Catch::Contains("se\\x00ed"));
  // Tab, line feed and NEL are printable (YAML 1.2 §5.1) and stay allowed.
  CHECK_NOTHROW(load_scenario_text(default_with("name: stargate-uk-8k", R"(name: "a\tb\nc\Nd")"), "ok.yaml"));
}

TEST_CASE("an explicit YAML tag is an error, not silently dropped", "[limits]") {
  // Case input/19.
  const std::string text = default_with("gpus: 8064", "  gpus: !python/object:os.system 8064");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "cluster.gpus");
  CHECK(e.where().line == line_of(text, "!python"));
  CHECK_THAT(e.what(), Catch::Contains("'!python/object:os.system'"));
  CHECK_THAT(error_of(default_with("seed: 42", "seed: !!str 42")).what(), Catch::Contains("tag:yaml.org,2002:str"));
  CHECK_THAT(error_of(default_with("  rdhx:", "  rdhx: !custom")).what(), Catch::Contains("'!custom'"));
}

TEST_CASE("nesting deeper than the limit is an error", "[limits]") {
  const int n = kMaxNestingDepth + 5;
  const ScenarioError e = error_of("a: " + std::string(n, '[') + std::string(n, ']') + "\n");
  CHECK_THAT(e.what(), Catch::Contains("levels of nesting"));
  // Far deeper than any stack can recurse: yaml-cpp's own guard, still a ScenarioError.
  CHECK_THROWS_AS(load_scenario_text("a: " + std::string(100000, '[') + std::string(100000, ']') + "\n", "deep.yaml"),
                  ScenarioError);
}

TEST_CASE("an alias bomb stops at the node limit", "[limits]") {
  // Case input/14 (CLI side): 10^9 values once expanded, in a few hundred bytes.
  std::string bomb = "lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 10; ++i) {
    bomb += "lol" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  const ScenarioError e = error_of(bomb + default_scenario_text());
  CHECK_THAT(e.what(), Catch::Contains("counting each alias as the values it repeats"));
  // Aliases within the limit are fine (a repeated block).
  const std::string ok = default_with("  limits:", "  limits: &lim") + "\n";
  CHECK_NOTHROW(load_scenario_text(ok, "ok.yaml"));
}

TEST_CASE("a list longer than the limit is an error", "[limits]") {
  std::string text = default_scenario_text();
  text += "\nreliability:\n  failures: [";
  for (std::size_t i = 0; i <= kMaxListItems; ++i) text += (i ? ", " : "") + std::string("{component: gpu}");
  text += "]\n";
  CHECK_THAT(error_of(text).what(), Catch::Contains("at most 10000 items"));
}

TEST_CASE("a missing section is reported at a line and column", "[limits]") {
  // Case input/18: the whole workload section removed.
  std::string text = default_scenario_text();
  const auto from = text.find("\nworkload:");
  const auto to = text.find("\ntraining:");
  REQUIRE(from != std::string::npos);
  text.erase(from, to - from);
  const ScenarioError e = error_of(text);
  CHECK(e.where().line == line_of(text, "name: stargate"));
  CHECK(e.where().column == 1);
  CHECK_THAT(e.what(), Catch::Contains("no 'workload' section in bad.yaml"));
}

TEST_CASE("scenario files are read up to the size limit", "[limits]") {
  // Case input/17: /dev/zero used to be read until memory ran out.
  try {
    read_scenario_file("/dev/zero");
    FAIL("no exception");
  } catch (const ScenarioError& e) {
    CHECK(e.where().file == "/dev/zero");
    CHECK_THAT(e.what(), Catch::Contains("larger than 1 MiB"));
  }
  const std::string big = "big-scenario.yaml";
  {
    std::ofstream out(big, std::ios::binary);
    out << "name: x\n# " << std::string(kMaxScenarioBytes, 'x') << "\n";
  }
  CHECK_THROWS_AS(load_scenario_file(big), ScenarioError);
  std::remove(big.c_str());
  CHECK_THROWS_AS(check_scenario_text(std::string(kMaxScenarioBytes + 1, ' '), "t"), ScenarioError);
  // A directory or a missing file is an Error that cannot be read (exit 1), not a ScenarioError.
  try {
    read_scenario_file(AIDCSIM_SOURCE_DIR);
    FAIL("no exception");
  } catch (const ScenarioError&) {
    FAIL("a directory is not an invalid scenario");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("Is a directory"));
  }
  CHECK(read_scenario_file(AIDCSIM_SOURCE_DIR "/scenarios/stargate-uk-8k.yaml") == default_scenario_text());
}

TEST_CASE("every numeric key has physical bounds, not only '> 0'", "[limits][schema]") {
  // Cases input/01, 04, 22, 23: '1e-320 s' passed '> 0 s' and hung the Monte Carlo, a liquid
  // fraction of 0 passed [0, 1] and made the thermal network singular. Each quantity's range says
  // what a real site can have: both ends given, and no lower end that is an open zero (which lets
  // denormal values through).
  for (const Field& f : full_schema()) {
    if (!is_numeric(f.quantity)) continue;
    INFO(f.key);
    if (!f.quantity_by.empty()) {  // a kind per sibling value (a sensor's threshold): each bounded
      for (const QuantityChoice& k : f.quantity_by) {
        INFO(k.value);
        if (k.quantity == Quantity::String) continue;  // takes no value (schema.hpp)
        REQUIRE(k.min.has_value());
        REQUIRE(k.max.has_value());
        CHECK(std::isfinite(*k.min));
        CHECK(std::isfinite(*k.max));
        CHECK(*k.min < *k.max);
      }
      continue;
    }
    REQUIRE(f.min.has_value());
    REQUIRE(f.max.has_value());
    CHECK(std::isfinite(*f.min));
    CHECK(std::isfinite(*f.max));
    CHECK(*f.min < *f.max);
    CHECK_FALSE((f.min_exclusive && *f.min == 0));
  }
}
