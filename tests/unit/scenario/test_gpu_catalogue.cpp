// The built-in GPU catalogue (models/compute/gpus.yaml): its figures, that every figure has a
// source, definitions and overrides from a scenario's `gpus:` list or a catalogue file, their errors
// at file:line, and docs/gpus.md (regenerate: AIDCSIM_UPDATE_DOCS=1 build/bin/test_scenario "[gpus]").
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "models/compute/gpu_fields.hpp"
#include "scenario_text.hpp"
#include "sim/scenario/gpu_catalogue.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;

namespace {
const char* const kPage = AIDCSIM_SOURCE_DIR "/docs/gpus.md";

std::string read(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The default scenario with `cluster.gpu` set to `gpu` and `extra` appended at the top level; other
/// GPUs than GB200 get 8-GPU NVLink domains (HGX: at most 8, GpuSpec::max_nvlink_domain).
std::string scenario_with(const std::string& gpu, const std::string& extra = "") {
  std::string text = test::default_with("  gpu: GB200", "  gpu: " + gpu);
  if (gpu != "GB200") text.replace(text.find("  nvlink_domain: 72"), 19, "  nvlink_domain: 8");
  return text + extra;
}
}  // namespace

TEST_CASE("built-in catalogue: the GPUs and their published figures", "[gpus]") {
  const auto& c = builtin_gpus();
  CHECK(c.names() == std::vector<std::string>{"A100", "H100", "H200", "H800", "H20", "B200", "GB200", "MI300X"});
  const auto& a100 = c.find("A100");
  CHECK(a100.bf16_flops == Approx(312e12));
  CHECK(a100.fp8_flops == 0);
  CHECK(a100.bf16_mamf == Approx(271.2e12));
  CHECK(a100.nvlink_generation == 3);
  CHECK_FALSE(a100.nvls);
  CHECK(a100.throttle_temperature == Approx(358.15));
  // HBM as the driver exposes it (nvidia-smi Memory-Usage totals), not the nominal GB read as 1e9 B
  CHECK(a100.hbm_bytes == Approx(81920.0 * 1024 * 1024));
  const auto& h100 = c.find("H100");
  CHECK(h100.fp8_flops == Approx(1979e12));
  CHECK(h100.bf16_mamf == Approx(794.5e12));
  CHECK(h100.nvlink_bandwidth == Approx(450e9));
  CHECK(h100.nvls);
  CHECK(h100.throttle_temperature == Approx(360.15));
  CHECK(h100.shutdown_temperature == Approx(365.15));
  CHECK(h100.hbm_bytes == Approx(81559.0 * 1024 * 1024));
  const auto& h200 = c.find("H200");  // H100 with HBM3e and its own FP8 MAMF
  CHECK(h200.hbm_bytes == Approx(143771.0 * 1024 * 1024));
  CHECK(h200.hbm_bandwidth == Approx(4.8e12));
  CHECK(h200.bf16_mamf == Approx(794.5e12));
  CHECK(h200.fp8_mamf == Approx(1453.4e12));
  CHECK(h200.estimated("throttle_temperature"));
  const auto& h800 = c.find("H800");  // H100 with 8 NVLinks
  CHECK(h800.nvlink_bandwidth == Approx(200e9));
  CHECK(h800.bf16_flops == Approx(989e12));
  CHECK(h800.nvlink_generation == 4);
  CHECK(h800.hbm_bytes == Approx(h100.hbm_bytes));
  const auto& h20 = c.find("H20");
  CHECK(h20.bf16_flops == Approx(148e12));
  CHECK(h20.tdp == Approx(400));
  CHECK(h20.nvlink_bandwidth == Approx(450e9));
  CHECK(h20.bf16_mamf == Approx(794.5e12 * 148 / 989));  // H100's MAMF efficiency, marked estimate
  CHECK(h20.estimated("bf16_mamf"));
  CHECK(c.find("B200").hbm_bandwidth == Approx(8e12));
  CHECK(c.find("B200").nvlink_generation == 5);
  CHECK(c.find("B200").hbm_bytes == Approx(183359.0 * 1024 * 1024));
  const auto& gb200 = c.find("GB200");
  CHECK(gb200.tdp == Approx(1200));
  CHECK(gb200.fp8_mamf == Approx(3615.6e12));
  CHECK(gb200.attention_flops == Approx(834e12 * 2500 / 2250));
  const auto& mi = c.find("MI300X");
  CHECK(mi.nvlink_generation == 0);
  CHECK_FALSE(mi.nvls);
  CHECK(mi.hbm_bytes == Approx(192e9));
  CHECK(mi.bf16_mamf == Approx(668.4e12));
  CHECK_THROWS_AS(c.find("V100"), Error);
}

TEST_CASE("built-in catalogue: the PCIe generation of each GPU's NIC path", "[gpus]") {
  // NCCL's NET speed is min(NIC, PCIe path) (collectives::net_rate): Gen4 24 GB/s, Gen5 48.
  const auto& c = builtin_gpus();
  CHECK(c.find("A100").pcie_generation == 4);
  for (const char* g : {"H100", "H200", "H800", "H20", "B200", "GB200", "MI300X"}) {
    INFO(g);
    CHECK(c.find(g).pcie_generation == 5);
    CHECK_FALSE(c.find(g).estimated("pcie_generation"));
  }
  // a new GPU without it: Gen5, labelled an estimate
  Scenario s = load_scenario_text(
      scenario_with("X1",
                    "gpus:\n  - name: X1\n    bf16_flops: 500 TFLOP/s\n    hbm_bytes: 192 GB\n    hbm_bandwidth: 3 "
                    "TB/s\n    nvlink_generation: 4\n    nvlink_bandwidth: 300 GB/s\n    tdp: 500 W\n    idle_power: "
                    "50 W\n    throttle_temperature: 85 degC\n    shutdown_temperature: 95 degC\n"),
      "new.yaml");
  CHECK(s.gpu.pcie_generation == 5);
  CHECK(s.gpu.estimated("pcie_generation"));
}

TEST_CASE("built-in catalogue: every figure of every GPU has a source", "[gpus]") {
  for (const auto& g : builtin_gpus().gpus())
    for (const auto& f : compute::gpu_fields()) {
      if (f.key == "name" || f.key == "description") continue;
      INFO(g.name << "." << f.key);
      auto it = g.sources.find(f.key);
      REQUIRE(it != g.sources.end());
      CHECK(it->second.find("no source given") == std::string::npos);
      CHECK(it->second.size() > 10);
    }
}

TEST_CASE("a scenario names, derives and overrides GPUs in its gpus: list", "[gpus]") {
  // cluster.gpu from the built-in catalogue
  // (the default job needs ~105 GB per GPU: H200 and larger)
  Scenario s = load_scenario_text(scenario_with("H200"), "h200.yaml");
  CHECK(s.gpu.name == "H200");
  CHECK(s.fabric.nvlink_bandwidth == Approx(450e9));
  CHECK(s.fabric.nvls);
  // a derived GPU: only the changed figure, the rest from the base
  s = load_scenario_text(scenario_with("H800x",
                                       "gpus:\n  - name: H800x\n    base: H200\n    nvlink_bandwidth: 180 GB/s\n"
                                       "    sources:\n      nvlink_bandwidth: our measurement\n"),
                         "derived.yaml");
  CHECK(s.gpu.name == "H800x");
  CHECK(s.gpu.bf16_flops == Approx(989e12));
  CHECK(s.fabric.nvlink_bandwidth == Approx(180e9));
  CHECK(s.gpu.sources.at("nvlink_bandwidth") == "our measurement");
  // a built-in GPU overridden in place; a changed peak rescales the measured MAMF as an estimate
  s = load_scenario_text(scenario_with("H200", "gpus:\n  - name: H200\n    bf16_flops: 900 TFLOP/s\n"),
                         "override.yaml");
  CHECK(s.gpu.bf16_flops == Approx(900e12));
  CHECK(s.gpu.bf16_mamf == Approx(794.5e12 * 900 / 989));
  CHECK(s.gpu.estimated("bf16_mamf"));
  // a complete new GPU: MAMF and attention estimated from the peak
  const std::string full =
      "gpus:\n  - name: X1\n    bf16_flops: 500 TFLOP/s\n    hbm_bytes: 192 GB\n    hbm_bandwidth: 3 TB/s\n"
      "    nvlink_generation: 4\n    nvlink_bandwidth: 300 GB/s\n    tdp: 500 W\n    idle_power: 50 W\n"
      "    throttle_temperature: 85 degC\n    shutdown_temperature: 95 degC\n";
  s = load_scenario_text(scenario_with("X1", full), "new.yaml");
  CHECK(s.gpu.bf16_mamf == Approx(400e12));
  CHECK(s.gpu.attention_flops == Approx(225e12));
  CHECK(s.gpu.fp8_mamf == 0);
  CHECK_FALSE(s.fabric.nvls);
}

TEST_CASE("unknown GPU name: did you mean the catalogue's or the file's name", "[gpus]") {
  auto error_of = [](const std::string& text) -> ScenarioError {
    try {
      load_scenario_text(text, "bad.yaml");
    } catch (const ScenarioError& e) {
      return e;
    }
    FAIL("no error");
    throw 0;
  };
  // case only: the catalogue's spelling
  ScenarioError e = error_of(scenario_with("gb200"));
  CHECK(e.key() == "cluster.gpu");
  CHECK(e.hint() == "did you mean 'GB200'?");
  CHECK_THAT(std::string(e.what()),
             Catch::Contains("cluster.gpu: got 'gb200'") && Catch::EndsWith("; did you mean 'GB200'?"));
  // a case-insensitive match beats a closer-looking name listed earlier (H200 before H20)
  CHECK(error_of(scenario_with("h20")).hint() == "did you mean 'H20'?");
  // one slip from a catalogue name
  CHECK(error_of(scenario_with("H1000")).hint() == "did you mean 'H100'?");
  // a name of the file's own `gpus` list
  CHECK(error_of(scenario_with("my-gpu", "gpus:\n  - name: My-GPU\n    base: H100\n")).hint() ==
        "did you mean 'My-GPU'?");
  // nothing close: no hint, the list of names only
  e = error_of(scenario_with("TPUv5"));
  CHECK(e.hint().empty());
  CHECK_THAT(std::string(e.what()), Catch::Contains("A100") && !Catch::Contains("did you mean"));
}

TEST_CASE("GPU definitions: errors at file:line with the key and what was expected", "[gpus]") {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      load_scenario_text(text, "bad.yaml");
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "no error";
  };
  // unknown GPU name
  CHECK_THAT(error_of(scenario_with("H1000")),
             Catch::Contains("cluster.gpu: got 'H1000'") && Catch::Contains("H100") && Catch::Contains("bad.yaml:"));
  // new GPU with missing figures: names them
  std::string text = scenario_with("X2", "gpus:\n  - name: X2\n    bf16_flops: 500 TFLOP/s\n");
  const std::string e1 = error_of(text);
  CHECK_THAT(e1, Catch::Contains("gpus[0]") && Catch::Contains("missing hbm_bytes") && Catch::Contains("base:"));
  CHECK_THAT(e1, Catch::Contains("bad.yaml:" + std::to_string(test::line_of(text, "- name: X2"))));
  // MAMF above peak, at the figure's line
  text = scenario_with("H100", "gpus:\n  - name: H100\n    bf16_mamf: 2000 TFLOP/s\n");
  CHECK_THAT(error_of(text), Catch::Contains("bad.yaml:" + std::to_string(test::line_of(text, "bf16_mamf"))) &&
                                 Catch::Contains("gpus[0].bf16_mamf") && Catch::Contains("at most bf16_flops"));
  // NVLS without NVLink 4
  text = scenario_with("A100", "gpus:\n  - name: A100\n    nvls: true\n");
  CHECK_THAT(error_of(text), Catch::Contains("gpus[0].nvls"));
  // unit errors come from the validator, with a did-you-mean for misspelt figures
  text = scenario_with("H100", "gpus:\n  - name: H100\n    tdp: 700\n");
  CHECK_THAT(error_of(text), Catch::Contains("gpus[0].tdp") && Catch::Contains("power"));
  text = scenario_with("H100", "gpus:\n  - name: H100\n    nvlink_bandwith: 200 GB/s\n");
  CHECK_THAT(error_of(text), Catch::Contains("nvlink_bandwidth"));
  // unknown base
  text = scenario_with("Y", "gpus:\n  - name: Y\n    base: Z9\n");
  CHECK_THAT(error_of(text), Catch::Contains("gpus[0].base: got 'Z9'"));
  // dp_algorithm nvls (all-reduce, zero: none) on a GPU without NVLS (MI300X: 192 GB, the job fits)
  text = test::default_with("    zero: zero1", "    zero: none\n    dp_algorithm: nvls");
  text.replace(text.find("  gpu: GB200"), 12, "  gpu: MI300X");
  text.replace(text.find("  nvlink_domain: 72"), 19, "  nvlink_domain: 8");
  CHECK_THAT(error_of(text), Catch::Contains("workload.parallelism.dp_algorithm") && Catch::Contains("NVLS"));
}

