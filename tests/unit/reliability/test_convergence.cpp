// Convergence against the global batch: the published critical-batch relations the model comes
// from (McCandlish et al. 2018; Kaplan et al. 2020 §5.1), and the time-to-train that uses them.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/common/errors.hpp"
#include "models/reliability/convergence.hpp"
#include "models/reliability/scaling_law.hpp"
#include "models/reliability/time_to_train.hpp"

using namespace aidcsim::reliability;

TEST_CASE("Steps and tokens trade off as (S/Smin - 1)(E/Emin - 1) = 1", "[reliability][convergence]") {
  // McCandlish et al. 2018 eq. 2.11 (restated in Kaplan et al. 2020 §5.1); B_crit = E_min / S_min.
  const double crit = 8e6;
  for (double b : {1e5, 1e6, 8e6, 3e7, 5e8}) {
    const double e = tokens_over_minimum(b, crit), s = steps_over_minimum(b, crit);
    REQUIRE((s - 1) * (e - 1) == Approx(1.0).epsilon(1e-12));
    // E = B S: tokens over steps is the batch, E_min / S_min is B_crit
    REQUIRE(e / s == Approx(b / crit).epsilon(1e-12));
  }
  // "Training at the critical batch size ... requiring 2 S_min training steps and processing
  // E = 2 E_min data examples" (Kaplan et al. 2020 §5.1).
  REQUIRE(tokens_over_minimum(crit, crit) == 2.0);
  REQUIRE(steps_over_minimum(crit, crit) == 2.0);
}

TEST_CASE("Kaplan fit: B_crit = 2e8 / L^(1/0.21), doubling for every ~13 % lower loss", "[reliability][convergence]") {
  // Kaplan et al. 2020 eq. 1.4 (= 5.3): B_* ~ 2e8 tokens, alpha_B ~ 0.21; "the critical batch size ... doubles
  // for every 13% decrease in loss" (§1.2 summary).
  REQUIRE(kaplan_critical_batch(1.0) == Approx(2e8));
  for (double loss : {4.0, 3.0, 2.0}) {
    const double ratio = kaplan_critical_batch(loss * 0.87) / kaplan_critical_batch(loss);
    REQUIRE(ratio == Approx(2.0).epsilon(0.03));
  }
  REQUIRE(kaplan_critical_batch(3.0) < kaplan_critical_batch(2.0));
  // No loss yet (0 tokens: Chinchilla's loss is infinite): B_crit -> 0, a token at batch B costs
  // B / B_ref reference tokens.
  REQUIRE(kaplan_critical_batch(std::numeric_limits<double>::infinity()) == 0);
  REQUIRE(batch_token_cost(4e6, 1e6, 0) == Approx(4.0));
  REQUIRE(batch_token_cost(4e6, 1e6, std::numeric_limits<double>::infinity()) == 1.0);  // no model
}

namespace {
Situation situation(double batch, double step_time) {
  Situation s;
  s.gpus = 1024;
  s.step_time = step_time;
  s.tokens_per_step = batch;
  s.checkpoint_bytes = 1e12;
  s.counts.nodes = 128;
  return s;
}
TrainingSpec no_failures(double tokens) {
  TrainingSpec t;
  t.tokens = tokens;
  t.reliability.draws = 4;
  t.reliability.preset = FailurePreset::None;
  t.parameters = 70e9;
  return t;
}
}  // namespace

TEST_CASE("A fixed critical batch costs exactly (1 + B/Bc) / (1 + Bref/Bc) more tokens", "[reliability][convergence]") {
  TrainingSpec t = no_failures(1e12);
  t.convergence.model = ConvergenceModel::Fixed;
  t.convergence.critical_batch = 8e6;
  t.convergence.reference_batch = 4e6;
  const Situation s = situation(16e6, 8.0);  // 2e6 tokens/s
  const auto r = time_to_train(t, s, 1);
  const double cost = (1 + 16.0 / 8) / (1 + 4.0 / 8);  // 2
  REQUIRE(r.tokens == 1e12);
  REQUIRE(r.tokens_trained == Approx(1e12 * cost).epsilon(1e-9));
  REQUIRE(r.ideal == Approx(1e12 * cost / 2e6).epsilon(1e-9));
  REQUIRE(r.reference_batch == 4e6);
  // At the reference batch itself nothing changes (the run's first batch is the default reference).
  t.convergence.reference_batch = 0;
  const auto same = time_to_train(t, s, 1);
  REQUIRE(same.tokens_trained == Approx(1e12).epsilon(1e-12));
  REQUIRE(same.ideal == Approx(1e12 / 2e6).epsilon(1e-12));
  // No model: a token is a token.
  t.convergence.model = ConvergenceModel::None;
  const auto none = time_to_train(t, s, 1);
  REQUIRE(none.tokens_trained == Approx(1e12).epsilon(1e-12));
}

