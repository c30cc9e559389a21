// Every loop of the time-to-train Monte Carlo is bounded: inputs that used to hang it (cases
// ../shared/cases/input/01, 02, 23) are refused before drawing with the key to change, values are
// used as written or a warning says otherwise (22, step/18), and contradictory keys are errors (07).
#include <catch2/catch.hpp>

#include <chrono>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/reliability/checkpoint.hpp"
#include "models/reliability/reliability_schema.hpp"
#include "models/reliability/time_to_train.hpp"

using namespace aidcsim;
using namespace aidcsim::reliability;

namespace {
// The 1,024-H100 job of case step/18: 10 s steps of 4M tokens, a 10 TB checkpoint (5 s at 2 TB/s).
Situation h100_1k() {
  Situation s;
  s.gpus = 1024;
  s.step_time = 10.0;
  s.tokens_per_step = 4e6;
  s.checkpoint_bytes = 10e12;
  s.counts.nodes = 128;
  s.counts.switches = 48;
  s.counts.links = 2048;
  return s;
}
TrainingSpec spec(double tokens, int draws = 100) {
  TrainingSpec t;
  t.tokens = tokens;
  t.reliability.draws = draws;
  return t;
}
std::string error_key(const TrainingSpec& t, const Situation& s) {
  try {
    time_to_train(t, s, 1);
  } catch (const InvalidParameter& e) {
    return e.key();
  }
  return "(no error)";
}
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

TEST_CASE("a run too long to draw is refused up front, naming the key", "[reliability][bounds]") {
  // Case input/02: 1e18 tokens at 4e5 tokens/s is 80,000 years; it used to loop for ever.
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(error_key(spec(1e18), h100_1k()) == "training.tokens");
  try {
    time_to_train(spec(1e16, 1000), h100_1k(), 1);
    FAIL("no exception");
  } catch (const InvalidParameter& e) {
    CHECK_THAT(e.expected(), Catch::Contains("fewer tokens or fewer reliability.draws"));
    CHECK_THAT(e.expected(), Catch::Contains("years of training each"));
  }
  CHECK(seconds_since(t0) < 2);
  // The same job with a target the budget allows runs.
  CHECK_NOTHROW(time_to_train(spec(1e12, 20), h100_1k(), 1));
}

TEST_CASE("a job whose failures outpace its restarts is refused up front", "[reliability][bounds]") {
  // Case input/23: an MTBF of 1 ns (or 1e-320 s) per GPU; the schema now bounds it to >= 1 h, but
  // 1 h per GPU on 1,024 GPUs (job MTBF 3.5 s) against a 10 min restart still never progresses.
  TrainingSpec t = spec(1e12);
  t.reliability.failures.push_back({Component::Gpu, 3600, -1, "reliability.failures[0]"});
  const auto t0 = std::chrono::steady_clock::now();
  try {
    time_to_train(t, h100_1k(), 1);
    FAIL("no exception");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "reliability.failures");
    CHECK_THAT(e.expected(), Catch::Contains("the job cannot make progress"));
  }
  CHECK(seconds_since(t0) < 2);
}

TEST_CASE("a rollout whose later phase cannot progress names that phase's MTBF", "[reliability][bounds]") {
  // 1,024 GPUs at a GPU MTBF of 1,000 h (job MTBF ~59 min) progress through their day; 1,000x the
  // count (job MTBF 3.5 s, as the case above) cannot. The error used to quote the first phase's
  // figures whichever phase exceeded the budget.
  TrainingSpec t = spec(1e12, 10);
  t.reliability.preset = FailurePreset::None;
  t.reliability.failures.push_back({Component::Gpu, 1000 * 3600.0, -1, "reliability.failures[0]"});
  Situation big = h100_1k();
  big.gpus = 1024 * 1000;
  const PhaseSituation a{"1K", 0, h100_1k()}, b{"1M", 86400.0, big};
  try {
    time_to_train_phased(t, {a, b}, 1);
    FAIL("no exception");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "reliability.failures");
    CHECK_THAT(e.value(), Catch::Contains("in rollout phase '1M' (1024000 GPUs)"));
    CHECK_THAT(e.value(), Catch::StartsWith("job MTBF 3.52 s"));  // 1,000 h / 1,024,000 GPUs
    CHECK_THAT(e.expected(), Catch::Contains("the job cannot make progress"));
  }
}

