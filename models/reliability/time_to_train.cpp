#include "models/reliability/time_to_train.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/common/units.hpp"
#include "models/reliability/checkpoint.hpp"
#include "models/reliability/convergence.hpp"

namespace aidcsim::reliability {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Bounds of the Monte Carlo. Every event of a draw (checkpoint, failure, restart, planned stop,
// phase change, step-time profile edge) is counted as about two loop iterations; the default
// scenario is estimated at ~3.0e7 iterations over its 1000 draws, the rollout at ~4.9e8. A run
// estimated above kMaxEvents iterations is refused before drawing (InvalidParameter naming what to
// change); a draw that goes beyond kEventSlack times its share of the estimate, or past kMaxWall
// of simulated time, stops with a SimulationError. The bound is on counted events, not on time:
// runs estimated at ~0.99 kMaxEvents took, in CPU s of the Monte Carlo (`run --profile`,
// 2026-12-03, this build's -O2, jemalloc; wall time up to 2.5x that on the shared machine):
// 0.9 s default scenario x 33,000 draws (checkpoints, steady periods batched); 1.4 s and 12 s
// the 8K job with gpu MTBF 20,000 h x 19,000 draws and 700 h x 2,030 draws (failures); 1.9 s the
// rollout x 2,000 draws; 32 s the rollout with gpu MTBF 5,000 h and 127 hot spares (the fewest
// the budget takes) x 52 draws: ~155 nodes in repair at 31K GPUs, restarts wait for the moments
// when at most 127 are (15.5 M interruptions per draw, 268 years: restart_repeats, stage_work).
// With its 32 spares that run is now refused (the job never has all its nodes); while a failure
// needing no spare ended a wait, 52 draws took 37 s, and before the spare wait was counted (1.8e6
// steps estimated) 550 were let through: 375 s.
constexpr double kMaxEvents = 1e9;
constexpr double kIterationsPerEvent = 2;
constexpr double kEventSlack = 20;
constexpr double kMinEventsPerDraw = 1e6;
constexpr double kMaxWall = 1000 * units::kJulianYear;  // s: 1000 years

bool g_batch_checkpoints = true;  // set_checkpoint_batching
bool g_fast_walk = true;          // set_fast_walk
constexpr std::size_t kNoCursor = static_cast<std::size_t>(-1);

// Causes of lost GPU time: the components, then the overheads that are not failures.
enum Overhead { kCheckpoint = kComponents, kSpareWait, kTransition, kThrottling, kFabricEvents, kPlanned, kCauses };
const char* cause_name(int c) {
  switch (c) {
    case kCheckpoint:
      return "checkpoint";
    case kSpareWait:
      return "spare_wait";
    case kTransition:
      return "phase_transition";
    case kThrottling:
      return "throttling";
    case kFabricEvents:
      return "fabric_failures";
    case kPlanned:
      return "planned";
    default:
      return component_name(static_cast<Component>(c));
  }
}

/// A phase compiled for the draw loop (times relative to the job start).
struct Stage {
  std::string name;
  double t_start = 0, t_end = kInf;
  int gpus = 0;
  double gpu_count = 0;  // gpus as a double, for the GPU-s products of the draw loop
  double step_time = 0;
  // Regimes of progress k (tokens at the reference batch with a convergence model, else tokens):
  // the batch schedule's, cut further by the convergence grid. from_tokens[0] = 0.
  std::vector<double> from_tokens;
  std::vector<double> tps;         // nominal progress/s of each regime (tokens/s over `token_cost`)
  std::vector<double> token_cost;  // tokens trained per unit of progress in each regime (1: none)
  std::vector<double> batch;       // tokens per step of each regime
  double degraded_factor = 1;      // step-time factor while a link is down (degrade mode)
  std::vector<FailureProcess> procs;
  std::vector<double> cum_rate;  // cumulative rates of procs, for drawing the cause
  // The fast walk's draw_cause: cum_rate in a fixed-size array (a loop the compiler unrolls) and,
  // for each index the count reaches, the process with a rate it settles on (its walk back over
  // the empty classes, done once). Only when procs has one process per component (failures.hpp).
  bool fixed_causes = false;
  std::array<double, kComponents> cum{};
  std::array<int, kComponents> cause_at{};
  double total_rate = 0;  // all processes (stop + degrade), 1/s
  double stop_rate = 0;
  double spare_rate = 0;  // 1/s, the stopping processes that consume a spare node (needs_spare)
  // Stopping failures per restart that completes (restart_repeats): exp(lambda R) without a spare
  // shortage, more when restarts wait for a repair.
  double repeats = 1;
  CheckpointCost cost;
  double interval = kInf;                           // s of nominal work between checkpoints
  double restart = 0;                               // s: restart_time + checkpoint load
  const StepTimeProfile* profile = nullptr;         // null = constant 1
  const StepTimeProfile* fabric_profile = nullptr;  // timed fabric failures; null = constant 1

  std::size_t regime(double k) const {
    return static_cast<std::size_t>(std::upper_bound(from_tokens.begin(), from_tokens.end(), k) - from_tokens.begin()) -
           1;
  }
  /// regime(k), checking the regime `hint` (the previous answer) and its successor first: progress
  /// mostly stays in a regime or moves to the next one. Same answer as regime(k).
  std::size_t regime(double k, std::size_t hint) const {
    const std::size_t n = from_tokens.size();
    if (hint < n && from_tokens[hint] <= k) {
      if (hint + 1 == n || k < from_tokens[hint + 1]) return hint;
      if (hint + 2 == n || (hint + 2 < n && k < from_tokens[hint + 2])) return hint + 1;
    }
    return regime(k);
  }
};

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// Uniform in [0, 1) from the top 53 bits: portable, unlike std::*_distribution.
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
double exponential(std::mt19937_64& rng, double rate) {
  if (!(rate > 0)) return kInf;
  return -std::log1p(-uniform01(rng)) / rate;
}

/// m(t) and the next time it changes (> t). `cursor`: the index found by the previous call on the
/// same profile (SIZE_MAX: none); a draw's time only moves forward, so the walk goes on from it
/// (amortised O(1) per edge instead of a binary search over the ~1e5 edges of a spelled-out year),
/// falling back to the binary search when time went back or the period wrapped. Same answer as
/// without a cursor.
inline double profile_at(const StepTimeProfile& p, double t, double& next_edge, std::size_t* cursor = nullptr) {
  const auto& ts = p.times;
  const std::size_t n = ts.size();
  double base = 0, tl = t;
  if (p.period > 0) {
    base = std::floor(t / p.period) * p.period;
    tl = t - base;
  }
  std::size_t i;
  if (cursor != nullptr && *cursor < n && ts[*cursor] <= tl) {
    i = *cursor;  // ts[i] <= tl: the last such i, as upper_bound - 1 finds it
    while (i + 1 < n && ts[i + 1] <= tl) ++i;
  } else {
    i = static_cast<std::size_t>(std::upper_bound(ts.begin(), ts.end(), tl) - ts.begin());
    i = i == 0 ? 0 : i - 1;
  }
  if (cursor != nullptr) *cursor = i;
  if (i + 1 < n)
    next_edge = base + ts[i + 1];
  else
    next_edge = p.period > 0 ? base + p.period : kInf;
  if (!(next_edge > t)) next_edge = std::nextafter(t, kInf);  // rounding at an edge
  return p.multipliers[i];
}

/// Nominal tokens/s of a situation at global batch `batch` (tokens/step).
double throughput_at_batch(const Situation& s, double batch) {
  const auto& tab = s.step_time_by_batch;
  if (tab.empty()) return s.tokens_per_step / s.step_time;  // same tokens/s at every batch
  if (tab.size() == 1 || batch <= tab.front().global_batch) return tab.front().global_batch / tab.front().step_time;
  for (std::size_t i = 1; i < tab.size(); ++i) {
    if (batch <= tab[i].global_batch) {
      const auto& a = tab[i - 1];
      const auto& b = tab[i];
      const double f = (batch - a.global_batch) / (b.global_batch - a.global_batch);
      return batch / (a.step_time + f * (b.step_time - a.step_time));
    }
  }
  return tab.back().global_batch / tab.back().step_time;
}

void validate_profile(const StepTimeProfile& p, const std::string& what) {
  if (p.times.empty()) return;
  if (p.times.size() != p.multipliers.size() || p.times.front() != 0)
    throw SimulationError("reliability: " + what + " needs times[0] = 0 and one multiplier per time");
  for (std::size_t i = 0; i < p.times.size(); ++i) {
    if (i > 0 && !(p.times[i] > p.times[i - 1])) throw SimulationError("reliability: " + what + " times must increase");
    if (!(p.multipliers[i] > 0)) throw SimulationError("reliability: " + what + " multipliers must be positive");
  }
  if (p.period > 0 && p.times.back() >= p.period)
    throw SimulationError("reliability: periodic " + what + " times must lie within the period");
}

std::string seconds_text(double s) {
  char buf[64];
  if (s >= units::kJulianYear)
    std::snprintf(buf, sizeof buf, "%.3g years", s / units::kJulianYear);
  else if (s >= units::kDay)
    std::snprintf(buf, sizeof buf, "%.3g d", s / units::kDay);
  else if (s >= units::kHour)
    std::snprintf(buf, sizeof buf, "%.3g h", s / units::kHour);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%.3g min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

void warn(std::vector<std::string>& warnings, const std::string& w) {
  if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
}

/// Convergence of a run (convergence.hpp): the critical batch against progress, the reference
/// batch, and the progress grid over [0, target] (empty: no convergence model, a token is a token).
struct Convergence {
  const CriticalBatch* critical = nullptr;
  double reference = 0;      // tokens per step
  std::vector<double> grid;  // progress edges
  double target = 0;
};

/// E[exp(-lambda W)], W = max(0, repair - G), G ~ Gamma(shape, mu) (shape 0: G = 0, W = repair):
/// the chance that no stopping failure (rate `lambda`, 1/s) comes during such a wait for repaired
/// nodes (`mu`: 1/s rate of the failures needing a spare; `repair`: s). Returns 1 for shape < 0
/// (unlimited spares), mu 0 or repair 0. P(G >= repair) + integral over [0, repair] of
/// f_G(x) exp(-lambda (repair - x)) dx; restart_repeats says which shape.
double wait_survival(double lambda, double mu, int shape, double repair) {
  if (shape < 0 || !(mu > 0) || !(repair > 0)) return 1;
  if (shape == 0) return std::exp(-lambda * repair);
  const double x = mu * repair, sd = std::sqrt(x) * 40 + 40;  // mean spare failures per repair
  if (shape > x + sd) return 1;                               // the pool never runs dry (< 1e-300)
  // P(G >= repair) = P(Poisson(x) <= shape - 1), from the terms that count.
  double survive = 0;
  for (int k = std::max(0, static_cast<int>(x - sd)); k < shape; ++k)
    survive += std::exp(k * std::log(x) - x - std::lgamma(k + 1.0));
  // The integral over y = repair - x: the integrand is log-concave and decreasing in y (lambda >=
  // mu), so it falls at least as fast as exp(-kappa y), kappa its log-slope at 0: Simpson's rule
  // over [0, min(repair, 60 / kappa)].
  const double S = shape, kappa = lambda - mu + (S - 1) / repair;
  const double top = kappa > 0 ? std::min(repair, 60 / kappa) : repair;
  const auto f = [&](double y) {
    const double g = repair - y;  // the Gamma variable
    const double power = S > 1 ? (S - 1) * std::log(std::max(g, 0.0)) : 0.0;
    return std::exp(S * std::log(mu) + power - mu * g - std::lgamma(S) - lambda * y);
  };
  constexpr int kSteps = 2000;  // even
  const double h = top / kSteps;
  double sum = f(0) + f(top);
  for (int i = 1; i < kSteps; ++i) sum += (i % 2 ? 4 : 2) * f(i * h);
  return std::min(1.0, survive + sum * h / 3);
}

/// Stopping failures per restart that completes, counting the failure that stopped the job: the
/// factor on the failures during work in events_in and stretch. Renewal argument: stopping
/// failures come as a Poisson process of rate lambda (Stage::stop_rate) in wall time; after one
/// at t the job restarts once every node out is back (Draw::restart), after a wait W(t), and then
/// takes R (Stage::restart), unless another failure comes first, which starts the restart over.
/// By memorylessness the restart completes with probability exp(-lambda (W + R)) whatever came
/// before, so over a run the share of failures followed by a completed restart is
/// p = exp(-lambda R) E[exp(-lambda W)] over the failures, and each failure during work brings 1/p
/// in all. Draw::take_spare serves the failures needing a spare (rate mu, a Poisson process in
/// wall time: drawn during work, restarts and waits alike) in order: the n-th, at t_n, gets the
/// node the (n - spares)-th sent to repair, so the nodes are all back at
/// t_{M-spares} + repair, M the last such failure up to t: W = max(0, repair - G). For a failure
/// needing a spare (share q = mu / lambda) M is itself, G = t_n - t_{n-spares} ~ Gamma(spares, mu);
/// for one needing none (software, switch) t is a Poisson instant and G, the time back to the
/// (spares + 1)-th latest spare failure, ~ Gamma(spares + 1, mu) (wait_survival). With spares to
/// hand (or unlimited, hot_spares -1) 1/p = exp(lambda R); with `spares` short (more nodes in repair,
/// ~Poisson(mu repair), than spares) restarts wait for repairs and 1/p grows as exp(lambda W);
/// when they are short for good (mu repair well above spares) 1/p is astronomical or infinite: the
/// job never has all its nodes, and the budget refuses it naming hot_spares.
double restart_repeats(const Stage& st, int spares, double repair) {
  const double lambda = st.stop_rate;
  if (!(lambda > 0)) return 1;
  const double mu = st.spare_rate, q = std::min(1.0, mu / lambda);
  // 1 - E[1 - exp(-lambda W)]: exactly 1 when no failure waits
  const double m = 1 - q * (1 - wait_survival(lambda, mu, spares, repair)) -
                   (1 - q) * (1 - wait_survival(lambda, mu, spares < 0 ? spares : spares + 1, repair));
  return std::exp(lambda * st.restart) / m;
}

/// A situation as the user knows it: the rollout phase's name, or (`name` empty: no rollout, see
/// time_to_train) the job.
std::string situation_text(const std::string& name) {
  return name.empty() ? std::string("the job") : "rollout phase '" + name + "'";
}

Stage compile(const TrainingSpec& spec, const Situation& s, const std::string& name, double t_start, double t_end,
              std::vector<std::string>& warnings, const Convergence& conv) {
  const std::string who = situation_text(name);
  if (!(s.step_time > 0)) throw SimulationError("reliability: step time of " + who + " is not positive");
  if (!(s.tokens_per_step > 0)) throw SimulationError("reliability: tokens per step of " + who + " is not positive");
  if (s.gpus <= 0) throw SimulationError("reliability: " + who + " has no GPUs");
  validate_profile(s.profile, "step-time profile");
  validate_profile(s.fabric_profile, "fabric-failure profile");
  const ReliabilitySpec& r = spec.reliability;
  Stage st;
  st.name = name;
  st.t_start = t_start;
  st.t_end = t_end;
  st.gpus = s.gpus;
  st.gpu_count = s.gpus;
  st.step_time = s.step_time;
  st.profile = s.profile.times.empty() ? nullptr : &s.profile;
  st.fabric_profile = s.fabric_profile.times.empty() ? nullptr : &s.fabric_profile;
  if (spec.batch_schedule.empty()) {
    st.from_tokens = {0};
    st.tps = {s.tokens_per_step / s.step_time};
    st.batch = {s.tokens_per_step};
  } else {
    for (const auto& b : spec.batch_schedule) {
      st.from_tokens.push_back(st.from_tokens.empty() ? 0 : b.after_tokens);
      st.tps.push_back(throughput_at_batch(s, b.global_batch));
      st.batch.push_back(b.global_batch);
    }
  }
  st.token_cost.assign(st.tps.size(), 1.0);
  if (!conv.grid.empty()) {
    // Cut the batch regimes at the grid's edges; each cell trains at its regime's batch, at the
    // token cost of the critical batch at the cell's (geometric) middle.
    std::vector<double> edges = conv.grid;
    edges.insert(edges.end(), st.from_tokens.begin(), st.from_tokens.end());
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    Stage cut;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const double a = edges[i], b = i + 1 < edges.size() ? edges[i + 1] : std::max(a, conv.target);
      const double mid = a > 0 ? std::sqrt(a * b) : 0.5 * b;
      const std::size_t reg = st.regime(a);
      const double c = batch_token_cost(st.batch[reg], conv.reference, conv.critical->at(mid));
      cut.from_tokens.push_back(a);
      cut.tps.push_back(st.tps[reg] / c);
      cut.token_cost.push_back(c);
      cut.batch.push_back(st.batch[reg]);
    }
    st.from_tokens = std::move(cut.from_tokens);
    st.tps = std::move(cut.tps);
    st.token_cost = std::move(cut.token_cost);
    st.batch = std::move(cut.batch);
  }
  st.degraded_factor = s.degraded_step_time > 0 ? s.degraded_step_time / s.step_time : 1 + r.link_degrade_penalty;
  ComponentCounts counts = s.counts;
  if (!(counts.gpus > 0)) counts.gpus = s.gpus;
  if (!(counts.nodes > 0)) counts.nodes = counts.gpus / 8.0;  // Llama 3 / DGX 8-GPU servers
  st.procs = failure_processes(r, counts);
  for (const auto& fp : st.procs) {
    st.total_rate += fp.rate;
    st.cum_rate.push_back(st.total_rate);
  }
  if (st.procs.size() == static_cast<std::size_t>(kComponents)) {
    st.fixed_causes = true;
    for (std::size_t i = 0; i < st.procs.size(); ++i) {
      st.cum[i] = st.cum_rate[i];
      std::size_t j = i;
      while (st.procs[j].rate <= 0 && j > 0) --j;  // as draw_cause walks back
      st.cause_at[i] = static_cast<int>(j);
    }
  }
  st.stop_rate = reliability::stop_rate(st.procs);
  for (const auto& fp : st.procs)
    if (fp.needs_spare && !fp.degrades) st.spare_rate += fp.rate;
  const double bytes = r.checkpoint_bytes > 0 ? r.checkpoint_bytes : s.checkpoint_bytes;
  ReliabilitySpec storage = r;
  if (s.storage_bandwidth > 0)
    storage.storage_bandwidth =
        r.storage_bandwidth_given ? std::min(r.storage_bandwidth, s.storage_bandwidth) : s.storage_bandwidth;
  st.cost = checkpoint_cost(storage, bytes);
  st.interval = checkpoint_interval(r, st.cost, st.stop_rate > 0 ? 1.0 / st.stop_rate : kInf, s.step_time);
  st.restart = r.restart_time + st.cost.load;
  st.repeats = restart_repeats(st, r.hot_spares, r.repair_time);
  // Values the model uses differently from how they were written: said, never silent.
  // An MTBF for a class this situation counts none of (pumps: the engine counts no job-stopping
  // pump, they stand N+1) draws no failure: the run's note no longer says the rate is 0.
  for (const auto& o : r.failures) {
    if (!(o.mtbf > 0) || o.count >= 0) continue;
    const auto p = std::find_if(st.procs.begin(), st.procs.end(),
                                [&](const FailureProcess& fp) { return fp.component == o.component; });
    if (p != st.procs.end() && !(p->rate > 0))
      warn(warnings, (o.key.empty() ? std::string("reliability.failures[]") : o.key) + " (" +
                         component_name(o.component) + "): mtbf " +
                         (o.mtbf_text.empty() ? seconds_text(o.mtbf) : o.mtbf_text) + " given, but " +
                         (name.empty() ? "the engine counts no " : who + " counts no ") + component_name(o.component) +
                         " whose failure stops the job, so no such failure is drawn; give its count "
                         "(reliability.failures[].count) to model them");
  }
  if (r.mode == CheckpointMode::Async && r.async_stall_given && r.async_stall > st.cost.write)
    warn(warnings, "reliability.async_stall (" + seconds_text(r.async_stall) +
                       ") is longer than writing the whole checkpoint (" + seconds_text(st.cost.write) +
                       "): an async checkpoint stalls for the write time, as a sync one would");
  if (r.policy == CheckpointPolicy::Fixed && r.checkpoint_interval < s.step_time)
    warn(warnings, "reliability.checkpoint_interval (" + seconds_text(r.checkpoint_interval) +
                       ") is shorter than one training step (" + seconds_text(s.step_time) +
                       (name.empty() ? std::string() : " in " + who) +
                       "): checkpoints are modelled as written, more often than a job can take them");
  if (r.policy == CheckpointPolicy::Fixed && r.mode == CheckpointMode::Async && r.checkpoint_interval < st.cost.write)
    warn(warnings, "reliability.checkpoint_interval (" + seconds_text(r.checkpoint_interval) +
                       ") is shorter than the checkpoint write (" + seconds_text(st.cost.write) +
                       "): each async checkpoint waits for the previous one to be durable");
  return st;
}

/// Events one draw needs in `st` over `work` s of failure-free training (checkpoints, failures
/// with the restarts they repeat, planned stops, profile edges). Renewal argument: a segment of
/// `seg` s of work plus its stall completes after expm1(lambda (seg + stall)) failures on average,
/// and each brings Stage::repeats stopping failures in all (restart_repeats: exp(lambda R) with
/// spares to hand, more when restarts wait for a repair); the first takes two loop steps, each
/// repeat one. `what` receives the
/// dominant cause ("checkpoints", "failures", "planned", "profile").
/// `interval` and `stall` (s): the stage's checkpoint interval and stall, or others to try.
double events_in(const Stage& st, double interval, double stall, double work, double planned_interval,
                 std::string& what) {
  const double seg = std::isfinite(interval) ? interval : std::max(work, 1.0);
  const double segments = std::max(1.0, work / seg);
  const double lambda = st.stop_rate;
  // A failure during work takes two loop steps (the draw's and its restart's), each restart it
  // repeats one: (1 + repeats) / 2 events of kIterationsPerEvent steps.
  const double fails = segments * std::expm1(lambda * (seg + stall)) * (1 + st.repeats) / 2;
  const double degrades = (st.total_rate - st.stop_rate) * work;
  const double planned = planned_interval > 0 ? work / planned_interval : 0;
  double edges = 0;
  for (const StepTimeProfile* p : {st.profile, st.fabric_profile})
    if (p) edges += p->period > 0 ? p->times.size() * (work / p->period + 1) : p->times.size();
  edges += static_cast<double>(st.from_tokens.size());  // batch regimes and convergence-grid cells
  const std::pair<double, const char*> parts[] = {
      {segments, "checkpoints"}, {fails, "failures"}, {planned, "planned"}, {edges + degrades, "profile"}};
  double total = 0, top = -1;
  for (const auto& [n, name] : parts) {
    total += n;
    if (!(n <= top)) top = n, what = name;  // NaN/inf wins
  }
  return total;
}
double events_in(const Stage& st, double work, double planned_interval, std::string& what) {
  return events_in(st, st.interval, st.cost.stall, work, planned_interval, what);
}

/// Wall s per s of work in `st` (>= 1): a segment of `seg` s of work plus its stall takes
/// expm1(lambda T) / lambda s of training on average (T = seg + stall), and each failure meanwhile
/// (lambda per s of it) a down time of (repeats - 1) / lambda: repeats expm1(lambda T) / (lambda
/// seg) (Wald: stopping failures are lambda x wall time). `work`: the stage's work, the segment
/// when it takes no checkpoint.
double stretch(const Stage& st, double work) {
  const double seg = std::isfinite(st.interval) ? st.interval : std::max(work, 1.0);
  const double lambda = st.stop_rate, T = seg + st.cost.stall;
  return lambda > 0 ? st.repeats * std::expm1(lambda * T) / (lambda * seg) : T / seg;
}

struct DrawOut {
  double wall = 0;      // s
  double retained = 0;  // s of nominal work kept
  double tokens = 0;    // progress (reference tokens with a convergence model)
  double trained = 0;   // tokens trained on the retained trajectory
  int interruptions = 0;
  int degradations = 0;
  int planned = 0;
  double events = 0;                        // loop iterations, as count_event counts them
  std::array<double, kCauses> lost{};       // GPU-s
  std::array<double, kComponents> count{};  // stopping failures by component
  std::vector<double> phase_tokens, phase_wall, phase_interruptions, phase_trained;
};

/// One Monte Carlo draw until `target` tokens or wall time `horizon`.
class Draw {
 public:
  /// `max_events`: loop iterations allowed before the draw stops with a SimulationError.
  Draw(const TrainingSpec& spec, const std::vector<Stage>& stages, double target, double horizon, std::uint64_t seed,
       bool ideal, double max_events = kInf)
      : r_(spec.reliability),
        stages_(stages),
        K_(target),
        horizon_(horizon),
        rng_(seed),
        ideal_(ideal),
        max_events_(max_events),
        wall_limit_(std::isinf(horizon) ? kMaxWall : kInf) {
    out_.phase_tokens.assign(stages.size(), 0);
    out_.phase_wall.assign(stages.size(), 0);
    out_.phase_interruptions.assign(stages.size(), 0);
    out_.phase_trained.assign(stages.size(), 0);
  }

  DrawOut run() {
    S_ = &stages_[0];
    next_fail_ = ideal_ ? kInf : t_ + exponential(rng_, S_->total_rate);
    next_planned_ = ideal_ || !(r_.planned_interval > 0) ? kInf : r_.planned_interval;
    schedule_checkpoint();
    double k_phase_start = 0, t_phase_start = 0, a_phase_start = 0;
    while (true) {
      count_event();
      const double t_limit = std::min({next_fail_, S_->t_end, horizon_, next_planned_});
      const double k_goal = std::min(k_ckpt_, K_);
      advance(k_goal, t_limit);
      resolve_pending(t_);
      if (k_ >= K_ || t_ >= horizon_) break;
      if (k_ >= k_goal) {
        checkpoint();
      } else if (t_ >= next_planned_ && next_fail_ > t_ && t_ < S_->t_end) {
        planned();
      } else if (t_ >= S_->t_end && next_fail_ > t_) {
        out_.phase_tokens[p_] += k_ - k_phase_start;
        out_.phase_trained[p_] += a_ - a_phase_start;
        out_.phase_wall[p_] += t_ - t_phase_start;
        t_phase_start = t_;  // the new phase's checkpoint + restart on its allocation is its time
        transition();
        k_phase_start = k_;
        a_phase_start = a_;
      } else {
        failure();
      }
    }
    if (t_ > horizon_) t_ = horizon_;
    out_.phase_tokens[p_] += std::max(k_, kd_) - k_phase_start;
    out_.phase_trained[p_] += (k_ >= kd_ ? a_ : ad_) - a_phase_start;
    out_.phase_wall[p_] += t_ - t_phase_start;
    out_.wall = t_;
    out_.events = events_;
    out_.tokens = k_;
    out_.trained = a_;
    out_.retained = w_;
    return out_;
  }

 private:
  /// x / m; the fast walk skips the division where m is 1 (x / 1 is x exactly in IEEE 754, inf
  /// and NaN included): the slowdowns are 1 most of the time and a division costs ~15 cycles of
  /// latency on the draw's dependency chain.
  double over(double x, double m) const { return g_fast_walk && m == 1 ? x : x / m; }

  /// The profile cursor to use (profile_at), none for the reference walk (set_fast_walk(false)).
  std::size_t* cursor(std::size_t& c) const { return g_fast_walk ? &c : nullptr; }

  /// The current stage's regime at progress k (Stage::regime), from the previous answer.
  std::size_t regime(double k) {
    if (g_fast_walk && k >= reg_lo_ && k < reg_hi_) return reg_i_;  // in the regime found last
    return regime_of(k);
  }
  [[gnu::noinline]] std::size_t regime_of(double k) {
    if (!g_fast_walk) return S_->regime(k);
    const Stage& S = *S_;
    reg_i_ = S.regime(k, reg_i_);
    reg_lo_ = S.from_tokens[reg_i_];
    reg_hi_ = reg_i_ + 1 < S.from_tokens.size() ? S.from_tokens[reg_i_ + 1] : kInf;
    return reg_i_;
  }

  /// The bound on every loop of a draw: events, and simulated time.
  void count_event() {
    if (++events_ > max_events_ || t_ > wall_limit_) [[unlikely]]
      runaway();
  }

  /// Why a draw stopped (count_event), out of the loop's way.
  [[noreturn, gnu::noinline, gnu::cold]] void runaway() const {
    if (events_ > max_events_)
      throw SimulationError(
          "reliability: a Monte Carlo draw needed more than " + std::to_string(static_cast<long long>(max_events_)) +
          " events (checkpoints, failures, restarts) and stopped: the job makes almost no progress at " +
          std::to_string(static_cast<long long>(k_)) + " tokens after " + seconds_text(t_) +
          " (failures faster than restarts and checkpoints can complete?)");
    throw SimulationError("reliability: training did not finish within " + seconds_text(kMaxWall) +
                          " of simulated time (" + std::to_string(static_cast<long long>(k_)) + " of " +
                          std::to_string(static_cast<long long>(K_)) + " tokens)");
  }

  /// First multiple of the planned interval after t (no loop: a tiny interval cannot hang it).
  void next_planned_after(double t) {
    if (!(next_planned_ <= t)) return;
    const double n = std::floor((t - next_planned_) / r_.planned_interval) + 1;
    next_planned_ += n * r_.planned_interval;
    if (!(next_planned_ > t)) next_planned_ = std::nextafter(t, kInf);
  }

  void schedule_checkpoint() {
    k_ckpt_ = ideal_ || !std::isfinite(S_->interval) ? kInf : k_ + S_->interval * S_->tps[regime(k_)];
  }

  /// The step-time slowdown where the draw is: thermal profile x fabric-event profile x degraded
  /// link (1 where absent, and in the ideal run), the time until any of them may change (kInf:
  /// never), and whether a link is degraded. Moves the profiles' cursors as profile_at does.
  struct Slowdown {
    double thermal = 1, fabric = 1, m = 1, edge = kInf;
    bool degraded = false;
    bool none = true;  // thermal, fabric and m all 1: no slowdown to split
  };
  /// The fast walk keeps the last answer for t_ in [sd_from_, edge): the profiles' segments (not
  /// periodic: profile_at answers m_i and ts[i + 1] for every t in [ts[i], ts[i + 1]), where a
  /// periodic profile's base is rounded per call) and the degraded link hold there, unless
  /// deg_until_ changes (forget_slowdown) or the stage does.
  const Slowdown& slowdown_here() {
    if (g_fast_walk && t_ >= sd_from_ && t_ < sd_.edge) return sd_;
    return slowdown_at_t();
  }
  void forget_slowdown() { sd_from_ = kInf; }
  [[gnu::noinline]] const Slowdown& slowdown_at_t() {
    const Stage& S = *S_;
    Slowdown r;
    double fabric_edge = kInf;
    if (S.profile && !ideal_) r.thermal = profile_at(*S.profile, t_, r.edge, cursor(prof_i_));
    if (S.fabric_profile && !ideal_) r.fabric = profile_at(*S.fabric_profile, t_, fabric_edge, cursor(fab_i_));
    r.edge = std::min(r.edge, fabric_edge);
    r.m = r.thermal * r.fabric;
    r.degraded = t_ < deg_until_;
    if (r.degraded) {
      r.m *= S.degraded_factor;
      r.edge = std::min(r.edge, deg_until_);
    }
    r.none = r.thermal == 1 && r.fabric == 1 && r.m == 1;
    const bool periodic = (S.profile && S.profile->period > 0) || (S.fabric_profile && S.fabric_profile->period > 0);
    sd_ = r;
    sd_from_ = g_fast_walk && !periodic ? t_ : kInf;
    return sd_;
  }

  /// Train from (t_, k_) towards k_goal tokens, stopping at wall time t_limit.
  void advance(double k_goal, double t_limit) {
    const Stage& S = *S_;
    while (k_ < k_goal && t_ < t_limit) {
      count_event();
      const Slowdown& sd = slowdown_here();
      const double t_edge = sd.edge, m_thermal = sd.thermal, m_fabric = sd.fabric, m = sd.m;
      const std::size_t reg = regime(k_);
      const double tps = S.tps[reg];
      const double k_edge = reg + 1 < S.from_tokens.size() ? S.from_tokens[reg + 1] : kInf;
      const double rate = over(tps, m);
      const double k_stop = std::min(k_goal, k_edge);
      const double t_stop = std::min(t_edge, t_limit);
      const double dt_need = (k_stop - k_) / rate;
      double dt;
      const double k0 = k_;
      if (t_ + dt_need <= t_stop) {
        dt = dt_need;
        t_ += dt;
        k_ = k_stop;
      } else {
        dt = t_stop - t_;
        k_ += dt * rate;
        t_ = t_stop;
      }
      a_ += (k_ - k0) * S.token_cost[reg];
      if (g_fast_walk && sd.none && std::isfinite(dt)) {
        // No slowdown: work = dt (over), and each share of the split below is dt - dt = +0, which
        // leaves the sums as they are (they start at +0 and never reach -0).
        w_ += dt;
        continue;
      }
      const double dt_m = over(dt, m);
      w_ += dt_m;
      // Split the slowdown m = thermal x fabric events x degraded link, in that order: lost work
      // dt - dt/m = (dt - dt/a) + (dt/a - dt/ab) + (dt/ab - dt/abc).
      const double a = m_thermal, ab = m_thermal * m_fabric;
      const double dt_a = over(dt, a), dt_ab = over(dt, ab);
      out_.lost[kThrottling] += (dt - dt_a) * S.gpu_count;
      out_.lost[kFabricEvents] += (dt_a - dt_ab) * S.gpu_count;
      out_.lost[static_cast<int>(Component::Link)] += (dt_ab - dt_m) * S.gpu_count;
    }
  }

  void resolve_pending(double t) {
    if (pending_ && pend_t_ <= t) {
      kd_ = pend_k_;
      wd_ = pend_w_;
      ad_ = pend_a_;
      pending_ = false;
    }
  }

  void checkpoint() {
    double stall = S_->cost.stall;
    if (pending_) stall += std::max(0.0, pend_t_ - t_);  // previous async write still going
    const double t_after = t_ + stall;
    const double stop = std::min({next_fail_, horizon_});
    if (stop < t_after) {  // failure (or end of window) during the stall
      out_.lost[kCheckpoint] += (stop - t_) * S_->gpu_count;
      t_ = stop;
      resolve_pending(t_);
      if (t_ < horizon_) failure();
      return;
    }
    out_.lost[kCheckpoint] += stall * S_->gpu_count;
    t_ = t_after;
    resolve_pending(t_);
    if (r_.mode == CheckpointMode::Sync) {
      kd_ = k_;
      wd_ = w_;
      ad_ = a_;
    } else {
      pending_ = true;
      pend_t_ = t_ + S_->cost.write;
      pend_k_ = k_;
      pend_w_ = w_;
      pend_a_ = a_;
    }
    schedule_checkpoint();
    skip_steady_checkpoints();
  }

  /// Between two other events, training at a constant rate goes through identical checkpoint
  /// periods (work to the next checkpoint, then its stall): their n complete periods are taken at
  /// once instead of one loop iteration each, with the state each would leave (exact up to the
  /// rounding of n x period; the rollout's draws have ~3e5 checkpoints each). Only where nothing
  /// else can happen meanwhile: a flat stretch of the step-time profiles (none, or the segment the
  /// draw is in, e.g. after a fault transient), one batch regime, an async write that ends before
  /// the next checkpoint, and a margin of one period before the next failure, phase end, planned
  /// stop, horizon, profile edge, regime edge or repair of a degraded link.
  void skip_steady_checkpoints() {
    const Stage& S = *S_;
    if (!g_batch_checkpoints || ideal_ || !std::isfinite(k_ckpt_)) return;
    // The multipliers where the draw is (profiles, degraded link) and how long they hold, as
    // advance() finds them.
    const Slowdown& sd = slowdown_here();
    const double t_flat = sd.edge, m_thermal = sd.thermal, m_fabric = sd.fabric, m = sd.m;
    const bool degraded = sd.degraded;
    const std::size_t reg = regime(k_);
    const double I = k_ckpt_ - k_, rate = over(S.tps[reg], m);
    if (!(I > 0) || !(rate > 0)) return;
    const double k_edge = reg + 1 < S.from_tokens.size() ? S.from_tokens[reg + 1] : kInf;
    const double t_limit = std::min({next_fail_, S.t_end, horizon_, next_planned_, t_flat});
    // Most calls (the checkpoints just before a failure) find fewer than 3 periods to the next
    // event: the fast walk says so without the divisions below. (t_limit - t_) rate < 2.9 I means
    // (t_limit - t_) / P < 2.9 (1 + a few ulps) < 3 as P >= I / rate, so n < 2; likewise for
    // progress. Only a sure "no" returns early (NaN and inf go on): the same n whenever n >= 2.
    if (g_fast_walk && ((t_limit - t_) * rate < 2.9 * I || std::min(K_, k_edge) - k_ < 2.9 * I)) return;
    const bool async = r_.mode != CheckpointMode::Sync;
    const double dt = I / rate, P = dt + S.cost.stall;  // wall s of training, of a period
    const double work = over(dt, m);                    // nominal work s of a period
    if (async && !(S.cost.write <= dt)) return;         // the write would add to the next stall
    const double n = std::min(std::floor((t_limit - t_) / P), std::floor((std::min(K_, k_edge) - k_) / I)) - 1;
    if (!(n >= 2)) return;
    events_ += 2 * n;
    t_ += n * P;
    k_ += n * I;
    w_ += n * work;
    a_ += n * I * S.token_cost[reg];  // one regime: one token cost
    out_.lost[kCheckpoint] += n * S.cost.stall * S.gpu_count;
    if (S.profile || S.fabric_profile || degraded) {  // the slowdown split as advance() splits it
      const double a = m_thermal, ab = m_thermal * m_fabric;
      const double dt_a = over(dt, a), dt_ab = over(dt, ab);
      out_.lost[kThrottling] += n * (dt - dt_a) * S.gpu_count;
      out_.lost[kFabricEvents] += n * (dt_a - dt_ab) * S.gpu_count;
      out_.lost[static_cast<int>(Component::Link)] += n * (dt_ab - work) * S.gpu_count;
    }
    if (async) {  // the last checkpoint's write is pending, the one before it is durable
      kd_ = k_ - I;
      wd_ = w_ - work;
      ad_ = a_ - I * S.token_cost[reg];
      pending_ = true;
      pend_t_ = t_ + S.cost.write;
      pend_k_ = k_;
      pend_w_ = w_;
      pend_a_ = a_;
    } else {
      kd_ = k_;
      wd_ = w_;
      ad_ = a_;
    }
    k_ckpt_ = k_ + I;
  }

  /// Planned move to the next phase: full checkpoint write, restart on the larger allocation.
  void transition() {
    kd_ = k_;
    wd_ = w_;
    ad_ = a_;
    pending_ = false;
    ++p_;
    S_ = &stages_[p_];
    prof_i_ = fab_i_ = kNoCursor;  // the new stage's own profiles
    forget_slowdown();
    reg_lo_ = kInf, reg_hi_ = -kInf;  // and its own regimes
    const double dt = ideal_ ? 0 : S_->cost.write + S_->restart;
    out_.lost[kTransition] += dt * S_->gpu_count;
    t_ += dt;
    next_fail_ = ideal_ ? kInf : t_ + exponential(rng_, S_->total_rate);
    schedule_checkpoint();
  }

  /// Planned interruption: sync checkpoint, restart, no lost work; failures during it are not drawn.
  void planned() {
    kd_ = k_;
    wd_ = w_;
    ad_ = a_;
    pending_ = false;
    ++out_.planned;
    const double dt = S_->cost.write + S_->restart;
    out_.lost[kPlanned] += dt * S_->gpu_count;
    t_ += dt;
    next_planned_after(t_);
    next_fail_ = t_ + exponential(rng_, S_->total_rate);
    schedule_checkpoint();
  }

  int draw_cause() {
    const double u = uniform01(rng_) * S_->total_rate;
    if (g_fast_walk && S_->fixed_causes) {  // the same count over a fixed-size array
      const auto& c = S_->cum;
      std::size_t i = 0;
      for (const double x : c) i += x <= u;
      if (i >= c.size()) i = c.size() - 1;
      return S_->cause_at[i];
    }
    const auto& c = S_->cum_rate;
    // upper_bound's index (c is non-decreasing: the count of entries <= u), counted without
    // branches: a binary search over the ~10 processes mispredicted its way to ~5 % of the rollout.
    std::size_t i = 0;
    for (const double x : c) i += x <= u;
    if (i >= c.size()) i = c.size() - 1;
    while (S_->procs[i].rate <= 0 && i > 0) --i;  // u on a boundary of an empty class
    return static_cast<int>(i);
  }

  /// A spare node for a failure at t (hot_spares >= 0): returns when the job has it (s, >= t); the
  /// failed node goes to repair and joins the spare pool when repaired.
  double take_spare(double t) {
    if (r_.hot_spares < 0) return t;
    if (g_fast_walk) return take_spare_sorted(t);
    // Nodes back from repair by t are spares again. repairs_ holds the repair completion times
    // as a multiset (at most hot_spares of them): only their values matter, so an unsorted array
    // with the earliest found by a scan gives what a min-heap gives, without its mispredicted
    // sift on every pop (~3 % of the rollout with 32 spares).
    repairs_.erase(std::remove_if(repairs_.begin(), repairs_.end(), [t](double x) { return x <= t; }), repairs_.end());
    double ready = t;
    if (static_cast<int>(repairs_.size()) >= r_.hot_spares) {
      if (r_.hot_spares == 0) {
        ready = t + r_.repair_time;  // no spare: the failed node itself must come back
      } else {
        const auto first = std::min_element(repairs_.begin(), repairs_.end());
        ready = *first;
        *first = repairs_.back();
        repairs_.pop_back();
      }
    }
    if (r_.hot_spares > 0) repairs_.push_back(t + r_.repair_time);
    return ready;
  }

  /// take_spare on repairs_[rep_head_, end) kept sorted: the same multiset of completion times,
  /// so the same waits. The nodes back by t are a prefix (skipped, not scanned for), the earliest
  /// repair is the first, and a new completion t + repair_time goes last (t only grows within a
  /// draw; a binary search keeps the order otherwise). The rollout's 32 spares cost a scan of up to
  /// 32 times twice per failure, ~6 M failures over its draws.
  double take_spare_sorted(double t) {
    while (rep_head_ < repairs_.size() && repairs_[rep_head_] <= t) ++rep_head_;
    double ready = t;
    if (static_cast<int>(repairs_.size() - rep_head_) >= r_.hot_spares) {
      if (r_.hot_spares == 0)
        ready = t + r_.repair_time;  // no spare: the failed node itself must come back
      else
        ready = repairs_[rep_head_++];
    }
    if (r_.hot_spares > 0) {
      if (rep_head_ > 0 && 2 * rep_head_ >= repairs_.size()) {  // drop the skipped prefix (amortised O(1))
        repairs_.erase(repairs_.begin(), repairs_.begin() + static_cast<std::ptrdiff_t>(rep_head_));
        rep_head_ = 0;
      }
      const double done = t + r_.repair_time;
      if (repairs_.size() == rep_head_ || repairs_.back() <= done)
        repairs_.push_back(done);
      else
        repairs_.insert(
            std::upper_bound(repairs_.begin() + static_cast<std::ptrdiff_t>(rep_head_), repairs_.end(), done), done);
    }
    return ready;
  }

  /// Failure at t_ == next_fail_.
  void failure() {
    const int c = draw_cause();
    const FailureProcess& fp = S_->procs[c];
    if (fp.degrades) {
      ++out_.degradations;
      deg_until_ = std::max(deg_until_, t_ + r_.link_repair_time);
      forget_slowdown();
      next_fail_ = t_ + exponential(rng_, S_->total_rate);
      return;
    }
    ++out_.interruptions;
    ++out_.phase_interruptions[p_];
    ++out_.count[c];
    out_.lost[c] += (w_ - wd_) * S_->gpu_count;  // work since the last durable checkpoint
    k_ = kd_;
    w_ = wd_;
    a_ = ad_;
    pending_ = false;
    restart(c);
    next_planned_after(t_);  // maintenance done meanwhile
    schedule_checkpoint();
  }

  /// Restart after a failure of cause c at t_; failures during the restart start it over. The job
  /// restarts once every node the failures took is back, from a spare or a repair: the latest of
  /// their spare times (`nodes_back`), which a failure needing no spare leaves as it is.
  void restart(int c) {
    double t0 = t_;
    int cause = c;
    double nodes_back = t0;
    while (true) {
      count_event();
      if (S_->procs[cause].needs_spare) nodes_back = std::max(nodes_back, take_spare(t0));
      const double wait = nodes_back > t0 ? nodes_back - t0 : 0.0;
      const double t_ready = t0 + wait + S_->restart;
      next_fail_ = t0 + exponential(rng_, S_->total_rate);
      while (next_fail_ < t_ready && S_->procs[draw_cause_peek()].degrades) {
        // a link failing during the restart: degraded fabric afterwards, restart goes on
        count_event();
        ++out_.degradations;
        deg_until_ = std::max(deg_until_, next_fail_ + r_.link_repair_time);
        forget_slowdown();
        next_fail_ += exponential(rng_, S_->total_rate);
      }
      const double end = std::min({t_ready, next_fail_, horizon_});
      const double waited = std::min(wait, end - t0);
      out_.lost[kSpareWait] += waited * S_->gpu_count;
      out_.lost[cause] += (end - t0 - waited) * S_->gpu_count;
      if (end == t_ready || end >= horizon_) {
        t_ = end;
        return;
      }
      // a stopping failure during the restart
      cause = peeked_;
      ++out_.count[cause];
      ++out_.interruptions;
      ++out_.phase_interruptions[p_];
      t0 = next_fail_;
    }
  }

  /// Draws a cause and remembers it (used for failures during a restart).
  int draw_cause_peek() {
    peeked_ = draw_cause();
    return peeked_;
  }

  const ReliabilitySpec& r_;
  const std::vector<Stage>& stages_;
  const double K_, horizon_;
  std::mt19937_64 rng_;
  const bool ideal_;
  const double max_events_;
  const double wall_limit_;  // s: kMaxWall without a horizon (count_event), else none
  double events_ = 0;
  const Stage* S_ = nullptr;
  std::size_t p_ = 0;
  double t_ = 0, k_ = 0, w_ = 0;     // wall time, progress, nominal work s
  double a_ = 0;                     // tokens trained (= progress without a convergence model)
  double kd_ = 0, wd_ = 0, ad_ = 0;  // at the last durable checkpoint
  bool pending_ = false;             // async checkpoint being written
  double pend_t_ = 0, pend_k_ = 0, pend_w_ = 0, pend_a_ = 0;
  double k_ckpt_ = kInf;
  double next_fail_ = kInf;
  double next_planned_ = kInf;
  double deg_until_ = -1;
  int peeked_ = 0;
  std::size_t prof_i_ = kNoCursor, fab_i_ = kNoCursor;  // profile cursors (profile_at)
  Slowdown sd_;                                         // the fast walk's last slowdown (slowdown_here)
  double sd_from_ = kInf;                               // s, where it was found; kInf: none
  std::size_t reg_i_ = 0;                               // last regime (Stage::regime)
  double reg_lo_ = kInf, reg_hi_ = -kInf;               // its progress range [from_tokens[i], [i + 1]); none yet
  std::vector<double> repairs_;                         ///< s, repair completion times of the nodes out (take_spare)
  std::size_t rep_head_ = 0;  ///< fast walk: repairs_[rep_head_, end) sorted (take_spare_sorted)
  DrawOut out_;
};

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double target_tokens(const TrainingSpec& spec) {
  if (!(spec.tokens > 0) && spec.target_loss > 0)
    throw InvalidParameter("training.parameters", "",
                           "a parameter count to turn training.target_loss into tokens (or call resolve_target)");
  if (!(spec.tokens > 0))
    throw InvalidParameter("training.tokens", std::to_string(spec.tokens), "a positive token count");
  return spec.tokens;
}

void check_spec(const TrainingSpec& spec) {
  const auto& r = spec.reliability;
  if (r.draws < 1) throw InvalidParameter("reliability.draws", std::to_string(r.draws), "at least 1 draw");
  if (r.policy == CheckpointPolicy::Fixed && !(r.checkpoint_interval > 0))
    throw InvalidParameter("reliability.checkpoint_interval", std::to_string(r.checkpoint_interval),
                           "a positive interval such as \"30 min\"");
  if (!(r.storage_bandwidth > 0))
    throw InvalidParameter("reliability.storage_bandwidth", std::to_string(r.storage_bandwidth),
                           "a positive data rate");
}

std::uint64_t draw_seed(std::uint64_t seed, int d) {
  return splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(d) + 1));
}

