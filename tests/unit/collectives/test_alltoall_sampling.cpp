// The sampled all-to-all (detail::plan_alltoall above its pair budget: pairs inside NVLink
// domains exact, K of the permutations between domains, each transfer carrying the bytes of
// W = M / K pairs, 1 - 1/sqrt(W) of them spread evenly over the equal-cost paths and 1/sqrt(W)
// hashed) against every pair, at sizes where both run: 128-512 GPUs, K = 8 as at 32,768 GPUs
// (bench-collective), on the default rail-optimised 3-tier Clos and on oversubscribed leaf-spines.
// Compared by the fluid bound (network::fluid_bound), which is how bench-collective times an
// all-to-all of more than 8,192 transfers and which equals the max-min run of all-to-all within
// 2 % ("[fluid]" in test_engine).
//
// Measured 2026-12-01 (est / every pair - 1, hash seed 0, 1 MiB / 1 GiB), K = 8:
//   fabric                        hashed,     spread,      now: NVLink pairs exact, spread from
//                                 evenly      stratified   scrambled van der Corput starts,
//                                                          1/sqrt(W) hashed
//   16 x 8 clos3 1:1              +2.9/+5.8   +2.9/+5.8    +0.0/+0.0 %
//   64 x 8 clos3 1:1              +25/+49     -0.8/-1.6    -2.2/-4.3 %
//   512 x 1 clos3 2:1             +33/+50     +2.3/+3.4    +7.6/+11.5 %
//   32 x 8 leaf-spine 2:1         -23/-34     +0.1/+0.1    +1.2/+2.1 %
//   128 x 4 leaf-spine 3:1 (r32)  +27/+37     -6.7/-9.0    -1.3/-1.8 %
//   32 x 8 clos3 1:1 (r16, 4 pods)   -         -/-11.5      -4.1/-7.8 %
// Outside this test (fluid bound, 1 GiB, seed 0): 256 x 8 clos3 1:1 (2 pods): every pair 22,555 us,
// spread stratified +6.4 %, now +7.1 %; 64 x 4 clos3 2:1 r16: -6.5 % -> -2.9 %.
// Causes found (per-link loads of both runs: busiest link, max and mean per tier):
//  - 16 x 8: the pairs inside a node went over NVLink in the full run but their sampled stand-ins
//    over the NICs (+5.8 % on the access links); they are now exact (bytes per NVLink port).
//  - The spread transfers started at random paths, so a link's load was its mean plus the chance
//    of how many 16-path sets covered it: at 32,768 GPUs the busiest spine-core link carried 36 %
//    more than the mean of its tier (30.4 ms; every tier's mean is 21.5 ms). They now start at
//    van der Corput's sequence over the domains (digit-scrambled per sample and position): at 32K
//    every tier's busiest link is within 0.1 % of its mean without the hashed share, and 22.1 ms
//    (+2.7 %, the pairs' own collisions) with it. Where a source leaf's run of transfers splits
//    between destinations with different path counts (two pods, 2:1 leaves with 21 uplinks) the
//    starts are not balanced: +20-26 % over the tier mean on 512 x 1 2:1 and 256 x 8.
//  - The full run's busiest link is its tier's mean plus its own hash collisions (+5 to +17 % at
//    these sizes); the hashed share 1/sqrt(W) gives each link the variance of the W pairs' hashes.
//    Which realisation is the rest: the full run's makespan moves by up to 7 % from hash seed to
//    hash seed (1 GiB, seeds 0-4: 64 x 8 +2.1 ... +6.6 %, 512 x 1 -4.9 ... 0 % around one
//    estimate), so no estimate can match one seed within the 2 % the issue asks for.
//  - Leaf-local pairs: the 8 samples over- or under-represent them (64 x 8: the uplinks' mean bytes
//    -5 %, 512 x 1: +2.2 %); at 32K they are 31 of 32,767 peers.
// This test holds 12 % (seed 0) and bench-collective's note quotes the range.
#include <catch2/catch.hpp>