TEST_CASE("planned stops, checkpoints and the wall time are bounded", "[reliability][bounds]") {
  // Case input/01: a 1e-320 s planned interval made `next += interval` a no-op loop. Below the
  // schema's 10 min it is still refused (or runs) in bounded time when called directly.
  TrainingSpec t = spec(1e12, 10);
  t.reliability.planned_interval = 1e-320;
  CHECK(error_key(t, h100_1k()) == "reliability.planned_interval");
  t.reliability.planned_interval = 600;
  CHECK_NOTHROW(time_to_train(t, h100_1k(), 1));
  TrainingSpec c = spec(1e14, 1000);
  c.reliability.policy = CheckpointPolicy::Fixed;
  c.reliability.checkpoint_interval = 1;
  CHECK(error_key(c, h100_1k()) == "reliability.checkpoint_interval");
}

namespace {
// What time_to_train makes of `t`: "accepted" when the budget takes it (the Monte Carlo is then
// cancelled before its first draw, so a long run costs nothing), else the key of its error.
std::string budget_outcome(const TrainingSpec& t, const Situation& s, std::string* expected = nullptr) {
  request_cancel(0);
  std::string out = "(ran)";
  try {
    time_to_train(t, s, 1);
  } catch (const Cancelled&) {
    out = "accepted";
  } catch (const InvalidParameter& e) {
    out = e.key();
    if (expected) *expected = e.expected();
  }
  reset_cancel();
  return out;
}
// The figure (s) the message gives after `before`, e.g. "an async_stall of at least " -> 0.012;
// -1 when absent.
double seconds_after(const std::string& text, const std::string& before) {
  const auto at = text.find(before);
  if (at == std::string::npos) return -1;
  char* end = nullptr;
  const double v = std::strtod(text.c_str() + at + before.size(), &end);
  if (std::string(end, 4) == " min") return 60 * v;
  if (std::string(end, 2) == " h") return 3600 * v;
  if (std::string(end, 2) == " d") return 86400 * v;
  return std::string(end, 2) == " s" ? v : -1;
}
}  // namespace

TEST_CASE("checkpoints from a tiny async stall are blamed on async_stall, not the tokens", "[reliability][bounds]") {
  // Case step/18's kind on a long job (72 d of ideal training, 1000 draws): async_stall 0 s gives
  // Young/Daly a zero interval, raised to one 10 s step: 1.2e9 events. The error named
  // training.tokens, as if the token count were the cause.
  TrainingSpec t = spec(4e5 * 86400 * 72, 1000);
  t.reliability.mode = CheckpointMode::Async;
  t.reliability.async_stall_given = true;
  for (const double stall : {0.0, 1e-320, 1e-4}) {
    t.reliability.async_stall = stall;
    std::string expected;
    REQUIRE(budget_outcome(t, h100_1k(), &expected) == "reliability.async_stall");
    CHECK_THAT(expected, Catch::Contains("Young/Daly's optimum for a "));
    CHECK_THAT(expected, Catch::Contains("a checkpoint every 10 s"));
    CHECK_THAT(expected, Catch::Contains("raised to one step (10 s)"));
  }
  std::string expected;
  REQUIRE(budget_outcome(t, h100_1k(), &expected) == "reliability.async_stall");
  // The smallest stall and the smallest fixed interval it quotes are accepted; a bit less is not.
  const double x = seconds_after(expected, "an async_stall of at least ");
  REQUIRE(x > 1e-4);
  t.reliability.async_stall = x;
  CHECK(budget_outcome(t, h100_1k()) == "accepted");
  t.reliability.async_stall = 0.97 * x;
  CHECK(budget_outcome(t, h100_1k()) == "reliability.async_stall");
  const double y = seconds_after(expected, "checkpoint_policy: fixed with a checkpoint_interval of at least ");
  REQUIRE(y > 10);
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = y;
  CHECK(budget_outcome(t, h100_1k()) == "accepted");
  t.reliability.checkpoint_interval = 0.97 * y;
  CHECK(budget_outcome(t, h100_1k(), &expected) == "reliability.checkpoint_interval");
  CHECK(seconds_after(expected, "a checkpoint_interval of at least ") == y);
  // Sync checkpoints of 100 MB (a 0.05 ms write): one a step is what Young/Daly would take with any
  // stall up to the write; the run is simply long, and the token count is the key.
  t.reliability.policy = CheckpointPolicy::YoungDaly;
  t.reliability.mode = CheckpointMode::Sync;
  t.reliability.async_stall_given = false;
  t.reliability.checkpoint_bytes = 1e8;
  CHECK(budget_outcome(t, h100_1k()) == "training.tokens");
  // Where no stall nor interval would do, the token count is the key.
  TrainingSpec huge = spec(1e18, 1000);
  huge.reliability.async_stall = 0;
  CHECK(budget_outcome(huge, h100_1k()) == "training.tokens");
}