/// `s` (s) rounded up (`up`) or down to the three significant digits seconds_text shows in its
/// unit: the figure an error message quotes is then on the safe side of the one computed.
double shown(double s, bool up) {
  const double unit = s >= units::kJulianYear ? units::kJulianYear
                      : s >= units::kDay      ? units::kDay
                      : s >= units::kHour     ? units::kHour
                      : s >= 60               ? 60.0
                                              : 1.0;
  const double v = s / unit, scale = std::pow(10.0, std::floor(std::log10(v)) - 2);
  return (up ? std::ceil(v / scale * (1 - 1e-12)) : std::floor(v / scale * (1 + 1e-12))) * scale * unit;
}
double shown_up(double s) { return shown(s, true); }

/// Largest x in [lo, hi] with fits(x), as an error message quotes it (rounded down, checked
/// again); NaN when fits(lo) is false. Assumes fits monotone over [lo, hi]: past the job MTBF,
/// longer intervals only add failures.
double most_fitting(double lo, double hi, const std::function<bool(double)>& fits) {
  if (!(lo > 0) || !fits(lo)) return std::numeric_limits<double>::quiet_NaN();
  if (fits(hi)) return hi;
  for (int i = 0; i < 200 && hi > lo * (1 + 1e-4); ++i) {
    const double mid = std::sqrt(lo * hi);
    (fits(mid) ? lo : hi) = mid;
  }
  const double x = shown(lo, false);
  return fits(x) ? x : lo;
}

