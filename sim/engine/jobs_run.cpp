// Several jobs on one fabric: placement, the interleaved run, per-job results (see jobs_run.hpp).
#include "sim/engine/jobs_run.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "models/common/cancel.hpp"
#include "models/common/errors.hpp"
#include "models/common/units.hpp"
#include "models/network/flow_network.hpp"
#include "models/reliability/checkpoint.hpp"
#include "models/reliability/time_to_train.hpp"
#include "models/workload/dp_collective.hpp"
#include "models/workload/model.hpp"
#include "sim/engine/feasibility.hpp"

namespace aidcsim {

using workload::JobEntry;

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

network::Activity delay_after(double s, std::vector<int> after) {
  network::Activity a;
  a.kind = network::Activity::Kind::Delay;
  a.amount = s;
  a.after = std::move(after);
  return a;
}

}  // namespace

std::vector<int> job_units(const topology::Fabric& fabric) {
  const auto& spec = fabric.spec();
  const auto& l = fabric.layout();
  const int G = fabric.gpu_count();
  const int gpn = std::max(1, spec.gpus_per_node);
  const int down = std::max(1, l.leaf_down);
  std::vector<int> u(G);
  for (int g = 0; g < G; ++g)
    u[g] = l.pods > 1                                       ? fabric.node(fabric.gpu_node(g)).pod
           : spec.wiring == topology::Wiring::RailOptimized ? g / gpn / down
                                                            : g / down;
  return u;
}

PlacedJobs place_scenario_jobs(const Scenario& sc, const topology::Fabric& fabric) {
  PlacedJobs p;
  const std::vector<int> units = job_units(fabric);
  p.jobs = workload::jobs_from(sc.params, units);
  if (std::none_of(p.jobs.begin(), p.jobs.end(), [](const JobEntry& j) { return j.kind == JobEntry::Kind::Training; }))
    throw InvalidParameter("jobs", std::to_string(p.jobs.size()) + " jobs", "at least one training job");
  p.gpus = workload::place_jobs(p.jobs, std::max(1, sc.fabric.nvlink_domain), units);
  return p;
}

Interleaved interleave(const std::vector<InterleavedJob>& jobs, const std::vector<BackgroundTraffic>& background,
                       int gpus) {
  Interleaved il;
  auto& acts = il.schedule.activities;
  il.schedule.gpu_flops.assign(static_cast<std::size_t>(gpus), 0.0);
  double any_flops = 0;
  for (const InterleavedJob& j : jobs) {
    const network::Schedule& s = j.plan->schedule;
    const int n = static_cast<int>(s.activities.size());
    const int ranks = j.plan->gpus;
    if (static_cast<int>(j.gpus.size()) < ranks)
      throw InvalidParameter("jobs.gpus", std::to_string(j.gpus.size()) + " GPUs",
                             "at least the plan's " + std::to_string(ranks) + " GPUs");
    for (int g : j.gpus)
      if (g < 0 || g >= gpus)
        throw InvalidParameter("jobs.gpus", std::to_string(g), "a GPU in [0, " + std::to_string(gpus) + ")");
    for (int r = 0; r < ranks; ++r) {
      const double f = s.gpu_flops.empty() ? 0.0 : s.gpu_flops.size() == 1 ? s.gpu_flops[0] : s.gpu_flops[r];
      il.schedule.gpu_flops[j.gpus[r]] = f;
      any_flops = std::max(any_flops, f);
    }
    // Sinks: activities no other activity waits for; the step ends when they all have.
    std::vector<char> waited(n, 0);
    for (const auto& a : s.activities)
      for (int p : a.after) waited[p] = 1;
    il.begin.push_back(static_cast<int>(acts.size()));
    acts.push_back(delay_after(j.start, {}));
    int prev_end = il.begin.back();
    std::vector<int> ends;
    for (int rep = 0; rep < j.reps; ++rep) {
      const int off = static_cast<int>(acts.size());
      std::vector<int> sinks;
      for (int i = 0; i < n; ++i) {
        network::Activity a = s.activities[i];
        a.gpu = a.kind == network::Activity::Kind::Delay ? 0 : j.gpus.at(a.gpu);
        if (a.kind == network::Activity::Kind::Transfer) {
          a.dst_gpu = j.gpus.at(a.dst_gpu);
          a.weight *= j.weight;
        }
        a.group = j.group;
        for (int& p : a.after) p += off;
        for (int& p : a.after_previous) p += off;
        for (int& p : a.after_same) p += off;
        if (a.after.empty()) a.after.push_back(prev_end);
        if (!waited[i]) sinks.push_back(off + i);
        acts.push_back(std::move(a));
      }
      acts.push_back(delay_after(j.plan->extra_time, std::move(sinks)));
      prev_end = static_cast<int>(acts.size()) - 1;
      ends.push_back(prev_end);
    }
    il.step_end.push_back(std::move(ends));
  }
  for (double& f : il.schedule.gpu_flops)
    if (!(f > 0)) f = any_flops > 0 ? any_flops : 1.0;  // GPUs without computations: any valid speed
  for (const BackgroundTraffic& b : background) {
    std::vector<int> flows;
    if (!b.from.empty() && !b.to.empty() && b.rate > 0 && b.duration > 0) {
      const int start = static_cast<int>(acts.size());
      acts.push_back(delay_after(b.start, {}));
      const double per = b.rate / static_cast<double>(b.from.size());
      for (std::size_t k = 0; k < b.from.size(); ++k) {
        network::Activity a;
        a.kind = network::Activity::Kind::Transfer;
        a.gpu = b.from[k];
        a.dst_gpu = b.to[k % b.to.size()];
        if (a.gpu == a.dst_gpu) continue;
        a.amount = per * b.duration;
        a.rate_limit = per;
        a.weight = b.weight;
        a.group = b.group;
        a.flow_hash = 0x6a09e667f3bcc909ull ^ (static_cast<std::uint64_t>(b.group) << 32) ^ k;
        a.after = {start};
        flows.push_back(static_cast<int>(acts.size()));
        acts.push_back(std::move(a));
      }
    }
    il.flows.push_back(std::move(flows));
  }
  return il;
}

