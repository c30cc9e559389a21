// PAT's emission: NCCL's bytes per distance (reversed Bruck trees) and its channels, each with
// its own connection and so its own ECMP hash (models/collectives/flow_ring.cpp plan_pat).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "models/collectives/collective.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/fluid_bound.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/collectives/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::collectives;

namespace {

Layout one_gpu_per_node() {
  Layout l;
  l.domain_of = [](int gpu) { return gpu; };
  l.nvlink_rate = 450e9;
  l.nic_rate = 50e9;
  l.gpus_per_node = 1;
  return l;
}

Collective pat(Op op, int n, double bytes, bool collapse = true) {
  Collective c;
  c.op = op;
  c.algorithm = Algorithm::Pat;
  c.gpus.resize(n);
  std::iota(c.gpus.begin(), c.gpus.end(), 0);
  c.bytes = bytes;
  c.collapse = collapse;
  return c;
}

/// Blocks of S/n that PAT moves over distance 2^k, counted from its trees: the block of the rank
/// at offset s in [1, n) arrives over the lowest set bit of s (NCCL v2.23.4-1 PatAGAlgorithm,
/// sendDim = firstBitSet(s)).
std::map<int, int> blocks_per_distance(int n) {
  std::map<int, int> out;
  for (int s = 1; s < n; ++s) ++out[s & -s];
  return out;
}

}  // namespace

TEST_CASE("PAT moves NCCL's bytes per distance, one transfer per channel and pair", "[pat]") {
  const Layout l = one_gpu_per_node();
  for (Op op : {Op::AllGather, Op::ReduceScatter})
    for (int n : {12, 16, 64}) {
      network::Schedule s;
      const double S = 64.0 * 1024 * 1024;
      const Emitted e = emit(s, pat(op, n, S), l);
      INFO(op_name(op) << " on " << n << " GPUs, " << e.channels << " channels");
      REQUIRE(e.algorithm == Algorithm::Pat);
      REQUIRE(e.channels >= 2);                                       // NCCL's tuner: several channels at 64 MiB
      std::map<int, double> bytes;                                    // by distance
      std::map<std::pair<int, int>, std::set<std::uint64_t>> hashes;  // by (src, dst)
      for (const auto& a : s.activities) {
        const int d = (a.dst_gpu - a.gpu + n) % n;
        bytes[d] += a.amount;
        hashes[{a.gpu, a.dst_gpu}].insert(a.flow_hash);
      }
      // Reversed Bruck: distance 1 carries the most (n/2 blocks), n/2 one block. The standard
      // Bruck order emitted before had it the other way round (2^k blocks at distance 2^k).
      const auto blocks = blocks_per_distance(n);
      REQUIRE(bytes.size() == blocks.size());
      const double unit = bytes.at(1) / blocks.at(1);
      for (const auto& [d, b] : blocks) CHECK(bytes.at(d) == Approx(unit * b).epsilon(1e-12));
      // Every pair at every distance: one transfer per channel, each with its own hash.
      CHECK(s.activities.size() == static_cast<std::size_t>(e.channels * n * blocks.size()));
      for (const auto& [pair, h] : hashes) CHECK(h.size() == static_cast<std::size_t>(e.channels));
    }
}

TEST_CASE("stepped PAT: all-gather starts at the longest distance, reduce-scatter at distance 1", "[pat]") {
  const Layout l = one_gpu_per_node();
  const int n = 16;
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    network::Schedule s;
    const Emitted e = emit(s, pat(op, n, 1 << 26, false), l);
    INFO(op_name(op));
    std::set<int> first;  // distances of the transfers that wait for nothing of the collective
    for (const auto& a : s.activities)
      if (a.after.empty() && a.after_same.empty()) first.insert((a.dst_gpu - a.gpu + n) % n);
    CHECK(first == std::set<int>{op == Op::AllGather ? 8 : 1});
    CHECK(e.done.size() == static_cast<std::size_t>(e.channels * n));
  }
}

// On a 3-tier Clos (radix 64: 32 GPUs per leaf, 1,024 per pod) with hash ECMP, 4,096 GPUs, 1 GiB
// all-gather: with one transfer per pair and distance (NCCL_MAX_NCHANNELS=1) the busiest link
// carries 1.26x a NIC's bytes (the cross-leaf transfers of distances >= 32 collide on spine and
// core links); with NCCL's 4 channels (the ring search's 48 GB/s channel on the Gen5 NIC path,
// duplicated to 2 x 24 and doubled by ncclTopoPostset), each its own hash, no link carries more
// than a NIC (2 channels before the PCIe generation came from the GPU's data: measured
// 2026-12-01). The ratio does not depend on the payload scaling (one factor per collective).
TEST_CASE("PAT's channels spread its cross-leaf transfers over the ECMP paths", "[pat]") {
  const auto fabric = topology::build_fabric(test::rail_cluster(4096, 1, topology::FabricKind::Clos3, 64));
  const Layout l = Layout::from(fabric, test::nvlink4_gpu());
  auto busiest_over_nic = [&](int max_channels) {
    Protocol p;
    p.max_channels = max_channels;
    network::Schedule s;
    const Emitted e = emit(s, pat(Op::AllGather, 4096, 1 << 30), l, p);
    REQUIRE(e.channels == (max_channels > 0 ? max_channels : 4));
    for (auto& a : s.activities) a.after.clear();  // one wave: fluid_bound's input
    const auto fb = network::fluid_bound(fabric, s);
    double nic = 0, busiest = 0;
    for (const auto& a : s.activities)
      if (a.gpu == 0) nic += a.amount;  // GPU 0's NIC sends (n-1)/n S x the scaling
    for (std::size_t i = 0; i < fb.link_bytes_fwd.size(); ++i)
      busiest = std::max({busiest, fb.link_bytes_fwd[i], fb.link_bytes_rev[i]});
    return busiest / nic;
  };
  const double split = busiest_over_nic(0);
  const double single = busiest_over_nic(1);
  INFO("busiest link / NIC bytes: " << split << " with NCCL's channels, " << single << " with one");
  CHECK(split <= 1.0 + 1e-9);
  CHECK(single > 1.2);
}

