#pragma once
// RDMA p99 latency of a small message on the fabric under a simulated step's load (an estimate:
// path latency plus M/M/1 queueing per hop).
#include <utility>

#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::network {

/// Packet size of the queueing estimate: 4096 B, the largest InfiniBand MTU (InfiniBand
/// Architecture Specification Vol. 1: path MTUs of 256 to 4096 B) and the MTU NCCL's IB transport
/// uses; RoCEv2 fabrics run 4096 B RDMA MTUs too.
inline constexpr double kRdmaMtu = 4096.0;  // B

/// Group index of silica fibre, single- and multimode alike: 1.47 (Fluke Networks DSP-4x00
/// CableAnalyzer defaults, knowledge base "Index of Refraction - DSP FTA Series": 1.4719 for 9/125 um
/// single-mode, 1.4725 for 50/125 um multimode at 1300 nm; G.652/G.657 datasheets give 1.467-1.469).
inline constexpr double kFibreGroupIndex = 1.47;
/// Speed of light in vacuum, m/s (exact, SI definition of the metre).
inline constexpr double kSpeedOfLight = 299792458.0;
/// Propagation delay of a metre of fibre: kFibreGroupIndex / c = 4.90 ns/m (2.04e8 m/s).
inline constexpr double kFibreDelayPerMetre = kFibreGroupIndex / kSpeedOfLight;  // s/m

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
                                                    const topology::BillOfMaterials& bom, const Congestion& congestion);

}  // namespace aidcsim::network
