#pragma once
// GPU power from a training step's busy profile, DVFS scaling and the throttle map.

namespace aidcsim::thermal {

/// Busy profile of one GPU over a training step: fractions of the step time in [0, 1].
/// compute_busy: GEMM/attention kernels running; comm_busy: collectives running without compute
/// (exposed communication); the rest is idle (pipeline bubble, data loading).
struct GpuLoad {
  double compute_busy = 1.0;
  double comm_busy = 0.0;
};

/// Utilization of the dynamic power range: u = clamp(compute_busy + k_comm comm_busy, 0, 1).
double gpu_utilization(const GpuLoad& load, double k_comm);

/// Average electrical power of a GPU (W):
///   P = idle + (tdp - idle) u f^n,
/// u from gpu_utilization, f = clock factor in (0, 1], n = power exponent (3: dynamic CMOS power
/// P = a C V^2 f with V ~ f in the DVFS range, Weste & Harris "CMOS VLSI Design" §5.1; the cubic
/// law is the usual DVFS approximation). idle and tdp in W (catalogue: GB200 1200/150 W).
double gpu_power(double tdp, double idle, double utilization, double clock, double exponent = 3.0);

/// Clock factor at which gpu_power() equals `power_cap` (W), clamped to [min_clock, 1].
/// Used for "reduce GPU power limit" (nvidia-smi -pl lowers clocks until the cap holds).
double clock_for_power_cap(double power_cap, double tdp, double idle, double utilization, double exponent,
                           double min_clock);

/// DVFS: clock factor a GPU runs at given its junction temperature (K). 1 at or below `limit`
/// (K, throttle threshold), falling linearly to `min_clock` at limit + band (K) and held there.
/// A static map for a fixed-point iteration clocks <-> temperatures; its loop gain is large (a
/// 1200 W GPU moves ~150 K per unit clock), so iterate with damping, or use
/// solve_throttled_clocks() (site.hpp), which solves T_j(f) = limit per GPU directly.
double throttle_clock_factor(double junction_temp, double limit, double band = 5.0, double min_clock = 0.5);

}  // namespace aidcsim::thermal
