#include "sim/engine/checkpoint_write.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"

namespace aidcsim {

const char* bottleneck_name(StorageBottleneck b) {
  switch (b) {
    case StorageBottleneck::Media:
      return "storage media (write bandwidth)";
    case StorageBottleneck::StorageNics:
      return "storage NICs";
    case StorageBottleneck::GpuNics:
      return "GPU NICs";
    case StorageBottleneck::Fabric:
      return "fabric (leaf-spine / spine-core links)";
  }
  return "?";
}

network::Schedule checkpoint_schedule(const topology::Fabric& fabric, int gpus, double bytes, std::uint64_t seed) {
  const int S = fabric.storage_count();
  if (S < 1) throw InvalidParameter("fabric.storage.nodes", "0", "storage servers to write a checkpoint to");
  if (gpus < 1 || gpus > fabric.gpu_count())
    throw InvalidParameter("checkpoint.gpus", std::to_string(gpus),
                           "GPUs in [1, " + std::to_string(fabric.gpu_count()) + "]");
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw InvalidParameter("checkpoint.bytes", std::to_string(bytes), "a finite size >= 0");
  const auto nics = static_cast<std::uint64_t>(fabric.spec().storage.nics_per_node);
  network::Schedule s;
  s.activities.reserve(static_cast<std::size_t>(gpus));
  for (int r = 0; r < gpus; ++r) {
    network::Activity a;
    a.kind = network::Activity::Kind::Transfer;
    a.gpu = r;
    a.dst_gpu = fabric.storage_node(r % S);
    a.amount = bytes / gpus;
    // Fabric::route takes the server's NIC as flow_hash % nics: NIC (r / S) % nics, the rest of the
    // hash (ECMP) from the seed as every flow's.
    const std::uint64_t nic = static_cast<std::uint64_t>(r / S) % nics;
    a.flow_hash = (topology::ecmp_hash(seed, r, a.dst_gpu, 0) >> 8) * nics + nic;
    s.activities.push_back(std::move(a));
  }
  return s;
}

namespace {

/// Class of every link for the bottleneck: media, storage NICs, GPU NICs (other access links), fabric.
std::vector<StorageBottleneck> link_classes(const topology::Fabric& f) {
  std::vector<StorageBottleneck> c(static_cast<std::size_t>(f.link_count()), StorageBottleneck::Fabric);
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == topology::Tier::Access) c[l] = StorageBottleneck::GpuNics;
  const int nics = f.spec().storage.nics_per_node;
  for (int i = 0; i < f.storage_count(); ++i) {
    c[f.storage_write_link(i)] = c[f.storage_read_link(i)] = StorageBottleneck::Media;
    for (int k = 0; k < nics; ++k) c[f.storage_access_link(i, k)] = StorageBottleneck::StorageNics;
  }
  return c;
}

}  // namespace

CheckpointWrite write_checkpoint(const topology::Fabric& fabric, network::FlowNetwork& net, int gpus, double bytes,
                                 std::uint64_t seed) {
  CheckpointWrite w;
  const network::Schedule s = checkpoint_schedule(fabric, gpus, bytes, seed);
  w.bytes = bytes;
  w.shards = gpus;
  const network::RunResult run = net.run(s);
  w.idle_time = run.makespan;
  // Per class: the longest time any of its link directions needs for the bytes it carries alone.
  const auto cls = link_classes(fabric);
  double longest[4] = {0, 0, 0, 0};
  for (int l = 0; l < fabric.link_count(); ++l) {
    const double rate = fabric.sharing_rate(l);  // a GPU's NIC port bounded by its PCIe attachment
    const double t = std::max(run.link_bytes_fwd[l], run.link_bytes_rev[l]) / rate;
    double& x = longest[static_cast<int>(cls[l])];
    x = std::max(x, t);
  }
  auto bound = [&](StorageBottleneck b) {
    const double t = longest[static_cast<int>(b)];
    return t > 0 ? bytes / t : std::numeric_limits<double>::infinity();
  };
  w.media_bound = bound(StorageBottleneck::Media);
  w.storage_nic_bound = bound(StorageBottleneck::StorageNics);
  w.gpu_nic_bound = bound(StorageBottleneck::GpuNics);
  int worst = 0;
  for (int k = 1; k < 4; ++k)
    if (longest[k] > longest[worst]) worst = k;  // ties: the first in report order
  w.bottleneck = static_cast<StorageBottleneck>(worst);
  w.bottleneck_utilization = w.idle_time > 0 ? longest[worst] / w.idle_time : 0;
  return w;
}

