// The sampled all-to-all (detail::plan_alltoall above its pair budget: pairs inside NVLink
// domains exact, K of the permutations between domains, each transfer carrying the bytes of
// W = M / K pairs, 1 - 1/sqrt(W) of them spread evenly over the equal-cost paths and 1/sqrt(W)
// hashed) against every pair, at sizes where both run: 128-512 GPUs, K = 8 as at 32,768 GPUs
// (bench-collective), on the default rail-optimised 3-tier Clos and on oversubscribed leaf-spines.
// Compared by the fluid bound (network::fluid_bound), which is how bench-collective times an
// all-to-all of more than 8,192 transfers and which equals the max-min run of all-to-all within
// 2 % ("[fluid]" in test_engine).
//
// Reference: the mean of the full run over 5 ECMP hash seeds (0-4). One seed's makespan is within
// 3 % of that mean at these sizes (asserted below; 1 GiB: 64 x 8 -1.7 ... +2.7 %, 512 x 1 -1.2 ...
// +1.5 %), so a comparison with one seed mixed that noise into the error.
//
// est / mean of every pair over seeds 0-4 - 1, 1 MiB / 1 GiB, K = 8:
//   fabric                        spread from the van der    now: phases (one path per 16th of
//                                 Corput fraction of the     the ranks, Fabric::routes_strided
//                                 path count (2026-12-01)    seed_is_phase)
//   16 x 8 clos3 1:1              +0.0/+0.0                  +0.0/+0.0 %
//   64 x 8 clos3 1:1              -1.8/-3.5                  -3.1/-6.0 %
//   512 x 1 clos3 2:1             +6.7/+10.1                 +1.6/+2.4 %
//   32 x 8 leaf-spine 2:1         +1.6/+2.7                  +0.2/+0.4 %
//   128 x 4 leaf-spine 3:1 (r32)  -1.8/-2.4                  -1.8/-2.4 %
//   32 x 8 clos3 1:1 (r16, 4 pods) -3.4/-6.4                 +0.7/-4.8 %
// (Against seed 0 alone, 2026-12-01: -7.8 ... +11.5 %.)
// History (per-link loads of both runs: busiest link, max and mean per tier):
//  - 16 x 8: the pairs inside a node went over NVLink in the full run but their sampled stand-ins
//    over the NICs (+5.8 % on the access links); they are now exact (bytes per NVLink port).
//  - The spread transfers started at random paths, so a link's load was its mean plus the chance
//    of how many 16-path sets covered it: at 32,768 GPUs the busiest spine-core link carried 36 %
//    more than the mean of its tier (30.4 ms; every tier's mean is 21.5 ms). Then they started at
//    van der Corput's sequence as a fraction of the path count, ranks first + j (total / 16 + 1):
//    a transfer's set of ranks then depends on its first rank mod the stride, i.e. on the
//    sequence's bits below the 16ths, nearly equal over a leaf's run of transfers; where the path
//    count is not a multiple of 16 (512 x 1 2:1: 63 paths = 21 uplinks x 3) the leaf-spine links
//    ranged -43 ... +25 % about their share (busiest +20 %). Now the phase places one path in each
//    16th of the ranks: rank r is taken iff the phase falls in an interval of length 16 / total,
//    so evenly spread phases give every rank its share: every leaf-spine link within 5 % of its
//    share on these fabrics (second test), the 32K figure unchanged (23,001.0 us).
//  - The full run's busiest link is its tier's mean plus its own hash collisions (+5 to +20 % at
//    these sizes); the hashed share 1/sqrt(W) gives each link the variance of the W pairs' hashes.
// Left: (1) the leaf-local share, which the 8 samples over- or under-represent: the one rail-aligned
// sample (e = 0) shifts by D = N / 16 domains, so most of its transfers stay in their leaf
// (64 x 8: 28 of 32 against 31 of 63 over all shifts): the leaf-spine links' mean -5.1 % (64 x 8),
// -6.7 % (r16), -3.6 % (128 x 4), +2.2 % (512 x 1) against the full run's, the bulk of the error
// left; at 32K only 31 of 32,767 peers are leaf-local. (2) r16's spine-core links range -23 ...
// +19 % about their share (the parallel core link down to a pod is set by phase bits that a leaf's
// 8 transfers do not vary); that tier is not the busiest there.
// This test holds kSampledAllToAllError (7 %: the largest error, 6.0 %, plus 1 %, above the
// standard error of a 5-seed mean, 1.6 % / sqrt(5) = 0.7 %) and bench-collective's note quotes it.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <numeric>

