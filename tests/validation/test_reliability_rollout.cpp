// The Stargate UK rollout scenario (8K -> 16K -> 31K GPUs): it loads, its phases reach the
// reliability model, the phased time-to-train is reproducible bit for bit, and bad rollout /
// checkpoint input is reported at the file:line of the offending key.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "models/reliability/convergence.hpp"
#include "models/reliability/scaling_law.hpp"
#include "models/reliability/time_to_train.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;

namespace {
const std::string kRollout = std::string(AIDCSIM_SOURCE_DIR) + "/scenarios/stargate-uk-rollout.yaml";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Text with the first occurrence of `from` replaced by `to`, and the 1-based line of it.
std::string replaced(const std::string& text, const std::string& from, const std::string& to, int& line) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  return text.substr(0, at) + to + text.substr(at + from.size());
}

ScenarioError load_error(const std::string& text) {
  try {
    load_scenario_text(text, "rollout.yaml");
  } catch (const ScenarioError& e) {
    return e;
  }
  FAIL("expected a ScenarioError");
  throw;
}
}  // namespace

TEST_CASE("Rollout scenario loads with three phases", "[validation][reliability]") {
  const Scenario sc = load_scenario_file(kRollout);
  const auto& ph = sc.training.phases;
  REQUIRE(ph.size() == 3);
  REQUIRE(ph[0].gpus == 8064);           // 112 NVL72 racks
  REQUIRE(ph[1].gpus == 16128);          // 224
  REQUIRE(ph[2].gpus == 31104);          // 432
  REQUIRE(ph[0].start == 1772323200.0);  // 2026-03-01T00:00Z
  REQUIRE(ph[1].start == 1788220800.0);  // 2026-09-01
  REQUIRE(ph[2].start == 1803859200.0);  // 2027-03-01
  REQUIRE(sc.training.reliability.link_mode == reliability::LinkFailureMode::Degrade);
  REQUIRE(sc.training.reliability.failures.size() == 1);
}

namespace {
/// The rollout's phases with step times standing in for the engine's (weak scaling: same per-GPU
/// work, 3 % slower per doubling); global batch 1792 x 8192 tokens per 8064 GPUs.
std::vector<reliability::PhaseSituation> rollout_phases(const Scenario& sc) {
  std::vector<reliability::PhaseSituation> ps;
  double step = 6.0;
  for (const auto& p : sc.training.phases) {
    reliability::Situation s;
    s.gpus = p.gpus;
    s.step_time = step;
    s.tokens_per_step = 1792.0 * 8192 * p.gpus / 8064;
    s.checkpoint_bytes = 405e9 * 14;
    s.counts.nodes = p.gpus / 4.0;
    s.counts.links = 3.0 * p.gpus;
    s.counts.switches = p.gpus / 32.0 * 2.5;
    s.counts.cdus = p.gpus / 72.0 / 8.0;
    ps.push_back({p.name, p.start, s});
    step *= 1.03;
  }
  return ps;
}
}  // namespace

TEST_CASE("Phased time-to-train of the rollout is reproducible bit for bit", "[validation][reliability]") {
  const Scenario sc = load_scenario_file(kRollout);
  const auto ps = rollout_phases(sc);
  reliability::TrainingSpec training = sc.training;
  training.parameters = 405.9e9;  // the engine counts it from workload.model (Kaplan critical batch)
  const auto a = reliability::time_to_train_phased(training, ps, sc.seed);
  const auto b = reliability::time_to_train_phased(training, ps, sc.seed);
  REQUIRE(a.overall.samples == b.overall.samples);
  REQUIRE(a.overall.p90 == b.overall.p90);
  std::printf(
      "[reliability] stargate-uk-rollout (illustrative step times): %.0fT tokens (%.0fT trained at the "
      "phases' batches), p10 %.1f d, p50 %.1f d, p90 %.1f d, ETTR %.3f\n",
      sc.training.tokens / 1e12, a.overall.tokens_trained / 1e12, a.overall.p10 / 86400, a.overall.p50 / 86400,
      a.overall.p90 / 86400, a.overall.ettr);
  double tokens = 0;
  for (const auto& p : a.phases) {
    std::printf(
        "[reliability]   phase %-4s %6d GPUs  MTBF %5.2f h  ckpt every %4.0f s  %6.2fT tokens  %6.1f d  "
        "%6.1f interruptions\n",
        p.name.c_str(), p.gpus, p.job_mtbf / 3600, p.checkpoint_interval, p.mean_tokens / 1e12, p.mean_wall / 86400,
        p.mean_interruptions);
    tokens += p.mean_tokens;
  }
  REQUIRE(tokens == Approx(sc.training.tokens).epsilon(1e-9));
  // The scenario's convergence model (Kaplan critical batch): the larger phases' batches cost tokens.
  REQUIRE(sc.training.convergence.model == reliability::ConvergenceModel::Kaplan);
  REQUIRE(a.overall.tokens_trained > sc.training.tokens);
  REQUIRE(a.phases[0].mean_tokens_trained == Approx(a.phases[0].mean_tokens).epsilon(1e-12));
  REQUIRE(a.phases[2].mean_tokens_trained > a.phases[2].mean_tokens);
  REQUIRE(a.phases[0].mean_wall == Approx(184 * 86400.0).epsilon(1e-6));  // 2026-03-01 .. 09-01
}

