// The power model's GPU load from a simulated step: the partition of the step (compute, exposed
// communication, bubble), so communication hidden under compute adds no power, and each GPU's
// power is the closed form of its parts.
#include <catch2/catch.hpp>

#include <string>

#include "sim/engine/simulate.hpp"
#include "tests/unit/engine/result_dataset.hpp"

using namespace aidcsim;

namespace {

/// A ~0.5 B-parameter GPT, one microbatch of 2,048 tokens per GPU, on `dp` H100 of one NVLink
/// domain: with dp 2 the gradients' all-reduce runs over NVLink bucket by bucket under the backward,
/// and only its last bucket is waited on.
std::string dp_job(int dp) {
  const std::string n = std::to_string(dp);
  return "name: dp-overlap\nseed: 1\ncluster: {gpu: H100, gpus: " + n + ", gpus_per_node: " + n +
         ", nvlink_domain: " + n +
         "}\nfabric: {topology: leaf_spine}\n"
         "workload:\n"
         "  model: {layers: 8, hidden: 2048, heads: 16, vocab: 32000, sequence_length: 2048, style: gpt}\n"
         "  parallelism: {tp: 1, pp: 1, dp: " +
         n + "}\n  global_batch: " + n + "\ntraining: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
}

/// Pure pipeline (test_stage_fractions.cpp): pp 4, dp = tp = 1, 8 microbatches; a bubble of ~3/11.
const char* kPipeline =
    "name: pp4-bubble\nseed: 1\ncluster: {gpu: H100, gpus: 4, gpus_per_node: 4, nvlink_domain: 4}\n"
    "fabric: {topology: leaf_spine}\n"
    "workload:\n"
    "  model: {layers: 16, hidden: 4096, heads: 32, vocab: 1024, sequence_length: 2048, style: gpt}\n"
    "  parallelism: {tp: 1, pp: 4, dp: 1}\n"
    "  global_batch: 8\n"
    "training: {tokens: \"1T\"}\nreliability: {draws: 10}\n";

using test::dataset;

/// s per step of exposed communication: /step/breakdown's exposed TP, PP, DP, CP, EP.
double exposed(const Results& r) {
  const auto& b = dataset(r, "/step/breakdown").data;  // compute, exposed_{tp,pp,dp,cp,ep}, bubble
  return b[1] + b[2] + b[3] + b[4] + b[5];
}

/// P = idle + (TDP - idle) (compute + k_comm exposed), W: the closed form of a partition.
double closed_form(const Scenario& sc, double compute, double comm) {
  return sc.gpu.idle_power + (sc.gpu.tdp - sc.gpu.idle_power) * (compute + sc.cooling.power.comm_factor * comm);
}

}  // namespace

TEST_CASE("GPU power: DP communication hidden under compute adds no energy, only its exposed tail",
          "[engine][gpu_load]") {
  const Scenario s1 = load_scenario_text(dp_job(1), "dp1.yaml"), s2 = load_scenario_text(dp_job(2), "dp2.yaml");
  const Results alone = simulate(s1), overlapped = simulate(s2);
  const double step1 = alone.scalar("step_time"), step2 = overlapped.scalar("step_time");
  const double tail = exposed(overlapped);
  // the same compute per GPU; the dp-2 step is longer by its exposed DP alone
  REQUIRE(overlapped.scalar("step_compute") == Approx(alone.scalar("step_compute")).epsilon(1e-12));
  REQUIRE(exposed(alone) == 0.0);
  REQUIRE(tail > 0.0);
  REQUIRE(tail < 0.15 * step2);
  CHECK(step2 == Approx(step1 + tail).epsilon(1e-9));
  const double p1 = dataset(alone, "/thermal/gpu_power").data[0];
  const double p2 = dataset(overlapped, "/thermal/gpu_power").data[0];
  CHECK(p1 == Approx(s1.gpu.tdp).epsilon(1e-12));  // computing all the step
  // energy per step: compute alone, plus the exposed tail at the communication power
  const double p_comm = closed_form(s2, 0, 1);
  INFO("alone " << p1 << " W x " << step1 << " s; overlapped " << p2 << " W x " << step2 << " s; exposed " << tail
                << " s at " << p_comm << " W");
  CHECK(p2 * step2 == Approx(p1 * step1 + p_comm * tail).epsilon(1e-9));
  // the load the summary reports is the partition
  CHECK(overlapped.scalar("gpu_compute_busy") == Approx(overlapped.scalar("step_compute") / step2).epsilon(1e-12));
  CHECK(overlapped.scalar("gpu_comm_busy") == Approx(tail / step2).epsilon(1e-12));
}

TEST_CASE("GPU power: a pipeline's bubble is idle, its exposed sends at the communication power",
          "[engine][gpu_load]") {
  const Scenario sc = load_scenario_text(kPipeline, "pp4.yaml");
  const Results r = simulate(sc);
  const double step = r.scalar("step_time");
  const double c = r.scalar("step_compute") / step, e = exposed(r) / step, b = r.scalar("step_bubble") / step;
  REQUIRE(b > 0.2);
  CHECK(c + e + b == Approx(1.0).epsilon(1e-12));
  CHECK(r.scalar("gpu_compute_busy") == Approx(c).epsilon(1e-12));
  CHECK(r.scalar("gpu_comm_busy") == Approx(e).epsilon(1e-12));
  // every GPU at the stage mean (the thermal model's load is uniform)
  for (double p : dataset(r, "/thermal/gpu_power").data) CHECK(p == Approx(closed_form(sc, c, e)).epsilon(1e-12));
}
