#include "models/reliability/reliability_schema.hpp"

#include <string>

#include "models/common/units.hpp"
#include "models/reliability/scaling_law.hpp"

namespace aidcsim::reliability {

namespace {
const std::vector<std::string> kComponentNames = {"gpu",  "hbm",  "nic", "host",     "switch",
                                                  "link", "pump", "cdu", "software", "node"};

Component component_from(const std::string& s) {
  for (int i = 0; i < kComponents; ++i)
    if (kComponentNames[static_cast<std::size_t>(i)] == s) return static_cast<Component>(i);
  return Component::Gpu;  // unreachable: the loader checks the choices
}
}  // namespace

// One table of the area's keys (long by nature: one entry per key, in the order the reference
// page lists them).
Schema schema() {
  using Q = Quantity;
  return {
      {"training", Q::Map, "", false, {}, {}, false, {}, "The training target."},
      {"training.tokens",
       Q::Count,
       "",
       false,
       1,
       1e16,
       false,
       {},
       "Tokens to train (\"15T\" = 15e12). Give this or training.target_loss."},
      {"training.target_loss",
       Q::Number,
       "",
       false,
       1.69,
       20,
       true,
       {},
       "Target pre-training loss (nats/token), turned into tokens with the Chinchilla fit "
       "L = 1.69 + 406.4/N^0.34 + 410.7/D^0.28 (Hoffmann et al. 2022, Approach 3, eq. 10)."},
      {"training.parameters",
       Q::Count,
       "",
       false,
       1,
       1e16,
       false,
       {},
       "Model parameters N for the loss fit; default: counted from workload.model."},
      {"training.batch_schedule",
       Q::List,
       "",
       false,
       {},
       {},
       false,
       {},
       "Global batch size over training, e.g. Llama 3 (§3.4.1): 4M tokens, 8M after 252M, 16M after 2.87T."},
      {"training.batch_schedule[].after_tokens",
       Q::Count,
       "",
       true,
       0,
       1e16,
       false,
       {},
       "Tokens trained when this batch size starts (0 for the first entry; increasing; below training.tokens when that "
       "is given)."},
      {"training.batch_schedule[].global_batch",
       Q::Count,
       "",
       true,
       1,
       1e12,
       false,
       {},
       "Tokens per optimizer step from then on (\"16M\")."},
      {"training.convergence",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Tokens to the target against the global batch: beyond the critical batch size a run needs more tokens for "
       "the same loss, E = E_min (1 + B/B_crit) (McCandlish et al. 2018, arXiv:1812.06162, eq. 2.11)."},
      {"training.convergence.model",
       Q::String,
       "none",
       false,
       {},
       {},
       false,
       {"none", "kaplan", "fixed"},
       "none: a token is a token at any batch (the run's notes say so when the batch changes); kaplan: B_crit(L) = "
       "b_star / L^(1/alpha_b) at the Chinchilla loss of the progress so far (Kaplan et al. 2020, arXiv:2001.08361, "
       "§5.1; fit on WebText2 with models up to 1.5B parameters: an estimate for other data); fixed: critical_batch "
       "throughout. With a model, training.tokens and batch_schedule's after_tokens count tokens at the reference "
       "batch, and the results give the extra tokens the larger batches cost."},
      {"training.convergence.critical_batch",
       Q::Count,
       "",
       false,
       1,
       1e12,
       false,
       {},
       "B_crit in tokens for model: fixed (e.g. \"8M\")."},
      {"training.convergence.b_star",
       Q::Count,
       "2e8",
       false,
       1,
       1e15,
       false,
       {},
       "Kaplan et al. 2020 eq. 1.4 (= 5.3) fit coefficient B_* (tokens), B_crit = B_*/L^(1/alpha_b)."},
      {"training.convergence.alpha_b",
       Q::Number,
       "0.21",
       false,
       0.01,
       10,
       false,
       {},
       "Kaplan et al. 2020 eq. 1.4 (= 5.3) fit exponent alpha_B (B_crit doubles for every ~13 % lower loss at 0.21)."},
      {"training.convergence.reference_batch",
       Q::Count,
       "",
       false,
       1,
       1e12,
       false,
       {},
       "Tokens per step training.tokens is counted at; default: the run's first global batch."},
      {"training.convergence.cells",
       Q::Integer,
       "256",
       false,
       8,
       100000,
       false,
       {},
       "model: kaplan: cells of the piecewise-constant token-cost integral over training (log-spaced in tokens; 256 is "
       "within "
       "0.1 % of a 200,000-point quadrature, tests/unit/reliability/test_convergence.cpp)."},

      {"reliability",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Failures, checkpoints and restarts -> time-to-train distribution (Monte Carlo)."},
      {"reliability.draws", Q::Integer, "1000", false, 1, 1e6, false, {}, "Monte Carlo draws."},
      {"reliability.failure_preset",
       Q::String,
       "llama3",
       false,
       {},
       {},
       false,
       {"llama3", "rsc1", "rsc2", "none"},
       "Default per-component failure rates: llama3 = Llama 3 Table 5 (419 unexpected interruptions in 54 days "
       "on 16,384 H100) + Alibaba HPN link/switch rates; rsc1 / rsc2 = Meta RSC node failure rate r_f = 6.50 / "
       "2.34 per 1000 node-days (Kokolis et al., HPCA 2025); none."},
      {"reliability.failures", Q::List, "", false, {}, {}, false, {}, "Per-component overrides of the preset."},
      {"reliability.failures[].component",
       Q::String,
       "",
       true,
       {},
       {},
       false,
       kComponentNames,
       "Component class (node = 8-GPU node equivalent, as in Kokolis et al.)."},
      {"reliability.failures[].mtbf",
       Q::Time,
       "",
       false,
       3600,
       1e12,
       false,
       {},
       "MTBF of one component (e.g. \"200 d\" for r_f = 5e-3 per node-day)."},
      {"reliability.failures[].count",
       Q::Count,
       "",
       false,
       0,
       1e9,
       false,
       {},
       "Number of such components; default: counted from the simulated cluster."},
      {"reliability.restart_time",
       Q::Time,
       "10 min",
       false,
       0,
       7 * units::kDay,
       false,
       {},
       "Restart overhead u0 after a failure (detect, reschedule, warm up), without the checkpoint load. "
       "Meta RSC ETTR model: 5-20 min; MegaScale: detection+diagnosis < 10 min."},
      {"reliability.checkpoint_policy",
       Q::String,
       "",
       false,
       {},
       {},
       false,
       {"fixed", "young_daly"},
       "fixed (reliability.checkpoint_interval) or young_daly (Daly 2006 optimum of sqrt(2 delta MTBF), "
       "Young 1974). Default: fixed when checkpoint_interval is given, else young_daly."},
      {"reliability.checkpoint_interval",
       Q::Time,
       "",
       false,
       1,
       30 * units::kDay,
       false,
       {},
       "Training time between checkpoints (fixed policy; an error with checkpoint_policy: young_daly)."},
      {"reliability.checkpoint_mode",
       Q::String,
       "async",
       false,
       {},
       {},
       false,
       {"async", "sync"},
       "sync: training stalls for the whole write; async: stalls for the GPU->host snapshot only, the "
       "checkpoint is durable when the background write ends (MegaScale §4.4, PyTorch DCP)."},
      {"reliability.async_stall",
       Q::Time,
       "10 s",
       false,
       0,
       3600,
       false,
       {},
       "Training stall of an async checkpoint (PyTorch DCP async: 6-14 s for 7B-13B models, secondary); at most "
       "the whole write time (a warning says when it is capped). With young_daly the interval is at least the write "
       "time: the next async checkpoint cannot start before the previous one is durable."},
      {"reliability.storage_bandwidth",
       Q::DataRate,
       "2 TB/s",
       false,
       1e6,
       1e15,
       false,
       {},
       "Checkpoint write/read bandwidth (Llama 3 §3.3.1: Tectonic 2 TB/s sustained). With fabric.storage the "
       "checkpoint is simulated as flows and its bandwidth comes from the simulation; this key then caps it only "
       "when written."},
      {"reliability.checkpoint_bytes",
       Q::DataSize,
       "",
       false,
       1e6,
       1e17,
       false,
       {},
       "Checkpoint size; default: model state from the workload (weights + optimizer)."},
      {"reliability.hot_spares",
       Q::Integer,
       "-1",
       false,
       -1,
       1e6,
       false,
       {},
       "Spare nodes; a hardware failure takes one for reliability.repair_time (none left: the job waits for the "
       "first repaired one; 0: it waits for its own node). -1 = unlimited (restart_time covers the swap)."},
      {"reliability.repair_time",
       Q::Time,
       "24 h",
       false,
       0,
       365 * units::kDay,
       false,
       {},
       "Time to return a failed node to the spare pool (assumption, no published figure)."},
      {"reliability.link_failure_mode",
       Q::String,
       "stop",
       false,
       {},
       {},
       false,
       {"stop", "degrade"},
       "stop: a link failure interrupts the job; degrade: traffic is rerouted and the step slows down."},
      {"reliability.link_repair_time",
       Q::Time,
       "4 h",
       false,
       0,
       365 * units::kDay,
       false,
       {},
       "Time a failed link stays down in degrade mode (assumption)."},
      {"reliability.link_degrade_penalty",
       Q::Fraction,
       "0.05",
       false,
       0,
       1,
       false,
       {},
       "Step-time increase with a link down when the engine did not simulate it (assumption)."},
      {"reliability.planned_interval",
       Q::Time,
       "",
       false,
       600,
       10 * units::kJulianYear,
       false,
       {},
       "Interval between planned interruptions (firmware, config, dataset updates): checkpoint, then restart, "
       "no lost work. Llama 3 §3.3.4: 47 planned in 54 days (one per ~28 h). Default: none."},

      {"rollout", Q::Map, "", false, {}, {}, false, {}, "Staged rollout; the training job grows with the phases."},
      {"rollout.phases", Q::List, "", false, {}, {}, false, {}, "Phases in date order."},
      {"rollout.phases[].name", Q::String, "", false, {}, {}, false, {}, "Phase name."},
      {"rollout.phases[].gpus", Q::Integer, "", true, 1, 1e7, false, {}, "GPUs in the job from this phase on."},
      {"rollout.phases[].start",
       Q::Date,
       "",
       true,
       946684800,
       4102444800,
       false,
       {},
       "Date the phase starts (\"2026-03-01\")."},
  };
}

// One assignment per key of schema() (long by nature; kept in the table's order).
TrainingSpec spec_from(const Params& root) {
  TrainingSpec t;
  const bool has_tokens = root.has("training.tokens");
  const bool has_loss = root.has("training.target_loss");
  if (has_tokens && has_loss) root.invalid("training.target_loss", "either training.tokens or training.target_loss");
  if (!has_tokens && !has_loss) root.invalid("training.tokens", "a token count (or training.target_loss)");
  if (has_tokens) t.tokens = root.number("training.tokens");
  if (has_loss) t.target_loss = root.number("training.target_loss");
  if (root.has("training.parameters")) t.parameters = root.number("training.parameters");
  if (has_loss && t.parameters > 0) resolve_target(t, t.parameters);

  ConvergenceSpec& c = t.convergence;
  const std::string model = root.has("training.convergence.model") ? root.text("training.convergence.model") : "none";
  c.model = model == "kaplan"  ? ConvergenceModel::Kaplan
            : model == "fixed" ? ConvergenceModel::Fixed
                               : ConvergenceModel::None;
  if (root.has("training.convergence.b_star")) c.b_star = root.number("training.convergence.b_star");
  if (root.has("training.convergence.alpha_b")) c.alpha_b = root.number("training.convergence.alpha_b");
  if (root.has("training.convergence.reference_batch"))
    c.reference_batch = root.number("training.convergence.reference_batch");
  if (root.has("training.convergence.cells")) c.cells = static_cast<int>(root.integer("training.convergence.cells"));
  if (root.has("training.convergence.critical_batch")) {
    c.critical_batch = root.number("training.convergence.critical_batch");
    if (c.model != ConvergenceModel::Fixed)  // it would be ignored: say so
      root.invalid("training.convergence.critical_batch", "no critical_batch unless training.convergence.model: fixed");
  } else if (c.model == ConvergenceModel::Fixed) {
    root.invalid("training.convergence.model", "kaplan or none, or fixed with training.convergence.critical_batch");
  }
  // Keys another model would ignore: said, never silently unused.
  for (const char* key : {"training.convergence.b_star", "training.convergence.alpha_b", "training.convergence.cells"})
    if (root.given(key) && c.model != ConvergenceModel::Kaplan)
      root.invalid(key, std::string("no ") + (key + 21) + " unless training.convergence.model: kaplan");
  if (root.given("training.convergence.reference_batch") && c.model == ConvergenceModel::None)
    root.invalid("training.convergence.reference_batch",
                 "no reference_batch with training.convergence.model: none (a token is a token)");

  const auto& sched = root.list("training.batch_schedule");
  for (std::size_t i = 0; i < sched.size(); ++i) {
    BatchStage b;
    b.after_tokens = sched[i].number("after_tokens");
    b.global_batch = sched[i].number("global_batch");
    b.key = sched[i].path();
    if (i == 0 && b.after_tokens != 0) sched[i].invalid("after_tokens", "0 for the first batch size");
    if (i > 0 && !(b.after_tokens > t.batch_schedule.back().after_tokens))
      sched[i].invalid("after_tokens", "more tokens than the previous entry's after_tokens");
    // A stage starting at or after the end of training never runs: a slip in the count. With
    // target_loss the token count is derived later, so only a written training.tokens is checked.
    if (has_tokens && !(b.after_tokens < t.tokens)) {
      std::string written = root.raw("training.tokens");
      if (written.empty()) written = std::to_string(t.tokens);
      sched[i].invalid("after_tokens", "< training.tokens (" + written + ")");
    }
    t.batch_schedule.push_back(b);
  }

  ReliabilitySpec& r = t.reliability;
  auto num = [&](const char* key, double fallback) { return root.has(key) ? root.number(key) : fallback; };
  auto txt = [&](const char* key, const char* fallback) {
    return root.has(key) ? root.text(key) : std::string(fallback);
  };
  r.draws = static_cast<int>(root.has("reliability.draws") ? root.integer("reliability.draws") : r.draws);
  if (r.draws < 1) root.invalid("reliability.draws", "at least 1 draw");
  const std::string preset = txt("reliability.failure_preset", "llama3");
  r.preset = preset == "rsc1"   ? FailurePreset::Rsc1
             : preset == "rsc2" ? FailurePreset::Rsc2
             : preset == "none" ? FailurePreset::None
                                : FailurePreset::Llama3;
  for (const Params& item : root.list("reliability.failures")) {
    FailureOverride o;
    o.component = component_from(item.text("component"));
    // One entry per component (a second one would silently override the first), and each entry
    // changes something (one with neither mtbf nor count would be ignored).
    for (const FailureOverride& prev : r.failures)
      if (prev.component == o.component)
        item.invalid("component", "each component once in reliability.failures (already given at " + prev.key + ")");
    if (!item.has("mtbf") && !item.has("count"))
      item.invalid("component",
                   "an mtbf or a count for '" + item.text("component") + "' (an entry with neither changes nothing)");
    if (item.has("mtbf")) {
      o.mtbf = item.number("mtbf");
      o.mtbf_text = item.raw("mtbf");
      if (!(o.mtbf > 0)) item.invalid("mtbf", "a positive time such as \"200 d\"");
    }
    if (item.has("count")) o.count = item.number("count");
    o.key = item.path();
    r.failures.push_back(o);
  }
  r.restart_time = num("reliability.restart_time", r.restart_time);
  const bool has_interval = root.has("reliability.checkpoint_interval");
  const std::string policy = txt("reliability.checkpoint_policy", has_interval ? "fixed" : "young_daly");
  r.policy = policy == "fixed" ? CheckpointPolicy::Fixed : CheckpointPolicy::YoungDaly;
  if (has_interval && r.policy == CheckpointPolicy::YoungDaly)  // it would be ignored: say so
    root.invalid("reliability.checkpoint_interval",
                 "no checkpoint_interval with checkpoint_policy: young_daly (which computes it); remove one of them");
  if (has_interval) {
    r.checkpoint_interval = root.number("reliability.checkpoint_interval");
    if (!(r.checkpoint_interval > 0))
      root.invalid("reliability.checkpoint_interval", "a positive interval such as \"30 min\"");
  } else if (r.policy == CheckpointPolicy::Fixed) {
    root.invalid("reliability.checkpoint_policy", "young_daly, or fixed with reliability.checkpoint_interval");
  }
  r.mode = txt("reliability.checkpoint_mode", "async") == "sync" ? CheckpointMode::Sync : CheckpointMode::Async;
  r.async_stall = num("reliability.async_stall", r.async_stall);
  r.async_stall_given = root.given("reliability.async_stall");
  r.storage_bandwidth_given = root.given("reliability.storage_bandwidth");
  r.storage_bandwidth = num("reliability.storage_bandwidth", r.storage_bandwidth);
  if (!(r.storage_bandwidth > 0)) root.invalid("reliability.storage_bandwidth", "a positive data rate");
  r.checkpoint_bytes = num("reliability.checkpoint_bytes", 0);
  r.hot_spares = static_cast<int>(root.has("reliability.hot_spares") ? root.integer("reliability.hot_spares") : -1);
  r.repair_time = num("reliability.repair_time", r.repair_time);
  r.link_mode =
      txt("reliability.link_failure_mode", "stop") == "degrade" ? LinkFailureMode::Degrade : LinkFailureMode::Stop;
  r.link_repair_time = num("reliability.link_repair_time", r.link_repair_time);
  r.link_degrade_penalty = num("reliability.link_degrade_penalty", r.link_degrade_penalty);
  // A key written where no setting reads it is an error, not ignored (bit-identical results, no
  // note: case step/01's kind): async_stall is read by async checkpoints only (checkpoint.cpp), the
  // link repair time and degrade penalty by link_failure_mode: degrade only (time_to_train.cpp).
  if (r.mode == CheckpointMode::Sync && r.async_stall_given)
    root.invalid("reliability.async_stall",
                 "no async_stall with reliability.checkpoint_mode: sync (a sync checkpoint stalls for its whole "
                 "write, reliability.storage_bandwidth)");
  if (r.link_mode == LinkFailureMode::Stop)
    for (const char* k : {"reliability.link_repair_time", "reliability.link_degrade_penalty"})
      if (root.given(k))
        root.invalid(k, std::string("no ") + (k + 12) +
                            " unless reliability.link_failure_mode is degrade (with stop a link failure "
                            "interrupts the job like any other failure)");
  r.planned_interval = num("reliability.planned_interval", 0);
  if (root.has("reliability.planned_interval") && !(r.planned_interval > 0))
    root.invalid("reliability.planned_interval", "a positive interval such as \"28 h\"");

  const auto& phases = root.list("rollout.phases");
  const double job_gpus = root.has("cluster.gpus") ? root.number("cluster.gpus") : 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const Params& item = phases[i];
    PhaseSpec p;
    p.name = item.has("name") ? item.text("name") : "phase " + std::to_string(i + 1);
    p.gpus = static_cast<int>(item.integer("gpus"));
    p.start = item.number("start");
    p.key = item.path();
    if (i > 0 && !(p.start > t.phases.back().start))
      item.invalid("start", "a date after rollout.phases[" + std::to_string(i - 1) + "].start (phases in date order)");
    if (i > 0 && p.gpus < t.phases.back().gpus)
      item.invalid("gpus", "at least the previous phase's " + std::to_string(t.phases.back().gpus) +
                               " GPUs (the job does not shrink)");
    if (p.gpus < job_gpus)
      item.invalid("gpus",
                   "at least cluster.gpus = " + std::to_string(static_cast<long long>(job_gpus)) + " (the job's size)");
    t.phases.push_back(p);
  }
  return t;
}

}  // namespace aidcsim::reliability