/// Smallest x in [lo, hi] with fits(x), as an error message quotes it (shown_up, checked again);
/// NaN when fits(hi) is false. Assumes fits monotone over [lo, hi]: the event count falls as
/// checkpoints get rarer, up to about one per job MTBF.
double least_fitting(double lo, double hi, const std::function<bool(double)>& fits) {
  if (!(hi > 0) || !fits(hi)) return std::numeric_limits<double>::quiet_NaN();
  lo = std::max(lo, 1e-9 * hi);
  if (fits(lo)) hi = lo;
  for (int i = 0; i < 200 && hi > lo * (1 + 1e-4); ++i) {
    const double mid = std::sqrt(lo * hi);
    (fits(mid) ? hi : lo) = mid;
  }
  const double shown = shown_up(hi);
  return fits(shown) ? shown : hi;
}

/// A number as the scenario may have written it: Scenario::locate then shows the written text
/// ("1 ms") when it is the file's value.
std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// Failure-free work (s) a draw does in each stage: the ideal draw's time in each phase (or
/// `horizon`). Phases are windows of wall time, so the work a failure-ridden phase does not do
/// moves to the next ones: the ideal draw is run again with each stage's progress slowed by its
/// stretch (wall s per s of work), up to kMaxWall, and each phase's wall time divided by it. When
/// even that does not finish, the ideal work of each stage is kept where larger.
std::vector<double> stage_work(const TrainingSpec& spec, const std::vector<Stage>& stages, double target,
                               double horizon) {
  std::vector<double> work(stages.size(), 0);
  if (std::isfinite(horizon)) {
    work[0] = horizon;
    return work;
  }
  const DrawOut ideal = Draw(spec, stages, target, kInf, 0, true, 1e7).run();
  for (std::size_t p = 0; p < stages.size(); ++p) work[p] = ideal.phase_wall[p];
  if (stages.size() == 1) return work;  // one stage does all the work whatever its stretch
  std::vector<Stage> slow = stages;
  std::vector<double> e(stages.size());
  for (std::size_t p = 0; p < stages.size(); ++p) {
    e[p] = std::min(stretch(stages[p], work[p]), 1e12);  // finite: a stage that never progresses
    for (double& v : slow[p].tps) v /= e[p];
  }
  const DrawOut out = Draw(spec, slow, target, kMaxWall, 0, true, 1e7).run();
  const bool done = out.tokens >= target;
  for (std::size_t p = 0; p < stages.size(); ++p)
    work[p] = done ? out.phase_wall[p] / e[p] : std::max(work[p], out.phase_wall[p] / e[p]);
  return work;
}