TEST_CASE("Kaplan critical batch over a run: the grid integral against a fine quadrature",
          "[reliability][convergence]") {
  // One phase at 4x the reference batch: tokens trained = integral over progress k of
  // (B_crit(L(k)) + B) / (B_crit(L(k)) + B_ref) dk, L = Chinchilla(N, k).
  TrainingSpec t = no_failures(2e12);
  t.convergence.model = ConvergenceModel::Kaplan;
  t.convergence.reference_batch = 2e6;
  const double batch = 8e6;
  const Situation s = situation(batch, 4.0);
  const auto coarse = time_to_train(t, s, 1);
  t.convergence.cells = 256 * 16;
  const auto fine = time_to_train(t, s, 1);
  // Midpoint quadrature in log k over [1e-9 K, K] (+ the first stretch at B/B_ref, where B_crit ~ 0).
  const CriticalBatch crit(t.convergence, t.parameters);
  const double K = t.tokens, lo = K * 1e-9;
  const int n = 200000;
  double integral = lo * batch / 2e6;
  for (int i = 0; i < n; ++i) {
    const double a = lo * std::pow(K / lo, double(i) / n), b = lo * std::pow(K / lo, double(i + 1) / n);
    integral += (b - a) * batch_token_cost(batch, 2e6, crit.at(std::sqrt(a * b)));
  }
  REQUIRE(fine.tokens_trained == Approx(integral).epsilon(1e-4));
  REQUIRE(coarse.tokens_trained == Approx(integral).epsilon(1e-3));  // the default grid: within 0.1 %
  REQUIRE(coarse.tokens_trained > 1.2 * K);                          // a real cost at 4x the batch
  REQUIRE(coarse.tokens_trained < 4.0 * K);
  REQUIRE(coarse.ideal == Approx(coarse.tokens_trained / (batch / 4.0)).epsilon(1e-9));
}

TEST_CASE("Rollout phases: only the phase above the reference batch costs extra tokens", "[reliability][convergence]") {
  TrainingSpec t = no_failures(3e12);
  t.convergence.model = ConvergenceModel::Kaplan;
  std::vector<PhaseSituation> ps;
  ps.push_back({"8K", 0, situation(16e6, 8.0)});     // 2e6 tokens/s
  ps.push_back({"31K", 6e5, situation(64e6, 8.0)});  // 8e6 tokens/s, from day ~7
  const auto r = time_to_train_phased(t, ps, 3);
  REQUIRE(r.overall.reference_batch == 16e6);
  REQUIRE(r.phases[0].mean_tokens_trained == Approx(r.phases[0].mean_tokens).epsilon(1e-12));
  REQUIRE(r.phases[1].mean_tokens_trained > 1.3 * r.phases[1].mean_tokens);
  REQUIRE(r.phases[0].mean_tokens + r.phases[1].mean_tokens == Approx(t.tokens).epsilon(1e-9));
  REQUIRE(r.overall.tokens_trained ==
          Approx(r.phases[0].mean_tokens_trained + r.phases[1].mean_tokens_trained).epsilon(1e-9));
  REQUIRE(r.phases[1].batch == 64e6);
  REQUIRE(r.phases[1].critical_batch > r.phases[0].critical_batch);  // the loss fell meanwhile
  // Without the model the same rollout is faster: the batch growth is free.
  t.convergence.model = ConvergenceModel::None;
  const auto free = time_to_train_phased(t, ps, 3);
  REQUIRE(free.overall.ideal < r.overall.ideal);
  REQUIRE(free.overall.tokens_trained == Approx(t.tokens).epsilon(1e-9));
}

TEST_CASE("The Kaplan model needs a parameter count", "[reliability][convergence]") {
  TrainingSpec t = no_failures(1e12);
  t.parameters = 0;
  t.convergence.model = ConvergenceModel::Kaplan;
  try {
    time_to_train(t, situation(4e6, 2.0), 1);
    FAIL("expected InvalidParameter");
  } catch (const aidcsim::InvalidParameter& e) {
    REQUIRE(e.key() == "training.parameters");
  }
}

