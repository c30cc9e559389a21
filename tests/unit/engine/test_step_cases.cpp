// The step cases of ../shared/cases/step/ (small inputs 0.1.0 got wrong), each with its right value,
// run end to end (scenario -> fabric -> SimGrid step -> breakdown).
#include <catch2/catch.hpp>

#include <string>

#include "models/common/errors.hpp"
#include "sim/engine/simulate.hpp"

using namespace aidcsim;
using Catch::Matchers::Contains;

namespace {

Results run_text(const std::string& text, const std::string& name) { return simulate(load_scenario_text(text, name)); }

/// Case 03 (aliyun/SimAI#270): 16 stages, 32 microbatches, dp = 1, balanced stages (tiny vocab).
std::string pp16(int v) {
  return "name: pp16-bubble\nseed: 1\ncluster: {gpu: H100, gpus: 16, gpus_per_node: 8, nvlink_domain: 8}\n"
         "fabric: {topology: leaf_spine, wiring: rail_optimized}\n"
         "workload:\n"
         "  model: {layers: 64, hidden: 4096, heads: 32, vocab: 1024, sequence_length: 2048, style: gpt}\n"
         "  parallelism: {tp: 1, pp: 16, dp: 1, virtual_stages: " +
         std::to_string(v) +
         "}\n"
         "  global_batch: 32\n"
         "training: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
}

}  // namespace

TEST_CASE("case step/03: the pipeline drain is bubble, never DP (dp = 1)", "[engine][cases]") {
  // Expected (case header, SC21 §2.2): bubble = (p - 1)/(v m) of the compute, exposed DP = 0.
  for (int v : {1, 2, 4}) {
    const Results r = run_text(pp16(v), "pp16-bubble.yaml");
    const double compute = r.scalar("step_compute"), bubble = r.scalar("step_bubble");
    INFO("v = " << v << ": bubble " << bubble << " s, compute " << compute << " s");
    CHECK(r.scalar("step_exposed_dp") == 0.0);
    // v = 4 puts one layer per virtual stage: a 0.1 ms forward, while the 16 MB activation send
    // across the node boundary takes 0.36 ms; the delays it causes downstream are bubble (+13 %)
    CHECK(bubble / compute == Approx(15.0 / (v * 32.0)).epsilon(v < 4 ? 0.05 : 0.15));
    CHECK(r.scalar("step_time") == Approx(compute + bubble + r.scalar("step_exposed_pp")).epsilon(1e-9));
    bool no_dp_note = false;
    for (const auto& n : r.notes) no_dp_note |= n.find("no DP traffic") != std::string::npos;
    CHECK(no_dp_note);
  }
}

TEST_CASE("case step/17: interleaving needs microbatches a multiple of pp (Megatron-core's rule)", "[engine][cases]") {
  // pp 4, v 2, m 6: Megatron-core refuses it (schedules.py: 0 < m mod N < pp with N = pp).
  std::string text =
      "name: pp4-v2-m6\nseed: 1\ncluster: {gpu: H100, gpus: 4, gpus_per_node: 4, nvlink_domain: 4}\n"
      "fabric: {topology: leaf_spine}\n"
      "workload:\n"
      "  model: {layers: 16, hidden: 4096, heads: 32, vocab: 1024, sequence_length: 2048, style: gpt}\n"
      "  parallelism: {tp: 1, pp: 4, dp: 1, virtual_stages: 2}\n"
      "  global_batch: 6\n"
      "training: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
  CHECK_THROWS_WITH(load_scenario_text(text, "pp4-v2-m6.yaml"), Contains("workload.global_batch") && Contains("8"));
  // m = 8 = 2 pp: the interleaved bubble (p - 1)/(v m) = 3/16 of the compute
  std::string m8 = text;
  m8.replace(m8.find("global_batch: 6"), 15, "global_batch: 8");
  const Results r8 = run_text(m8, "pp4-v2-m8.yaml");
  CHECK(r8.scalar("step_bubble") / r8.scalar("step_compute") == Approx(3.0 / 16).epsilon(0.1));
  CHECK(r8.scalar("step_exposed_dp") == 0.0);
  // m = 6 as one group of 6 (microbatch_group_size: 6, Megatron-core accepts it): interleaved
  // bubble ~ (p - 1)/(v m) = 0.25, not the 1F1B bubble (p - 1)/m = 0.5
  const auto par = text.find("virtual_stages: 2}");
  text.replace(par, 18, "virtual_stages: 2, microbatch_group_size: 6}");
  const Results r6 = run_text(text, "pp4-v2-m6-n6.yaml");
  const double ratio = r6.scalar("step_bubble") / r6.scalar("step_compute");
  INFO("bubble / compute with N = 6: " << ratio);
  CHECK(ratio < 0.35);
  CHECK(ratio > 0.2);
}