/// Loop iterations one draw is estimated to need (events_in over stage_work), the dominant cause
/// in `cause` and the stage with the most in `worst`.
double events_per_draw(const TrainingSpec& spec, const std::vector<Stage>& stages, double target, double horizon,
                       std::string& cause, std::size_t& worst) {
  const std::vector<double> work = stage_work(spec, stages, target, horizon);
  double per_draw = 0, top = -1;
  for (std::size_t p = 0; p < stages.size(); ++p) {
    std::string what;
    const double e = kIterationsPerEvent * events_in(stages[p], work[p], spec.reliability.planned_interval, what);
    per_draw += e;
    if (!(e <= top)) top = e, cause = what, worst = p;
  }
  return per_draw;
}

/// Wall time (s) one draw is estimated to take: each stage's work (stage_work) times its stretch;
/// `horizon` when finite.
double wall_per_draw(const TrainingSpec& spec, const std::vector<Stage>& stages, double target, double horizon) {
  if (std::isfinite(horizon)) return horizon;
  const std::vector<double> work = stage_work(spec, stages, target, horizon);
  double wall = 0;
  for (std::size_t p = 0; p < stages.size(); ++p) wall += work[p] * stretch(stages[p], work[p]);
  return wall;
}

/// `stages` with `spares` hot spares (Stage::repeats recomputed).
std::vector<Stage> with_spares(std::vector<Stage> stages, int spares, double repair) {
  for (Stage& st : stages) st.repeats = restart_repeats(st, spares, repair);
  return stages;
}

