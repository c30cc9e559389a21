#pragma once
// The fluid bound of a single wave of independent transfers: the earliest time by which the
// flow network could have finished them, from the bytes each link direction must carry (a
// link-load bound, as in the "maximum link load" lower bound of flow scheduling; e.g. Chowdhury
// & Stoica, Varys, SIGCOMM 2014, §4: a coflow cannot finish before its busiest port drains).
//
// Why: a collapsed PAT or all-to-all at 32K GPUs puts 0.3-0.5 M transfers on the fabric at once;
// every completion re-solves SimGrid's max-min shares of all of them (one sharing component), so
// the simulation takes minutes to hours. When the busiest link direction stays saturated from
// its first flow's start to its last byte, max-min finishes exactly at the bound; the collective
// bench measures this against the simulated run (tests/unit/collectives, "[fluid]") and says in
// its notes which rows are estimated this way.
#include <vector>

#include "models/common/schedule.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::network {

/// Largest relative difference between the fluid bound and the simulated run of the collectives
/// it stands in for, required by the tests that measure it (tests/unit/engine/test_bench_fluid.cpp,
/// "[fluid]": PAT and all-to-all at 64-256 GPUs) and quoted in bench-collective's notes.
inline constexpr double kFluidBoundTolerance = 0.02;

struct FluidBound {
  /// s: max over link directions l of max_k (s_k + sum of the bytes of l's sub-flows starting at
  /// or after s_k) / rate_l, and over sub-flows f of s_f + bytes_f / (the smallest rate on its
  /// route, or its share of Activity::rate_limit); s_f = its transfer's start of sending (the
  /// longest route latency of its sub-flows + Activity::delay), as FlowNetwork::run starts it.
  double makespan = 0;
  std::vector<double> link_bytes_fwd, link_bytes_rev;  ///< B per link, as RunResult's
  int busiest_link = -1;                               ///< link of the bound (-1: a single flow's own time bounds it)
  bool busiest_forward = true;
};

/// The fluid bound of `schedule` on `fabric`, with the routes FlowNetwork::run would give its
/// sub-flows (Fabric::route / routes, FabricSpec::flows_per_pair, EcmpMode::Spray with
/// `spray_subflows`). A lower bound of FlowNetwork::run(schedule).makespan. The schedule must be
/// one wave: transfers only (src == dst allowed), no `after`, repeat 1; throws InvalidParameter
/// otherwise ("schedule.activities[i]...") and SimulationError for an unroutable transfer.
FluidBound fluid_bound(const topology::Fabric& fabric, const Schedule& schedule, int spray_subflows = 16);

/// Whether fluid_bound accepts `schedule` (transfers only, no dependencies, no repetitions).
bool single_wave(const Schedule& schedule);

}  // namespace aidcsim::network
