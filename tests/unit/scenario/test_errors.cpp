// Bad scenarios: each gives a ScenarioError with the right file, line, column, key and message.
// Each case is the default scenario with one line changed.
#include <catch2/catch.hpp>

#include "models/common/suggest.hpp"
#include "scenario_text.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;
using test::column_of;
using test::default_with;
using test::line_of;

namespace {
// Loads `text` as "bad.yaml" and returns the ScenarioError it raises (fails the test if none).
ScenarioError error_of(const std::string& text) {
  try {
    load_scenario_text(text, "bad.yaml");
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("bad scenario loaded without error");
  throw std::logic_error("unreachable");
}

std::string at(const std::string& text, const std::string& needle) {
  return "bad.yaml:" + std::to_string(line_of(text, needle)) + ":" + std::to_string(column_of(text, needle)) + ": ";
}
}  // namespace

TEST_CASE("misspelt key: did you mean the sibling", "[errors]") {
  const std::string text = default_with("switch_radix: 64", "  swich_radix: 64");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "fabric.swich_radix");
  CHECK(e.where().file == "bad.yaml");
  CHECK(e.where().line == line_of(text, "swich_radix"));
  CHECK(e.where().column == 3);
  CHECK(e.hint() == "did you mean 'switch_radix'?");
  CHECK_THAT(e.what(),
             Catch::StartsWith(at(text, "swich_radix") +
                               "fabric.swich_radix: got 'swich_radix', expected one of the keys of 'fabric' ("));
  CHECK_THAT(e.what(), Catch::EndsWith("; did you mean 'switch_radix'?"));
}

TEST_CASE("key at the wrong level: did you mean the full path", "[errors]") {
  const std::string text = default_with("nvlink_domain: 72", "  nvlink_domain: 72\n  link_rate: \"400 Gbps\"");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "cluster.link_rate");
  CHECK(e.hint() == "did you mean 'fabric.link_rate'?");
  CHECK(e.where().line == line_of(text, "nvlink_domain: 72") + 1);
}

TEST_CASE("misspelt key: a close name of the same section, nothing from another", "[errors]") {
  // "nope" is one letter from cluster.gpu_speed[].node: no suggestion from another section.
  const std::string text = default_with("switch_radix: 64", "  switch_radix: 64\n  nope: 1");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "fabric.nope");
  CHECK(e.hint().empty());
  CHECK(std::string(e.what()) == at(text, "nope: 1") +
                                     "fabric.nope: got 'nope', expected one of the keys of 'fabric' (topology, "
                                     "wiring, switch_radix, gpus_per_leaf, link_rate, nic_rate, planes, sharp, "
                                     "oversubscription, exact, switch_latency, link_latency, ecmp, failures, storage)");
  // A slip of a key of the same section at the wrong depth: that key.
  const std::string nested = default_with("flows_per_pair: 1", "    flows_per_pair: 1\n    link_rat: \"400 Gbps\"");
  CHECK(error_of(nested).hint() == "did you mean 'fabric.link_rate'?");
}

TEST_CASE("unknown top-level key", "[errors]") {
  const std::string text = default_with("seed: 42", "seed: 42\ncoling: {}");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "coling");
  CHECK(e.hint() == "did you mean 'cooling'?");
  CHECK_THAT(e.what(), Catch::Contains("expected one of the top-level keys (name, description, seed, cluster"));
}

TEST_CASE("a data rate given as a data size", "[errors]") {
  const std::string text = default_with("link_rate: \"400 Gbps\"", "  link_rate: \"400 GB\"");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "fabric.link_rate");
  CHECK(e.value() == "400 GB");
  CHECK(std::string(e.what()) == at(text, "link_rate") +
                                     "fabric.link_rate: got '400 GB', expected a data rate such as '400 Gbps' or "
                                     "'50 GB/s' (got a data size)");
}

TEST_CASE("a data rate without a unit", "[errors]") {
  const std::string text = default_with("link_rate: \"400 Gbps\"", "  link_rate: 400");
  const ScenarioError e = error_of(text);
  CHECK(std::string(e.what()) == at(text, "link_rate") +
                                     "fabric.link_rate: got '400', expected a data rate such as '400 Gbps' or "
                                     "'50 GB/s' (got a plain number without a unit)");
}

TEST_CASE("negative GPU count", "[errors]") {
  const std::string text = default_with("gpus: 8064", "  gpus: -8");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "cluster.gpus");
  CHECK(e.value() == "-8");
  CHECK(std::string(e.what()) ==
        at(text, "gpus: -8") + "cluster.gpus: got '-8', expected an integer from 1 to 10000000");
}

TEST_CASE("a non-integer GPU count", "[errors]") {
  const std::string text = default_with("gpus: 8064", "  gpus: 80.5");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "cluster.gpus");
  CHECK_THAT(e.what(), Catch::Contains("expected a plain integer such as 64"));
}