/// Refuses a Monte Carlo whose estimated events exceed kMaxEvents (InvalidParameter naming the key
/// that drives the count: the checkpoint interval's keys when checkpoints dominate, with the
/// smallest async_stall / fixed interval the budget accepts; hot_spares when restarts waiting for
/// a repair make the failures, with the fewest spares it accepts; the failures, the planned stops,
/// or else the token count) and returns the events one draw may use before it is stopped; `per_draw`
/// receives the estimate of one draw's.
double event_budget(const TrainingSpec& spec, const std::vector<Stage>& stages, double target, double horizon,
                    double& per_draw) {
  const std::vector<double> work = stage_work(spec, stages, target, horizon);
  const auto& r = spec.reliability;
  per_draw = 0;
  double top = -1;
  std::string cause;
  std::size_t worst = 0;  // the stage with the most events: the one the error describes
  for (std::size_t p = 0; p < stages.size(); ++p) {
    std::string what;
    const double e = kIterationsPerEvent * events_in(stages[p], work[p], r.planned_interval, what);
    per_draw += e;
    if (!(e <= top)) top = e, cause = what, worst = p;
  }
  const double total = per_draw * r.draws;
  if (!(total <= kMaxEvents)) {
    char n[96];
    std::snprintf(n, sizeof n, "%.2g steps; this one needs ~%.2g", kMaxEvents, total);
    const std::string budget = "a run the Monte Carlo can draw within " + std::string(n) + " (" +
                               std::to_string(r.draws) + " draws of " +
                               seconds_text(std::accumulate(work.begin(), work.end(), 0.0)) + " of training each";
    const Stage& s0 = stages[worst];
    const std::string phase = stages.size() > 1
                                  ? " in rollout phase '" + (s0.name.empty() ? std::to_string(worst) : s0.name) +
                                        "' (" + std::to_string(s0.gpus) + " GPUs)"
                                  : "";
    const double mtbf0 = s0.stop_rate > 0 ? 1 / s0.stop_rate : kInf;
    // Whether the budget takes the run with each stage's checkpoint interval and stall from `ckpt`.
    const auto fits_with = [&](const std::function<std::pair<double, double>(const Stage&)>& ckpt) {
      double sum = 0;
      std::string what;
      for (std::size_t p = 0; p < stages.size(); ++p) {
        const auto [interval, stall] = ckpt(stages[p]);
        sum += kIterationsPerEvent * events_in(stages[p], interval, stall, work[p], r.planned_interval, what);
      }
      return sum * r.draws <= kMaxEvents;
    };
    // The longest sensible interval of each stage: Young/Daly's for a stall as long as the whole
    // write (what sync checkpoints use; a longer one loses more work to failures than it saves).
    // Checkpoints are the cause to name only when the run fits the budget with it; otherwise the
    // run is too long whatever the interval, and the token count is the key.
    const auto sync_interval = [&](const Stage& st) {
      ReliabilitySpec rr = r;
      rr.mode = CheckpointMode::Sync;
      rr.policy = CheckpointPolicy::YoungDaly;
      CheckpointCost c = st.cost;
      c.stall = c.write;
      return checkpoint_interval(rr, c, st.stop_rate > 0 ? 1 / st.stop_rate : kInf, st.step_time);
    };
    double longest = kInf;
    for (const Stage& st : stages) longest = std::min(longest, sync_interval(st));
    // The smallest fixed interval the budget takes (NaN: none up to the sync interval).
    const auto least_fixed_interval = [&] {
      return least_fitting(s0.interval, std::max(longest, s0.interval), [&](double y) {
        return fits_with([&](const Stage& st) { return std::make_pair(y, st.cost.stall); });
      });
    };
    // Restarts waiting for a repair (restart_repeats): named when unlimited spares fit, with the
    // fewest that do (the count falls as spares are added) and whose draws are estimated to end
    // within half the kMaxWall a draw may take: with fewer, the job has all its nodes so seldom
    // that the run would stop there (the 1,024-GPU job of test_bounds with 7 spares for ~25
    // nodes in repair: ~3,000 years estimated; the budget alone took it).
    if (cause == "failures" && r.hot_spares >= 0) {
      const auto fits_spares = [&](long long n) {
        std::string c;
        std::size_t w = 0;
        const std::vector<Stage> st = with_spares(stages, static_cast<int>(n), r.repair_time);
        const double e = events_per_draw(spec, st, target, horizon, c, w);
        return e * r.draws <= kMaxEvents && wall_per_draw(spec, st, target, horizon) <= kMaxWall / 2;
      };
      if (fits_spares(-1)) {
        long long lo = r.hot_spares, hi = std::max(1LL, 2LL * r.hot_spares);  // fits(lo) is false
        while (hi < (1LL << 30) && !fits_spares(hi)) lo = hi, hi *= 2;
        if (hi < (1LL << 30)) {
          while (hi - lo > 1) {
            const long long mid = lo + (hi - lo) / 2;
            (fits_spares(mid) ? hi : lo) = mid;
          }
          char why[160];
          std::snprintf(why, sizeof why, "~%.3g failures needing a spare per %s repair", s0.spare_rate * r.repair_time,
                        seconds_text(r.repair_time).c_str());
          char rep[64];
          std::snprintf(rep, sizeof rep, "%.3g", s0.repeats);
          throw InvalidParameter("reliability.hot_spares", std::to_string(r.hot_spares),
                                 budget + ", job MTBF " + seconds_text(mtbf0) + phase + ": the " +
                                     std::to_string(r.hot_spares) + " hot spares run out (" + why +
                                     "), restarts wait for a repair and failures during the wait start them "
                                     "over, ~" +
                                     rep + " stopping failures per completed restart); at least " + std::to_string(hi) +
                                     " hot_spares, a shorter reliability.repair_time, or fewer reliability.draws");
        }
      }
    }
    if (cause == "failures" && r.policy == CheckpointPolicy::Fixed) {
      // A fixed interval far beyond the job MTBF: each segment is retried expm1(lambda T) times.
      // Named when the budget takes Young/Daly's interval (for the stall) instead.
      double lo = kInf;
      for (const Stage& st : stages) {
        ReliabilitySpec rr = r;
        rr.policy = CheckpointPolicy::YoungDaly;
        lo = std::min(lo, checkpoint_interval(rr, st.cost, st.stop_rate > 0 ? 1 / st.stop_rate : kInf, st.step_time));
      }
      const double z =
          lo < r.checkpoint_interval
              ? most_fitting(lo, r.checkpoint_interval,
                             [&](double y) {
                               return fits_with([&](const Stage& st) { return std::make_pair(y, st.cost.stall); });
                             })
              : std::numeric_limits<double>::quiet_NaN();
      if (!std::isnan(z))
        throw InvalidParameter("reliability.checkpoint_interval", number_text(r.checkpoint_interval),
                               budget + ", a checkpoint every " + seconds_text(r.checkpoint_interval) +
                                   ", longer than the job MTBF of " + seconds_text(mtbf0) + phase +
                                   ": most segments are lost to a failure before they complete); a "
                                   "checkpoint_interval of at most " +
                                   seconds_text(z) + ", or checkpoint_policy: young_daly without checkpoint_interval");
    }
    if (cause == "failures") {
      // Spares that run out but are not the whole story (unlimited ones would not fit either).
      std::string spares;
      const double plenty = restart_repeats(s0, -1, r.repair_time);
      if (s0.repeats > 2 * plenty) {
        char n[128];
        std::snprintf(n, sizeof n, ", ~%.3g stopping failures per completed restart (~%.3g with unlimited spares)",
                      s0.repeats, plenty);
        spares = " and the " + std::to_string(r.hot_spares) + " hot spares run out (restarts wait for a " +
                 seconds_text(r.repair_time) + " repair)" + n;
      }
      throw InvalidParameter("reliability.failures", "job MTBF " + seconds_text(mtbf0) + phase,
                             budget + "): the job cannot make progress, failures come faster than a restart (" +
                                 seconds_text(s0.restart) + ") and a checkpoint interval (" +
                                 seconds_text(s0.interval) + ") complete" + spares);
    }
    if (cause == "planned")
      throw InvalidParameter("reliability.planned_interval", seconds_text(r.planned_interval),
                             budget + ", a planned stop every " + seconds_text(r.planned_interval) + ")");
    if (cause == "checkpoints" && r.policy == CheckpointPolicy::Fixed) {
      const double y = least_fixed_interval();
      throw InvalidParameter(
          "reliability.checkpoint_interval", number_text(r.checkpoint_interval),
          budget + ", a checkpoint every " + seconds_text(r.checkpoint_interval) + "); " +
              (std::isnan(y) ? "a longer interval" : "a checkpoint_interval of at least " + seconds_text(y)) +
              " or fewer reliability.draws");
    }
    if (cause == "checkpoints") {
      // young_daly: the interval is Daly's optimum for the stall and the job MTBF, raised to the
      // write (async) and one step; a tiny stall makes it tiny (case step/18: async_stall 0 s).
      const double daly = daly_interval(s0.cost.stall, mtbf0);
      std::string why = "Young/Daly's optimum for a " + seconds_text(s0.cost.stall) +
                        (r.mode == CheckpointMode::Async ? " stall" : " sync write") + " and a job MTBF of " +
                        seconds_text(mtbf0);
      if (s0.interval > daly)
        why += s0.interval > s0.step_time ? ", raised to the " + seconds_text(s0.cost.write) + " checkpoint write"
                                          : ", raised to one step (" + seconds_text(s0.step_time) + ")";
      const std::string what = budget + ", a checkpoint every " + seconds_text(s0.interval) + phase + ": " + why + ")";
      const double y = least_fixed_interval();
      const std::string fixed = std::isnan(y) ? ""
                                              : "checkpoint_policy: fixed with a checkpoint_interval of at least " +
                                                    seconds_text(y) + ", or ";
      double x = std::numeric_limits<double>::quiet_NaN();
      if (r.mode == CheckpointMode::Async) {
        double longest_write = 0;
        for (const Stage& st : stages) longest_write = std::max(longest_write, st.cost.write);
        x = least_fitting(r.async_stall, longest_write, [&](double stall) {
          ReliabilitySpec rr = r;
          rr.async_stall = stall;
          return fits_with([&](const Stage& st) {
            CheckpointCost c = st.cost;
            c.stall = std::min(stall, c.write);
            return std::make_pair(checkpoint_interval(rr, c, st.stop_rate > 0 ? 1 / st.stop_rate : kInf, st.step_time),
                                  c.stall);
          });
        });
      }
      if (!std::isnan(x))
        throw InvalidParameter(
            "reliability.async_stall", r.async_stall_given ? number_text(r.async_stall) : seconds_text(r.async_stall),
            what + "; an async_stall of at least " + seconds_text(x) + ", or " + fixed + "fewer reliability.draws");
    }
    char value[32];
    std::snprintf(value, sizeof value, "%g", spec.target_loss > 0 ? spec.target_loss : target);
    throw InvalidParameter(spec.target_loss > 0 ? "training.target_loss" : "training.tokens", value,
                           budget + "); fewer tokens or fewer reliability.draws");
  }
  return std::max(kMinEventsPerDraw, kEventSlack * per_draw);
}