void write_checkpoint_alongside(CheckpointWrite& w, const topology::Fabric& fabric, network::FlowNetwork& net, int gpus,
                                const network::Schedule& step, double step_makespan, std::uint64_t seed,
                                bool relax_switch_links, network::RunResult* last_run,
                                const std::function<void(int steps)>& before_run) {
  const network::Schedule write = checkpoint_schedule(fabric, gpus, w.bytes, seed);
  const int n = static_cast<int>(step.activities.size());
  if (n == 0 || !(step_makespan > 0)) return;
  // Sinks of one step copy (no activity waits for them): the next copy starts after all of them,
  // through one zero-FLOP barrier (so k copies add k x sinks dependencies, not roots x sinks).
  std::vector<char> waited(static_cast<std::size_t>(n), 0);
  for (const auto& a : step.activities)
    for (int p : a.after) waited[p] = 1;
  std::vector<int> sinks;
  for (int i = 0; i < n; ++i)
    if (!waited[i]) sinks.push_back(i);

  auto run_with = [&](int k) {
    network::Schedule s;
    s.gpu_flops = step.gpu_flops;
    s.activities.reserve(static_cast<std::size_t>(k) * (n + 1) + write.activities.size());
    std::vector<int> copy_start;
    int barrier = -1;
    for (int c = 0; c < k; ++c) {
      const int off = static_cast<int>(s.activities.size());
      copy_start.push_back(off);
      for (const auto& a0 : step.activities) {
        network::Activity a = a0;
        for (int& p : a.after) p += off;
        for (int& p : a.after_previous) p += off;
        for (int& p : a.after_same) p += off;
        if (a0.after.empty() && barrier >= 0) a.after.push_back(barrier);
        s.activities.push_back(std::move(a));
      }
      network::Activity b;  // barrier: ends when the copy's sinks have
      b.kind = network::Activity::Kind::Compute;
      b.gpu = 0;
      b.amount = 0;
      for (int i : sinks) b.after.push_back(off + i);
      barrier = static_cast<int>(s.activities.size());
      s.activities.push_back(std::move(b));
    }
    const int first_write = static_cast<int>(s.activities.size());
    for (const auto& a : write.activities) s.activities.push_back(a);
    if (before_run) before_run(k);
    network::RunResult r = net.run(s);
    double write_end = 0, step0_end = 0;
    for (int i = first_write; i < static_cast<int>(s.activities.size()); ++i)
      write_end = std::max(write_end, r.finish[i]);
    for (int i = 0; i < n; ++i) step0_end = std::max(step0_end, r.finish[i]);
    w.training_time = write_end;
    w.step_time_with_write = step0_end;
    w.steps_alongside = k;
    w.steps_capped = write_end > r.finish[barrier];
    if (last_run) *last_run = std::move(r);
  };
  // The write flows cross the leaf-spine and spine-core links to every storage server, so with
  // those links in the solver they join the step's flows in one sharing component re-solved at
  // every event (~56 s CPU at 8K GPUs, docs/benchmarks.md). They are bound by the servers' media,
  // not by the switch links: relaxed, those links stay out of the solver until one would bind
  // (exact decomposition, relaxed_links.hpp); the setting is restored afterwards.
  constexpr std::uint32_t switch_tiers = (1u << static_cast<unsigned>(topology::Tier::LeafSpine)) |
                                         (1u << static_cast<unsigned>(topology::Tier::SpineCore));
  const std::uint32_t prev_relaxed = net.relaxed_tiers();
  if (relax_switch_links) net.set_relaxed_tiers(prev_relaxed | switch_tiers);
  w.relaxed_switch_links = relax_switch_links;
  struct Restore {
    network::FlowNetwork& net;
    std::uint32_t tiers;
    ~Restore() { net.set_relaxed_tiers(tiers); }
  } restore{net, prev_relaxed};
  int k = std::clamp(static_cast<int>(std::ceil(w.idle_time / step_makespan)), 1, kMaxStepsAlongside);
  run_with(k);
  if (w.steps_capped && k < kMaxStepsAlongside) {  // the write outlasted the steps: cover its real length
    k = std::clamp(static_cast<int>(std::ceil(w.training_time / step_makespan)) + 1, k + 1, kMaxStepsAlongside);
    run_with(k);
  }
  w.step_time_alone = step_makespan;
}

}  // namespace aidcsim
