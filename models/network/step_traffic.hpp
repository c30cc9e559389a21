#pragma once
// What a simulated training step did to the fabric, per link and over time: the network area's
// output of the step stage, read by its report (network_report.hpp), the fabric checklist and the
// step variants.
#include <string>
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::network {

struct StepTraffic {
  Congestion congestion;                        ///< utilization averaged over the step
  CongestionTimeline timeline;                  ///< utilization over the step (empty without a timeline)
  std::vector<std::string> timeline_hot_names;  ///< names of timeline.hot: "link (up)" = a->b, "(down)" = b->a
  std::vector<double> link_utilization;         ///< per fabric link, max of both directions, fraction
  std::vector<double> link_bytes;               ///< per fabric link, both directions, B
  std::vector<std::string> link_names;          ///< per fabric link, topology::Link::name
  std::vector<int> link_tiers;                  ///< per fabric link, topology::Tier as int
  /// Repetitions of the step's transfers taken as whole periods of an exact template
  /// (RunResult::repetitions_fast_forwarded), for the run's notes.
  long long repetitions_fast_forwarded = 0;
};

/// The traffic of `run` (a step simulated on `fabric` with a timeline, FlowNetwork::
/// set_timeline_bins) over `step_time` s: utilization of a link direction = bytes / (rate x
/// step_time) (0 when step_time or the rate is 0). Sizes: fabric.link_count() per-link entries.
/// Throws SimulationError when the run has no timeline or does not match the fabric
/// (congestion_timeline).
StepTraffic step_traffic(const topology::Fabric& fabric, const RunResult& run, double step_time);

}  // namespace aidcsim::network