// NCCL's PAT loop moves one chunk of every distance, then the next (PatAGAlgorithm::getNextOp,
// `offset += chunkCount`; chunk 512 KiB = DEFAULT_BUFFSIZE / NCCL_STEPS, src/enqueue.cc
// calcCollChunking, v2.23.4-1). 64 GPUs, 1 GiB: a channel's block is 16 MiB / C = 16 MiB / (512 KiB x C)
// chunks. Stepped, each transfer is its chunks in a row, chunk i after chunk i of the same channel's
// transfer into its source at the previous distance; the whole-distance waves emitted before had
// one repetition, each waiting for all of the previous distance.
TEST_CASE("stepped PAT: dependencies per chunk of NCCL's PAT loop, not per distance", "[pat]") {
  const Layout l = one_gpu_per_node();
  const int n = 64;
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    INFO(op_name(op));
    network::Schedule s;
    const Emitted e = emit(s, pat(op, n, 1 << 30, false), l);
    const int K = (1 << 30) / n / e.channels / (512 * 1024);
    REQUIRE(K >= 2);
    const int first_d = op == Op::AllGather ? n / 2 : 1;
    const auto blocks = blocks_per_distance(n);
    // (channel, destination) of each transfer by distance: transfers are emitted per distance,
    // channel-major, so index within the distance / n is the channel.
    std::map<int, std::vector<int>> by_d;
    for (int a = e.first; a < e.last; ++a) by_d[(s.activities[a].dst_gpu - s.activities[a].gpu + n) % n].push_back(a);
    REQUIRE(by_d.size() == blocks.size());
    for (const auto& [d, ids] : by_d) {
      REQUIRE(ids.size() == static_cast<std::size_t>(e.channels * n));
      const int prev_d = op == Op::AllGather ? 2 * d : d / 2;
      for (std::size_t x = 0; x < ids.size(); ++x) {
        const auto& a = s.activities[ids[x]];
        CHECK(a.repeat == K);
        CHECK(a.after.empty());  // nothing waits for a whole transfer
        CHECK(a.after_previous.empty());
        if (d == first_d) {
          CHECK(a.after_same.empty());
          continue;
        }
        REQUIRE(a.after_same.size() == 1);
        const auto& p = s.activities[a.after_same[0]];
        CHECK(p.dst_gpu == a.gpu);  // chunk i of what came into the source
        CHECK((p.dst_gpu - p.gpu + n) % n == prev_d);
        const auto& pid = by_d.at(prev_d);
        const auto at = std::find(pid.begin(), pid.end(), a.after_same[0]) - pid.begin();
        CHECK(at / n == static_cast<long>(x) / n);  // the same channel
      }
    }
    CHECK_THAT(e.note, Catch::Contains("pipelined in " + std::to_string(K) + " chunks"));
  }
}

// Stepped PAT on a 3-tier Clos (radix 64: 32 GPUs per leaf), 1 GiB, hash ECMP, NCCL's 2 channels:
// inside one leaf it takes NCCL's time (no collisions); across 2 leaves, all-gather's
// whole-distance waves took 1.21x NCCL's (each wave's cross-leaf collisions added up: 64,189.9 vs
// 52,845.6 us), pipelined per chunk 1.002x; reduce-scatter pipelined with equal NIC shares among a
// rank's distances 1.16x (61,543.0 us), with shares in proportion to their blocks 1.006x
// (53,158.1 us) (measured 2026-12-02, docs/benchmarks.md).
TEST_CASE("stepped PAT across leaves keeps NCCL's time", "[pat]") {
  for (Op op : {Op::AllGather, Op::ReduceScatter})
    for (int n : {32, 64}) {
      INFO(op_name(op) << ", " << n << " GPUs");
      const auto fabric = topology::build_fabric(test::rail_cluster(n, 1, topology::FabricKind::Clos3, 64));
      const Layout l = Layout::from(fabric, test::nvlink4_gpu());
      network::Schedule s;
      s.gpu_flops = {1e15};
      const Emitted e = emit(s, pat(op, n, 1 << 30, false), l);
      REQUIRE(e.algorithm == Algorithm::Pat);
      network::FlowNetwork net(fabric);
      CHECK(net.run(s).makespan == Approx(e.time).epsilon(0.01));
    }
}

// NCCL's PatRSAlgorithm issues a rank's sends of one chunk one block at a time in its loop's
// order, so each distance has its blocks' share of the rank's sends; all-gather keeps equal
// shares, and the collapsed emission plain transfers.
TEST_CASE("stepped PAT reduce-scatter shares a rank's NIC by its distances' blocks", "[pat]") {
  const Layout l = one_gpu_per_node();
  const int n = 64;
  const auto blocks = blocks_per_distance(n);
  for (Op op : {Op::AllGather, Op::ReduceScatter})
    for (bool collapse : {false, true}) {
      INFO(op_name(op) << (collapse ? ", collapsed" : ", stepped"));
      network::Schedule s;
      const Emitted e = emit(s, pat(op, n, 1 << 30, collapse), l);
      for (int a = e.first; a < e.last; ++a) {
        const auto& x = s.activities[a];
        const int d = (x.dst_gpu - x.gpu + n) % n;
        CHECK(x.weight == (op == Op::ReduceScatter && !collapse ? blocks.at(d) : 1.0));
      }
    }
}