TEST_CASE("a fixed interval far beyond the job MTBF is blamed on checkpoint_interval", "[reliability][bounds]") {
  // A checkpoint every 60 d against a job MTBF of ~2 d: each segment is retried ~e^29 times. The
  // error named reliability.failures ("the job cannot make progress") as if the MTBF were the cause.
  TrainingSpec t = spec(1e12, 100);
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = 60 * 86400.0;
  std::string expected;
  REQUIRE(budget_outcome(t, h100_1k(), &expected) == "reliability.checkpoint_interval");
  CHECK_THAT(expected, Catch::Contains("a checkpoint every 60 d, longer than the job MTBF of "));
  CHECK_THAT(expected, Catch::Contains("or checkpoint_policy: young_daly"));
  const double z = seconds_after(expected, "a checkpoint_interval of at most ");
  REQUIRE(z > 0);
  t.reliability.checkpoint_interval = z;
  CHECK(budget_outcome(t, h100_1k()) == "accepted");
  t.reliability.checkpoint_interval = 1.03 * z;
  CHECK(budget_outcome(t, h100_1k()) == "reliability.checkpoint_interval");
  // A job that cannot progress whatever the interval (job MTBF 3.5 s) still names the failures.
  t.reliability.failures.push_back({Component::Gpu, 3600, -1, "reliability.failures[0]"});
  CHECK(budget_outcome(t, h100_1k()) == "reliability.failures");
}

TEST_CASE("a draw that stops progressing ends with a SimulationError", "[reliability][bounds]") {
  // A thermal shutdown that never ends (multiplier +inf from t = 0): no tokens are ever trained.
  Situation s = h100_1k();
  s.profile.times = {0};
  s.profile.multipliers = {std::numeric_limits<double>::infinity()};
  CHECK_THROWS_AS(time_to_train(spec(1e12, 2), s, 1), SimulationError);
}

TEST_CASE("a fixed checkpoint interval is used as written, with a warning below one step", "[reliability][bounds]") {
  // Case input/22: 1e-320 s used to be silently replaced by 1 s (time-to-train x5.6).
  TrainingSpec t = spec(1e12, 20);
  t.reliability.preset = FailurePreset::None;
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = 2;
  t.reliability.mode = CheckpointMode::Sync;
  const auto r = time_to_train(t, h100_1k(), 1);
  CHECK(r.checkpoint_interval == 2);
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Catch::Contains("shorter than one training step"));
  t.reliability.checkpoint_interval = 600;
  CHECK(time_to_train(t, h100_1k(), 1).warnings.empty());
}

TEST_CASE("a zero async stall never costs more than a small one", "[reliability][bounds]") {
  // Case step/18: lowering reliability.async_stall can only help. Young/Daly with a zero stall
  // gives a zero interval; it used to be clamped to 1 s, under the 5 s background write, and the
  // job lost 80 % of its time waiting for writes (8.77 d against 1.756 d at 0.1 s).
  TrainingSpec t = spec(4e5 * 86400 * 1.5, 200);  // 1.5 days of ideal training
  t.reliability.mode = CheckpointMode::Async;
  t.reliability.async_stall = 0;
  const auto zero = time_to_train(t, h100_1k(), 1);
  t.reliability.async_stall = 0.1;
  const auto small = time_to_train(t, h100_1k(), 1);
  CHECK(zero.expected_mean <= small.expected_mean);
  CHECK(zero.ettr >= small.ettr);
  CHECK(zero.checkpoint_interval >= 10);  // at least one step and the 5 s write
  // A stall longer than the write is the write (as sync), said in a warning when it was written.
  t.reliability.async_stall = 60;
  t.reliability.async_stall_given = true;
  const auto capped = time_to_train(t, h100_1k(), 1);
  CHECK(capped.checkpoint_stall == Approx(5.0));
  REQUIRE(capped.warnings.size() == 1);
  CHECK_THAT(capped.warnings[0], Catch::Contains("async_stall (1 min) is longer than writing the whole checkpoint"));
}

