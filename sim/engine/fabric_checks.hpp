#pragma once
// The product brief's fabric checklist ("Fabric" section of /work/shared/BRIEF.md), judged on a
// simulated step: port and injection bandwidth, the 80 % utilization alarm in the busiest time
// bin of the step (not the step average, which hides a saturated phase), an RDMA p99 latency
// estimate under the step's load, and the bisection ratio against the non-blocking aim. Items
// follow the thermal checklist's rule (models/thermal/checks.hpp): headroom = limit - value in the
// direction of safety, pass == (headroom >= 0).
#include <utility>
#include <vector>

#include "models/common/units.hpp"
#include "models/network/flow_network.hpp"
#include "models/thermal/site.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim {

/// Limits of BRIEF.md "Fabric": "400 Gb/s per port at least", "injection bandwidth >= 200 Gb/s per
/// node", "when network utilization passes 80 % ... adjust the batch size", "non-blocking paths
/// are the default aim" (full bisection: ratio 1).
struct FabricLimits {
  double port_rate_min = 400e9 / units::kBitsPerByte;          ///< B/s per switch port and per GPU NIC
  double node_injection_min = 200e9 / units::kBitsPerByte;     ///< B/s per node (all its NICs)
  double utilization_alarm = 0.8;            ///< fraction of a link direction's rate
  double bisection_ratio_min = 1.0;          ///< bisection / (GPUs x NIC rate / 2)
  double latency_p99_max = 5e-6;             ///< s, "p99 tail latency <= 5 us"
};

/// Packet size of the queueing estimate: 4096 B, the largest InfiniBand MTU (InfiniBand
/// Architecture Specification Vol. 1: path MTUs of 256 to 4096 B) and the MTU NCCL's IB transport
/// uses; RoCEv2 fabrics run 4096 B RDMA MTUs too.
inline constexpr double kRdmaMtu = 4096.0;  // B

/// One-way RDMA latency of a small message on the fabric's longest GPU-to-GPU scale-out path
/// (bom.tiers: 1 leaf -> 2 links, leaf-spine -> 4, 3-tier -> 6), s, an ESTIMATE:
///   base  = (links - 1) x switch_latency + links x link_latency  (the path the engine routes),
///   queue = sum over the path's links of the p99 waiting time of an M/M/1 queue of kRdmaMtu
///           packets at the link's tier p99 utilization u (step average, congestion.p99_by_tier):
///           ln(100 u) / (mu (1 - u)) for u > 0.01, mu = rate / kRdmaMtu (the M/M/1 FCFS waiting
///           time, P(W > t) = u exp(-mu (1 - u) t): Kleinrock, Queueing Systems Vol. 1, 1975); the
///           sum of per-hop p99s is the path's p99 when the hops' waits move together and above
///           it when they are independent. Infinite for u >= 1.
/// Lossless flow control (PFC, credits) and congestion control (DCQCN) are not modelled.
/// Returns {base, queue}.
std::pair<double, double> rdma_latency_p99_estimate(const topology::FabricSpec& spec,
                                                    const topology::BillOfMaterials& bom,
                                                    const network::Congestion& congestion);

/// Checklist items (SI: B/s, counts, fractions) of a fabric and its simulated step:
///  - "switch port rate" >= port_rate_min, "NIC rate per GPU" >= port_rate_min (all planes),
///  - "injection bandwidth per node" (NIC rate x GPUs per node) >= node_injection_min,
///  - "links above 80 % (busiest time bin)": scale-out link directions above the alarm in the bin
///    with the most of them (timeline.above_alarm), limit 0; the note gives the peak bin
///    utilization and the share of the step spent with a link above the alarm. Without a timeline
///    (timeline.time empty) the step-average count (congestion.links_above_80) stands in, and the
///    note says so.
///  - "RDMA p99 latency (estimate)": rdma_latency_p99_estimate, base + queue <= latency_p99_max,
///  - "bisection ratio" = bom.bisection_bandwidth / (gpus x nic_rate / 2) >= bisection_ratio_min.
/// `step_time` (s) is the step the timeline covers. No errors: degenerate inputs give 0 values.
std::vector<thermal::ChecklistItem> fabric_checklist(const topology::FabricSpec& spec,
                                                     const topology::BillOfMaterials& bom,
                                                     const network::Congestion& congestion,
                                                     const network::CongestionTimeline& timeline, double step_time,
                                                     const FabricLimits& limits = {});

}  // namespace aidcsim
