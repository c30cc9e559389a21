// Closed forms and conservation laws of the time-to-train Monte Carlo.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/common/errors.hpp"
#include "models/reliability/failures.hpp"
#include "models/reliability/time_to_train.hpp"
#include "models/reliability/time_to_train_report.hpp"

using namespace aidcsim::reliability;

namespace {
Situation base_situation() {
  Situation s;
  s.gpus = 1024;
  s.step_time = 10.0;
  s.tokens_per_step = 4e6;
  s.checkpoint_bytes = 1e12;  // 1 TB -> 0.5 s at 2 TB/s
  s.counts.nodes = 128;
  s.counts.switches = 48;
  s.counts.links = 2048;
  return s;
}
TrainingSpec base_spec(double days) {
  TrainingSpec t;
  t.tokens = days * 86400.0 / 10.0 * 4e6;  // `days` of ideal training at 4e5 tokens/s
  t.reliability.draws = 200;
  return t;
}
double lost_total(const TimeToTrainResult& r) {
  double s = 0;
  for (const auto& [cause, h] : r.lost_gpu_hours_by_cause) s += h;
  return s;
}
}  // namespace

TEST_CASE("Without failures time-to-train is tokens / throughput plus checkpoint stalls", "[reliability]") {
  TrainingSpec t = base_spec(10);
  t.reliability.preset = FailurePreset::None;
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = 3600;
  t.reliability.mode = CheckpointMode::Sync;
  const Situation s = base_situation();
  const auto r = time_to_train(t, s, 1);
  REQUIRE(r.ideal == Approx(10 * 86400.0));
  // 240 h of work, a checkpoint after every full hour except at the end: 239 stalls of 0.5 s
  REQUIRE(r.expected_mean == Approx(10 * 86400.0 + 239 * 0.5).epsilon(1e-9));
  REQUIRE(r.p10 == r.p90);
  REQUIRE(r.expected_interruptions == 0);
  REQUIRE(r.ettr == Approx(r.ideal / r.expected_mean));
}

TEST_CASE("Lost GPU-hours and retained work add up to the wall time", "[reliability]") {
  TrainingSpec t = base_spec(20);
  const Situation s = base_situation();
  const auto r = time_to_train(t, s, 7);
  REQUIRE(r.expected_interruptions > 1);
  // mean(wall) * gpus = ideal * gpus + mean lost, since retained work = ideal in every draw
  REQUIRE((r.expected_mean - r.ideal) * s.gpus / 3600.0 == Approx(lost_total(r)).epsilon(1e-9));
  REQUIRE(r.p10 <= r.p50);
  REQUIRE(r.p50 <= r.p90);
  REQUIRE(r.samples.size() == 200);
}

TEST_CASE("Same seed gives identical samples, another seed different ones", "[reliability]") {
  TrainingSpec t = base_spec(5);
  const Situation s = base_situation();
  const auto a = time_to_train(t, s, 42);
  const auto b = time_to_train(t, s, 42);
  const auto c = time_to_train(t, s, 43);
  REQUIRE(a.samples == b.samples);
  REQUIRE(a.samples != c.samples);
  // draws do not depend on how many are run: the first 50 of 200 equal a 50-draw run
  t.reliability.draws = 50;
  const auto d = time_to_train(t, s, 42);
  REQUIRE(std::equal(d.samples.begin(), d.samples.end(), a.samples.begin()));
}

TEST_CASE("Simulated interruption count matches rate times window", "[reliability]") {
  TrainingSpec t = base_spec(1);
  t.reliability.draws = 400;
  const Situation s = base_situation();
  const double window = 30 * 86400.0;
  const auto r = simulate_window(t, s, window, 3);
  ComponentCounts n = s.counts;
  n.gpus = s.gpus;
  const double expected = stop_rate(failure_processes(t.reliability, n)) * window;
  // Poisson mean over 400 draws: standard error sqrt(expected / 400)
  REQUIRE(r.expected_interruptions == Approx(expected).margin(4 * std::sqrt(expected / 400)));
}