TEST_CASE("range errors are shown in the user's unit", "[errors]") {
  const std::string text = default_with("flow_per_gpu:", "  flow_per_gpu: \"90 L/min\"");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "cooling.flow_per_gpu");
  CHECK_THAT(e.expected(), Catch::StartsWith("a volume flow from 0.05 L/min to 5 L/min ("));
  const ScenarioError t = error_of(default_with("facility_supply:", "  facility_supply: \"158 degF\""));
  CHECK(t.expected() == "a temperature from 32 degF to 140 degF");
}

TEST_CASE("range bounds are in the unit written, not another of its family", "[errors]") {
  // A time written in us or min had its bound autoscaled to ms ("from 0 min to 1 ms"), a size in
  // TiB to KiB ("to 976562500 KiB"): a unit the user did not write.
  struct Case {
    std::string find, line, expected;
  };
  for (const Case& c :
       {Case{"link_latency:", "  link_latency: \"2000 us\"", "a time from 0 us to 1000 us"},
        Case{"link_latency:", "  link_latency: \"1 min\"", "a time from 0 min to ~1.66667e-05 min (1 ms)"},
        Case{"link_latency:", "  link_latency: \"1e10 ns\"", "a time from 0 ns to 1000000 ns (1 ms)"},
        Case{"workload:", "workload:\n  memory_reserve: \"2 TiB\"", "a data size from 0 TiB to ~0.909495 TiB (1 TB)"},
        Case{"facility_supply:", "  facility_supply: \"400 K\"", "a temperature from 273.15 K to 333.15 K"}}) {
    const ScenarioError e = error_of(default_with(c.find, c.line));
    INFO(c.line);
    CHECK(e.expected() == c.expected);
  }
}

TEST_CASE("a coolant flow per GPU no cold plate takes is an error naming the plausible range and its source",
          "[errors]") {
  // 1 L/s per GPU is 60 L/min, ~60 x a cold plate's flow: it was accepted (the bound was 60 L/min).
  const std::string text = default_with("flow_per_gpu:", "  flow_per_gpu: \"1 L/s\"");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "cooling.flow_per_gpu");
  CHECK(e.value() == "1 L/s");
  CHECK(e.where().file == "bad.yaml");
  CHECK(e.where().line == line_of(text, "flow_per_gpu"));
  // 0.05 to 5 L/min in the unit written, marked as rounded and followed by the exact bound
  CHECK_THAT(e.expected(), Catch::StartsWith("a volume flow from ~0.000833333 L/s (0.05 L/min) to ~0.0833333 L/s "
                                             "(5 L/min) ("));
  CHECK_THAT(e.expected(), Catch::Contains("OCP OAI System Liquid Cooling Guidelines"));
  CHECK_THAT(e.what(), Catch::Contains("1 L/s"));
}

TEST_CASE("the flow band per GPU has cooling.flow_per_gpu's bound and source", "[errors]") {
  // flow_min / flow_max still took up to 60 L/min per GPU after flow_per_gpu was bounded at 5 L/min.
  for (const char* key : {"flow_min", "flow_max"}) {
    const std::string text = default_with("  limits:", std::string("  limits:\n    ") + key + ": \"6 L/min\"");
    const ScenarioError e = error_of(text);
    CHECK(e.key() == std::string("cooling.limits.") + key);
    CHECK(e.where().line == line_of(text, key));
    CHECK_THAT(e.expected(), Catch::Contains("to 5 L/min") &&
                                 Catch::Contains("OCP OAI System Liquid Cooling Guidelines (2023) Fig. 7-8"));
  }
  // the bound itself is accepted (5e-3 / 60 was one ulp below "5 L/min" as parsed)
  CHECK_NOTHROW(load_scenario_text(default_with("  limits:", "  limits:\n    flow_max: \"5 L/min\""), "ok.yaml"));
  CHECK_NOTHROW(load_scenario_text(default_with("flow_per_gpu:", "  flow_per_gpu: \"5 L/min\""), "ok.yaml"));
}

TEST_CASE("parallelism that does not multiply to the GPU count", "[errors]") {
  // Any factor may be the wrong one (tp 7 or dp 100 alike): the error points at the
  // workload.parallelism mapping and names the product with every key in it.
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"dp: 112", "    dp: 100"},
                                 std::pair<std::string, std::string>{"tp: 8 ", "    tp: 7"}}) {
    const std::string text = default_with(from, to);
    const ScenarioError e = error_of(text);
    CHECK(e.key() == "workload.parallelism");
    CHECK(e.where().line == line_of(text, "parallelism:"));
    CHECK(e.where().column == 3);
    CHECK_THAT(e.what(), Catch::StartsWith(at(text, "parallelism:") + "workload.parallelism: got 'tp "));
    CHECK_THAT(e.expected(), Catch::Contains("workload.parallelism.tp x .cp x .pp x .dp = cluster.gpus (8064)"));
  }

  // dp not written: the error points at the enclosing workload.parallelism mapping.
  const std::string no_dp = default_with("dp: 112", "");
  const ScenarioError d = error_of(no_dp);
  CHECK(d.where().line == line_of(no_dp, "parallelism:"));
  CHECK(d.where().column == 3);
}