#include <cmath>
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
};

/// Fluid-bound time of the all-to-all of `bytes` over every GPU with a pair budget `max_pairs`.
double alltoall_time(const topology::Fabric& fabric, const Layout& l, double bytes, int max_pairs, bool* sampled) {
  Collective c;
  c.op = Op::AllToAll;
  c.algorithm = Algorithm::Direct;
  c.gpus.resize(fabric.gpu_count());
  std::iota(c.gpus.begin(), c.gpus.end(), 0);
  c.bytes = bytes;
  const Protocol p;
  const detail::EmitContext ctx{c, l, p};
  const detail::FlowPlan plan = detail::plan_alltoall(ctx, max_pairs);
  *sampled = !plan.note.empty();
  network::Schedule s;
  s.gpu_flops = {1e15};
  detail::materialize(s, plan, ctx, 1.0, 20e-6, 1.0, 1.0);
  return network::fluid_bound(fabric, s).makespan;
}

/// The largest measured |sampled / every permutation - 1| above, rounded up.
constexpr double kSampledAllToAllError = 0.12;

}  // namespace

TEST_CASE("all-to-all: 8 sampled permutations against every pair (measured error held)", "[alltoall][fluid]") {
  compute::GpuSpec h100;
  h100.nvlink_generation = 4;
  for (const Fab& f :
       {Fab{128, 8, topology::FabricKind::Clos3, 1, 64}, Fab{512, 8, topology::FabricKind::Clos3, 1, 64},
        Fab{512, 1, topology::FabricKind::Clos3, 2, 64}, Fab{256, 8, topology::FabricKind::LeafSpine, 2, 64},
        Fab{512, 4, topology::FabricKind::LeafSpine, 3, 32}, Fab{256, 8, topology::FabricKind::Clos3, 1, 16}}) {
    const auto fabric = topology::build_fabric(test::rail_cluster(f.gpus / f.gpn, f.gpn, f.kind, f.radix, f.oversub));
    const Layout l = Layout::from(fabric, h100);
    for (double bytes : {1 << 20, 1 << 30}) {
      bool sampled_full = true, sampled = false;
      const double full = alltoall_time(fabric, l, bytes, f.gpus * f.gpus, &sampled_full);
      const double est = alltoall_time(fabric, l, bytes, 8 * f.gpus, &sampled);
      REQUIRE_FALSE(sampled_full);
      REQUIRE(sampled);
      INFO(f.gpus << " GPUs (" << f.gpn << " per node), "
                  << (f.kind == topology::FabricKind::Clos3 ? "clos3" : "leaf-spine") << " " << f.oversub << ":1, "
                  << bytes << " B: every permutation " << full * 1e6 << " us, 8 sampled " << est * 1e6 << " us");
      CHECK(std::abs(est - full) <= kSampledAllToAllError * full);
    }
  }
}

TEST_CASE("all-to-all sampled inside one NVLink domain stays on NVLink", "[alltoall][fluid]") {
  // 64 GPUs in one domain, sampled (budget 8 n): every sampled transfer is an NVLink pair, which
  // a spread transfer would send over the scale-out paths; each NVLink port carries (n - 1) S / n
  // either way, so the fluid bounds are equal.
  const auto fabric = topology::build_fabric(test::rail_cluster(1, 64, topology::FabricKind::LeafSpine, 64));
  compute::GpuSpec h100;
  h100.nvlink_generation = 4;
  const Layout l = Layout::from(fabric, h100);
  bool sampled_full = true, sampled = false;
  const double full = alltoall_time(fabric, l, 1 << 30, 64 * 64, &sampled_full);
  const double est = alltoall_time(fabric, l, 1 << 30, 8 * 64, &sampled);
  REQUIRE_FALSE(sampled_full);
  REQUIRE(sampled);
  CHECK(est == Approx(full).epsilon(1e-9));
}