TEST_CASE("Throttling profile stretches the run by the mean multiplier", "[reliability]") {
  TrainingSpec t = base_spec(10);
  t.reliability.preset = FailurePreset::None;
  Situation s = base_situation();
  s.profile.times = {0, 43200};
  s.profile.multipliers = {1.0, 1.2};  // half the day 20 % slower
  s.profile.period = 86400;
  const auto r = time_to_train(t, s, 1);
  // 10 ideal days: work rate 1 by day-half, 1/1.2 by night-half -> 12 h + 10 h of work per day
  const double days = 240.0 / 22.0;  // wall days to accumulate 240 h of work
  const double whole = std::floor(days);
  const double rest_work = 240.0 - whole * 22.0;  // h of work on the last day
  const double rest_wall = rest_work <= 12 ? rest_work : 12 + (rest_work - 12) * 1.2;
  REQUIRE(r.expected_mean == Approx(whole * 86400 + rest_wall * 3600).epsilon(1e-9));
}

TEST_CASE("Link failures in degrade mode do not interrupt the job", "[reliability]") {
  TrainingSpec t = base_spec(10);
  t.reliability.preset = FailurePreset::None;
  t.reliability.failures.push_back({Component::Link, 86400.0 * 50, -1, ""});  // 2048 links, 41/day
  t.reliability.link_mode = LinkFailureMode::Degrade;
  const Situation s = base_situation();
  const auto r = time_to_train(t, s, 5);
  REQUIRE(r.expected_interruptions == 0);
  REQUIRE(r.expected_degradations > 100);
  REQUIRE(r.expected_mean > r.ideal);
  t.reliability.link_mode = LinkFailureMode::Stop;
  const auto stop = time_to_train(t, s, 5);
  REQUIRE(stop.expected_interruptions > 100);
}

TEST_CASE("Bad inputs raise InvalidParameter with the scenario key", "[reliability]") {
  TrainingSpec t = base_spec(1);
  const Situation s = base_situation();
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = 0;
  try {
    time_to_train(t, s, 1);
    FAIL("expected InvalidParameter");
  } catch (const aidcsim::InvalidParameter& e) {
    REQUIRE(e.key() == "reliability.checkpoint_interval");
  }
  TrainingSpec t2 = base_spec(1);
  PhaseSituation a{"8K", 1.7e9, s}, b{"16K", 1.6e9, s};
  try {
    time_to_train_phased(t2, {a, b}, 1);
    FAIL("expected InvalidParameter");
  } catch (const aidcsim::InvalidParameter& e) {
    REQUIRE(e.key() == "rollout.phases[1].start");
  }
  b.start = 1.8e9;
  b.situation.gpus = 512;
  try {
    time_to_train_phased(t2, {a, b}, 1);
    FAIL("expected InvalidParameter");
  } catch (const aidcsim::InvalidParameter& e) {
    REQUIRE(e.key() == "rollout.phases[1].gpus");
  }
  Situation bad = s;
  bad.step_time = 0;
  REQUIRE_THROWS_AS(time_to_train(t2, bad, 1), aidcsim::SimulationError);
}

TEST_CASE("The job grows with the rollout phases", "[reliability]") {
  TrainingSpec t = base_spec(60);
  t.reliability.preset = FailurePreset::None;
  Situation s1 = base_situation();
  Situation s2 = s1;
  s2.gpus = 2048;
  s2.step_time = 5.0;  // twice the throughput
  const PhaseSituation a{"1K", 0, s1}, b{"2K", 20 * 86400.0, s2};
  const auto r = time_to_train_phased(t, {a, b}, 1);
  // 20 days at 1x, then the remaining 40 ideal days at 2x = 20 days
  REQUIRE(r.overall.ideal == Approx(40 * 86400.0).epsilon(1e-9));
  REQUIRE(r.phases.size() == 2);
  REQUIRE(r.phases[0].mean_tokens + r.phases[1].mean_tokens == Approx(t.tokens));
  REQUIRE(r.overall.expected_mean > r.overall.ideal);  // transition restart + stalls
}

