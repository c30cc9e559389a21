// Keys a choice of another key leaves unread (sim/scenario/keys_in_use.cpp): an error at the key's
// line, not a run bit-identical to one without it. Case step/01's kind (dp_algorithm with zero1:
// an option silently ignored in combination, ../shared/cases/step/01-dp-algorithm-ignored-with-zero1.yaml);
// on 1e9e09c each of these validated and gave the same summary, figure for figure, as the bundled
// 8K scenario without the key.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "scenario_text.hpp"
#include "sim/scenario/default_scenario.hpp"
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

namespace {
// `key` refused at the line of `line_text`, with the condition that reads it said: keys whose
// reader is a list item's choice or a number's sign (keys_in_use.cpp, conditions()). On 0abac4e
// each validated and ran identical to the 8K scenario without it but for the --set note.
void check_condition(const std::string& text, const std::string& line_text, const std::string& key,
                     const std::string& when) {
  try {
    load_scenario_text(text, "k.yaml");
    FAIL("loaded: " << key << " unread unless " << when);
  } catch (const ScenarioError& e) {
    CHECK(e.key() == key);
    CHECK(e.where().line == line_of(text, line_text));
    CHECK_THAT(e.what(), Catch::Contains(key + ": got") && Catch::Contains("expected no " + key + " unless " + when) &&
                             Catch::Contains("would be ignored"));
  }
}

const std::string kSensor =
    "  sensors:\n    - {type: temperature, location: GPU inlet, threshold: 45.0, alert_level: warning}\n";
std::string with_policy(const std::string& actions, const std::string& more) {
  return std::string(default_scenario_text()) + "\ncooling_monitoring:\n" + kSensor + "  response_actions:\n" +
         actions + more;
}
const std::string kCduLoss = "  faults:\n    - {type: cdu_loss, target: 0, at: \"6 h\", duration: \"10 min\"}\n";
/// `text` with the line holding `needle` replaced by `by` (from the needle on).
std::string replaced(std::string text, const std::string& needle, const std::string& by) {
  text.replace(text.find(needle), needle.size(), by);
  return text;
}
std::string with_reliability(const std::string& lines) {
  return std::string(default_scenario_text()) + "\nreliability:\n" + lines;
}
}  // namespace

TEST_CASE("a key no item or value of its reader's list or count reads is an error at its line",
          "[loader][keys_in_use]") {
  // The GPU power cap of 'reduce GPU power limit', without that action.
  check_condition(with_policy("    - {alert_level: warning, action: notify}\n", "  power_limit_fraction: 0.5\n"),
                  "power_limit_fraction:", "cooling_monitoring.power_limit_fraction",
                  "a cooling_monitoring.response_actions[] item has action 'reduce GPU power limit'");
  // The air fallback's switch time without a cdu_loss fault (its only reader), with or without faults.
  check_condition(with_cooling("  air_fallback:\n    switch_time: \"5 s\"\n"),
                  "switch_time:", "cooling.air_fallback.switch_time", "a cooling.faults[] item has type cdu_loss");
  check_condition(
      with_cooling("  air_fallback:\n    switch_time: \"5 s\"\n  faults:\n    - {type: supply_excursion, magnitude: "
                   "\"3 K\", at: \"6 h\", duration: \"1 h\"}\n"),
      "switch_time:", "cooling.air_fallback.switch_time", "a cooling.faults[] item has type cdu_loss");
  // The repair time with unlimited spares (the default and written).
  check_condition(with_reliability("  repair_time: \"2 h\"\n"), "repair_time:", "reliability.repair_time",
                  "reliability.hot_spares is 0 or more");
  check_condition(with_reliability("  hot_spares: -1\n  repair_time: \"2 h\"\n"),
                  "repair_time:", "reliability.repair_time", "reliability.hot_spares is 0 or more");
  // In-network reduction with a DP algorithm that does not use it: the bundled zero1 runs auto (ring
  // across NVLink domains), and tree with zero: none.
  const std::string sharp = default_with("  ecmp:", "  sharp: true\n  ecmp:");
  check_condition(sharp, "sharp: true", "fabric.sharp",
                  "workload.parallelism.dp_algorithm (or a jobs[] entry's) is sharp or nvls");
  check_condition(replaced(sharp, "    zero: zero1", "    zero: none\n    dp_algorithm: tree\n#"), "sharp: true",
                  "fabric.sharp", "workload.parallelism.dp_algorithm (or a jobs[] entry's) is sharp or nvls");
}