TEST_CASE("an NVLink domain larger than the GPU's platforms build is refused at file:line", "[gpus]") {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      load_scenario_text(text, "bad.yaml");
    } catch (const ScenarioError& e) {
      CHECK(e.key() == "cluster.nvlink_domain");
      return e.what();
    }
    return "no error";
  };
  // GB200: one NVL72 rack at most (the new-user trial's 144 was accepted)
  std::string text = test::default_with("  nvlink_domain: 72", "  nvlink_domain: 144");
  CHECK_THAT(error_of(text), Catch::Contains("bad.yaml:" + std::to_string(test::line_of(text, "nvlink_domain: 144"))) &&
                                 Catch::Contains("cluster.nvlink_domain: got '144', expected at most 72") &&
                                 Catch::Contains("at most 72") && Catch::Contains("GB200") && Catch::Contains("NVL72"));
  CHECK(load_scenario_text(test::default_with("  nvlink_domain: 72", "  nvlink_domain: 72"), "ok.yaml")
            .fabric.nvlink_domain == 72);
  // HGX H100 with the default's 72: at most 8
  text = test::default_with("  gpu: GB200", "  gpu: H100");
  CHECK_THAT(error_of(text), Catch::Contains("got '72'") && Catch::Contains("at most 8") && Catch::Contains("H100"));
  // a derived GPU inherits its base's limit; a scenario may raise it (its own platform)
  text = scenario_with("H200x", "gpus:\n  - name: H200x\n    base: H200\n");
  text.replace(text.find("  nvlink_domain: 8"), 18, "  nvlink_domain: 16");
  CHECK_THAT(error_of(text), Catch::Contains("at most 8") && Catch::Contains("H200x"));
  text += "    max_nvlink_domain: 16\n";
  CHECK(load_scenario_text(text, "ok.yaml").fabric.nvlink_domain == 16);
  // the catalogue's limits
  const auto& c = builtin_gpus();
  for (const char* g : {"H100", "H200", "H800", "H20", "B200", "MI300X"}) CHECK(c.find(g).max_nvlink_domain == 8);
  CHECK(c.find("A100").max_nvlink_domain == 16);
  CHECK(c.find("GB200").max_nvlink_domain == 72);
}