std::vector<double> step_durations(const Interleaved& il, const network::RunResult& run, std::size_t j) {
  std::vector<double> d;
  double prev = run.finish.at(il.begin.at(j));
  for (int e : il.step_end.at(j)) {
    d.push_back(run.finish.at(e) - prev);
    prev = run.finish.at(e);
  }
  return d;
}

void check_jobs(const Scenario& sc) {
  if (!sc.training.phases.empty())
    throw InvalidParameter("rollout.phases", std::to_string(sc.training.phases.size()) + " phases",
                           "no rollout phases with jobs: (one site, several jobs; a rollout grows one job)");
  // The loader refuses the key at its line (keys_in_use.cpp); this holds for scenarios built otherwise.
  if (!sc.training.batch_schedule.empty())
    throw InvalidParameter("training.batch_schedule", std::to_string(sc.training.batch_schedule.size()) + " entries",
                           "no batch schedule with jobs: (each job's step is simulated at its own global_batch only)");
  const topology::Fabric fabric = topology::build_fabric(situation_fabric_spec(sc, sc.fabric.gpus));
  check_fabric_failures(sc, fabric, sc.fabric.gpus);
  for (const auto& f : sc.fabric.failures)
    if (f.at > 0)
      throw InvalidParameter(f.key + ".at", std::to_string(f.at) + " s",
                             "failures from the start (at: 0) with jobs: (timed failures are simulated for one job)");
  const PlacedJobs p = place_scenario_jobs(sc, fabric);
  workload::check_jobs_against_gpu(sc.params, p.jobs, sc.gpu);
  bool in_network = false;  // some job's DP collective reduces in the switches (fabric.sharp)
  for (const auto& j : p.jobs)
    if (j.kind == JobEntry::Kind::Training) {
      Scenario one = sc;
      one.job = j.spec;
      workload::check_dp_algorithm(j.spec, sc.gpu, fabric, j.key + ".parallelism.dp_algorithm");
      in_network = in_network || workload::dp_reduces_in_network(j.spec, fabric);
      resolved_training(one);
    }
  check_sharp_in_use(sc, in_network,
                     "no jobs[] entry has one: NVLS inside one NVLink domain of " +
                         std::to_string(sc.fabric.nvlink_domain) + " GPUs reduces in the NVSwitches");
}

