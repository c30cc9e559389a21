#pragma once
// Several jobs on one cluster (scenario key `jobs:`, issue 18): their specs and their placement
// as a table (job rank -> cluster GPU). A training job is the workload keys (model, parallelism,
// global_batch, ...) plus its GPU count, placement, start offset and priority; a background job
// is a rate between two GPU groups (bounded flows). `workload:` stays the one-job shorthand.
//
// Placement works in whole NVLink domains: TP (and CP, EP) collectives inside a domain are
// analytic (models/workload/step.hpp), so two jobs in one domain could not be simulated honestly
// and are refused, as is a training job whose ranks would split a domain.
#include <string>
#include <vector>

#include "models/common/params.hpp"
#include "models/common/schema.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/workload/job_spec.hpp"

namespace aidcsim::workload {

/// Steps per job at most in one interleaved run of several jobs (a job much shorter than another
/// would need many to cover two of the longer one's steps); the run's notes say when it binds.
inline constexpr int kMaxStepsPerJobInRun = 64;

struct JobEntry {
  enum class Kind { Training, Background };
  Kind kind = Kind::Training;
  std::string name;     ///< jobs[i].name, default "job<i>"
  std::string key;      ///< "jobs[i]", for errors
  double start = 0;     ///< s after the run's start
  double priority = 1;  ///< share weight of its flows on saturated links (> 0)
  // Training
  JobSpec spec;                          ///< the workload of `gpus` GPUs (DP as written)
  int gpus = 0;                          ///< tp x cp x pp x dp
  std::string placement = "contiguous";  ///< contiguous | per_pod | scattered | explicit
  std::vector<int> explicit_gpus;        ///< placement "explicit": the GPUs, in rank order
  // Background
  double rate = 0;            ///< B/s offered from `from` to `to` in total
  std::vector<int> from, to;  ///< cluster GPUs
};

/// Scenario keys of `jobs:` (the workload keys under jobs[], plus the job keys).
Schema jobs_schema();

/// The jobs of a scenario (empty without `jobs:`). `root` is the scenario's Params; units of
/// placement are cluster GPUs; `pods` = the placement unit of every cluster GPU (for "pod N" in
/// GPU lists; sim/engine/jobs_run.hpp: job_units). Throws InvalidParameter with "jobs[i].<key>" keys: bad
/// workload keys (as workload::spec_from), gpus not tp x cp x pp x dp, a bad GPU list.
std::vector<JobEntry> jobs_from(const Params& root, const std::vector<int>& pods);

/// workload::check_against_gpu for every training job (memory fit, NVLS), "jobs[i].*" keys.
void check_jobs_against_gpu(const Params& root, const std::vector<JobEntry>& jobs, const compute::GpuSpec& gpu);

/// "0-63, 128, 200-255" or "pod 3" (every GPU of placement unit 3) -> GPUs in the given order.
/// Throws InvalidParameter(key) for bad syntax, an empty list, a GPU >= pods.size(), a unit
/// without GPUs or a GPU listed twice.
std::vector<int> parse_gpu_list(const std::string& text, const std::string& key, const std::vector<int>& pods);

/// GPU lists of the jobs (same order as `jobs`): for a training job, rank r runs on GPU
/// list[r]; for a background job, from then to. Fixed GPUs (explicit placement, background
/// from/to) are taken first, then the other training jobs in order, in whole NVLink domains of
/// `domain` GPUs:
/// - contiguous: the lowest free domains;
/// - per_pod: the lowest free domains of the first unit (pod) with enough of them;
/// - scattered: free domains taken round robin over the units (one per unit in turn).
/// Throws InvalidParameter: a job larger than the free GPUs (jobs[i].gpus), GPUs used twice
/// (jobs[i].placement / .from / .to), a training job whose NVLink domains are split or shared
/// with another job (jobs[i].placement), no unit with room for per_pod.
std::vector<std::vector<int>> place_jobs(const std::vector<JobEntry>& jobs, int domain, const std::vector<int>& pods);

}  // namespace aidcsim::workload
