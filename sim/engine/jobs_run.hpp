#pragma once
// Several jobs on one fabric (scenario `jobs:`, issue 18; docs/site-jobs-storage.md steps 2-5):
// each training job's step is planned alone on its own ranks (plan_step, unchanged), its GPU
// indices renamed through the job's placement table, and the steps of all jobs run in one
// FlowNetwork run, each job's step repeated back to back from its start offset so that they
// overlap; background jobs are rate-bounded flows. Per job: step time shared (median of its
// repetitions while every job runs), alone (same placement, idle fabric), slowdown, bytes per
// link, time-to-train.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/common/results.hpp"
#include "models/common/schedule.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/jobs.hpp"
#include "models/workload/step.hpp"
#include "sim/scenario/scenario.hpp"

namespace aidcsim {

/// Placement unit ("pod") of every GPU of `fabric`: the clos3 pod when the fabric has several,
/// else the scalable unit (rail_optimized: the GPUs of `leaf_down` nodes, whose rails share
/// leaves; rack_local: the GPUs of one leaf).
std::vector<int> job_units(const topology::Fabric& fabric);

/// The scenario's jobs read and placed on `fabric` (its GPU lists, workload::place_jobs).
/// Throws InvalidParameter with "jobs[i].*" keys.
struct PlacedJobs {
  std::vector<workload::JobEntry> jobs;
  std::vector<std::vector<int>> gpus;  ///< per job: training rank r -> GPU gpus[r]; background: from then to
};
PlacedJobs place_scenario_jobs(const Scenario& scenario, const topology::Fabric& fabric);

/// One training job's steps in an interleaved run.
struct InterleavedJob {
  const workload::StepPlan* plan = nullptr;  ///< planned on ranks 0 .. gpus-1
  std::vector<int> gpus;                     ///< rank -> cluster GPU
  double start = 0;                          ///< s, offset of the first step
  double weight = 1;                         ///< Activity::weight of its transfers
  int reps = 1;                              ///< steps back to back
  int group = 0;                             ///< Activity::group of its activities
};

/// A background job in an interleaved run: one flow per source GPU, from[k] -> to[k mod |to|],
/// each bounded at rate / |from| and sending rate / |from| x duration bytes.
struct BackgroundTraffic {
  std::vector<int> from, to;
  double rate = 0;      ///< B/s in total
  double start = 0;     ///< s
  double duration = 0;  ///< s of offered load
  double weight = 1;
  int group = 0;
};

struct Interleaved {
  network::Schedule schedule;
  std::vector<int> begin;                  ///< per job: the Delay that starts its first step
  std::vector<std::vector<int>> step_end;  ///< per job: activity ending each step (plan's extra_time included)
  std::vector<std::vector<int>> flows;     ///< per background job: its transfers
};

/// One schedule with every job's steps (each step = the plan's activities, renamed, after the
/// previous step's end; the step ends extra_time s after the plan's last activity, as
/// workload::analyse_step counts it) and the background flows. `gpus` = the cluster's GPU count.
/// Throws InvalidParameter for a GPU list shorter than the plan's GPUs or out of the cluster.
Interleaved interleave(const std::vector<InterleavedJob>& jobs, const std::vector<BackgroundTraffic>& background,
                       int gpus);

/// Seconds of each step of job j in a run of `il`: end of step r - end of step r - 1 (the start
/// Delay for r = 0).
std::vector<double> step_durations(const Interleaved& il, const network::RunResult& run, std::size_t j);

/// Checks of a `jobs:` scenario (for check_scenario): the jobs read and placed on the fabric,
/// each fits its GPUs' memory, no rollout phases and no training.batch_schedule (the jobs' steps
/// are simulated at their own global_batch only). Throws InvalidParameter.
void check_jobs(const Scenario& scenario);

/// Runs a `jobs:` scenario: every job's step shared and alone, their time-to-train; the Results
/// of the run (/jobs/<name>/*, /network/link_bytes_by_job, summary "jobs.<name>.*", notes).
Results simulate_jobs(const Scenario& scenario, std::uint64_t seed,
                      const std::function<void(const std::string&, double)>& progress);

}  // namespace aidcsim
