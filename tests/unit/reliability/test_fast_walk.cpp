// The Monte Carlo's fast paths against its reference loop, on inputs that exercise every path of a
// draw (long spelled-out and periodic step-time profiles, timed fabric failures, degraded links,
// batch regimes cut by the convergence grid, rollout phases, planned stops, spare waits, sync and
// async checkpoints): the fast walk (set_fast_walk) bit for bit, checkpoint periods taken at once
// in flat stretches of a profile (set_checkpoint_batching) to 1e-9.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>

#include "models/reliability/time_to_train.hpp"

using namespace aidcsim::reliability;

namespace {

constexpr double kDay = 86400.0;

/// A rollout phase's situation as the engine builds it for the rollout scenario: a fault transient
/// over the first day, then `days` days of a daily cycle spelled out at 5-minute samples, then the
/// daily mean (sim/engine/step_profile.cpp); a timed fabric failure; a degraded-link step time.
Situation situation(int gpus, double step_time, double tokens_per_step, int days) {
  const double pi = std::acos(-1.0);
  Situation s;
  s.gpus = gpus;
  s.step_time = step_time;
  s.tokens_per_step = tokens_per_step;
  s.checkpoint_bytes = 405e9 * 14;
  s.counts.nodes = gpus / 4.0;
  s.counts.links = 3.0 * gpus;
  s.counts.switches = gpus / 20.0;
  s.counts.cdus = gpus / 600.0;
  s.degraded_step_time = step_time * 1.01;
  for (int i = 0; i < 288; ++i) {
    s.profile.times.push_back(i * 300.0);
    s.profile.multipliers.push_back(i >= 72 && i < 75 ? 1.3 : 1.0);
  }
  double rate = 0;
  for (int d = 1; d < days; ++d) {
    for (int i = 0; i < 288; ++i) {
      const double m = 1.0 + std::max(0.0, 0.02 * std::cos(2 * pi * (i - 180) / 288.0));
      s.profile.times.push_back(d * kDay + i * 300.0);
      s.profile.multipliers.push_back(m);
      if (d == 1) rate += 1 / m;
    }
  }
  s.profile.times.push_back(days * kDay);
  s.profile.multipliers.push_back(288 / rate);
  s.fabric_profile.times = {0, 3 * kDay + 1234.5, 9 * kDay};
  s.fabric_profile.multipliers = {1.0, 1.07, 1.02};
  return s;
}

TrainingSpec spec(double tokens, CheckpointMode mode) {
  TrainingSpec t;
  t.tokens = tokens;
  t.parameters = 405e9;
  t.convergence.model = ConvergenceModel::Kaplan;
  t.reliability.draws = 12;
  t.reliability.mode = mode;
  // Spares short some of the time in every phase: ~0.8 (8K) to ~3.2 (31K) failures needing a
  // spare per 6 h repair against 2 spares (a 1 d repair leaves the 31K phase ~13 nodes out for
  // good: its restarts would never find all their nodes).
  t.reliability.hot_spares = 2;
  t.reliability.repair_time = 6 * 3600;
  t.reliability.restart_time = 600;
  t.reliability.link_mode = LinkFailureMode::Degrade;
  t.reliability.link_repair_time = 4 * 3600;
  t.reliability.planned_interval = 20 * kDay;
  t.reliability.failures.push_back({Component::Cdu, 50000 * 3600.0, -1, ""});
  return t;
}

/// Index of a cause ("throttling", "spare_wait") in a result's lost GPU-hours.
std::size_t cause_index(const TimeToTrainResult& r, const std::string& cause) {
  for (std::size_t c = 0; c < r.lost_gpu_hours_by_cause.size(); ++c)
    if (r.lost_gpu_hours_by_cause[c].first == cause) return c;
  FAIL("no cause " << cause);
  return 0;
}

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every number of two results, bit for bit.
void require_identical(const PhasedResult& a, const PhasedResult& b) {
  const auto &x = a.overall, &y = b.overall;
  REQUIRE(x.samples.size() == y.samples.size());
  for (std::size_t i = 0; i < x.samples.size(); ++i) {
    INFO("draw " << i);
    CHECK(same(x.samples[i], y.samples[i]));
  }
  for (auto [u, v] : {std::pair{x.expected_mean, y.expected_mean},
                      {x.p10, y.p10},
                      {x.p90, y.p90},
                      {x.ettr, y.ettr},
                      {x.ideal, y.ideal},
                      {x.tokens, y.tokens},
                      {x.tokens_trained, y.tokens_trained},
                      {x.expected_interruptions, y.expected_interruptions},
                      {x.expected_degradations, y.expected_degradations},
                      {x.expected_planned, y.expected_planned}})
    CHECK(same(u, v));
  REQUIRE(x.lost_gpu_hours_by_cause.size() == y.lost_gpu_hours_by_cause.size());
  for (std::size_t c = 0; c < x.lost_gpu_hours_by_cause.size(); ++c) {
    INFO(x.lost_gpu_hours_by_cause[c].first);
    CHECK(same(x.lost_gpu_hours_by_cause[c].second, y.lost_gpu_hours_by_cause[c].second));
  }
  REQUIRE(a.phases.size() == b.phases.size());
  for (std::size_t p = 0; p < a.phases.size(); ++p) {
    CHECK(same(a.phases[p].mean_tokens, b.phases[p].mean_tokens));
    CHECK(same(a.phases[p].mean_wall, b.phases[p].mean_wall));
    CHECK(same(a.phases[p].mean_tokens_trained, b.phases[p].mean_tokens_trained));
    CHECK(same(a.phases[p].mean_interruptions, b.phases[p].mean_interruptions));
  }
}

PhasedResult run(bool fast, const TrainingSpec& t, const std::vector<PhaseSituation>& ps) {
  set_fast_walk(fast);
  PhasedResult r = time_to_train_phased(t, ps, 42);
  set_fast_walk(true);
  return r;
}

}  // namespace

