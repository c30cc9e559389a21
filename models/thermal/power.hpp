#pragma once
// GPU power from a training step's busy profile, DVFS scaling and the throttle map.

namespace aidcsim::thermal {

/// Busy profile of one GPU over a training step: a partition of the step time, fractions in
/// [0, 1] with compute_busy + comm_busy <= 1 (workload::StepBreakdown's compute and exposed
/// communication, docs/thermal.md "GPU power").
/// compute_busy: compute kernels running, collectives overlapped with them included: the GPU then
/// draws its compute power, which its power limit caps (TDP here); communication hidden under
/// compute adds no time at another power, so it is not counted again. comm_busy: collectives
/// running with no compute (exposed communication, power.comm_factor of the dynamic power); the
/// rest (1 - compute_busy - comm_busy) is idle (pipeline bubble).
struct GpuLoad {
  double compute_busy = 1.0;
  double comm_busy = 0.0;
};

/// Throws SimulationError naming `what` unless `load` is a partition of the step: both fractions
/// finite, >= 0, and compute_busy + comm_busy <= 1 (+ 1e-9 for rounding).
void check_gpu_load(const GpuLoad& load, const char* what);

/// Utilization of the dynamic power range, the step's mean: u = compute_busy + k_comm comm_busy
/// (compute at 1, exposed communication at k_comm, idle at 0), clamped to [0, 1].
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
