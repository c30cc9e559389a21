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

std::string h100(const std::string& cluster_extra, const std::string& precision,
                 const std::string& parallelism = "{tp: 8, dp: 8}", const std::string& workload_extra = "") {
  return "name: bound\nseed: 1\ncluster: {gpu: H100, gpus: 64, gpus_per_node: 8, nvlink_domain: 8" + cluster_extra +
         "}\nfabric: {topology: leaf_spine}\n"
         "workload:\n"
         "  model: {layers: 32, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
         "  parallelism: " +
         parallelism + "\n  global_batch: 64\n  precision: " + precision + "\n" + workload_extra +
         "training: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
}

}  // namespace

TEST_CASE("the step time's lower bound is below the simulated step", "[engine][monte_carlo_bound]") {
  // FP8 (the larger peak), a GPU at 1.5x nominal speed (cluster.gpu_speed goes to 2), pipelines
  // (1F1B, interleaved, uneven first / last stages) with full or selective recomputation and
  // Megatron-2021 attention, a GPU at 0.7x (the slow stage sets the step), and the 8K scenario.
  const std::string pp4 = "{tp: 2, pp: 4, dp: 8}";
  for (const std::string& text :
       {h100("", "bf16"), h100("", "fp8"), h100(", gpu_speed: [{gpu: 3, factor: 1.5}]", "bf16"),
        h100("", "bf16", pp4, "  activation_recompute: true\n"),
        h100("", "bf16", "{tp: 2, pp: 4, dp: 8, virtual_stages: 2}", "  microbatch_size: 2\n"),
        h100("", "bf16", "{tp: 2, pp: 4, dp: 8, first_stage_layers: 6, last_stage_layers: 6}"),
        h100("", "bf16", pp4, "  attention: fused_softmax\n  recompute_granularity: selective\n"),
        h100(", gpu_speed: [{gpu: 40, factor: 0.7}]", "bf16", pp4), std::string(default_scenario_text())}) {
    const Scenario s = load_scenario_text(text, "bound.yaml");
    const double bound = step_time_lower_bound(s, s.job);
    const double step = simulate(s).scalar("step_time");
    INFO(s.name << " " << s.job.precision << " pp " << s.job.par.pp << ": bound " << bound << " s, simulated step "
                << step << " s");
    CHECK(bound > 0);
    CHECK(bound < step);
  }
  // Close to the step where the network is not the larger part: the 8K scenario's step is 5.32 s,
  // its compute on the critical path 3.81 s (the layers' GEMM FLOPs at the peak gave 1.97 s).
  const Scenario k8 = load_scenario_text(default_scenario_text(), "8k.yaml");
  CHECK(step_time_lower_bound(k8, k8.job) > 0.7 * simulate(k8).scalar("step_time"));
  // The fastest GPU's speed scales the bound: 1.5x the speed, 1/1.5 of the bound.
  const Scenario a = load_scenario_text(h100("", "bf16"), "a.yaml");
  const Scenario b = load_scenario_text(h100(", gpu_speed: [{gpu: 3, factor: 1.5}]", "bf16"), "b.yaml");
  CHECK(step_time_lower_bound(b, b.job) == Approx(step_time_lower_bound(a, a.job) / 1.5).epsilon(1e-12));
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
  // A refusal naming a least value to write (here async_stall) is the bound's value, maybe not
  // enough: validate says so; run (defer_named_values) leaves it to the check after the step.
  const Scenario tiny = load_scenario_text(base + "\nreliability:\n  async_stall: \"1e-320 s\"\n", "tiny.yaml");
  CHECK_THROWS_WITH(check_monte_carlo_before_step(tiny),
                    Contains("an async_stall of at least") && Contains("a least value named above is a lower limit"));
  CHECK(check_monte_carlo_before_step(tiny, true) == MonteCarloBound::deferred);
  // run refuses it after the step, naming the value the simulated step needs; the failures counted
  // before the step are the run's (its fabric's switches and cables too: job MTBF 5.47 h, not 6.12 h).
  const auto mtbf = [](const std::string& message) {
    const auto at = message.find("job MTBF of ");
    return at == std::string::npos ? std::string("none") : message.substr(at, message.find_first_of(",)", at) - at);
  };
  std::string before, after;
  try {
    check_monte_carlo_before_step(tiny);
  } catch (const InvalidParameter& e) {
    before = e.expected();
  }
  try {
    simulate(tiny);
  } catch (const ScenarioError& e) {
    after = e.what();
  }
  CHECK_THAT(after, Contains("reliability.async_stall") && Contains("an async_stall of at least") &&
                        !Contains("lower bound of the step time"));
  CHECK(mtbf(before) == mtbf(after));
  CHECK(mtbf(after) != "none");
  CHECK_THROWS_WITH(check_monte_carlo_before_step(big, true), Contains("lower bound of the step time"));
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