TEST_CASE("A rollout's summary rates are the phase's where training ends; each phase's are reported", "[reliability]") {
  TrainingSpec t = base_spec(60);  // default failure preset: the rate grows with the job
  Situation s1 = base_situation();
  Situation s2 = s1;
  s2.gpus = 4096;
  s2.counts.nodes = 512;
  s2.counts.switches = 192;
  s2.counts.links = 8192;
  const PhaseSituation a{"1K", 0, s1}, b{"4K", 20 * 86400.0, s2};
  const auto r = time_to_train_phased(t, {a, b}, 1);
  REQUIRE(r.phases.size() == 2);
  // Four times the components: a shorter job MTBF and checkpoint interval in the second phase.
  REQUIRE(r.phases[1].job_mtbf < 0.5 * r.phases[0].job_mtbf);
  REQUIRE(r.phases[1].checkpoint_interval < r.phases[0].checkpoint_interval);
  REQUIRE(r.end_phase == 1);  // 60 days of training: it ends in the last phase
  CHECK(r.overall.job_mtbf == r.phases[1].job_mtbf);
  CHECK(r.overall.checkpoint_interval == r.phases[1].checkpoint_interval);
  CHECK(r.phases[0].mean_interruptions + r.phases[1].mean_interruptions ==
        Approx(r.overall.expected_interruptions).epsilon(1e-12));

  aidcsim::Results out;
  report_time_to_train(out, r, t.reliability);
  report_phase_reliability(out, r);
  CHECK(out.scalar("job_mtbf") == Approx(r.phases[1].job_mtbf / 3600).epsilon(1e-12));
  auto column = [&](const std::string& path) -> const aidcsim::Dataset& {
    for (const auto& d : out.datasets)
      if (d.path == path) return d;
    FAIL("no dataset " << path);
    throw;
  };
  const auto& mtbf = column("/phases/job_mtbf");
  CHECK(mtbf.unit == "h");
  REQUIRE(mtbf.data.size() == 2);
  CHECK(mtbf.data[0] == Approx(r.phases[0].job_mtbf / 3600).epsilon(1e-12));
  CHECK(mtbf.data[1] == Approx(r.phases[1].job_mtbf / 3600).epsilon(1e-12));
  const auto& interval = column("/phases/checkpoint_interval");
  CHECK(interval.unit == "min");
  CHECK(interval.data[0] == Approx(r.phases[0].checkpoint_interval / 60).epsilon(1e-12));
  CHECK(interval.data[1] == Approx(r.phases[1].checkpoint_interval / 60).epsilon(1e-12));
  const auto& interruptions = column("/phases/interruptions");
  CHECK(interruptions.data[1] == Approx(r.phases[1].mean_interruptions).epsilon(1e-12));
}

TEST_CASE("A rollout's phase wall times add up to its time-to-train, restarts at phase starts included",
          "[reliability]") {
  // /phases/wall_time left out the checkpoint + restart at each phase start (Draw::transition):
  // on the bundled rollout the three phases summed to 631.726 d against a time_to_train of
  // 631.740 d, 10 min short per phase transition.
  TrainingSpec t = base_spec(60);
  t.reliability.preset = FailurePreset::None;  // no failures: the transitions alone separate the sums
  Situation s1 = base_situation();
  Situation s2 = s1;
  s2.gpus = 4096;
  s2.counts.nodes = 512;
  const PhaseSituation a{"1K", 0, s1}, b{"4K", 20 * 86400.0, s2};
  const auto r = time_to_train_phased(t, {a, b}, 1);
  REQUIRE(r.phases.size() == 2);
  REQUIRE(r.overall.expected_mean > b.start);
  // The first phase ends where the second starts; the second holds its restart.
  CHECK(r.phases[0].mean_wall == Approx(b.start).epsilon(1e-12));
  CHECK(r.phases[0].mean_wall + r.phases[1].mean_wall == Approx(r.overall.expected_mean).epsilon(1e-12));
}

