#pragma once
// The product brief's fabric limits (/work/shared/BRIEF.md, "Fabric"), judged by the engine's fabric
// checklist on a simulated step.
#include "models/common/units.hpp"

namespace aidcsim::network {

/// Limits of BRIEF.md "Fabric": "400 Gb/s per port at least", "injection bandwidth >= 200 Gb/s per
/// node", "when network utilization passes 80 % ... adjust the batch size", "non-blocking paths
/// are the default aim" (full bisection: ratio 1), "Cables under 50 m" (every cable, whatever its
/// medium: the brief names none; judged on the scale-out cables of the layout model,
/// topology::price_fabric, where copper DAC and multimode SR parts reach at most 50 m, so in practice
/// it flags the single-mode links).
struct FabricLimits {
  double port_rate_min = 400e9 / units::kBitsPerByte;       ///< B/s per switch port and per GPU NIC
  double node_injection_min = 200e9 / units::kBitsPerByte;  ///< B/s per node (all its NICs)
  double utilization_alarm = 0.8;                           ///< fraction of a link direction's rate
  double bisection_ratio_min = 1.0;                         ///< bisection / (GPUs x NIC rate / 2)
  double latency_p99_max = 5e-6;                            ///< s, "p99 tail latency <= 5 us"
  double cable_length_max = 50.0;                           ///< m, "Cables under 50 m" (strict)
};

}  // namespace aidcsim::network
