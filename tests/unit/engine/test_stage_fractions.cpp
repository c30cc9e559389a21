// The per-stage partition of the step in the results (/step/stage_*, the JSON's gpu_busy, the
// thermal model's load in the summary): consistent with the step time and /step/breakdown, and
// the 1F1B pipeline bubble's closed form on a pure pipeline.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "sim/engine/simulate.hpp"
#include "sim/results/json_writer.hpp"
#include "tests/unit/engine/result_dataset.hpp"

using namespace aidcsim;

namespace {

/// Pure pipeline: pp = 4 stages of 4 layers on 4 H100 of one NVLink domain, dp = tp = 1 (no DP or
/// TP traffic), a tiny vocabulary so the first and last stages weigh as the others, m microbatches.
std::string pure_pipeline(int m) {
  return "name: pp4-bubble\nseed: 1\ncluster: {gpu: H100, gpus: 4, gpus_per_node: 4, nvlink_domain: 4}\n"
         "fabric: {topology: leaf_spine}\n"
         "workload:\n"
         "  model: {layers: 16, hidden: 4096, heads: 32, vocab: 1024, sequence_length: 2048, style: gpt}\n"
         "  parallelism: {tp: 1, pp: 4, dp: 1}\n"
         "  global_batch: " +
         std::to_string(m) +
         "\n"
         "training: {tokens: \"1T\"}\nreliability: {draws: 10}\n";
}

using test::dataset;

}  // namespace

TEST_CASE("per-stage step partition: sums to the step, means are /step/breakdown", "[engine][stage_fractions]") {
  const Results r = simulate(load_scenario_text(pure_pipeline(8), "pp4-bubble.yaml"));
  const double step = r.scalar("step_time");
  const char* parts[3] = {"compute", "exposed_communication", "bubble"};
  for (const char* p : parts) {
    const Dataset& t = dataset(r, std::string("/step/stage_") + p);
    const Dataset& f = dataset(r, std::string("/step/stage_") + p + "_fraction");
    CHECK(t.unit == "s");
    CHECK(f.unit == "1");
    CHECK(t.dims == std::vector<std::string>{"stage"});
    CHECK(f.dims == std::vector<std::string>{"stage"});
    CHECK(t.shape == std::vector<std::size_t>{4});
    CHECK(f.shape == std::vector<std::size_t>{4});
    CHECK(!t.description.empty());
    CHECK(!f.description.empty());
  }
  const auto& c = dataset(r, "/step/stage_compute").data;
  const auto& e = dataset(r, "/step/stage_exposed_communication").data;
  const auto& b = dataset(r, "/step/stage_bubble").data;
  const auto& cf = dataset(r, "/step/stage_compute_fraction").data;
  const auto& ef = dataset(r, "/step/stage_exposed_communication_fraction").data;
  const auto& bf = dataset(r, "/step/stage_bubble_fraction").data;
  double mean_c = 0, mean_e = 0, mean_b = 0;
  for (std::size_t s = 0; s < 4; ++s) {
    INFO("stage " << s);
    CHECK(std::abs(cf[s] + ef[s] + bf[s] - 1.0) <= 1e-12);
    CHECK(std::abs(c[s] + e[s] + b[s] - step) <= 1e-12 * step);
    CHECK(cf[s] == c[s] / step);
    CHECK(c[s] > 0);
    CHECK(e[s] >= 0);
    CHECK(b[s] >= 0);
    mean_c += c[s] / 4, mean_e += e[s] / 4, mean_b += b[s] / 4;
  }
  // /step/breakdown: compute, exposed TP/PP/DP/CP/EP, bubble: the means over the stages
  const auto& bd = dataset(r, "/step/breakdown").data;
  CHECK(mean_c == Approx(bd[0]).epsilon(1e-12));
  CHECK(mean_e == Approx(bd[1] + bd[2] + bd[3] + bd[4] + bd[5]).epsilon(1e-12));
  CHECK(mean_b == Approx(bd[6]).epsilon(1e-12));
  // the thermal model's load: the same partition's compute and exposed communication (the rest,
  // the bubble, idle)
  CHECK(r.scalar("gpu_compute_busy") == Approx(mean_c / step).epsilon(1e-12));
  CHECK(r.scalar("gpu_comm_busy") == Approx(mean_e / step).epsilon(1e-12));

  // the JSON's compact form: mean, min, max over the stages
  const auto j = results_to_json(r);
  const auto& g = j.at("gpu_busy");
  CHECK(g.at("stages") == 4);
  CHECK(g.at("compute").at("unit") == "1");
  CHECK(g.at("compute").at("mean").get<double>() == Approx(mean_c / step).epsilon(1e-12));
  CHECK(g.at("bubble").at("min").get<double>() == *std::min_element(bf.begin(), bf.end()));
  CHECK(g.at("exposed_communication").at("max").get<double>() == *std::max_element(ef.begin(), ef.end()));
}

TEST_CASE("per-stage bubble of a pure 1F1B pipeline: (p - 1)/(m + p - 1)", "[engine][stage_fractions]") {
  // Narayanan et al. SC21 §2.2: with p stages, m microbatches and t per microbatch (forward +
  // backward) a stage works m t and idles (p - 1) t of the (m + p - 1) t pipeline. The step adds
  // each stage's optimizer (compute) after its pipeline: measured from two runs, since compute
  // = m t + optimizer, and taken off the step before the closed form is applied.
  constexpr int p = 4;
  for (int m : {4, 8}) {
    const Results r1 = simulate(load_scenario_text(pure_pipeline(m), "pp4-bubble.yaml"));
    const Results r2 = simulate(load_scenario_text(pure_pipeline(2 * m), "pp4-bubble.yaml"));
    const auto& c1 = dataset(r1, "/step/stage_compute").data;
    const auto& c2 = dataset(r2, "/step/stage_compute").data;
    const auto& b1 = dataset(r1, "/step/stage_bubble").data;
    const auto& e1 = dataset(r1, "/step/stage_exposed_communication").data;
    const double step = r1.scalar("step_time");
    for (int s = 0; s < p; ++s) {
      const double t = (c2[s] - c1[s]) / m, optimizer = c1[s] - m * t, pipeline = step - optimizer;
      INFO("m = " << m << ", stage " << s << ": t " << t << " s, optimizer " << optimizer << " s, bubble " << b1[s]
                  << " s, exposed PP " << e1[s] << " s");
      CHECK(optimizer > 0);
      // within 2 %: the activation sends between stages (NVLink, ~0.1 ms each) delay the others
      CHECK(b1[s] / pipeline == Approx(double(p - 1) / (m + p - 1)).epsilon(0.02));
      CHECK((c1[s] - optimizer) / pipeline == Approx(double(m) / (m + p - 1)).epsilon(0.02));
      CHECK(e1[s] / step < 0.01);  // no DP / TP traffic: only the sends' waits are exposed
    }
  }
}
