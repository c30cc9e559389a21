#pragma once
// FlowNetwork: a SimGrid platform built from a topology::Fabric (one host per GPU, one
// split-duplex link per fabric link, routes from Fabric::route), which executes a Schedule:
// computations as SimGrid executions on the GPU hosts, transfers as flows sharing link bandwidth
// (flow-level, max-min fair). Contract used by sim/engine; extend, don't break.
#include <memory>

#include "models/network/schedule.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::network {

class FlowNetwork {
 public:
  /// Builds the SimGrid platform for `fabric` (kept by reference: it must outlive this object).
  explicit FlowNetwork(const topology::Fabric& fabric);
  ~FlowNetwork();
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  /// Runs every activity of `schedule` to completion; times are relative to this call's start.
  /// Can be called repeatedly. Throws SimulationError on an unroutable transfer or a deadlock.
  RunResult run(const Schedule& schedule);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Link-utilization figures of one run (product brief alarm threshold: 80 %).
struct Congestion {
  double max_utilization = 0;   ///< fraction, busiest link direction over the run's makespan
  double p99_utilization = 0;   ///< fraction, 99th percentile over fabric link directions that carried traffic
  int links_above_80 = 0;       ///< link directions with utilization > 0.8
  /// Same per tier, indexed by topology::Tier.
  double max_by_tier[4] = {0, 0, 0, 0};
  double p99_by_tier[4] = {0, 0, 0, 0};
};

/// Congestion of a run over `interval` seconds (defaults to the makespan): utilization of a link
/// direction = bytes / (rate x interval). NVLink links are reported in their tier but excluded
/// from the fabric-wide max/p99/above-80 figures.
Congestion congestion(const topology::Fabric& fabric, const RunResult& run, double interval = 0);

}  // namespace aidcsim::network