#include "models/collectives/collective.hpp"
#include "models/collectives/flow_plan.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/network/fluid_bound.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/collectives/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::collectives;

namespace {

struct Fab {
  int gpus, gpn;
  topology::FabricKind kind;
  double oversub;
  int radix;
  topology::Fabric build() const {
    return topology::build_fabric(test::rail_cluster(gpus / gpn, gpn, kind, radix, oversub));
  }
};

/// The fabric's layout with H100 GPUs (NVLink 4).
Layout h100_layout(const topology::Fabric& fabric) {
  compute::GpuSpec h100;
  h100.nvlink_generation = 4;
  return Layout::from(fabric, h100);
}

/// The all-to-all of `bytes` over every GPU with a pair budget `max_pairs` and ECMP hash seed
/// `hash`, as the schedule bench-collective times.
network::Schedule alltoall(const Layout& l, int gpus, double bytes, int max_pairs, std::uint64_t hash, bool* sampled) {
  Collective c;
  c.op = Op::AllToAll;
  c.algorithm = Algorithm::Direct;
  c.gpus.resize(gpus);
  std::iota(c.gpus.begin(), c.gpus.end(), 0);
  c.bytes = bytes;
  c.hash = hash;
  const Protocol p;
  const detail::EmitContext ctx{c, l, p};
  const detail::FlowPlan plan = detail::plan_alltoall(ctx, max_pairs);
  *sampled = !plan.note.empty();
  network::Schedule s;
  s.gpu_flops = {1e15};
  detail::materialize(s, plan, ctx, 1.0, 20e-6, 1.0, 1.0);
  return s;
}

/// Fluid-bound time of the all-to-all above.
double alltoall_time(const topology::Fabric& fabric, const Layout& l, double bytes, int max_pairs, bool* sampled,
                     std::uint64_t hash = 0) {
  return network::fluid_bound(fabric, alltoall(l, fabric.gpu_count(), bytes, max_pairs, hash, sampled)).makespan;
}

/// Hash seeds of the reference: the full run's makespan moves from seed to seed by its own ECMP
/// collisions, so the sample is held against their mean.
constexpr int kSeeds = 5;

const std::vector<Fab> kFabrics{
    Fab{128, 8, topology::FabricKind::Clos3, 1, 64},     Fab{512, 8, topology::FabricKind::Clos3, 1, 64},
    Fab{512, 1, topology::FabricKind::Clos3, 2, 64},     Fab{256, 8, topology::FabricKind::LeafSpine, 2, 64},
    Fab{512, 4, topology::FabricKind::LeafSpine, 3, 32}, Fab{256, 8, topology::FabricKind::Clos3, 1, 16}};

}  // namespace

TEST_CASE("all-to-all: 8 sampled permutations against every pair over 5 hash seeds (measured error held)",
          "[alltoall][fluid]") {
  for (const Fab& f : kFabrics) {
    const auto fabric = f.build();
    const Layout l = h100_layout(fabric);
    for (double bytes : {1 << 20, 1 << 30}) {
      bool sampled_full = true, sampled = false;
      double mean = 0, lo = 1e30, hi = 0;
      for (int seed = 0; seed < kSeeds; ++seed) {
        const double full = alltoall_time(fabric, l, bytes, f.gpus * f.gpus, &sampled_full, seed);
        REQUIRE_FALSE(sampled_full);
        mean += full / kSeeds;
        lo = std::min(lo, full);
        hi = std::max(hi, full);
      }
      const double est = alltoall_time(fabric, l, bytes, 8 * f.gpus, &sampled);
      REQUIRE(sampled);
      INFO(f.gpus << " GPUs (" << f.gpn << " per node), "
                  << (f.kind == topology::FabricKind::Clos3 ? "clos3" : "leaf-spine") << " " << f.oversub << ":1 r"
                  << f.radix << ", " << bytes << " B: every pair " << mean * 1e6 << " us (seeds " << lo * 1e6 << " ... "
                  << hi * 1e6 << "), 8 sampled " << est * 1e6 << " us (" << (est / mean - 1) * 100 << " %)");
      CHECK(std::abs(est - mean) <= detail::kSampledAllToAllError * mean);
      // The spread the margin stands on: one seed within 3 % of the mean.
      CHECK(hi <= 1.03 * mean);
      CHECK(lo >= 0.97 * mean);
    }
  }
}