TEST_CASE("a string not in its choices", "[errors]") {
  const std::string text = default_with("topology: clos3", "  topology: clos4");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "fabric.topology");
  CHECK(e.hint() == "did you mean 'clos3'?");
  CHECK(std::string(e.what()) ==
        at(text, "topology: clos4") +
            "fabric.topology: got 'clos4', expected one of leaf_spine, clos3; did you mean 'clos3'?");
}

TEST_CASE("a well-known synonym of a choice: did you mean the choice it stands for", "[errors]") {
  // A network architect's "fat_tree" is the 3-tier clos3 (edit distance alone suggests nothing).
  const std::string text = default_with("topology: clos3", "  topology: fat_tree");
  const ScenarioError e = error_of(text);
  CHECK(e.hint() == "did you mean 'clos3'? (a 3-tier fat tree; a 2-tier one is leaf_spine)");
  CHECK(std::string(e.what()) == at(text, "topology: fat_tree") +
                                     "fabric.topology: got 'fat_tree', expected one of leaf_spine, clos3; did you "
                                     "mean 'clos3'? (a 3-tier fat tree; a 2-tier one is leaf_spine)");
  CHECK(error_of(default_with("topology: clos3", "  topology: Spine-Leaf")).hint() ==
        "did you mean 'leaf_spine'? (a 2-tier Clos)");
  // The synonym before the closest spelling: zero3 is one edit from zero1, but ZeRO-3 is FSDP.
  CHECK_THAT(error_of(default_with("zero: zero1", "    zero: zero3")).hint(),
             Catch::StartsWith("did you mean 'fsdp'?"));
  CHECK(error_of(default_with("precision: bf16", "  precision: bfloat16")).hint() == "did you mean 'bf16'?");
  // A synonym of a value the field does not have is no hint there.
  CHECK(known_synonym("fat_tree", {"bf16", "fp8"}) == std::nullopt);
  CHECK(choice_hint("nonsense", {"leaf_spine", "clos3"}).empty());
}

TEST_CASE("YAML syntax errors carry yaml-cpp's mark", "[errors]") {
  const std::string text = default_with("switch_radix: 64", "  switch_radix: [64");
  const ScenarioError e = error_of(text);
  CHECK(e.key().empty());
  CHECK(e.where().line >= line_of(text, "switch_radix: [64"));
  CHECK_THAT(e.what(), Catch::StartsWith("bad.yaml:"));
  CHECK_THAT(e.what(), Catch::Contains("invalid YAML: "));

  const std::string tab = default_with("nvlink_domain: 72", "  nvlink_domain: 72\n    bad: indentation");
  const ScenarioError t = error_of(tab);
  CHECK(t.where().line == line_of(tab, "bad: indentation"));
  CHECK_THAT(t.what(), Catch::Contains("invalid YAML: "));
}

TEST_CASE("a tab in the indentation is named as the cause, at the tab", "[errors]") {
  // yaml-cpp says only "illegal map value" (or "end of map not found") at the key after the tab.
  const std::string text = default_with("  nvlink_domain: 72", "\tnvlink_domain: 72");
  const ScenarioError e = error_of(text);
  CHECK(e.where().line == line_of(text, "\tnvlink_domain: 72"));
  CHECK(e.where().column == 1);
  CHECK_THAT(e.what(), Catch::Contains("invalid YAML: a tab in the indentation; YAML indents with spaces only"));

  const std::string nested = default_with("    leaf: \"1:1\"", "  \t  leaf: \"1:1\"");
  const ScenarioError n = error_of(nested);
  CHECK(n.where().line == line_of(nested, "leaf: \"1:1\""));
  CHECK(n.where().column == 3);
  CHECK_THAT(n.what(), Catch::Contains("a tab in the indentation"));

  // A syntax error without a tab keeps yaml-cpp's own words.
  const std::string bracket = default_with("switch_radix: 64", "  switch_radix: [64");
  CHECK_THAT(error_of(bracket).what(), !Catch::Contains("tab"));
}

TEST_CASE("a document that is not a mapping", "[errors]") {
  CHECK_THAT(error_of("- a\n- b\n").what(), Catch::StartsWith("bad.yaml:1:1: invalid scenario"));
  CHECK_THAT(error_of("").what(), Catch::Contains("got nothing"));
}

