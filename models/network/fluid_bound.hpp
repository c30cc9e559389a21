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
#include <array>
#include <cstdint>
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
  /// route, or its share of Activity::rate_limit); rates are Fabric::sharing_rate (a GPU's NIC
  /// port bounded by its PCIe attachment); s_f = its transfer's start of sending (the
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

/// The transfers of a one-wave schedule that can set FlowNetwork::run's makespan. Transfers that
/// share no link direction run independently under max-min (separate components of the sharing
/// problem), so the makespan is the largest of their components'. While a sub-flow f runs, it gets
/// at least w_f C_l / W_l on the link direction l of its route that bottlenecks it (on a saturated
/// link the bottlenecked flow has the largest rate per weight: Bertsekas & Gallager, Data Networks,
/// 2nd ed., sec. 6.5.2), where W_l is the weight of every sub-flow of the schedule that ever uses
/// l, or its rate_limit share; so it ends by s_f + bytes_f / min(bound_f, min_l w_f C_l / W_l).
/// A component whose every transfer ends by then before `lower` (fluid_bound's makespan, a lower
/// bound of the run's) cannot hold the last completion: the run of `keep` alone has the same
/// makespan. Exact, no estimate. Throws as fluid_bound.
struct CriticalParts {
  std::vector<int> keep;  ///< activities of the components that may end last, in schedule order
  int components = 0;     ///< independent components of the schedule (transfers sharing no link)
  double lower = 0;       ///< s, fluid_bound(schedule).makespan
};
CriticalParts critical_parts(const topology::Fabric& fabric, const Schedule& schedule, int spray_subflows = 16);

/// Whether fluid_bound accepts `schedule` (transfers only, no dependencies, no repetitions).
bool single_wave(const Schedule& schedule);

/// Throws InvalidParameter ("schedule.activities[i]...") unless `a` (activity i) is a transfer
/// between GPU ranks with amount, delay and rate_limit >= 0, repeat 1, no repetition links, and
/// (one wave) no `after`, or (waves) `after` only on earlier activities.
void check_fluid_transfer(const topology::Fabric& fabric, const Activity& a, int i, bool waves);

struct WavesFluidBound {
  double makespan = 0;              ///< s, the last transfer's finish
  std::vector<double> wave_finish;  ///< s, the last finish of each wave, wave 0 first
  long long events = 0;             ///< starts of transfers and completions of sub-flows processed
  long long evaluations = 0;        ///< rates of sub-flows evaluated
};

/// Wave of each activity of a schedule of dependent transfers: 0 without `after`, else 1 + the
/// largest wave of its `after`. Empty when the schedule is not such waves (an activity that is
/// not a transfer, repeat != 1, repetition links, or an `after` that is not an earlier activity).
std::vector<int> wave_levels(const Schedule& schedule);

/// Max-min fluid run of dependent transfers without SimGrid's solver (a halving / doubling
/// exchange: every step a permutation, each transfer after the one its sender received in the
/// step before; models/network/fluid_waves.cpp). A transfer starts as FlowNetwork::run starts it
/// (its `after` finished, then its route latency and Activity::delay), its sub-flows on the
/// routes FlowNetwork::run gives them; at every start and completion the sub-flows on the links
/// it touches take their max-min rates again by the distributed fixpoint iteration (each one the
/// smallest water level on its route given its neighbours' rates, neighbours of a changed rate
/// re-evaluated until none moves by more than 1e-9 relative: Bertsekas & Gallager, Data Networks, 2nd
/// ed., sec. 6.5.2), which only visits the flows a change reaches, and of those only the ones whose
/// rate the change can move (exact: docs/network.md, "Dependent waves"). The same model as
/// FlowNetwork::run's max-min (without its link timeline, failures and repetitions): equal to the
/// simulated run to 1e-5 where measured (tests/unit/engine/test_bench_fluid.cpp).
/// Throws as check_fluid_transfer and SimulationError for an unroutable transfer.
WavesFluidBound fluid_bound_waves(const topology::Fabric& fabric, const Schedule& schedule, int spray_subflows = 16);

/// A halving / doubling exchange in compact form (no Schedule): the transfers
/// collectives::plan_halving_doubling and materialize would emit, without their ~170 B each
/// (a 32K-GPU all-reduce: 983,040 transfers). Transfer k = w n + r (wave-major, ranks in order)
/// sends from gpus[r] to gpus[r ^ dist[w]] after the one rank r received in wave w - 1, with
/// amount[c][w] B and delay[c][w] s, c = 1 if the two ranks share a `domain` (NVLink) else 0, and
/// Activity::flow_hash = hash_base + k + 1 (materialize's). n = gpus.size(), a power of two.
struct RegularWaves {
  std::vector<int> gpus;                      ///< fabric GPU of each rank
  std::vector<int> domain;                    ///< NVLink domain of each rank
  std::vector<int> dist;                      ///< per wave: partner = rank xor dist
  std::array<std::vector<double>, 2> amount;  ///< B, [0] network, [1] NVLink, per wave
  std::array<std::vector<double>, 2> delay;   ///< s, as Activity::delay, per wave
  std::uint64_t hash_base = 0;
};

/// fluid_bound_waves of the schedule `w` stands for, bit for bit the same result (the same
/// transfers, in the same order; test "[fluid][compact]" in tests/unit/engine/test_bench_fluid.cpp).
/// Throws InvalidParameter ("regular_waves.<key>") for inconsistent sizes, a non-GPU rank, a dist
/// outside (0, n), n not a power of two, or a negative amount or delay; SimulationError for an
/// unroutable transfer.
WavesFluidBound fluid_bound_waves(const topology::Fabric& fabric, const RegularWaves& w, int spray_subflows = 16);

}  // namespace aidcsim::network