PhasedResult run(const TrainingSpec& spec, const std::vector<Stage>& stages, double target, double horizon,
                 std::uint64_t seed) {
  const int n = spec.reliability.draws;
  double estimated = 0;
  const double max_events = event_budget(spec, stages, target, horizon, estimated);
  PhasedResult res;
  TimeToTrainResult& o = res.overall;
  o.events_estimated = estimated;
  o.tokens = target;
  o.samples.resize(static_cast<std::size_t>(n));
  std::array<double, kCauses> lost{};
  std::array<double, kComponents> count{};
  std::vector<double> ph_tokens(stages.size()), ph_wall(stages.size()), ph_int(stages.size()),
      ph_trained(stages.size());
  double ettr = 0, wall_sum = 0, tokens_sum = 0, trained_sum = 0;
  for (int d = 0; d < n; ++d) {
    throw_if_cancelled();
    DrawOut out = Draw(spec, stages, target, horizon, draw_seed(seed, d), false, max_events).run();
    o.samples[static_cast<std::size_t>(d)] = std::isfinite(horizon) ? out.retained : out.wall;
    wall_sum += out.wall;
    tokens_sum += out.tokens;
    trained_sum += out.trained;
    ettr += out.wall > 0 ? out.retained / out.wall : 1;
    o.expected_interruptions += out.interruptions;
    o.expected_degradations += out.degradations;
    o.expected_planned += out.planned;
    o.events += out.events;
    for (int c = 0; c < kCauses; ++c) lost[c] += out.lost[c];
    for (int c = 0; c < kComponents; ++c) count[c] += out.count[c];
    for (std::size_t p = 0; p < stages.size(); ++p) {
      ph_tokens[p] += out.phase_tokens[p];
      ph_wall[p] += out.phase_wall[p];
      ph_int[p] += out.phase_interruptions[p];
      ph_trained[p] += out.phase_trained[p];
    }
  }
  const double nd = n;
  o.expected_mean = wall_sum / nd;
  o.ettr = ettr / nd;
  o.expected_interruptions /= nd;
  o.expected_degradations /= nd;
  o.expected_planned /= nd;
  o.events /= nd;
  if (std::isfinite(horizon)) o.tokens = tokens_sum / nd;
  o.tokens_trained = trained_sum / nd;
  o.goodput = o.expected_mean > 0 ? (std::isfinite(horizon) ? tokens_sum / nd : target) / o.expected_mean : 0;
  std::vector<double> sorted = o.samples;
  std::sort(sorted.begin(), sorted.end());
  o.p10 = quantile(sorted, 0.10);
  o.p50 = quantile(sorted, 0.50);
  o.p90 = quantile(sorted, 0.90);
  for (int c = 0; c < kCauses; ++c) o.lost_gpu_hours_by_cause.emplace_back(cause_name(c), lost[c] / nd / units::kHour);
  for (int c = 0; c < kComponents; ++c) o.interruptions_by_cause.emplace_back(cause_name(c), count[c] / nd);
  // The summary's rates are those of the phase where training ends (on average), like its GPU
  // count and step time: a rollout may finish before its last phases start. Each phase's are in
  // res.phases.
  while (res.end_phase + 1 < stages.size() && stages[res.end_phase + 1].t_start <= o.expected_mean) ++res.end_phase;
  const Stage& end = stages[res.end_phase];
  o.checkpoint_interval = end.interval;
  o.checkpoint_stall = end.cost.stall;
  o.job_mtbf = end.stop_rate > 0 ? 1.0 / end.stop_rate : kInf;
  if (!std::isfinite(horizon)) {
    DrawOut ideal = Draw(spec, stages, target, kInf, 0, true).run();
    o.ideal = ideal.retained;
  } else {
    o.ideal = horizon;
  }
  for (std::size_t p = 0; p < stages.size(); ++p) {
    PhaseReport pr;
    pr.name = stages[p].name;
    pr.gpus = stages[p].gpus;
    pr.start = stages[p].t_start;
    pr.step_time = stages[p].step_time;
    pr.tokens_per_s = stages[p].tps.front();
    pr.job_mtbf = stages[p].stop_rate > 0 ? 1.0 / stages[p].stop_rate : kInf;
    pr.checkpoint_interval = stages[p].interval;
    pr.mean_tokens = ph_tokens[p] / nd;
    pr.mean_wall = ph_wall[p] / nd;
    pr.mean_interruptions = ph_int[p] / nd;
    pr.mean_tokens_trained = ph_trained[p] / nd;
    res.phases.push_back(pr);
  }
  return res;
}

}  // namespace