TEST_CASE("all-to-all: the spread share of the sampled transfers loads every leaf-spine link at its mean",
          "[alltoall][fluid]") {
  // The sampled transfers without their hashed share, routed by their phases (16 paths each), against
  // the same transfers spread over all their paths (each link's expected share). Before the phases
  // set one path per 16th of the ranks (Fabric::routes_strided, seed_is_phase) the links of a leaf
  // whose paths do not divide by 16 (512 x 1 2:1: 63 paths) ranged -43 ... +25 % about their share.
  for (const Fab& f : kFabrics) {
    const auto fabric = f.build();
    const Layout l = h100_layout(fabric);
    bool sampled = false;
    network::Schedule s = alltoall(l, f.gpus, 1 << 30, 8 * f.gpus, 0, &sampled);
    REQUIRE(sampled);
    for (auto& a : s.activities)
      if (!a.spread) a.amount = 0;  // NVLink transfers and hashed shares: not on the leaf-spine links
    const auto phased = network::fluid_bound(fabric, s);
    for (auto& a : s.activities) a.spread_phase = 1;  // (the phase does not matter with every path)
    const auto mean = network::fluid_bound(fabric, s, 1 << 20);
    double worst = 0;
    for (int i = 0; i < fabric.link_count(); ++i) {
      if (fabric.link(i).tier != topology::Tier::LeafSpine) continue;
      for (auto [x, m] : {std::pair{phased.link_bytes_fwd[i], mean.link_bytes_fwd[i]},
                          std::pair{phased.link_bytes_rev[i], mean.link_bytes_rev[i]}})
        if (m > 0) worst = std::max(worst, std::abs(x / m - 1));
    }
    INFO(f.gpus << " GPUs (" << f.gpn << " per node) r" << f.radix << " " << f.oversub
                << ":1: largest |leaf-spine link / its share - 1| " << worst * 100 << " %");
    // Measured 2026-12-02: 0 / 1.8 / 4.6 / 3.9 / 0 / 0 % (before: 0 / 8.8 / 43 / 6.8 / 0 / 5.2 %).
    CHECK(worst <= 0.05);
  }
}

TEST_CASE("routes_strided with a phase: a period of phases takes every path equally often", "[alltoall]") {
  // 512 x 1 GPUs, 2:1 leaves of 21 uplinks: 63 paths between two leaves, 16 per transfer.
  const auto fabric = topology::build_fabric(test::rail_cluster(512, 1, topology::FabricKind::Clos3, 64, 2));
  const auto all = fabric.routes(0, 300, 4096);
  REQUIRE(all.size() == 63);
  std::map<std::vector<int>, int> taken;
  const int Q = 63 * 16;  // phases q / Q: rank r is taken by exactly Q x 16 / 63 of them
  for (int q = 0; q < Q; ++q) {
    const std::uint64_t phase = static_cast<std::uint64_t>((static_cast<unsigned __int128>(q) << 64) / Q) + 1;
    const auto paths = fabric.routes_strided(0, 300, 16, phase, true);
    REQUIRE(paths.size() == 16);
    for (const auto& p : paths) {
      std::vector<int> ids;
      for (const auto& h : p) ids.push_back(h.link);
      ++taken[ids];
    }
  }
  REQUIRE(taken.size() == 63);
  for (const auto& [path, n] : taken) CHECK(n == 16 * 16);
}

TEST_CASE("all-to-all sampled inside one NVLink domain stays on NVLink", "[alltoall][fluid]") {
  // 64 GPUs in one domain, sampled (budget 8 n): every sampled transfer is an NVLink pair, which
  // a spread transfer would send over the scale-out paths; each NVLink port carries (n - 1) S / n
  // either way, so the fluid bounds are equal.
  const auto fabric = topology::build_fabric(test::rail_cluster(1, 64, topology::FabricKind::LeafSpine, 64));
  const Layout l = h100_layout(fabric);
  bool sampled_full = true, sampled = false;
  const double full = alltoall_time(fabric, l, 1 << 30, 64 * 64, &sampled_full);
  const double est = alltoall_time(fabric, l, 1 << 30, 8 * 64, &sampled);
  REQUIRE_FALSE(sampled_full);
  REQUIRE(sampled);
  CHECK(est == Approx(full).epsilon(1e-9));
}