TEST_CASE("A rollout that trains to the end before its last phase reports the phase where it ends", "[reliability]") {
  // The summary gave the last phase's job MTBF and checkpoint interval though that phase never ran
  // (tests/regression/rollout-phases: training ends in phase 2 of 3).
  TrainingSpec t = base_spec(60);
  Situation s1 = base_situation();
  Situation s2 = s1;
  s2.gpus = 4096;
  s2.counts.nodes = 512;
  s2.counts.switches = 192;
  s2.counts.links = 8192;
  Situation s3 = s2;
  s3.gpus = 8192;
  s3.counts.nodes = 1024;
  s3.counts.switches = 384;
  s3.counts.links = 16384;
  const PhaseSituation a{"1K", 0, s1}, b{"4K", 20 * 86400.0, s2}, c{"8K", 200 * 86400.0, s3};
  const auto r = time_to_train_phased(t, {a, b, c}, 1);
  REQUIRE(r.phases.size() == 3);
  REQUIRE(r.overall.expected_mean > b.start);
  REQUIRE(r.overall.expected_mean < c.start);
  CHECK(r.phases[2].mean_wall == 0);  // no draw reaches it
  CHECK(r.end_phase == 1);
  REQUIRE(r.phases[2].job_mtbf < r.phases[1].job_mtbf);
  CHECK(r.overall.job_mtbf == r.phases[1].job_mtbf);
  CHECK(r.overall.checkpoint_interval == r.phases[1].checkpoint_interval);
  aidcsim::Results out;
  report_time_to_train(out, r, t.reliability);
  CHECK(out.scalar("job_mtbf") == Approx(r.phases[1].job_mtbf / 3600).epsilon(1e-12));
  CHECK(out.scalar("checkpoint_interval") == Approx(r.phases[1].checkpoint_interval / 60).epsilon(1e-12));
}

TEST_CASE("Async checkpoints stall only for the snapshot", "[reliability]") {
  TrainingSpec t = base_spec(10);
  t.reliability.preset = FailurePreset::None;
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = 3600;
  t.reliability.mode = CheckpointMode::Async;
  t.reliability.async_stall = 5;
  Situation s = base_situation();
  s.checkpoint_bytes = 100e12;  // 50 s write at 2 TB/s, hidden behind training
  REQUIRE(time_to_train(t, s, 1).expected_mean == Approx(10 * 86400.0 + 239 * 5).epsilon(1e-9));
  s.checkpoint_bytes = 8000e12;  // 4000 s write > interval: the next snapshot waits for it
  // stalls: 5 s, then each later checkpoint waits 4000 - 3600 s for the previous write, then snapshots
  const double expected = 10 * 86400.0 + 5 + 238 * (4000 - 3600 + 5.0);
  REQUIRE(time_to_train(t, s, 1).expected_mean == Approx(expected).epsilon(1e-9));
}

TEST_CASE("Without enough hot spares the job waits for repairs", "[reliability]") {
  TrainingSpec t = base_spec(20);
  t.reliability.preset = FailurePreset::None;
  t.reliability.failures.push_back({Component::Gpu, 1024 * 10 * 3600.0, -1, ""});  // job MTBF 10 h
  t.reliability.hot_spares = 0;
  t.reliability.repair_time = 3600;
  const Situation s = base_situation();
  const auto r = time_to_train(t, s, 11);
  const double wait_h = r.lost_gpu_hours_by_cause[11].second / s.gpus;  // "spare_wait", GPU-h -> h
  REQUIRE(r.lost_gpu_hours_by_cause[11].first == "spare_wait");
  // every interruption waits 1 h unless a new failure cuts the wait short (P ~ 1 - exp(-1.2/10))
  REQUIRE(wait_h <= r.expected_interruptions * 1.0);
  REQUIRE(wait_h >= 0.85 * r.expected_interruptions);
  t.reliability.hot_spares = -1;
  REQUIRE(time_to_train(t, s, 11).expected_mean < r.expected_mean);
}

