// The JSON summary round-trips through a file, keeps the engine's key order, and is written
// atomically.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>

#include "models/common/errors.hpp"
#include "models/common/version.hpp"
#include "sim/results/json_writer.hpp"
#include "tests/unit/results/sample_results.hpp"

using namespace aidcsim;
using aidcsim::test::sample_results;
using aidcsim::test::ScratchDir;

namespace {
nlohmann::ordered_json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::ordered_json::parse(in);
}
}  // namespace

TEST_CASE("JSON has the documented layout", "[results][json]") {
  const auto j = results_to_json(sample_results());
  CHECK(j.at("format_version") == "2");
  CHECK(j.at("git_sha").get<std::string>() == git_sha());
  CHECK(j.at("aidcsim_version").get<std::string>().find('.') != std::string::npos);  // "0.1.0"
  CHECK(j.at("scenario").at("name") == "stargate-uk-8k");
  CHECK(j.at("scenario").at("seed") == 42);
  CHECK(j.at("summary").at("step_time").at("value") == 12.3456);
  CHECK(j.at("summary").at("step_time").at("unit") == "s");
  CHECK(j.at("summary").at("pue").at("unit") == "1");
  CHECK(j.at("summary").begin().key() == "gpus");  // engine order, not alphabetical
  CHECK(j.at("checks").size() == 2);
  CHECK(j.at("checks")[1].at("pass") == false);
  CHECK(j.at("notes")[1] == "ΔT from steady state");
}

TEST_CASE("JSON carries the rollout phases' columns, and nothing else of the arrays", "[results][json]") {
  Results r = sample_results();
  CHECK_FALSE(results_to_json(r).contains("phases"));  // no rollout
  r.labels.push_back({"/phases/phase", {"8K", "16K"}, "Rollout phase names"});
  Dataset step;
  step.path = "/phases/step_time";
  step.shape = {2};
  step.data = {6.45, 6.42};
  step.unit = "s";
  r.datasets.push_back(step);
  const auto j = results_to_json(r);
  CHECK(j.at("phases").at("phase") == nlohmann::ordered_json({"8K", "16K"}));
  CHECK(j.at("phases").at("step_time").at("unit") == "s");
  CHECK(j.at("phases").at("step_time").at("values")[1] == 6.42);
  CHECK(j.at("phases").size() == 2);  // /network/... stays in the HDF5 file
}

TEST_CASE("JSON gpu_busy: mean, min and max of each per-stage fraction", "[results][json]") {
  Results r = sample_results();
  CHECK_FALSE(results_to_json(r).contains("gpu_busy"));  // no per-stage datasets
  auto stage = [&](const std::string& path, std::vector<double> v, const std::string& unit) {
    r.datasets.push_back(vector_dataset(path, std::move(v), unit, "per stage", "stage"));
  };
  stage("/step/stage_compute", {3.0, 2.0, 1.0}, "s");  // seconds: not in the brief
  stage("/step/stage_compute_fraction", {0.75, 0.5, 0.25}, "1");
  stage("/step/stage_bubble_fraction", {0.25, 0.5, 0.5}, "1");
  const auto j = results_to_json(r);
  const auto& g = j.at("gpu_busy");
  CHECK(g.at("stages") == 3);
  CHECK(g.at("compute").at("unit") == "1");
  CHECK(g.at("compute").at("mean") == 0.5);
  CHECK(g.at("compute").at("min") == 0.25);
  CHECK(g.at("compute").at("max") == 0.75);
  CHECK(g.at("bubble").at("mean").get<double>() == Approx(1.25 / 3));
  CHECK(g.at("bubble").at("min") == 0.25);
  CHECK(g.size() == 3);  // stages, compute, bubble: /step/stage_compute (s) is left to the HDF5 file
}

TEST_CASE("JSON round-trips through a file", "[results][json]") {
  ScratchDir dir;
  Results r = sample_results();
  r.add("tiny", 1.0 / 3.0 * 1e-9, "s", "needs all 17 digits");
  r.add("undefined", std::numeric_limits<double>::quiet_NaN(), "1", "becomes null");
  write_json(r, dir.file("run.json"));
  const auto doc = read_json(dir.file("run.json"));
  CHECK(doc.at("summary").at("undefined").at("value").is_null());
  const Results back = results_from_json(doc);
  CHECK(back.scenario_name == r.scenario_name);
  CHECK(back.scenario_file == r.scenario_file);
  CHECK(back.seed == r.seed);
  REQUIRE(back.summary.size() == r.summary.size());
  for (std::size_t i = 0; i < r.summary.size(); ++i) {
    INFO(r.summary[i].key);
    CHECK(back.summary[i].key == r.summary[i].key);
    if (std::isnan(r.summary[i].value))
      CHECK(std::isnan(back.summary[i].value));
    else
      CHECK(back.summary[i].value == r.summary[i].value);  // bit-exact, not approximately
    CHECK(back.summary[i].unit == (r.summary[i].unit.empty() ? "1" : r.summary[i].unit));
    CHECK(back.summary[i].description == r.summary[i].description);
  }
  REQUIRE(back.checks.size() == 2);
  CHECK(back.checks[1].item == r.checks[1].item);
  CHECK(back.checks[1].headroom == r.checks[1].headroom);
  CHECK(back.checks[1].pass == false);
  CHECK(back.checks[1].note == "flow too low");
  CHECK(back.notes == r.notes);
  CHECK(dir.entries() == 1);
}

TEST_CASE("a failing JSON write leaves no file and no temporary file", "[results][json]") {
  ScratchDir dir;
  CHECK_THROWS_AS(write_json(sample_results(), dir.file("nope/run.json")), Error);
  std::filesystem::create_directory(dir.file("run.json"));
  CHECK_THROWS_WITH(write_json(sample_results(), dir.file("run.json")), Catch::Contains("is a directory"));
  CHECK(dir.entries() == 1);
}

TEST_CASE("results_from_json rejects a document of another layout", "[results][json]") {
  CHECK_THROWS_AS(results_from_json(nlohmann::ordered_json{{"summary", 1}}), Error);
}