TEST_CASE("young_daly's interval is at least one step and, async, the write time", "[reliability][bounds]") {
  ReliabilitySpec r;
  r.policy = CheckpointPolicy::YoungDaly;
  r.mode = CheckpointMode::Async;
  CheckpointCost cost;
  cost.write = 5;
  cost.stall = 0;
  CHECK(checkpoint_interval(r, cost, 3600, 2) == 5);
  CHECK(checkpoint_interval(r, cost, 3600, 7) == 7);
  r.mode = CheckpointMode::Sync;
  cost.stall = 5;
  CHECK(checkpoint_interval(r, cost, 3600, 1) == Approx(daly_interval(5, 3600)));
  r.policy = CheckpointPolicy::Fixed;
  r.checkpoint_interval = 0.5;
  CHECK(checkpoint_interval(r, cost, 3600, 10) == 0.5);  // as written
}

TEST_CASE("checkpoint_interval with checkpoint_policy young_daly is an error", "[reliability][bounds]") {
  // Case input/07: the written interval was ignored without a word.
  Params root;
  root.set("training.tokens", 15e12, "15T");
  root.set("reliability.checkpoint_policy", std::string("young_daly"), "young_daly");
  root.set("reliability.checkpoint_interval", 1800.0, "30 min");
  try {
    spec_from(root);
    FAIL("no exception");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "reliability.checkpoint_interval");
    CHECK_THAT(e.expected(), Catch::Contains("young_daly"));
  }
}

TEST_CASE("the Monte Carlo stops between draws when cancelled", "[reliability][cancel]") {
  request_cancel(2);
  try {
    time_to_train(spec(1e12, 10), h100_1k(), 1);
    reset_cancel();
    FAIL("no exception");
  } catch (const Cancelled& e) {
    CHECK(e.signal() == 2);
    CHECK_THAT(e.what(), Catch::Contains("SIGINT"));
  }
  reset_cancel();
  CHECK_NOTHROW(time_to_train(spec(1e12, 10), h100_1k(), 1));
}

TEST_CASE("an MTBF for a class the situation counts none of is said, not silently dropped", "[reliability][bounds]") {
  // The engine counts no job-stopping pump (counts.pumps 0): `failures: [{component: pump, mtbf:
  // 20000 h}]` changed nothing in the rollout scenario (6,424 interruptions either way) and the
  // run's note that pump rates are 0 went away, as if they were now modelled.
  TrainingSpec t = spec(1e12, 20);
  FailureOverride pump;
  pump.component = Component::Pump;
  pump.mtbf = 20000 * 3600.0;
  pump.key = "reliability.failures[1]";
  pump.mtbf_text = "20000 h";
  t.reliability.failures.push_back(pump);
  const auto r = time_to_train(t, h100_1k(), 1);
  REQUIRE(r.warnings.size() == 1);
  INFO(r.warnings[0]);
  // Worded as written (the mtbf's text; no internal situation name such as 'job' outside a rollout).
  CHECK_THAT(r.warnings[0], Catch::StartsWith("reliability.failures[1] (pump): mtbf 20000 h given, but the engine "
                                              "counts no pump whose failure stops the job"));
  CHECK(r.warnings[0].find('\'') == std::string::npos);
  // In a rollout the phase is named as the scenario names it.
  const auto phased = time_to_train_phased(t, {{"first hall", 0, h100_1k()}}, 1);
  REQUIRE(phased.overall.warnings.size() == 1);
  CHECK_THAT(phased.overall.warnings[0], Catch::Contains("but rollout phase 'first hall' counts no pump"));
  // With a count the failures are drawn and nothing is said.
  t.reliability.failures.back().count = 30;
  const auto counted = time_to_train(t, h100_1k(), 1);
  CHECK(counted.warnings.empty());
  CHECK(counted.expected_interruptions > r.expected_interruptions);
}

namespace {
// The 1,024-GPU job with `spares` hot spares, 24 h repairs and a GPU MTBF of 1,000 h: ~24.6
// failures needing a spare per repair, so ~Poisson(24.6) nodes are in repair. With 2 spares the
// job never has all its nodes (a restart waits until at most 2 are out: P ~ 1e-8 at any time);
// the draw used to let a software failure (MTBF 200 h, no spare) end a wait, and drew ~210,000
// loop steps per draw against ~29,000 estimated. With 15 spares they are short some of the time
// (P(N > 15) ~ 0.03): restarts wait for repairs, failures during the wait and restart start the
// restart over, ~44 stopping failures per completed restart (restart_repeats).
TrainingSpec spare_starved(int draws, int spares = 2) {
  TrainingSpec t = spec(1e12, draws);
  t.reliability.preset = FailurePreset::None;
  t.reliability.failures.push_back({Component::Gpu, 1000 * 3600.0, -1, "reliability.failures[0]"});
  t.reliability.failures.push_back({Component::Software, 200 * 3600.0, 1, "reliability.failures[1]"});
  t.reliability.hot_spares = spares;
  t.reliability.repair_time = 86400;
  return t;
}
}  // namespace

