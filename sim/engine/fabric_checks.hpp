#pragma once
// The product brief's fabric checklist ("Fabric" section of /work/shared/BRIEF.md), judged on a
// simulated step: port and injection bandwidth, the 80 % utilization alarm in the busiest time
// bin of the step (not the step average, which hides a saturated phase), an RDMA p99 latency
// estimate under the step's load, the bisection ratio against the non-blocking aim, and the
// laid-out cable lengths against "Cables under 50 m". Items
// follow the thermal checklist's rule (models/thermal/checks.hpp): headroom = limit - value in the
// direction of safety, pass == (headroom >= 0).
#include <vector>

#include "models/network/fabric_limits.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/rdma_latency.hpp"
#include "models/thermal/site.hpp"
#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim {

/// Checklist items (SI: B/s, counts, fractions) of a fabric and its simulated step:
///  - "switch port rate" >= port_rate_min, "NIC rate per GPU" >= port_rate_min (all planes),
///  - "injection bandwidth per node" (NIC rate x GPUs per node) >= node_injection_min,
///  - "links above 80 % (busiest time bin)": scale-out link directions above the alarm in the bin
///    with the most of them (timeline.above_alarm), limit 0; the note gives the peak bin
///    utilization and the share of the step spent with a link above the alarm. Without a timeline
///    (timeline.time empty) the step-average count (congestion.links_above_80) stands in, and the
///    note says so.
///  - "RDMA p99 latency (estimate)": network::rdma_latency_p99_estimate, base + queue <= latency_p99_max,
///  - "bisection ratio" = bom.bisection_bandwidth / (gpus x nic_rate / 2) >= bisection_ratio_min.
/// `step_time` (s) is the step the timeline covers. No errors: degenerate inputs give 0 values.
std::vector<thermal::ChecklistItem> fabric_checklist(const topology::FabricSpec& spec,
                                                     const topology::BillOfMaterials& bom,
                                                     const network::Congestion& congestion,
                                                     const network::CongestionTimeline& timeline, double step_time,
                                                     const network::FabricLimits& limits = {});

/// Checklist item "longest scale-out cable": the longest laid-out scale-out cable of `cost`
/// (topology::price_fabric's layout model, m) < limits.cable_length_max (the brief's "Cables under
/// 50 m", strict); the note counts the cables at or over the limit by medium and gives the longest
/// one's propagation delay in fibre (network::kFibreDelayPerMetre) against `link_latency` (s, the
/// fixed per-cable latency fabric.link_latency that the simulation and the RDMA estimate use).
thermal::ChecklistItem cable_length_item(const topology::FabricCost& cost, double link_latency,
                                         const network::FabricLimits& limits = {});

}  // namespace aidcsim
