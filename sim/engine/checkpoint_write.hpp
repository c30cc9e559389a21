#pragma once
// A checkpoint written to the storage servers on the fabric (FabricSpec::storage, issue 18), as
// flows on the FlowNetwork: alone on an idle fabric, and alongside training steps.
//
// Sharding: every GPU rank writes an equal shard, bytes / GPUs (a fully sharded distributed
// checkpoint: PyTorch Distributed Checkpoint writes one file per rank; Megatron-Core's
// dist_checkpointing with fully_parallel_save spreads the DP-replicated state over the DP ranks so
// that every rank writes 1/N). Writing only DP replica 0 would leave most NICs idle; the real
// systems split the work this way precisely so that the write is spread over every NIC.
// Placement: rank r writes to server r % S through its NIC (r / S) % nics (striped round robin, as
// a parallel file system stripes files over its servers), so servers and NICs get equal shares.
#include <cstdint>
#include <functional>
#include <string>

#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim {

/// The link classes a checkpoint's flows cross, in bottleneck order of report.
enum class StorageBottleneck { Media, StorageNics, GpuNics, Fabric };
const char* bottleneck_name(StorageBottleneck b);

struct CheckpointWrite {
  double bytes = 0;      ///< B written (all shards)
  int shards = 0;        ///< flows: one per GPU rank
  double idle_time = 0;  ///< s, first byte to last byte durable, nothing else on the fabric
  /// Aggregate bandwidth bounds of the idle write, B/s: what each link class could absorb if it
  /// alone limited the write (the closed form's terms, for the shards as placed).
  double media_bound = 0, storage_nic_bound = 0, gpu_nic_bound = 0;
  /// Link class of the busiest link direction in the idle run, and its utilization (fraction).
  StorageBottleneck bottleneck = StorageBottleneck::Media;
  double bottleneck_utilization = 0;
  /// Alongside training (0 and `steps_alongside` 0 when not simulated): the write starts with a
  /// step and `steps_alongside` steps run back to back meanwhile; its time, and the first step's
  /// time with the write against alone.
  double training_time = 0;  ///< s
  int steps_alongside = 0;
  bool steps_capped = false;  ///< the write outlasted the steps simulated (kMaxStepsAlongside)
  double step_time_alone = 0, step_time_with_write = 0;  ///< s, the simulated part of one step
  /// The alongside run had the switch links relaxed (write_checkpoint_alongside's relax_switch_links).
  bool relaxed_switch_links = false;
};

/// Write time of a simulated checkpoint as the time-to-train model uses it, s: `async`
/// (reliability.checkpoint_mode), the write alongside training when it was simulated; sync, alone
/// (training waits for it).
inline double checkpoint_time_used(const CheckpointWrite& w, bool async) {
  return async && w.training_time > 0 ? w.training_time : w.idle_time;
}

/// Most training steps simulated alongside one checkpoint write (each step is one FlowNetwork
/// schedule copy; beyond this the rest of the write runs on an idle fabric, said in the notes).
constexpr int kMaxStepsAlongside = 8;

/// Write schedule: one transfer per GPU rank in [0, gpus) of bytes / gpus to its server (see the
/// file comment); activity r is rank r's shard. `seed`: ECMP hash seed. Throws InvalidParameter
/// when the fabric has no storage servers, gpus < 1 or bytes < 0.
network::Schedule checkpoint_schedule(const topology::Fabric& fabric, int gpus, double bytes, std::uint64_t seed);

/// Writes `bytes` on an idle fabric (fills bytes, shards, idle_time, bounds, bottleneck).
CheckpointWrite write_checkpoint(const topology::Fabric& fabric, network::FlowNetwork& net, int gpus, double bytes,
                                 std::uint64_t seed);

/// The same write alongside training: `step` is one step's schedule (workload::StepPlan::schedule,
/// `step_makespan` its simulated time alone); enough copies of it run back to back (each after the
/// previous one's last activities) to cover the idle write time, at most kMaxStepsAlongside, and
/// the write's flows start with the first. Fills training_time, steps_alongside, steps_capped,
/// step_time_alone, step_time_with_write of `w` (from write_checkpoint).
/// `relax_switch_links`: run with the leaf-spine and spine-core links relaxed
/// (FlowNetwork::set_relaxed_tiers, restored afterwards): exact in exact arithmetic, rounding
/// differences from the run with them in the solver (<= 1e-9 relative in tests/unit/engine/
/// test_checkpoint_write.cpp; 5e-15 on small-576 with storage, 0 at 8K GPUs), and
/// it keeps the write flows out of one component with the step's (56 s -> 4 s CPU at 8K GPUs,
/// docs/benchmarks.md). `last_run`: when not null, receives the (last) alongside run's result.
/// `before_run`: when set, called with the number of step copies before each FlowNetwork run (one,
/// or two when the first run's steps ended before the write): the runs are the stage's cost, so a
/// progress line can move between them; it changes no result.
///
/// step_time_with_write / step_time_alone (checkpoint_step_slowdown) compares like with like: the
/// first copy starts at 0 and nothing of the later copies starts before it ends (the barrier), so
/// without the write's flows its end is `step_makespan` (bit for bit at 8K GPUs, stargate-uk-8k
/// with storage). It can be below 1: max-min fair sharing is not monotone. A write flow that takes
/// its share of a GPU NIC slows the step's other flows on that NIC, which leaves more of the links
/// they share downstream to the step's critical flows (tests/unit/engine/test_checkpoint_write.cpp,
/// "[slowdown]": 0.875); and the write shifts when the step's flows meet, so the DP buckets and the
/// pipeline's flows may overlap less (Graham's scheduling anomaly: a delayed task can shorten the
/// makespan). stargate-uk-8k with a media-bound write (20 GB/s x 64 servers = 0.16 GB/s per GPU
/// next to 50 GB/s NICs) reads 0.99994: the write delays the first pipeline flows (the forward pass
/// ends 0.14 ms later), and the backward pass then ends 0.36 ms earlier.
void write_checkpoint_alongside(CheckpointWrite& w, const topology::Fabric& fabric, network::FlowNetwork& net, int gpus,
                                const network::Schedule& step, double step_makespan, std::uint64_t seed,
                                bool relax_switch_links = true, network::RunResult* last_run = nullptr,
                                const std::function<void(int steps)>& before_run = {});

}  // namespace aidcsim