TEST_CASE("missing required key points at its parent", "[errors]") {
  const std::string text = default_with("layers: 126", "");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "workload.model.layers");
  CHECK(e.value().empty());
  CHECK(e.where().line == line_of(text, "  model:"));
  CHECK(e.where().column == 3);
  CHECK(std::string(e.what()) ==
        at(text, "model:") +
            "workload.model.layers: got (nothing), expected a plain integer such as 64 (required key missing under "
            "'workload.model')");
}

TEST_CASE("a mapping where a value belongs, a value where a mapping belongs", "[errors]") {
  const ScenarioError m = error_of(default_with("switch_radix: 64", "  switch_radix: {ports: 64}"));
  CHECK(m.key() == "fabric.switch_radix");
  CHECK_THAT(m.what(), Catch::Contains("fabric.switch_radix: got a mapping {ports: 64}, expected"));
  CHECK(m.value() == "{ports: 64}");
  const ScenarioError v = error_of(test::comment_out(default_with("rdhx:", "  rdhx: 0.7"), "    effectiveness"));
  CHECK(v.key() == "cooling.rdhx");
  CHECK_THAT(v.what(), Catch::Contains("a mapping of keys under 'rdhx'"));
}

TEST_CASE("a list where a mapping or a value belongs: its kind and text, not (nothing)", "[errors]") {
  // the new-user trial's `cluster: [1,2]` said "got (nothing) ... (got a list)"
  const std::string text = default_with("cluster:", "cluster: [1,2]");
  const ScenarioError c = error_of(test::comment_out(
      test::comment_out(test::comment_out(test::comment_out(text, "  gpu: GB200"), "  gpus: 8064"), "  gpus_per_node:"),
      "  nvlink_domain:"));
  CHECK(c.key() == "cluster");
  CHECK(c.value() == "[1, 2]");
  CHECK_THAT(c.what(), Catch::Contains("cluster: got a list [1, 2], expected a mapping of keys under 'cluster'") &&
                           !Catch::Contains("(nothing)") && !Catch::Contains("(got a list)"));
  const ScenarioError g = error_of(default_with("  gpus: 8064", "  gpus: [1, 2]"));
  CHECK(g.key() == "cluster.gpus");
  CHECK_THAT(g.what(), Catch::Contains("cluster.gpus: got a list [1, 2], expected") && !Catch::Contains("(nothing)"));
  // a long list is cut
  std::string many = "[";
  for (int i = 0; i < 40; ++i) many += std::to_string(1000 + i) + ", ";
  many += "1]";
  CHECK_THAT(error_of(default_with("  gpus: 8064", "  gpus: " + many)).what(),
             Catch::Contains("got a list [1000, 1001,") && Catch::Contains("..., expected"));
}

TEST_CASE("a key written twice", "[errors]") {
  const std::string text = default_with("switch_radix: 64", "  switch_radix: 64\n  switch_radix: 32");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "fabric.switch_radix");
  CHECK(e.where().line == line_of(text, "switch_radix: 32"));
  CHECK_THAT(e.what(), Catch::Contains("each key once (already given at line " +
                                       std::to_string(line_of(text, "switch_radix: 64")) + ")"));
}

TEST_CASE("a model's cross-key check is reported at the key's location", "[errors]") {
  // Servers immersed in water: the plant's chip cooler needs a dielectric coolant.
  const std::string text = default_with("coolant:", "  coolant: water\n  plant:\n    chip: immersion_tank");
  const ScenarioError e = error_of(text);
  CHECK(e.key() == "cooling.coolant");
  CHECK(e.value() == "water");
  CHECK(e.where().line == line_of(text, "coolant: water"));
}

TEST_CASE("Scenario::locate maps a model's InvalidParameter to the nearest written key", "[errors]") {
  const Scenario s = load_default_scenario();
  const ScenarioError exact = s.locate(InvalidParameter("fabric.switch_radix", "64", "a power of two"));
  CHECK(exact.where().line == s.locations.at("fabric.switch_radix").line);
  CHECK_THAT(exact.what(), Catch::EndsWith(":3: fabric.switch_radix: got '64', expected a power of two"));
  const ScenarioError parent = s.locate(InvalidParameter("workload.parallelism.cp", "1", "a divisor of 8064"));
  CHECK(parent.where().line == s.locations.at("workload.parallelism").line);
  // A key whose sections are not in the file at all: the document's first key (`name:`).
  const ScenarioError nowhere = s.locate(InvalidParameter("rollout.phases[2].gpus", "9", "more GPUs"));
  CHECK(nowhere.where().line == s.locations.at("name").line);
  CHECK(nowhere.where().file == s.file);
  // Already located errors pass through unchanged.
  CHECK(std::string(s.locate(exact).what()) == exact.what());
}
