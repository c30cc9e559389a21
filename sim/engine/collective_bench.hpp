#pragma once
// nccl-tests on the simulated fabric: for each message size, one collective over a group of GPUs,
// chosen by NCCL's tuner (models/collectives), emitted as flows and run on network::FlowNetwork;
// rows and footer as nccl-tests prints them (src/common.cu / util.cu of NVIDIA/nccl-tests v2.19:
// size, count, type, redop, root, then time / algbw / busbw / #wrong out-of-place and in-place;
// "Out of bounds values", "Avg bus bandwidth"), busbw per nccl-tests doc/PERFORMANCE.md.
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/topology/fabric_spec.hpp"

namespace aidcsim {

struct BenchOptions {
  /// The cluster: `fabric` is complete (gpus, gpus_per_node, nvlink_domain, scale-out fabric,
  /// sharp) and `gpu` its GPU model (nvlink_bandwidth is copied into the fabric).
  topology::FabricSpec fabric;
  compute::GpuSpec gpu;
  /// Physical NICs per node when fewer than its GPUs share them (e.g. 4 x 200G for 8 A100): the
  /// fabric's nic_rate is then each GPU's share, and NCCL sees nics_per_node NICs. 0 = one per GPU.
  int nics_per_node = 0;
  /// GPUs taking part: the first `ranks` of the cluster (0 = all). Send/recv runs between the
  /// first and the last.
  int ranks = 0;
  collectives::Op op = collectives::Op::AllReduce;
  collectives::Algorithm algorithm = collectives::Algorithm::Auto;
  collectives::Protocol protocol;                             ///< NCCL_PROTO, NCCL_MAX_NCHANNELS, ...
  collectives::DataType type = collectives::DataType::Float;  ///< nccl-tests -d (default float)
  collectives::RedOp redop = collectives::RedOp::Sum;         ///< nccl-tests -o (default sum)
  int root = 0;                                               ///< nccl-tests -r (broadcast, reduce)
  std::vector<double> sizes;                                  ///< B, nccl-tests "size" (before its rounding per op)
  /// true: ring / tree / PAT steps collapsed into one transfer per pair (fast; exact on an idle
  /// fabric); false: every step simulated.
  bool collapse = true;
  int iters = 20, warmup_iters = 5;  ///< nccl-tests -n / -w: printed; the simulation is deterministic
  /// A collapsed PAT or an all-to-all emitted as one wave of independent transfers with more
  /// transfers than this is estimated by the fluid bound (network::fluid_bound: its busiest
  /// link direction's bytes / rate after the flows' latency) instead of simulated: the max-min
  /// run of 10K such transfers takes a minute, of 0.5 M hours. Measured against the simulated
  /// run in tests (the row's note says so). < 0: always simulate.
  long long fluid_above = 8192;
};

struct BenchRow {
  double size = 0;        ///< B as nccl-tests prints it (max of send and receive bytes)
  long long count = 0;    ///< elements (nccl-tests' count: per rank for all-gather / reduce-scatter / alltoall)
  double time = 0;        ///< s, simulated
  double algbw = 0;       ///< B/s, size / time
  double busbw = 0;       ///< B/s, algbw x nccl-tests factor
  std::string algorithm;  ///< NCCL's choice (or the one asked for)
  std::string proto;      ///< "LL", "LL128", "Simple"
  int channels = 0;
  double nccl_time = 0;   ///< s, NCCL's own prediction for that choice
  double model_time = 0;  ///< s, the execution model (idle fabric)
  std::string note;       ///< approximation made, "" when none
};

/// Runs the benchmark. Throws InvalidParameter / aidcsim::Error for a fabric that cannot be built
/// or an algorithm the GPUs / fabric cannot run, SimulationError from the flow network.
std::vector<BenchRow> bench_collective(const BenchOptions& options);

/// nccl-tests' output: header comment lines (test, GPUs, fabric, NCCL's choice per size), the
/// result table with its out-of-place and in-place columns (the same simulated values: the
/// algorithms are the same; `#wrong` N/A: no data is checked), and its footer.
std::string format_bench(const BenchOptions& options, const std::vector<BenchRow>& rows);

/// nccl-tests' binary name for an operation ("all_reduce_perf", "sendrecv_perf", ...).
std::string nccl_tests_name(collectives::Op op);

}  // namespace aidcsim