TEST_CASE("A restart waits until every failed node is back, whatever fails meanwhile", "[reliability]") {
  // Closed form. One node, no hot spare (the failed node itself is repaired, repair r = 24 h), GPU
  // failures needing a spare at mu = 1/24 h, software failures needing none at nu = 1/12 h, a free
  // restart and free sync checkpoints every c = 60 s of work, W = 1,000 h of ideal work. The job is
  // down exactly while a failed node is in repair: the busy periods of an M/D/inf queue (arrivals
  // mu, service r), started by the GPU failures during up time, each of mean (e^{mu r} - 1) / mu
  // (the queue is idle a share e^{-mu r} of the time, in Exp(mu) stretches). Up time U: each of the
  // W / c segments needs (e^{lambda c} - 1) / lambda of it (lambda = mu + nu; a failure loses the
  // segment). Wald: E[T] = E[U] + mu E[U] (e^{mu r} - 1) / mu = E[U] e^{mu r}, ~2,721 h.
  // A software failure during a repair changes nothing. The old draw restarted the job then,
  // without the node (the wait recomputed from the software failure alone): 1,464 h on these draws.
  constexpr double h = 3600, c = 60, W = 1000 * h, r = 24 * h, mu = 1 / (24 * h), nu = 1 / (12 * h);
  Situation s;
  s.gpus = 8;
  s.step_time = 1;
  s.tokens_per_step = 1e6;
  s.checkpoint_bytes = 1;  // 5e-13 s to write or load at 2 TB/s
  TrainingSpec t;
  t.tokens = W * 1e6;
  t.reliability.draws = 2000;
  t.reliability.preset = FailurePreset::None;
  t.reliability.failures.push_back({Component::Gpu, 1 / mu, 1, ""});
  t.reliability.failures.push_back({Component::Software, 1 / nu, 1, ""});
  t.reliability.hot_spares = 0;
  t.reliability.repair_time = r;
  t.reliability.restart_time = 0;
  t.reliability.mode = CheckpointMode::Sync;
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = c;
  const auto res = time_to_train(t, s, 7);
  const double lambda = mu + nu, up = W / c * std::expm1(lambda * c) / lambda;
  const double expected = up * std::exp(mu * r);
  double var = 0;
  for (double x : res.samples) var += (x - res.expected_mean) * (x - res.expected_mean);
  const double se = std::sqrt(var / (res.samples.size() - 1) / res.samples.size());
  INFO("mean " << res.expected_mean / h << " h, expected " << expected / h << " h, standard error " << se / h << " h");
  CHECK(std::abs(res.expected_mean - expected) < 4 * se);
  CHECK(se < 0.01 * expected);  // sharp enough: the old draws' mean is 46 % lower
}

TEST_CASE("Planned interruptions cost a checkpoint write and a restart each", "[reliability]") {
  TrainingSpec t = base_spec(10);
  t.reliability.preset = FailurePreset::None;
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = 1e9;  // no periodic checkpoint
  t.reliability.mode = CheckpointMode::Sync;
  t.reliability.planned_interval = 86400;
  t.reliability.restart_time = 600;
  const auto r = time_to_train(t, base_situation(), 1);
  // planned stops at 1..10 d of wall time, each 0.5 s write + 600 s restart (+ 0.5 s load)
  REQUIRE(r.expected_planned == 10);
  REQUIRE(r.expected_mean == Approx(864000 + 10 * 601.0).epsilon(1e-12));
}

TEST_CASE("Batch schedule: tokens/s per batch size from the engine's step times", "[reliability]") {
  TrainingSpec t;
  t.tokens = 3e12;
  t.reliability.draws = 1;
  t.reliability.preset = FailurePreset::None;
  t.batch_schedule = {{0, 4e6, ""}, {1e12, 16e6, ""}};
  Situation s = base_situation();
  s.step_time_by_batch = {{4e6, 10.0}, {16e6, 20.0}};  // 4e5 tokens/s, then 8e5 tokens/s
  const auto r = time_to_train(t, s, 1);
  REQUIRE(r.ideal == Approx(1e12 / 4e5 + 2e12 / 8e5).epsilon(1e-12));
  // without the table the schedule does not change tokens/s
  s.step_time_by_batch.clear();
  REQUIRE(time_to_train(t, s, 1).ideal == Approx(3e12 / 4e5).epsilon(1e-12));
}

TEST_CASE("Storage bandwidth left by the fabric slows checkpoint writes", "[reliability]") {
  TrainingSpec t = base_spec(10);
  t.reliability.preset = FailurePreset::None;
  t.reliability.policy = CheckpointPolicy::Fixed;
  t.reliability.checkpoint_interval = 3600;
  t.reliability.mode = CheckpointMode::Sync;
  Situation s = base_situation();
  s.storage_bandwidth = 0.5e12;  // 1 TB at 0.5 TB/s: 2 s per checkpoint instead of 0.5 s
  REQUIRE(time_to_train(t, s, 1).expected_mean == Approx(10 * 86400.0 + 239 * 2.0).epsilon(1e-9));
}

