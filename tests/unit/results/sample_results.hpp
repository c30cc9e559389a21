#pragma once
// A hand-made Results shaped like an 8K-GPU run, and a scratch directory, for the writer tests.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "models/common/results.hpp"

namespace aidcsim::test {

inline Results sample_results() {
  Results r;
  r.scenario_name = "stargate-uk-8k";
  r.scenario_file = "scenarios/stargate-uk-8k.yaml";
  r.scenario_text = "name: stargate-uk-8k\nseed: 42\ncluster:\n  gpus: 8064\n";
  r.seed = 42;
  r.add("gpus", 8064, "1", "GPUs in the job");
  r.add("step_time", 12.3456, "s", "Simulated time of one training step");
  r.add("tokens_per_second", 1189234.5, "1/s", "Training throughput in tokens");
  r.add("mfu", 41.27, "%", "Model FLOPs utilization");
  r.add("time_to_train", 145.8, "d", "Days to train on the scenario's tokens");
  r.add("max_link_utilization", 87.5, "%", "Busiest fabric link over the step");
  r.add("max_gpu_temperature", 52.25, "degC", "Hottest GPU die");
  r.add("pue", 1.183, "", "Power usage effectiveness");
  Dataset util;
  util.path = "/network/link_utilization";
  util.shape = {2, 3};
  util.data = {0.1, 0.2, 0.3, 0.4, 0.5, 0.875};
  util.unit = "1";
  util.description = "Utilization per link and time window";
  util.dims = {"time", "link"};
  r.datasets.push_back(util);
  Dataset temps;
  temps.path = "thermal/gpu/temperature";  // no leading slash, two levels of groups to create
  temps.shape = {4};
  temps.data = {45.0, 47.5, 52.25, 50.0};
  temps.unit = "degC";
  temps.description = "Die temperature per GPU";
  temps.dims = {"gpu"};
  r.datasets.push_back(temps);
  r.labels.push_back({"/network/link", {"leaf0-spine0", "leaf0-spine1", "leaf1-spine0"}, "Link names"});
  r.checks.push_back({"coolant outlet < 40 degC", 35.5, 40.0, "degC", 4.5, true, ""});
  r.checks.push_back({"loop delta T < 15 K", 16.0, 15.0, "K", -1.0, false, "flow too low"});
  r.notes = {"step simulated at flow level (SimGrid)", "ΔT from steady state"};
  return r;
}

/// A fresh empty directory under the system temp directory, removed by the destructor.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("aidcsim-results-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  /// Number of entries in the directory (to prove no temporary file was left).
  std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path)) ++n;
    return n;
  }
};

}  // namespace aidcsim::test
