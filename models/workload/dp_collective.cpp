#include "models/workload/dp_collective.hpp"

#include <algorithm>
#include <map>

#include "models/common/errors.hpp"
#include "models/workload/step.hpp"

namespace aidcsim::workload {

using collectives::Algorithm;
using collectives::Collective;
using collectives::Op;

Collective dp_collective(const JobSpec& job, const Placement& place, const topology::Fabric& fabric, int stage,
                         int tp_rank, Op op) {
  const Algorithm alg = collectives::algorithm_from(job.par.dp_algorithm);
  Collective c;
  c.op = op;
  c.gpus = place.dp_group({tp_rank, 0, stage, 0});
  const bool one_domain = fabric.nvlink_domain_of(c.gpus.front()) == fabric.nvlink_domain_of(c.gpus.back());
  c.algorithm = (alg == Algorithm::Auto && !one_domain) ? Algorithm::Ring : alg;
  return c;
}

std::string describe_dp_group(const JobSpec& job, const topology::Fabric& fabric, int stage, int tp_rank,
                              const std::vector<int>& gpus) {
  std::map<int, int> per_domain;  // NVLink domain -> GPUs of the group in it
  for (int g : gpus) ++per_domain[fabric.nvlink_domain_of(g)];
  int lo = static_cast<int>(gpus.size()), hi = 0;
  for (const auto& [d, n] : per_domain) {
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  const auto [first, last] = std::minmax_element(gpus.begin(), gpus.end());
  const std::size_t domains = per_domain.size();
  return "the DP group of pipeline stage " + std::to_string(stage) + ", TP rank " + std::to_string(tp_rank) + " (" +
         std::to_string(gpus.size()) + " GPUs, " + std::to_string(*first) + " to " + std::to_string(*last) +
         " in rank order " + job.par.order + "; " + std::to_string(domains) + " NVLink domain" +
         (domains > 1 ? "s" : "") + " of " + std::to_string(fabric.spec().nvlink_domain) + " GPUs holding " +
         (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) + " of them)";
}

bool dp_reduces_in_network(const JobSpec& job, const topology::Fabric& fabric) {
  if (job.par.dp * job.par.cp < 2) return false;
  const Algorithm alg = collectives::algorithm_from(job.par.dp_algorithm);
  if (alg != Algorithm::Sharp && alg != Algorithm::Nvls && alg != Algorithm::CollNetDirect &&
      alg != Algorithm::CollNetChain)
    return false;
  const Placement place(job.par);
  for (int s = 0; s < job.par.pp; ++s)
    for (int t = 0; t < job.par.tp; ++t) {
      const std::vector<int> gpus = place.dp_group({t, 0, s, 0});
      const int domain = fabric.nvlink_domain_of(gpus.front());
      for (int g : gpus)
        if (fabric.nvlink_domain_of(g) != domain) return true;
    }
  return false;
}

void check_dp_algorithm(const JobSpec& job, const compute::GpuSpec& gpu, const topology::Fabric& fabric,
                        const std::string& key) {
  if (job.par.dp * job.par.cp < 2) return;  // no DP traffic
  const Placement place(job.par);
  const collectives::Layout layout = collectives::Layout::from(fabric, gpu);
  const collectives::Protocol protocol = StepOptions{}.protocol;  // the step's NCCL settings
  const std::vector<Op> ops =
      job.par.zero == "none" ? std::vector<Op>{Op::AllReduce} : std::vector<Op>{Op::ReduceScatter, Op::AllGather};
  for (int s = 0; s < job.par.pp; ++s)
    for (int t = 0; t < job.par.tp; ++t)
      for (Op op : ops) {
        Collective c = dp_collective(job, place, fabric, s, t, op);
        // Whether NCCL's tuner offers an algorithm does not depend on the size (its bandwidth
        // table turns it off); 1 GiB stands for a gradient bucket.
        c.bytes = 1073741824.0;
        try {
          collectives::select(c, layout, protocol);
        } catch (const InvalidParameter&) {
          throw;
        } catch (const Error& e) {
          throw InvalidParameter(key, job.par.dp_algorithm,
                                 "an algorithm every DP collective can run (ring always can): " +
                                     std::string(e.what()) + ", for " + describe_dp_group(job, fabric, s, t, c.gpus));
        }
      }
}

}  // namespace aidcsim::workload