TEST_CASE("case step/01: dp_algorithm acts on the DP traffic, or is refused where it cannot", "[engine][cases]") {
  // astra-sim/astra-sim#207: 0.1.0 gave bit-identical steps for every dp_algorithm under zero1.
  auto text = [](const std::string& zero, const std::string& alg) {
    return "name: dp-algo\nseed: 1\ncluster: {gpu: H100, gpus: 256, gpus_per_node: 8, nvlink_domain: 8}\n"
           "fabric: {topology: leaf_spine, wiring: rail_optimized" +
           std::string(alg == "sharp" ? ", sharp: true" : "") +
           "}\n"  // fabric.sharp is read by the sharp DP algorithm only (refused with the others)
           "workload:\n"
           "  model: {layers: 32, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048, style: gpt}\n"
           "  parallelism: {tp: 8, pp: 1, dp: 32, zero: " +
           zero + ", dp_algorithm: " + alg +
           "}\n"
           "  global_batch: 256\n"
           "training: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
  };
  // zero: none: the all-reduce runs the algorithm asked for (header: ring 0.3117 s, sharp 0.2774 s;
  // now 0.374 s and 0.341 s with the fabric's in-network reduction, fabric.sharp)
  const double ring = run_text(text("none", "ring"), "a.yaml").scalar("step_time");
  const double sharp = run_text(text("none", "sharp"), "b.yaml").scalar("step_time");
  CHECK(sharp < 0.97 * ring);
  // zero1: reduce-scatter + all-gather; ring is modelled (= auto across domains), sharp is refused
  // naming the key, instead of silently running ring
  CHECK(run_text(text("zero1", "ring"), "c.yaml").scalar("step_time") ==
        run_text(text("zero1", "auto"), "d.yaml").scalar("step_time"));
  // (nvls and pat implement reduce-scatter / all-gather: accepted here, checked against the GPUs at run time)
  for (const char* alg : {"sharp", "tree", "hierarchical", "halving_doubling"}) {
    INFO(alg);
    CHECK_THROWS_WITH(load_scenario_text(text("zero1", alg), "e.yaml"),
                      Contains("workload.parallelism.dp_algorithm") && Contains("reduce-scatter"));
    CHECK_THROWS_WITH(load_scenario_text(text("fsdp", alg), "f.yaml"), Contains("workload.parallelism.dp_algorithm"));
  }
}

TEST_CASE("case step/10: a straggler GPU slows the synchronous step", "[engine][cases]") {
  // astra-sim/astra-sim#292, #73: one GPU at 90 % speed slows the step by about (1/0.9 - 1) of its
  // compute share (the DP reduction it overlaps may hide a little of it).
  auto text = [](const std::string& speed) {
    return "name: straggler\nseed: 1\ncluster: {gpu: H100, gpus: 64, gpus_per_node: 8, nvlink_domain: 8" + speed +
           "}\nfabric: {topology: leaf_spine}\n"
           "workload:\n"
           "  model: {layers: 32, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
           "  parallelism: {tp: 8, dp: 8}\n"
           "  global_batch: 64\n"
           "training: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
  };
  const Results base = run_text(text(""), "base.yaml");
  const Results slow = run_text(text(", gpu_speed: [{gpu: 5, factor: 0.9}]"), "straggler.yaml");
  const double compute = base.scalar("step_compute");
  CHECK(slow.scalar("step_compute") == Approx(compute / 0.9).epsilon(1e-6));
  CHECK(slow.scalar("step_time") - base.scalar("step_time") == Approx(compute * (1 / 0.9 - 1)).epsilon(0.15));
  CHECK(slow.scalar("min_gpu_speed") == Approx(90.0));
  // the whole node at 0.9 is the same for a TP-8 job whose TP group is that node
  const Results node = run_text(text(", gpu_speed: [{node: 0, factor: 0.9}]"), "node.yaml");
  CHECK(node.scalar("step_time") == Approx(slow.scalar("step_time")).epsilon(1e-9));
  // a seeded distribution: same seed, same step; a 2 % spread slows the step (its slowest GPU paces it)
  const std::string spread = ", gpu_speed_distribution: {kind: normal, mean: 1.0, sd: 0.02, min: 0.8, max: 1.2}";
  const double d1 = run_text(text(spread), "d1.yaml").scalar("step_time");
  CHECK(run_text(text(spread), "d2.yaml").scalar("step_time") == d1);
  CHECK(d1 > base.scalar("step_time"));
  CHECK_THROWS_WITH(load_scenario_text(text(", gpu_speed: [{gpu: 64, factor: 0.9}]"), "bad.yaml"),
                    Contains("cluster.gpu_speed[0].gpu"));
}