TEST_CASE("Phased run at a fixed critical batch: ideal time and tokens in closed form", "[reliability][convergence]") {
  // 8K at 16M tokens/step (2e6 tokens/s) until t = 6e5 s, then 31K at 64M (8e6 tokens/s);
  // B_crit = 8M, reference = the first batch (16M): the 31K phase's tokens cost
  // (8 + 64) / (8 + 16) = 3 reference tokens each.
  TrainingSpec t = no_failures(3e12);
  t.convergence.model = ConvergenceModel::Fixed;
  t.convergence.critical_batch = 8e6;
  std::vector<PhaseSituation> ps;
  ps.push_back({"8K", 0, situation(16e6, 8.0)});
  ps.push_back({"31K", 6e5, situation(64e6, 8.0)});
  const auto r = time_to_train_phased(t, ps, 3);
  const double k1 = 6e5 * 2e6;        // progress of the 8K phase: 1.2e12
  const double rest = t.tokens - k1;  // 1.8e12 reference tokens left
  REQUIRE(r.overall.ideal == Approx(6e5 + rest / (8e6 / 3.0)).epsilon(1e-9));
  REQUIRE(r.overall.tokens_trained == Approx(k1 + 3.0 * rest).epsilon(1e-9));
  REQUIRE(r.phases[1].mean_tokens_trained == Approx(3.0 * r.phases[1].mean_tokens).epsilon(1e-9));
  REQUIRE(r.phases[1].critical_batch == 8e6);
  // Far below the critical batch, batch growth is free again (cost -> 1).
  t.convergence.critical_batch = 1e12;
  const auto below = time_to_train_phased(t, ps, 3);
  REQUIRE(below.overall.ideal == Approx(6e5 + rest / 8e6).epsilon(1e-4));
}

TEST_CASE("Checkpoint periods taken at once keep the tokens trained of one-by-one checkpoints",
          "[reliability][convergence]") {
  // skip_steady_checkpoints (time_to_train.cpp) with a convergence model: the tokens trained on
  // the kept trajectory, per draw mean and per phase, as the one-by-one loop's.
  for (CheckpointMode mode : {CheckpointMode::Sync, CheckpointMode::Async}) {
    TrainingSpec t = no_failures(2e12);
    t.reliability.preset = FailurePreset::Llama3;
    t.reliability.draws = 20;
    t.reliability.mode = mode;
    t.convergence.model = ConvergenceModel::Kaplan;
    std::vector<PhaseSituation> ps;
    ps.push_back({"1K", 0, situation(4e6, 2.0)});
    ps.push_back({"2K", 2e5, situation(8e6, 2.1)});
    set_checkpoint_batching(false);
    const auto ref = time_to_train_phased(t, ps, 11);
    set_checkpoint_batching(true);
    const auto fast = time_to_train_phased(t, ps, 11);
    CHECK(fast.overall.tokens_trained == Approx(ref.overall.tokens_trained).epsilon(1e-9));
    CHECK(fast.overall.expected_mean == Approx(ref.overall.expected_mean).epsilon(1e-9));
    for (std::size_t p = 0; p < ps.size(); ++p)
      CHECK(fast.phases[p].mean_tokens_trained == Approx(ref.phases[p].mean_tokens_trained).epsilon(1e-9));
    CHECK(fast.overall.tokens_trained > t.tokens);
  }
}

TEST_CASE("Batch schedule at a fixed critical batch: after_tokens count progress at the first batch",
          "[reliability][convergence]") {
  // 4M tokens per step, then 16M after 1e12 (reference tokens); B_crit = 4M: each token at 16M is
  // worth (4 + 4)/(4 + 16) = 0.4 reference tokens. Same tokens/s (2e6) at both batches.
  TrainingSpec t = no_failures(3e12);
  t.batch_schedule = {{0, 4e6}, {1e12, 16e6}};
  t.convergence.model = ConvergenceModel::Fixed;
  t.convergence.critical_batch = 4e6;
  const Situation s = situation(16e6, 8.0);
  const auto r = time_to_train_phased(t, {{"a", 0, s}, {"b", 6e5, s}}, 3);
  REQUIRE(r.overall.reference_batch == 4e6);
  REQUIRE(r.overall.tokens_trained == Approx(1e12 + 2e12 * 2.5).epsilon(1e-9));
  REQUIRE(r.overall.ideal == Approx(1e12 / 2e6 + 2e12 * 2.5 / 2e6).epsilon(1e-9));
  REQUIRE(r.phases[0].batch == 4e6);
  REQUIRE(r.phases[1].batch == 16e6);  // phase b starts after 1.08e12 of progress
}
