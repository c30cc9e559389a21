#include "sim/engine/storage_report.hpp"

#include <cstdio>
#include <string>

namespace aidcsim {

void report_storage(Results& r, const Scenario& sc, const SituationOutcome& o) {
  if (!o.has_checkpoint_write) {
    r.notes.push_back(
        "storage: not on the fabric (no fabric.storage): a checkpoint takes its bytes / "
        "reliability.storage_bandwidth, without contention with training traffic");
    return;
  }
  const CheckpointWrite& w = o.checkpoint_write;
  const bool async = sc.training.reliability.mode == reliability::CheckpointMode::Async;
  const double used = checkpoint_time_used(w, async);
  r.add(
      "checkpoint_write_time", used, "s",
      "Checkpoint write time simulated as flows to the storage servers (async: alongside training steps; sync: alone)");
  r.add("checkpoint_write_time_idle", w.idle_time, "s", "Checkpoint write time on an otherwise idle fabric");
  if (w.steps_alongside > 0)
    r.add("checkpoint_write_time_training", w.training_time, "s",
          "Checkpoint write time alongside back-to-back training steps (async checkpoints)");
  r.add("storage_bandwidth_effective", used > 0 ? w.bytes / used / 1e9 : 0.0, "GB/s",
        "Checkpoint bytes / checkpoint_write_time: the bandwidth the time-to-train model uses");
  if (w.steps_alongside > 0 && w.step_time_alone > 0)
    r.add("checkpoint_step_slowdown", w.step_time_with_write / w.step_time_alone, "1",
          "Simulated part of the step with the checkpoint write alongside / alone (can be below 1: the write "
          "shifts when flows meet, max-min sharing is not monotonic; write_checkpoint_alongside)");
  const std::string g = "/storage/";
  r.labels.push_back(
      {g + "bound", {"media", "storage_nics", "gpu_nics"}, "Link classes of the write's bandwidth bounds"});
  r.datasets.push_back(vector_dataset(g + "bandwidth_bound",
                                      {w.media_bound / 1e9, w.storage_nic_bound / 1e9, w.gpu_nic_bound / 1e9}, "GB/s",
                                      "Checkpoint bytes / the longest time any link of the class needs for its "
                                      "bytes alone (idle fabric)",
                                      "bound"));
  r.labels.push_back({g + "bottleneck",
                      {bottleneck_name(w.bottleneck)},
                      "Link class of the busiest link direction while the checkpoint is written on an idle fabric",
                      "bottleneck"});
  char line[512];
  std::snprintf(
      line, sizeof line,
      "storage: checkpoint of %.4g TB written as %d flows, one shard of bytes / GPUs per rank (fully sharded "
      "distributed checkpoint), rank r to storage server r %% %d through its NIC (r / %d) %% %d; alone %.4g s "
      "(bottleneck: %s, %.0f %% busy)",
      w.bytes / 1e12, w.shards, o.fabric_spec.storage.nodes, o.fabric_spec.storage.nodes,
      o.fabric_spec.storage.nics_per_node, w.idle_time, bottleneck_name(w.bottleneck), 100 * w.bottleneck_utilization);
  std::string note = line;
  if (w.steps_alongside > 0) {
    std::snprintf(line, sizeof line, ", alongside %d back-to-back training step%s %.4g s%s", w.steps_alongside,
                  w.steps_alongside == 1 ? "" : "s", w.training_time,
                  w.steps_capped ? " (it outlasts them: the rest runs on an idle fabric)" : "");
    note += line;
    if (w.relaxed_switch_links)
      note +=
          " (switch links relaxed in that run, FlowNetwork::set_relaxed_tiers: exact in exact arithmetic, "
          "rounding differences from the full solve, <= 1e-9 relative in tests/unit/engine/"
          "test_checkpoint_write.cpp)";
  }
  note += std::string("; time-to-train uses the time ") + (used == w.idle_time ? "alone" : "alongside training") +
          " (checkpoint_mode " + (async ? "async" : "sync") + ")" +
          (sc.training.reliability.storage_bandwidth_given ? ", capped by reliability.storage_bandwidth" : "") +
          ". Not simulated: the restart's read (load = bytes / the same bandwidth), data loading" +
          (async ? ", the step's slowdown while the checkpoint persists (checkpoint_step_slowdown, not in ETTR)" : "");
  r.notes.push_back(note);
}

}  // namespace aidcsim