TEST_CASE("Checkpoint periods taken at once give the draws of one-by-one checkpoints", "[reliability]") {
  // skip_steady_checkpoints (time_to_train.cpp) against the reference loop: every draw's wall
  // time, lost time per cause and interruption count, with failures, sync and async writes, a
  // planned-maintenance interval and rollout phases.
  auto compare = [](const TimeToTrainResult& a, const TimeToTrainResult& b) {
    REQUIRE(a.samples.size() == b.samples.size());
    for (std::size_t i = 0; i < a.samples.size(); ++i) CHECK(a.samples[i] == Approx(b.samples[i]).epsilon(1e-9));
    CHECK(a.expected_interruptions == b.expected_interruptions);
    for (std::size_t c = 0; c < a.lost_gpu_hours_by_cause.size(); ++c)
      CHECK(a.lost_gpu_hours_by_cause[c].second ==
            Approx(b.lost_gpu_hours_by_cause[c].second).epsilon(1e-9).margin(1e-6));
  };
  for (CheckpointMode mode : {CheckpointMode::Sync, CheckpointMode::Async}) {
    TrainingSpec t = base_spec(30);
    t.reliability.draws = 40;
    t.reliability.mode = mode;
    t.reliability.planned_interval = 7 * 86400.0;
    Situation s = base_situation();
    s.checkpoint_bytes = 20e12;  // 10 s write
    set_checkpoint_batching(false);
    const auto ref = time_to_train(t, s, 5);
    Situation s2 = s;
    s2.gpus = 2048;
    s2.step_time = 6.0;
    const auto ref_phased = time_to_train_phased(t, {{"1K", 0, s}, {"2K", 10 * 86400.0, s2}}, 5);
    set_checkpoint_batching(true);
    const auto fast = time_to_train(t, s, 5);
    const auto fast_phased = time_to_train_phased(t, {{"1K", 0, s}, {"2K", 10 * 86400.0, s2}}, 5);
    compare(fast, ref);
    compare(fast_phased.overall, ref_phased.overall);
  }
}

TEST_CASE("Host failures scale per server / compute tray: per GPU twice as many on GB200 as on HGX H100",
          "[reliability][failures]") {
  // Llama 3 Table 5 (arXiv:2407.21783 §3.3.4): host maintenance 32 + SSD 3 + PSU 3 + chassis 2 +
  // IO board 2 + CPU 2 + system memory 2 = 46 in 54 days on 2,048 8-GPU servers (2 CPUs each).
  // A GB200 NVL72 compute tray is one host with 2 Grace CPUs and 4 GPUs (NVIDIA DGX GB200 user
  // guide): the same parts per host, twice the hosts per GPU (docs/reliability.md, "Host failures").
  const double per_host_hour = 46.0 / (2048.0 * 54.0 * 24.0);
  ReliabilitySpec spec;  // preset llama3
  auto host_rate_per_gpu_hour = [&](double gpus, int gpus_per_node) {
    ComponentCounts n;
    n.gpus = gpus;
    n.nodes = gpus / gpus_per_node;  // as the engine counts hosts (simulate.cpp)
    const auto p = failure_processes(spec, n);
    return p[static_cast<int>(Component::Host)].rate * 3600.0 / gpus;
  };
  const double hgx_h100 = host_rate_per_gpu_hour(16384, 8);
  const double gb200 = host_rate_per_gpu_hour(31104, 4);
  REQUIRE(hgx_h100 == Approx(per_host_hour / 8).epsilon(1e-12));  // 2.17e-6 per GPU-hour
  REQUIRE(gb200 == Approx(per_host_hour / 4).epsilon(1e-12));     // 4.33e-6 per GPU-hour
  REQUIRE(hgx_h100 == Approx(2.166e-6).epsilon(1e-3));
  REQUIRE(gb200 == Approx(4.333e-6).epsilon(1e-3));
  // On the Llama 3 cluster the host share of the GPU, HBM, NIC, host and software rates is
  // Table 5's: 46 of 384 (the 35 switch/cable interruptions come from the fabric's counts).
  ComponentCounts llama;
  llama.gpus = 16384;
  llama.nodes = 2048;
  const auto p = failure_processes(spec, llama);
  double hw_sw = 0;
  for (Component c : {Component::Gpu, Component::Hbm, Component::Nic, Component::Host, Component::Software})
    hw_sw += p[static_cast<int>(c)].rate;
  REQUIRE(p[static_cast<int>(Component::Host)].rate / hw_sw == Approx(46.0 / 384.0).epsilon(1e-12));
}