TEST_CASE("Fast walk: a rollout with a year-long spelled-out profile, bit for bit", "[reliability][fast_walk]") {
  // Three phases as in scenarios/stargate-uk-rollout.yaml, scaled down to ~60 days of training so
  // that the last phase runs past the end of its spelled-out profile (constant daily mean).
  for (CheckpointMode mode : {CheckpointMode::Async, CheckpointMode::Sync}) {
    TrainingSpec t = spec(2.5e13, mode);
    const std::vector<PhaseSituation> ps{{"8K", 0, situation(8064, 5.0, 16.5e6, 40)},
                                         {"16K", 15 * kDay, situation(16128, 5.1, 33e6, 40)},
                                         {"31K", 30 * kDay, situation(31104, 5.3, 63.7e6, 40)}};
    const PhasedResult fast = run(true, t, ps);
    const PhasedResult ref = run(false, t, ps);
    REQUIRE(fast.overall.expected_interruptions > 10);  // failures happen
    REQUIRE(fast.overall.expected_degradations > 1);    // and degraded links
    REQUIRE(fast.overall.expected_mean > 45 * kDay);    // beyond the 40-day profiles
    REQUIRE(fast.overall.lost_gpu_hours_by_cause[cause_index(fast.overall, "spare_wait")].second > 0);
    require_identical(fast, ref);
  }
}

TEST_CASE("Fast walk: periodic profile and a batch schedule, bit for bit", "[reliability][fast_walk]") {
  TrainingSpec t = spec(6e12, CheckpointMode::Async);
  t.convergence.model = ConvergenceModel::None;
  t.batch_schedule = {{0, 8e6, ""}, {1e12, 16e6, ""}, {3e12, 32e6, ""}};
  Situation s = situation(4096, 4.0, 8e6, 2);
  s.profile.times = {0, 3600, 7200.5, 50000};
  s.profile.multipliers = {1.0, 1.05, 1.2, 1.01};
  s.profile.period = kDay;
  s.step_time_by_batch = {{8e6, 4.0}, {16e6, 7.5}, {32e6, 14.0}};
  const PhasedResult fast = run(true, t, {{"job", 0, s}});
  const PhasedResult ref = run(false, t, {{"job", 0, s}});
  REQUIRE(fast.overall.expected_interruptions > 1);
  require_identical(fast, ref);
}

TEST_CASE("Checkpoint periods taken at once in a profile's flat stretches match one-by-one checkpoints",
          "[reliability][fast_walk]") {
  // skip_steady_checkpoints inside the segments of the profiles (the phases run past their 10-day
  // profiles: one flat stretch, throttled by the daily mean) and while a link is degraded, against
  // the loop that takes every checkpoint: every draw's wall time, the lost time per cause
  // (throttling, fabric failures and degraded links included), tokens trained, per phase.
  for (CheckpointMode mode : {CheckpointMode::Async, CheckpointMode::Sync}) {
    TrainingSpec t = spec(2.5e13, mode);
    t.reliability.planned_interval = 0;
    const std::vector<PhaseSituation> ps{{"8K", 0, situation(8064, 5.0, 16.5e6, 10)},
                                         {"16K", 15 * kDay, situation(16128, 5.1, 33e6, 10)},
                                         {"31K", 30 * kDay, situation(31104, 5.3, 63.7e6, 10)}};
    set_checkpoint_batching(false);
    const PhasedResult ref = time_to_train_phased(t, ps, 42);
    set_checkpoint_batching(true);
    const PhasedResult fast = time_to_train_phased(t, ps, 42);
    const auto &x = fast.overall, &y = ref.overall;
    REQUIRE(x.samples.size() == y.samples.size());
    for (std::size_t i = 0; i < x.samples.size(); ++i) CHECK(x.samples[i] == Approx(y.samples[i]).epsilon(1e-9));
    CHECK(x.expected_interruptions == y.expected_interruptions);
    CHECK(x.expected_degradations == y.expected_degradations);
    CHECK(x.ettr == Approx(y.ettr).epsilon(1e-9));
    CHECK(x.tokens_trained == Approx(y.tokens_trained).epsilon(1e-9));
    for (std::size_t c = 0; c < x.lost_gpu_hours_by_cause.size(); ++c) {
      INFO(x.lost_gpu_hours_by_cause[c].first);
      CHECK(x.lost_gpu_hours_by_cause[c].second ==
            Approx(y.lost_gpu_hours_by_cause[c].second).epsilon(1e-9).margin(1e-6));
    }
    for (std::size_t p = 0; p < ps.size(); ++p) {
      CHECK(fast.phases[p].mean_wall == Approx(ref.phases[p].mean_wall).epsilon(1e-9));
      CHECK(fast.phases[p].mean_tokens_trained == Approx(ref.phases[p].mean_tokens_trained).epsilon(1e-9));
    }
    // the throttling of the flat stretch (daily mean) is counted in both, degraded links happen
    REQUIRE(x.lost_gpu_hours_by_cause[cause_index(x, "throttling")].second > 0);
    REQUIRE(x.expected_degradations > 1);
    REQUIRE(x.lost_gpu_hours_by_cause[cause_index(x, "spare_wait")].second > 0);
  }
}