Results simulate_jobs(const Scenario& sc, std::uint64_t seed,
                      const std::function<void(const std::string&, double)>& progress) {
  auto report = [&](const std::string& s, double f) {
    if (progress) progress(s, f);
  };
  report("fabric graph", 0.0);
  const topology::Fabric fabric = topology::build_fabric(situation_fabric_spec(sc, sc.fabric.gpus));
  const PlacedJobs placed = place_scenario_jobs(sc, fabric);
  const auto& jobs = placed.jobs;
  const int G = fabric.gpu_count();
  network::FlowNetwork net(fabric);

  // Plans on ranks 0 .. n-1 (as one job alone), then steps alone with the job's placement.
  std::vector<std::size_t> training;  // indices into jobs
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (jobs[j].kind == JobEntry::Kind::Training) training.push_back(j);
  std::vector<workload::StepPlan> plans(jobs.size());
  std::vector<double> alone(jobs.size(), 0.0);
  for (std::size_t k = 0; k < training.size(); ++k) {
    const std::size_t j = training[k];
    throw_if_cancelled();
    report("step of " + jobs[j].name + " alone (flows)", 0.05 + 0.4 * k / training.size());
    workload::StepOptions opts;
    opts.seed = seed + 0x9e3779b97f4a7c15ull * (j + 1);  // distinct ECMP hashes per job
    plans[j] = workload::plan_step(jobs[j].spec, sc.gpu, fabric, opts);
    const Interleaved one = interleave({{&plans[j], placed.gpus[j], 0.0, 1.0, 1, static_cast<int>(j) + 1}}, {}, G);
    alone[j] = step_durations(one, net.run(one.schedule), 0).at(0);
  }

  // Repetitions: every job covers twice the longest step after the last job's first step.
  double t_max = 0, s_max = 0;
  for (std::size_t j : training) {
    t_max = std::max(t_max, alone[j]);
    s_max = std::max(s_max, jobs[j].start);
  }
  const double window_end = s_max + 3 * t_max;  // alone-time estimate of the measured window's end
  std::vector<InterleavedJob> ij;
  bool capped = false;
  for (std::size_t j : training) {
    int reps = static_cast<int>(std::ceil((window_end - jobs[j].start) / alone[j])) + 1;
    if (reps > workload::kMaxStepsPerJobInRun) capped = true;
    reps = std::clamp(reps, 2, workload::kMaxStepsPerJobInRun);
    ij.push_back({&plans[j], placed.gpus[j], jobs[j].start, jobs[j].priority, reps, static_cast<int>(j) + 1});
  }
  std::vector<BackgroundTraffic> bg;
  std::vector<std::size_t> background;
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (jobs[j].kind == JobEntry::Kind::Background) {
      background.push_back(j);
      bg.push_back({jobs[j].from, jobs[j].to, jobs[j].rate, jobs[j].start,
                    std::max(0.0, window_end + t_max - jobs[j].start), jobs[j].priority, static_cast<int>(j) + 1});
    }
  report("all jobs together (flows)", 0.5);
  const Interleaved il = interleave(ij, bg, G);
  const network::RunResult run = net.run(il.schedule);

  // The measured window: while every training job runs (after its first step begins, before its
  // last step ends); steps entirely inside it count.
  double w0 = 0, w1 = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < ij.size(); ++k) {
    w0 = std::max(w0, run.finish[il.begin[k]]);
    w1 = std::min(w1, run.finish[il.step_end[k].back()]);
  }
  Results r;
  r.scenario_name = sc.name;
  r.scenario_file = sc.file;
  r.scenario_text = sc.text;
  r.seed = seed;
  const reliability::TrainingSpec base_training = sc.training;
  std::vector<std::vector<double>> bytes_by_job;  // per job: bytes per link, both directions
  const std::size_t L = static_cast<std::size_t>(fabric.link_count());
  auto job_bytes = [&](std::size_t j) {
    std::vector<double> b(L, 0.0);
    const auto it = std::find(run.groups.begin(), run.groups.end(), static_cast<int>(j) + 1);
    if (it == run.groups.end()) return b;
    const std::size_t k = static_cast<std::size_t>(it - run.groups.begin());
    for (std::size_t l = 0; l < L; ++l)
      b[l] = run.link_bytes_group_fwd[k * L + l] + run.link_bytes_group_rev[k * L + l];
    return b;
  };
  auto add1 = [&](const std::string& path, double v, const std::string& unit, const std::string& what) {
    r.datasets.push_back(Dataset{path, {1}, {v}, unit, what, {"value"}});
  };
  for (std::size_t k = 0; k < training.size(); ++k) {
    const std::size_t j = training[k];
    throw_if_cancelled();
    report("time-to-train of " + jobs[j].name + " (Monte Carlo)", 0.8 + 0.15 * k / training.size());
    const JobEntry& e = jobs[j];
    const std::vector<double> all = step_durations(il, run, k);
    std::vector<double> inside;
    double t = run.finish[il.begin[k]];
    for (std::size_t s = 0; s < all.size(); ++s) {
      if (t >= w0 - 1e-12 && t + all[s] <= w1 + 1e-12) inside.push_back(all[s]);
      t += all[s];
    }
    if (inside.empty()) inside = all;  // cannot happen with >= 2 steps per job; kept for safety
    const double shared = median(inside);
    const double slowdown = shared / alone[j];
    const std::string p = "/jobs/" + e.name + "/";
    add1(p + "step_time", shared, "s",
         "Step time with the other jobs on the fabric: median of its steps while every job runs");
    add1(p + "step_time_alone", alone[j], "s",
         "Step time of the same job, same placement, on an otherwise idle fabric");
    add1(p + "slowdown", slowdown, "1", "step_time / step_time_alone");
    add1(p + "gpus", e.gpus, "1", "GPUs of the job");
    add1(p + "start", e.start, "s", "Offset of its first step");
    add1(p + "priority", e.priority, "1", "Share weight of its flows");
    r.datasets.push_back(Dataset{p + "step_times",
                                 {all.size()},
                                 all,
                                 "s",
                                 "Every simulated step of the job in the shared run, in order (edges included)",
                                 {"step"}});
    std::vector<double> gl(placed.gpus[j].begin(), placed.gpus[j].end());
    r.datasets.push_back(Dataset{
        p + "gpu", {gl.size()}, std::move(gl), "1", "Cluster GPU of each rank (the placement table)", {"rank"}});
    r.add("jobs." + e.name + ".step_time", shared, "s", "Step time shared with the other jobs");
    r.add("jobs." + e.name + ".step_time_alone", alone[j], "s", "Step time alone (same placement)");
    r.add("jobs." + e.name + ".slowdown", slowdown, "1", "Shared / alone");

    // Time-to-train with the shared step time; failures of the job's GPUs, nodes and of the
    // switches and cables its traffic crosses.
    Scenario one = sc;
    one.job = e.spec;
    const reliability::TrainingSpec training_spec = resolved_training(one);
    reliability::Situation s;
    s.gpus = e.gpus;
    s.step_time = shared;
    s.tokens_per_step = plans[j].tokens_per_step;
    s.checkpoint_bytes = reliability::model_state_bytes(plans[j].parameters);
    s.counts.gpus = e.gpus;
    s.counts.nodes = static_cast<double>(e.gpus) / std::max(1, sc.fabric.gpus_per_node);
    const std::vector<double> b = job_bytes(j);
    std::set<int> switches;
    double cables = 0;
    for (std::size_t l = 0; l < L; ++l) {
      const auto& link = fabric.link(static_cast<int>(l));
      if (!(b[l] > 0) || link.tier == topology::Tier::NvLink) continue;
      ++cables;
      for (int n : {link.a, link.b})
        if (fabric.node(n).kind != topology::NodeKind::Gpu && fabric.node(n).kind != topology::NodeKind::NvSwitch)
          switches.insert(n);
    }
    s.counts.switches = static_cast<double>(switches.size());
    s.counts.links = cables;
    const reliability::TimeToTrainResult ttt = reliability::time_to_train(training_spec, s, seed + j);
    add1(p + "time_to_train", ttt.expected_mean / units::kDay, "d", "Mean time to train its target (Monte Carlo)");
    add1(p + "ettr", ttt.ettr, "1", "Effective training time ratio");
    r.add("jobs." + e.name + ".time_to_train", ttt.expected_mean / units::kDay, "d",
          "Mean time to train (shared step time, failures of its GPUs, nodes, switches and cables)");
    for (const auto& w : ttt.warnings) r.warnings.push_back(e.name + ": " + w);
  }
  for (std::size_t k = 0; k < background.size(); ++k) {
    const std::size_t j = background[k];
    const JobEntry& e = jobs[j];
    double bytes = 0, first = std::numeric_limits<double>::infinity(), last = 0;
    for (int a : il.flows[k]) {
      bytes += il.schedule.activities[a].amount;
      first = std::min(first, run.start[a]);
      last = std::max(last, run.finish[a]);
    }
    const double achieved = bytes > 0 && last > first ? bytes / (last - first) : 0.0;
    const std::string p = "/jobs/" + e.name + "/";
    add1(p + "offered_rate", e.rate * 8 / 1e9, "Gb/s", "Rate asked for (jobs[i].rate)");
    add1(p + "achieved_rate", achieved * 8 / 1e9, "Gb/s",
         "Bytes sent / time from its first flow's start to its last flow's end (includes route latency)");
    r.add("jobs." + e.name + ".offered_rate", e.rate * 8 / 1e9, "Gb/s", "Background rate asked for");
    r.add("jobs." + e.name + ".achieved_rate", achieved * 8 / 1e9, "Gb/s", "Background rate it got");
  }

  // Bytes per link by job, and per link in total, over the whole run.
  std::vector<double> by_job, total(L, 0.0), tier(L, 0.0);
  std::vector<std::string> names, link_names(L);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::vector<double> b = job_bytes(j);
    by_job.insert(by_job.end(), b.begin(), b.end());
    names.push_back(jobs[j].name);
  }
  for (std::size_t l = 0; l < L; ++l) {
    total[l] = run.link_bytes_fwd[l] + run.link_bytes_rev[l];
    tier[l] = static_cast<double>(fabric.link(static_cast<int>(l)).tier);
    link_names[l] = fabric.link(static_cast<int>(l)).name;
  }
  r.datasets.push_back(Dataset{"/network/link_bytes_by_job",
                               {jobs.size(), L},
                               std::move(by_job),
                               "B",
                               "Bytes per fabric link (both directions) sent by each job over the shared run; rows "
                               "add up to /network/link_bytes",
                               {"job", "link"}});
  r.datasets.push_back(Dataset{"/network/link_bytes",
                               {L},
                               std::move(total),
                               "B",
                               "Bytes per fabric link (both directions) over the shared run",
                               {"link"}});
  Dataset td{"/network/link_tier",
             {L},
             std::move(tier),
             "1",
             "Per fabric link: tier code (flag_meanings: NVLink, access NIC-leaf, leaf-spine, spine-core)",
             {"link"}};
  for (auto t : {topology::Tier::NvLink, topology::Tier::Access, topology::Tier::LeafSpine, topology::Tier::SpineCore})
    td.flag_meanings.emplace_back(topology::tier_name(t));
  r.datasets.push_back(std::move(td));
  r.labels.push_back({"/network/link", link_names, "Per fabric link: name (endpoints)"});
  r.labels.push_back({"/jobs/job", names, "Jobs in scenario order", "job"});
  r.add("run_time", run.makespan, "s", "Simulated time of the shared run (every job's steps and the background flows)");

  r.notes.push_back(
      "jobs: " + std::to_string(training.size()) + " training job(s), " + std::to_string(background.size()) +
      " background job(s) on one fabric of " + std::to_string(G) +
      " GPUs; each training job's step is planned alone on its ranks (plan_step) and renamed through "
      "its placement table; all steps and background flows run in one flow simulation, each job's "
      "step repeated back to back from its start offset; step time = median of its steps that run "
      "entirely while every training job runs; alone = one step of the same plan, same GPUs, idle fabric.");
  r.notes.push_back(
      "jobs fidelity: the other jobs see one representative DP replica's PP flows and every DP flow of "
      "each job (the collapsed symmetry of the one-job step), so PP interference between jobs is "
      "under-sampled; TP/CP/EP stay analytic inside each job's NVLink domains (jobs never share one); "
      "the analytic steady-state extension of a step (extra microbatches) sends no flows.");
  r.notes.push_back(
      "jobs: power, thermal, cooling and rollout phases are not simulated for a jobs: scenario (one "
      "job's site model); cluster.gpu_speed stragglers are not applied to jobs.");
  if (capped)
    r.warnings.push_back("jobs: a job's steps are much shorter than the longest one's; its steps were capped at " +
                         std::to_string(workload::kMaxStepsPerJobInRun) +
                         " per run, so the measured window covers less than two of the "
                         "longest step");
  if (!background.empty())
    r.notes.push_back(
        "jobs: background traffic = one rate-bounded flow per source GPU (rate / sources each) from its "
        "start until the training window ends; it gets less than its rate where links saturate "
        "(achieved_rate).");
  report("done", 1.0);
  return r;
}

}  // namespace aidcsim