TEST_CASE("catalogue files: same format, errors name the file and line", "[gpus]") {
  const auto c =
      load_gpu_catalogue("gpus:\n  - name: H20b\n    base: H20\n    hbm_bytes: 141 GB\n", "extra.yaml", builtin_gpus());
  CHECK(c.find("H20b").hbm_bytes == Approx(141e9));
  CHECK(c.find("H20b").bf16_flops == Approx(148e12));
  try {
    load_gpu_catalogue("gpus:\n  - name: Q\n    idle_power: 900 W\n    base: H20\n", "extra.yaml", builtin_gpus());
    FAIL("expected an error");
  } catch (const ScenarioError& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("extra.yaml:3:") && Catch::Contains("below tdp"));
  }
}

TEST_CASE("docs/gpus.md is up to date", "[gpus]") {
  const std::string generated = gpu_catalogue_markdown(builtin_gpus());
  const char* update = std::getenv("AIDCSIM_UPDATE_DOCS");
  if (update && std::string(update) == "1") {
    std::ofstream(kPage, std::ios::binary) << generated;
    WARN("rewrote " << kPage);
  }
  CHECK(generated.find("| `bf16_mamf` | 794.5 TFLOP/s |") != std::string::npos);
  if (read(kPage) != generated)
    FAIL_CHECK(kPage << " is stale: models/compute/gpus.yaml changed. Regenerate it with\n"
                        "  AIDCSIM_UPDATE_DOCS=1 build/bin/test_scenario \"[gpus]\"");
}
