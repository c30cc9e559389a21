// The Monte Carlo's size checked before the step (sim/engine/monte_carlo_bound.hpp): the step
// time's lower bound is below the simulated step, and a Monte Carlo over the budget even with it
// is refused before simulating, naming the key time_to_train names.
#include <catch2/catch.hpp>

#include <string>

#include "models/common/errors.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/monte_carlo_bound.hpp"
#include "sim/engine/simulate.hpp"
#include "sim/scenario/default_scenario.hpp"

using namespace aidcsim;
using Catch::Matchers::Contains;

namespace {

std::string h100(const std::string& cluster_extra, const std::string& precision) {
  return "name: bound\nseed: 1\ncluster: {gpu: H100, gpus: 64, gpus_per_node: 8, nvlink_domain: 8" + cluster_extra +
         "}\nfabric: {topology: leaf_spine}\n"
         "workload:\n"
         "  model: {layers: 32, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
         "  parallelism: {tp: 8, dp: 8}\n"
         "  global_batch: 64\n"
         "  precision: " +
         precision + "\ntraining: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
}

}  // namespace

TEST_CASE("the step time's lower bound is below the simulated step", "[engine][monte_carlo_bound]") {
  // FP8 (the larger peak), a GPU at 1.5x nominal speed (cluster.gpu_speed goes to 2), and the 8K scenario.
  for (const std::string& text :
       {h100("", "bf16"), h100("", "fp8"), h100(", gpu_speed: [{gpu: 3, factor: 1.5}]", "bf16"),
        std::string(default_scenario_text())}) {
    const Scenario s = load_scenario_text(text, "bound.yaml");
    const double bound = step_time_lower_bound(s, s.job, s.fabric.gpus);
    const double step = simulate(s).scalar("step_time");
    INFO(s.name << " " << s.job.precision << ": bound " << bound << " s, simulated step " << step << " s");
    CHECK(bound > 0);
    CHECK(bound < step);
  }
  // The fastest GPU's speed scales the bound: 1.5x the speed, 1/1.5 of the bound.
  const Scenario a = load_scenario_text(h100("", "bf16"), "a.yaml");
  const Scenario b = load_scenario_text(h100(", gpu_speed: [{gpu: 3, factor: 1.5}]", "bf16"), "b.yaml");
  CHECK(step_time_lower_bound(b, b.job, 64) == Approx(step_time_lower_bound(a, a.job, 64) / 1.5).epsilon(1e-12));
}

TEST_CASE("a Monte Carlo over the budget with the bound is refused before the step", "[engine][monte_carlo_bound]") {
  const std::string base = default_scenario_text();
  CHECK(check_monte_carlo_before_step(load_scenario_text(base, "ok.yaml")) == MonteCarloBound::checked);
  const Scenario big = load_scenario_text(base + "\nreliability:\n  draws: 1000000\n", "big.yaml");
  try {
    check_monte_carlo_before_step(big);
    FAIL("not refused");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "training.tokens");
    CHECK_THAT(e.expected(), Contains("1000000 draws") && Contains("fewer reliability.draws") &&
                                 Contains("checked before simulating the step, with a lower bound of the step time"));
  }
  // run refuses it located, before any step (the same error as validate's).
  CHECK_THROWS_WITH(simulate(big), Contains("big.yaml:") && Contains("training.tokens: got '15T'") &&
                                       Contains("lower bound of the step time"));
  // With storage on the fabric the simulated write sets the checkpoint stall: not checked here.
  const std::string storage = base;
  const Scenario st = load_scenario_text(
      std::string(storage).replace(storage.find("fabric:\n"), 8,
                                   "fabric:\n  storage: {nodes: 4, write_bandwidth: \"20 GB/s\", read_bandwidth: "
                                   "\"40 GB/s\"}\n") +
          "\nreliability:\n  draws: 1000000\n",
      "storage.yaml");
  CHECK(check_monte_carlo_before_step(st) == MonteCarloBound::storage_fabric);
}