void set_checkpoint_batching(bool on) { g_batch_checkpoints = on; }
void set_fast_walk(bool on) { g_fast_walk = on; }

TimeToTrainResult time_to_train(const TrainingSpec& spec, const Situation& situation, std::uint64_t seed) {
  PhaseSituation p;  // no name: not a rollout phase (situation_text words it "the job")
  p.situation = situation;
  return time_to_train_phased(spec, {p}, seed).overall;
}

namespace {

/// The stages of `phases` (checked: starts increase, GPU counts do not shrink), with the
/// convergence model's cuts (`conv` set up here, pointing at `critical`): shared by
/// time_to_train_phased and monte_carlo_events, so the size checked early is the one run draws.
std::vector<Stage> compile_phases(const TrainingSpec& spec, const std::vector<PhaseSituation>& phases, double target,
                                  const CriticalBatch& critical, Convergence& conv,
                                  std::vector<std::string>& warnings) {
  if (phases.empty()) throw SimulationError("reliability: no phase to train on");
  for (std::size_t i = 1; i < phases.size(); ++i) {
    const std::string key = "rollout.phases[" + std::to_string(i) + "]";
    if (!(phases[i].start > phases[i - 1].start))
      throw InvalidParameter(key + ".start", phases[i].name, "a start date after the previous phase's");
    if (phases[i].situation.gpus < phases[i - 1].situation.gpus)
      throw InvalidParameter(key + ".gpus", std::to_string(phases[i].situation.gpus),
                             "at least the previous phase's " + std::to_string(phases[i - 1].situation.gpus) +
                                 " GPUs (the job only grows)");
  }
  std::vector<Stage> stages;
  const double t0 = phases.front().start;
  if (critical.enabled()) {
    conv.critical = &critical;
    conv.target = target;
    // Kaplan: B_crit changes with the loss, a grid over progress; fixed: one cost per batch regime.
    conv.grid = spec.convergence.model == ConvergenceModel::Kaplan ? convergence_grid(target, spec.convergence.cells)
                                                                   : std::vector<double>{0.0};
    conv.reference = spec.convergence.reference_batch > 0 ? spec.convergence.reference_batch
                     : !spec.batch_schedule.empty()       ? spec.batch_schedule.front().global_batch
                                                          : phases.front().situation.tokens_per_step;
  }
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const double end = i + 1 < phases.size() ? phases[i + 1].start - t0 : kInf;
    stages.push_back(compile(spec, phases[i].situation, phases[i].name, phases[i].start - t0, end, warnings, conv));
  }
  return stages;
}

