// Scenario keys of models/reliability: conversion to TrainingSpec and errors naming the key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "models/common/errors.hpp"
#include "models/reliability/reliability_schema.hpp"
#include "models/reliability/scaling_law.hpp"

using aidcsim::InvalidParameter;
using aidcsim::Params;
using namespace aidcsim::reliability;

namespace {
Params phase(int i, double gpus, double start) {
  Params p("rollout.phases[" + std::to_string(i) + "]");
  p.set("gpus", gpus, std::to_string(static_cast<long long>(gpus)));
  p.set("start", start, "date");
  return p;
}
Params root_with_phases(Params::List phases) {
  Params root;
  root.set("training.tokens", 15e12, "15T");
  root.set("cluster.gpus", 8064.0, "8064");
  root.set("rollout.phases", std::move(phases));
  return root;
}
std::string error_key(const Params& root) {
  try {
    spec_from(root);
  } catch (const InvalidParameter& e) {
    return e.key();
  }
  return "";
}
}  // namespace

TEST_CASE("Schema declares the keys spec_from reads, with docs", "[reliability]") {
  const auto s = schema();
  for (const char* key : {"training.tokens", "training.target_loss", "training.batch_schedule[].global_batch",
                          "reliability.draws", "reliability.failures[].mtbf", "reliability.checkpoint_interval",
                          "reliability.storage_bandwidth", "rollout.phases[].start", "rollout.phases[].gpus"}) {
    auto it = std::find_if(s.begin(), s.end(), [&](const aidcsim::Field& f) { return f.key == key; });
    REQUIRE(it != s.end());
    REQUIRE_FALSE(it->doc.empty());
  }
}

TEST_CASE("spec_from converts a rollout and reliability settings", "[reliability]") {
  Params root = root_with_phases({phase(0, 8064, 1.77e9), phase(1, 16128, 1.79e9), phase(2, 31104, 1.80e9)});
  root.set("reliability.draws", 500.0, "500");
  root.set("reliability.checkpoint_interval", 1800.0, "30 min");
  Params f("reliability.failures[0]");
  f.set("component", std::string("cdu"));
  f.set("mtbf", 50000 * 3600.0, "50000 h");
  root.set("reliability.failures", Params::List{f});
  const TrainingSpec t = spec_from(root);
  REQUIRE(t.tokens == 15e12);
  REQUIRE(t.phases.size() == 3);
  REQUIRE(t.phases[2].gpus == 31104);
  REQUIRE(t.reliability.draws == 500);
  REQUIRE(t.reliability.policy == CheckpointPolicy::Fixed);
  REQUIRE(t.reliability.checkpoint_interval == 1800);
  REQUIRE(t.reliability.failures.size() == 1);
  REQUIRE(t.reliability.failures[0].component == Component::Cdu);
  REQUIRE(t.reliability.preset == FailurePreset::Llama3);
}

TEST_CASE("Bad rollout and checkpoint inputs name the offending key", "[reliability]") {
  REQUIRE(error_key(root_with_phases({phase(0, 8064, 1.79e9), phase(1, 16128, 1.80e9), phase(2, 31104, 1.78e9)})) ==
          "rollout.phases[2].start");
  REQUIRE(error_key(root_with_phases({phase(0, 8064, 1.77e9), phase(1, 4032, 1.80e9)})) == "rollout.phases[1].gpus");
  REQUIRE(error_key(root_with_phases({phase(0, 4032, 1.77e9)})) == "rollout.phases[0].gpus");
  Params root = root_with_phases({});
  root.set("reliability.checkpoint_interval", 0.0, "0 min");
  REQUIRE(error_key(root) == "reliability.checkpoint_interval");
  Params none;
  REQUIRE(error_key(none) == "training.tokens");
}

TEST_CASE("A target loss becomes tokens through the Chinchilla fit", "[reliability]") {
  Params root;
  root.set("training.target_loss", 1.9367, "1.9367");
  root.set("training.parameters", 70e9, "70B");
  const TrainingSpec t = spec_from(root);
  REQUIRE(t.tokens == Approx(1.4e12).epsilon(0.01));  // Chinchilla: 70B on 1.4T tokens
  REQUIRE(chinchilla_loss(70e9, t.tokens) == Approx(1.9367));
  Params bad;
  bad.set("training.target_loss", 1.70, "1.70");
  bad.set("training.parameters", 70e9, "70B");
  REQUIRE(error_key(bad) == "training.target_loss");
}

TEST_CASE("Batch schedule must start at 0 tokens and increase", "[reliability]") {
  Params root;
  root.set("training.tokens", 15e12, "15T");
  auto stage = [](int i, double after, double batch) {
    Params p("training.batch_schedule[" + std::to_string(i) + "]");
    p.set("after_tokens", after, std::to_string(after));
    p.set("global_batch", batch, std::to_string(batch));
    return p;
  };
  root.set("training.batch_schedule", Params::List{stage(0, 0, 4e6), stage(1, 252e6, 8e6), stage(2, 2.87e12, 16e6)});
  REQUIRE(spec_from(root).batch_schedule.size() == 3);
  root.set("training.batch_schedule", Params::List{stage(0, 0, 4e6), stage(1, 3e12, 8e6), stage(2, 2.87e12, 16e6)});
  REQUIRE(error_key(root) == "training.batch_schedule[2].after_tokens");
}

TEST_CASE("training.convergence: model, its keys, and keys another model would ignore", "[reliability][convergence]") {
  Params root = root_with_phases({phase(0, 8064, 1.77e9)});
  REQUIRE(spec_from(root).convergence.model == ConvergenceModel::None);  // default: off
  root.set("training.convergence.model", std::string("kaplan"));
  root.set("training.convergence.b_star", 2.1e8, "2.1e8");
  root.set("training.convergence.alpha_b", 0.2, "0.2");
  root.set("training.convergence.reference_batch", 4e6, "4M");
  const TrainingSpec k = spec_from(root);
  REQUIRE(k.convergence.model == ConvergenceModel::Kaplan);
  REQUIRE(k.convergence.b_star == 2.1e8);
  REQUIRE(k.convergence.alpha_b == 0.2);
  REQUIRE(k.convergence.reference_batch == 4e6);
  REQUIRE(k.convergence.cells == 256);
  root.set("training.convergence.critical_batch", 8e6, "8M");  // only for model: fixed
  REQUIRE(error_key(root) == "training.convergence.critical_batch");
  root.set("training.convergence.model", std::string("fixed"));  // fixed: b_star/alpha_b unused
  REQUIRE(error_key(root) == "training.convergence.b_star");

  Params fixed = root_with_phases({phase(0, 8064, 1.77e9)});
  fixed.set("training.convergence.model", std::string("fixed"));
  REQUIRE(error_key(fixed) == "training.convergence.model");  // fixed needs critical_batch
  fixed.set("training.convergence.critical_batch", 8e6, "8M");
  REQUIRE(spec_from(fixed).convergence.critical_batch == 8e6);

  Params none = root_with_phases({phase(0, 8064, 1.77e9)});
  none.set("training.convergence.reference_batch", 4e6, "4M");
  REQUIRE(error_key(none) == "training.convergence.reference_batch");
}
