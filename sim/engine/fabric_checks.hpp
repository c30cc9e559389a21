#pragma once
// The product brief's fabric checklist ("Fabric" section of /work/shared/BRIEF.md), judged on a
// simulated step: port and injection bandwidth, the 80 % utilization alarm in the busiest time
// bin of the step (not the step average, which hides a saturated phase), and the bisection ratio
// against the non-blocking aim. Items follow the thermal checklist's rule (models/thermal/checks.hpp):
// headroom = limit - value in the direction of safety, pass == (headroom >= 0).
#include <vector>

#include "models/network/flow_network.hpp"
#include "models/thermal/site.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim {

/// Limits of BRIEF.md "Fabric": "400 Gb/s per port at least", "injection bandwidth >= 200 Gb/s per
/// node", "when network utilization passes 80 % ... adjust the batch size", "non-blocking paths
/// are the default aim" (full bisection: ratio 1).
struct FabricLimits {
  double port_rate_min = 400e9 / 8;          ///< B/s per switch port and per GPU NIC
  double node_injection_min = 200e9 / 8;     ///< B/s per node (all its NICs)
  double utilization_alarm = 0.8;            ///< fraction of a link direction's rate
  double bisection_ratio_min = 1.0;          ///< bisection / (GPUs x NIC rate / 2)
};

/// Checklist items (SI: B/s, counts, fractions) of a fabric and its simulated step:
///  - "switch port rate" >= port_rate_min, "NIC rate per GPU" >= port_rate_min (all planes),
///  - "injection bandwidth per node" (NIC rate x GPUs per node) >= node_injection_min,
///  - "links above 80 % (busiest time bin)": scale-out link directions above the alarm in the bin
///    with the most of them (timeline.above_alarm), limit 0; the note gives the peak bin
///    utilization and the share of the step spent with a link above the alarm. Without a timeline
///    (timeline.time empty) the step-average count (congestion.links_above_80) stands in, and the
///    note says so.
///  - "bisection ratio" = bom.bisection_bandwidth / (gpus x nic_rate / 2) >= bisection_ratio_min.
/// `step_time` (s) is the step the timeline covers. No errors: degenerate inputs give 0 values.
std::vector<thermal::ChecklistItem> fabric_checklist(const topology::FabricSpec& spec,
                                                     const topology::BillOfMaterials& bom,
                                                     const network::Congestion& congestion,
                                                     const network::CongestionTimeline& timeline, double step_time,
                                                     const FabricLimits& limits = {});

}  // namespace aidcsim