TEST_CASE("the same keys with what reads them load", "[loader][keys_in_use]") {
  CHECK_NOTHROW(load_scenario_text(
      with_policy("    - {alert_level: warning, action: reduce GPU power limit}\n", "  power_limit_fraction: 0.5\n"),
      "ok.yaml"));
  CHECK_NOTHROW(load_scenario_text(with_cooling("  air_fallback:\n    switch_time: \"5 s\"\n" + kCduLoss), "ok.yaml"));
  CHECK_NOTHROW(load_scenario_text(with_reliability("  hot_spares: 0\n  repair_time: \"2 h\"\n"), "ok.yaml"));
  const std::string sharp = default_with("  ecmp:", "  sharp: true\n  ecmp:");
  CHECK_NOTHROW(
      load_scenario_text(replaced(sharp, "    zero: zero1", "    zero: none\n    dp_algorithm: sharp\n#"), "ok.yaml"));
  // fabric.sharp: false says what the model does anyway: no error.
  CHECK_NOTHROW(load_scenario_text(default_with("  ecmp:", "  sharp: false\n  ecmp:"), "ok.yaml"));
}

TEST_CASE("a workload key its selector leaves unread is an error in a jobs: entry too", "[loader][keys_in_use]") {
  // 0abac4e checked the table's workload rows for `workload:` only: a job's ddp_bucket_size without
  // overlap_param_gather ran identical to the job without it.
  const std::string job =
      "  - name: a\n"
      "    model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
      "    parallelism: {tp: 8, dp: 8, zero: zero1PAR}\n"
      "    global_batch: 8\n";
  auto jobs = [&](const std::string& a, const std::string& b) {
    auto with = [&](std::string j, const std::string& name, const std::string& par) {
      j.replace(j.find("name: a"), 7, "name: " + name);
      return j.replace(j.find("PAR"), 3, par);
    };
    return "name: two-jobs\nseed: 3\ncluster: {gpu: H100, gpus: 128, gpus_per_node: 8, nvlink_domain: 8}\n"
           "fabric: {topology: leaf_spine, wiring: rail_optimized, switch_radix: 16, link_rate: \"100 Gbps\", "
           "nic_rate: \"400 Gbps\"}\njobs:\n" +
           with(job, "a", a) + with(job, "b", b) + "training: {tokens: \"10B\"}\n";
  };
  std::string text = jobs("", ", ddp_bucket_size: 100M");
  try {
    load_scenario_text(text, "jobs.yaml");
    FAIL("loaded: jobs[1].parallelism.ddp_bucket_size without overlap_param_gather");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "jobs[1].parallelism.ddp_bucket_size");
    CHECK(e.where().line == line_of(text, "ddp_bucket_size"));
    CHECK_THAT(e.what(), Catch::Contains("expected no jobs[1].parallelism.ddp_bucket_size unless "
                                         "jobs[1].parallelism.overlap_param_gather is true (it is 'false'"));
  }
  text = jobs(", overlap_param_gather: true, param_gather_buckets: layer, ddp_bucket_size: 100M", "");
  try {
    load_scenario_text(text, "jobs.yaml");
    FAIL("loaded: jobs[0].parallelism.ddp_bucket_size with param_gather_buckets layer");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "jobs[0].parallelism.ddp_bucket_size");
    CHECK_THAT(e.what(), Catch::Contains("unless jobs[0].parallelism.param_gather_buckets is size (it is 'layer'"));
  }
  CHECK_NOTHROW(load_scenario_text(jobs(", overlap_param_gather: true, ddp_bucket_size: 100M", ""), "ok.yaml"));
  // fabric.sharp read by a job's DP algorithm only.
  text = jobs("", "");
  text.replace(text.find("nic_rate"), 0, "sharp: true, ");
  CHECK_THROWS_AS(load_scenario_text(text, "jobs.yaml"), ScenarioError);
  text = jobs("", "");
  text.replace(text.find("nic_rate"), 0, "sharp: true, ");
  const auto z = text.rfind("zero: zero1");
  text.replace(z, 11, "zero: none, dp_algorithm: sharp");
  CHECK_NOTHROW(load_scenario_text(text, "ok.yaml"));
}