TEST_CASE("the event budget counts restarts waiting for a spare", "[reliability][bounds]") {
  // Stated: within a factor 1.5 of the measured loop steps either way, with spares short and in
  // ordinary cases (checkpoints and a few failures, unlimited spares).
  const auto within = [](const TimeToTrainResult& r) {
    INFO("estimated " << r.events_estimated << " loop steps per draw, measured " << r.events);
    CHECK(r.events > 0);
    CHECK(r.events_estimated < 1.5 * r.events);
    CHECK(r.events_estimated > r.events / 1.5);
  };
  const TimeToTrainResult short_of_spares = time_to_train(spare_starved(10, 15), h100_1k(), 1);
  TrainingSpec plenty = spare_starved(10, -1);
  const TimeToTrainResult unlimited = time_to_train(plenty, h100_1k(), 1);
  // the regime: most restarts are repeated (with unlimited spares ~1.2 stopping failures each)
  CHECK(short_of_spares.expected_interruptions > 10 * unlimited.expected_interruptions);
  within(short_of_spares);
  within(unlimited);
  within(time_to_train(spec(1e12, 10), h100_1k(), 1));
}

TEST_CASE("a run whose spares run out is refused up front, naming hot_spares", "[reliability][bounds]") {
  // 8,000 draws of the case above with 2 spares: ~2.3e8 loop steps by the first estimate
  // (accepted), ~1.7e9 by the steps the draws took while a software failure could end a wait; a
  // draw now never completes. Refused before drawing, with the fewest spares the budget takes,
  // which it then accepts; unlimited spares are accepted too.
  std::string expected;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(budget_outcome(spare_starved(8000), h100_1k(), &expected) == "reliability.hot_spares");
  CHECK(seconds_since(t0) < 5);
  CHECK_THAT(expected, Catch::Contains("the 2 hot spares run out"));
  CHECK_THAT(expected, Catch::Contains("failures during the wait start them over"));
  const auto at = expected.find("at least ");
  REQUIRE(at != std::string::npos);
  const int least = std::atoi(expected.c_str() + at + 9);
  CHECK(least > 2);
  TrainingSpec t = spare_starved(8000);
  t.reliability.hot_spares = least;
  CHECK(budget_outcome(t, h100_1k()) == "accepted");
  t.reliability.hot_spares = least - 1;
  CHECK(budget_outcome(t, h100_1k()) == "reliability.hot_spares");
  t.reliability.hot_spares = -1;
  CHECK(budget_outcome(t, h100_1k()) == "accepted");
  // At 10 draws the events alone would take 7 spares, whose draws end after ~3,000 years (the job
  // has all its nodes too seldom) and stop at the 1,000-year bound; the fewest spares named must
  // give a run that ends.
  std::string few;
  CHECK(budget_outcome(spare_starved(10), h100_1k(), &few) == "reliability.hot_spares");
  const auto at_few = few.find("at least ");
  REQUIRE(at_few != std::string::npos);
  TrainingSpec named = spare_starved(10, std::atoi(few.c_str() + at_few + 9));
  INFO(few);
  CHECK_NOTHROW(time_to_train(named, h100_1k(), 1));
}

TEST_CASE("the event budget moves the work a spare-starved phase does not do", "[reliability][bounds]") {
  // The job above short of spares (15) for its first 10 days, then on the same GPUs at 4x the
  // tokens per second (a later phase of the same allocation): its 29 days of work would end in the
  // second phase after 10 days of the first without failures; with them the first does ~1/50 of
  // its share (restarts waiting for repairs) and the rest is done in the second, at a quarter of
  // the events per token: the estimate splits the work with each phase slowed by its failures
  // (stage_work). Counting the first phase's failure-free 10 days instead overestimates ~2x.
  Situation fast = h100_1k();
  fast.step_time /= 4;
  const PhaseSituation a{"slow", 0, h100_1k()}, b{"fast", 10 * 86400.0, fast};
  const TimeToTrainResult r = time_to_train_phased(spare_starved(4, 15), {a, b}, 1).overall;
  INFO("estimated " << r.events_estimated << " loop steps per draw, measured " << r.events);
  CHECK(r.events_estimated < 1.5 * r.events);
  CHECK(r.events_estimated > r.events / 1.5);
}