/// The spec checked, its target and the phases compiled (compile_phases): what
/// monte_carlo_events and time_to_train_phased both start from. The stages' convergence points at
/// `critical`, a member declared before them (destroyed after them); neither copied nor moved, so
/// that pointer stays valid.
struct PhasedRun {
  PhasedRun(const TrainingSpec& spec, const std::vector<PhaseSituation>& phases)
      : target(checked_target(spec)),
        critical(spec.convergence, spec.parameters),
        stages(compile_phases(spec, phases, target, critical, conv, warnings)) {}
  PhasedRun(const PhasedRun&) = delete;
  PhasedRun& operator=(const PhasedRun&) = delete;

  static double checked_target(const TrainingSpec& spec) {
    check_spec(spec);
    return target_tokens(spec);
  }

  const double target;  ///< tokens
  const CriticalBatch critical;
  Convergence conv;
  std::vector<std::string> warnings;
  const std::vector<Stage> stages;
};

}  // namespace

double monte_carlo_events(const TrainingSpec& spec, const std::vector<PhaseSituation>& phases) {
  const PhasedRun r(spec, phases);
  double per_draw = 0;
  event_budget(spec, r.stages, r.target, kInf, per_draw);
  return per_draw * spec.reliability.draws;
}

PhasedResult time_to_train_phased(const TrainingSpec& spec, const std::vector<PhaseSituation>& phases,
                                  std::uint64_t seed) {
  PhasedRun r(spec, phases);
  PhasedResult res = run(spec, r.stages, r.target, kInf, seed);
  res.overall.warnings = std::move(r.warnings);
  res.overall.reference_batch = r.conv.reference;
  // The batch and critical batch where each phase starts on average (progress before it, mean
  // over draws).
  double before = 0;
  for (std::size_t i = 0; i < res.phases.size(); ++i) {
    auto& p = res.phases[i];
    p.critical_batch = r.critical.enabled() ? r.critical.at(before) : 0;
    p.batch = r.stages[i].batch[r.stages[i].regime(before)];
    before += p.mean_tokens;
  }
  for (std::size_t i = 0; i < phases.size(); ++i) res.phases[i].start = phases[i].start;
  return res;
}

TimeToTrainResult simulate_window(const TrainingSpec& spec, const Situation& situation, double duration,
                                  std::uint64_t seed) {
  check_spec(spec);
  if (!(duration > 0)) throw SimulationError("reliability: window duration must be positive");
  std::vector<std::string> warnings;
  std::vector<Stage> stages{compile(spec, situation, "window", 0, kInf, warnings, Convergence{})};
  TimeToTrainResult res = run(spec, stages, kInf, duration, seed).overall;
  res.warnings = std::move(warnings);
  return res;
}

}  // namespace aidcsim::reliability