TEST_CASE("a key a jobs: scenario leaves unread is an error at its line", "[loader][keys_in_use]") {
  // d097d0b ran each of these in a two-job scenario with every result identical to the run without
  // it (power, thermal, cooling, the fabric's BOM and storage writes, stragglers: one job's models),
  // with only the run's note that power, thermal and cooling are not simulated.
  const std::string base =
      "name: two-jobs\nseed: 3\ncluster: {gpu: H100, gpus: 128, gpus_per_node: 8, nvlink_domain: 8CLUSTER}\n"
      "fabric: {topology: leaf_spine, wiring: rail_optimized, switch_radix: 16, link_rate: \"100 Gbps\", "
      "nic_rate: \"400 Gbps\"FABRIC}\njobs:\n"
      "  - name: a\n"
      "    model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
      "    parallelism: {tp: 8, dp: 8}\n"
      "    global_batch: 8\n"
      "training: {tokens: \"10B\"}\n";
  auto with = [&](const std::string& cluster, const std::string& fabric, const std::string& more) {
    std::string t = replaced(replaced(base, "CLUSTER", cluster), "FABRIC", fabric);
    return t + more;
  };
  CHECK_NOTHROW(load_scenario_text(with("", "", ""), "ok.yaml"));
  struct Case {
    std::string text, line, key, value, why;
  };
  const Case cases[] = {
      {with("", "", "cooling:\n  facility_supply: \"20 degC\"\n  crah:\n    capacity: \"1 MW\"\n"), "facility_supply",
       "cooling.facility_supply", "20 degC", "power, thermal and cooling are not simulated for several jobs"},
      {with("", "", "cooling:\n  plant: {rack: in_row_cooler}\n  in_row_cooler: {capacity: \"30 kW\"}\n"),
       "plant:", "cooling.plant.rack", "in_row_cooler", "power, thermal and cooling are not simulated"},
      {with("", "", "power:\n  cpu_per_gpu: \"300 W\"\n"), "cpu_per_gpu", "power.cpu_per_gpu", "300 W",
       "power, thermal and cooling are not simulated"},
      {with("", "",
            "cooling_monitoring:\n" + kSensor +
                "  response_actions:\n    - {alert_level: warning, action: reduce GPU power limit}\n"
                "  power_limit_fraction: 0.5\n"),
       "sensors:", "cooling_monitoring.sensors", "1 item", "power, thermal and cooling are not simulated"},
      {with("", "", "bom:\n  nic: {price: \"900 USD\"}\n"), "price:", "bom.nic.price", "900 USD",
       "the fabric's bill of materials, power and cost are not computed"},
      {with(", gpu_speed: [{gpu: 3, factor: 0.5}]", "", ""), "nvlink_domain", "cluster.gpu_speed", "1 item",
       "stragglers are not applied"},
      {with(", gpu_speed_distribution: {kind: uniform, min: 0.9, max: 1.0}", "", ""), "nvlink_domain",
       "cluster.gpu_speed_distribution.kind", "uniform", "stragglers are not applied"},
      {with("", ", storage: {nodes: 2, write_bandwidth: \"20 GB/s\", read_bandwidth: \"40 GB/s\"}", ""),
       "topology:", "fabric.storage.nodes", "2", "checkpoint writes are not simulated on the fabric for several jobs"},
  };
  for (const Case& c : cases) {
    INFO(c.key);
    try {
      load_scenario_text(c.text, "jobs.yaml");
      FAIL("loaded: " << c.key << " with jobs:");
    } catch (const ScenarioError& e) {
      CHECK(e.key() == c.key);
      CHECK(e.where().line == line_of(c.text, c.line));
      CHECK_THAT(e.what(), Catch::Contains(c.key + ": got '" + c.value + "'") &&
                               Catch::Contains("expected no " + c.key + " with jobs: (" + c.why) &&
                               Catch::Contains("the key would be ignored"));
    }
  }
}

TEST_CASE("training.batch_schedule is an error at its line with jobs:", "[loader][keys_in_use]") {
  // fc89ff7 simulated each job's step at its own global_batch only: the schedule changed nothing,
  // or with a convergence model priced every batch at that one batch's tokens/s, silently.
  const std::string base =
      "name: two-jobs\ncluster: {gpu: H100, gpus: 128, gpus_per_node: 8, nvlink_domain: 8}\n"
      "fabric: {topology: leaf_spine, wiring: rail_optimized, switch_radix: 16}\njobs:\n"
      "  - name: a\n"
      "    model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
      "    parallelism: {tp: 8, dp: 8}\n"
      "    global_batch: 64\n"
      "training:\n  tokens: \"10B\"\n";
  CHECK_NOTHROW(load_scenario_text(base, "ok.yaml"));
  const std::string text = base +
                           "  batch_schedule:\n"
                           "    - {after_tokens: 0, global_batch: 65536}\n"
                           "    - {after_tokens: \"1B\", global_batch: 131072}\n";
  try {
    load_scenario_text(text, "jobs.yaml");
    FAIL("loaded: training.batch_schedule with jobs:");
  } catch (const ScenarioError& e) {
    CHECK(e.key() == "training.batch_schedule");
    CHECK(e.where().line == line_of(text, "batch_schedule:"));
    CHECK_THAT(e.what(), Catch::Contains("training.batch_schedule: got '2 items'") &&
                             Catch::Contains("expected no training.batch_schedule with jobs: (each job's step is "
                                             "simulated at its own global_batch only") &&
                             Catch::Contains("with training.convergence change time_to_train"));
  }
  // The same schedule in a one-job scenario is read (the step is simulated at each batch).
  const std::string one =
      "name: one-job\ncluster: {gpu: H100, gpus: 128, gpus_per_node: 8, nvlink_domain: 8}\n"
      "fabric: {topology: leaf_spine, wiring: rail_optimized, switch_radix: 16}\nworkload:\n"
      "  model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
      "  parallelism: {tp: 8, dp: 16}\n"
      "  global_batch: 64\n" +
      text.substr(text.find("training:"));
  CHECK_NOTHROW(load_scenario_text(one, "one.yaml"));
}