TEST_CASE("Rollout: the 31K phase's batch beyond the critical batch lengthens time-to-train",
          "[validation][reliability]") {
  // The rollout grows the global batch with DP (16.5M -> 33M -> 64M tokens per step) while the
  // Kaplan critical batch at the loss reached is ~12M tokens (eq. 1.4 at the Chinchilla loss of a
  // 405.9B model): the 16K and 31K phases train beyond it, and their tokens cost more.
  const Scenario sc = load_scenario_file(kRollout);
  const auto ps = rollout_phases(sc);
  reliability::TrainingSpec kaplan = sc.training;
  kaplan.parameters = 405.9e9;
  kaplan.reliability.draws = 200;
  reliability::TrainingSpec none = kaplan;
  none.convergence.model = reliability::ConvergenceModel::None;
  const auto k = reliability::time_to_train_phased(kaplan, ps, sc.seed);
  const auto n = reliability::time_to_train_phased(none, ps, sc.seed);
  std::printf(
      "[reliability] rollout convergence: no model ideal %.1f d, p50 %.1f d; kaplan ideal %.1f d, p50 %.1f d, "
      "%.0fT tokens trained for %.0fT at the 8K batch\n",
      n.overall.ideal / 86400, n.overall.p50 / 86400, k.overall.ideal / 86400, k.overall.p50 / 86400,
      k.overall.tokens_trained / 1e12, kaplan.tokens / 1e12);
  for (const auto& p : k.phases)
    std::printf("[reliability]   phase %-4s batch %5.1fM  B_crit at start %5.1fM  %6.2fT progress  %6.2fT trained\n",
                p.name.c_str(), p.batch / 1e6, p.critical_batch / 1e6, p.mean_tokens / 1e12,
                p.mean_tokens_trained / 1e12);
  REQUIRE(n.overall.tokens_trained == Approx(kaplan.tokens).epsilon(1e-9));
  REQUIRE(k.overall.ideal > 1.2 * n.overall.ideal);
  REQUIRE(k.overall.p50 > n.overall.p50);
  // The 31K phase trains at ~5x B_crit: each of its tokens is worth (B_crit + 16.5M)/(B_crit + 63.7M)
  // of a reference token, between the costs at the two ends of the phase's B_crit range.
  const auto& p31 = k.phases[2];
  REQUIRE(p31.batch > 4 * p31.critical_batch);
  const double b_end =
      reliability::kaplan_critical_batch(reliability::chinchilla_loss(kaplan.parameters, kaplan.tokens));
  const double cost_start =
      reliability::batch_token_cost(p31.batch, ps[0].situation.tokens_per_step, p31.critical_batch);
  const double cost_end = reliability::batch_token_cost(p31.batch, ps[0].situation.tokens_per_step, b_end);
  const double cost = p31.mean_tokens_trained / p31.mean_tokens;
  REQUIRE(cost <= cost_start * (1 + 1e-3));
  REQUIRE(cost >= cost_end * (1 - 1e-3));
  // Time-to-train rises with the 31K phase's batch at its throughput (more microbatches per step,
  // the same tokens/s): flat without the model, growing with it.
  double last_k = 0, first_n = 0;
  for (double scale : {1.0, 2.0, 4.0}) {
    auto grown = ps;
    grown[2].situation.tokens_per_step *= scale;
    grown[2].situation.step_time *= scale;
    kaplan.reliability.draws = none.reliability.draws = 1;
    const double tk = reliability::time_to_train_phased(kaplan, grown, sc.seed).overall.ideal;
    const double tn = reliability::time_to_train_phased(none, grown, sc.seed).overall.ideal;
    if (scale == 1.0) first_n = tn;
    REQUIRE(tn == Approx(first_n).epsilon(1e-9));
    REQUIRE(tk > last_k);
    last_k = tk;
  }
}

TEST_CASE("Bad rollout and checkpoint input -> file:line errors", "[validation][reliability]") {
  const std::string text = read(kRollout);
  int line = 0;
  {  // phases out of date order
    const auto e = load_error(replaced(text, "start: \"2027-03-01\"", "start: \"2026-06-01\"", line));
    REQUIRE(e.key() == "rollout.phases[2].start");
    REQUIRE(e.where().line == line);
  }
  {  // a phase smaller than the one before (and than the job)
    const auto e = load_error(replaced(text, "gpus: 16128", "gpus: 4032", line));
    REQUIRE(e.key() == "rollout.phases[1].gpus");
    REQUIRE(e.where().line == line);
  }
  {  // checkpoint interval of zero
    const auto e = load_error(replaced(text, "checkpoint_policy: young_daly", "checkpoint_interval: \"0 min\"", line));
    REQUIRE(e.key() == "reliability.checkpoint_interval");
    REQUIRE(e.where().line == line);
  }
}
