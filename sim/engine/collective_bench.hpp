#pragma once
// nccl-tests-style collective benchmark on the simulated fabric: for each message size, one
// collective over all GPUs of a cluster of `nodes` x `gpus_per_node`, emitted by
// models/collectives and run on network::FlowNetwork; rows as nccl-tests prints them
// (size, count, type, time, algbw, busbw; busbw per nccl-tests doc/PERFORMANCE.md).
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/topology/spec.hpp"

namespace aidcsim {

struct BenchOptions {
  std::string gpu = "H100";        ///< GPU model (docs/gpus.md); sets the NVLink domain's rate and NVLS
  /// GPU catalogue file (`gpus:` list, docs/gpus.md) whose definitions are added to the built-in
  /// ones; empty: built-in only.
  std::string gpu_file;
  int nodes = 1;                   ///< NVLink domains are fabric.nvlink_domain GPUs
  int gpus_per_node = 8;
  /// Scale-out fabric; gpus, gpus_per_node, nvlink_bandwidth and nvls are overwritten from the
  /// fields above. nvlink_domain is kept (set it to gpus_per_node for HGX, 72 for NVL72).
  topology::FabricSpec fabric;
  collectives::Op op = collectives::Op::AllReduce;
  collectives::Algorithm algorithm = collectives::Algorithm::Auto;
  collectives::Protocol protocol;  ///< NCCL switches; NVLS runs only where the GPU has it (GpuSpec::nvls)
  std::vector<double> sizes;       ///< B (nccl-tests size S); empty: 8 B .. 8 GiB, x2 steps
  int type_bytes = 4;              ///< bytes per element ("float", nccl-tests' default -d float)
  /// Ring steps collapsed into one flow per neighbour pair (fast at large n; latency folded into
  /// bytes). false: one transfer per step with its dependencies.
  bool collapse = false;
};

struct BenchRow {
  double size = 0;       ///< B
  double count = 0;      ///< elements
  std::string type;      ///< "float", "bfloat16", ...
  std::string algorithm; ///< the one used (auto resolved)
  double time = 0;       ///< s
  double algbw = 0;      ///< B/s, size / time
  double busbw = 0;      ///< B/s, algbw x nccl-tests factor
};

/// Runs the benchmark. Throws InvalidParameter / aidcsim::Error for an unknown GPU or a fabric
/// that cannot be built, SimulationError from the flow network.
std::vector<BenchRow> bench_collective(const BenchOptions& options);

/// nccl-tests-like text table (size B, count, type, time us, algbw GB/s, busbw GB/s) with a header
/// naming the operation, GPU and cluster.
std::string format_bench(const BenchOptions& options, const std::vector<BenchRow>& rows);

}  // namespace aidcsim
