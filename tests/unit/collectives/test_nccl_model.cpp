// NCCL's cost model and tuner (nccl_model.hpp) against hand-worked values of NCCL's own code
// (tuning.cc / search.cc v2.23.4-1, sm100 entries of v2.27.7-1) and NCCL's documented choices.
#include <catch2/catch.hpp>

#include "models/collectives/nccl_model.hpp"

using namespace aidcsim::collectives::nccl;

namespace {
System node(int gen, double nvlink_line_gbs, int gpus = 8) {
  System s;
  s.ranks = gpus;
  s.nodes = 1;
  s.compute_capability = compute_capability(gen);
  s.nvlink_bw = nvlink_line_gbs / (gen >= 5 ? 50.0 : 25.0) * nvlink_link_bw(gen);
  s.nvls = gen >= 4;
  return s;
}
}  // namespace

TEST_CASE("NCCL graphs: channels and speeds as NCCL's search finds them") {
  // H100: 18 NVLink4 links x 20.6 = 370.8 GB/s; ring 6 x 60 (sm90 speeds), duplicated to 12 x 30.
  auto h100 = build_model(node(4, 450));
  CHECK(h100.sys.nvlink_bw == Approx(370.8));
  CHECK(h100.graph[kRing].channels == 12);
  CHECK(h100.graph[kRing].bw_intra == Approx(30));
  // NVLS: 8 heads, the head GPU pulls 2 x bw: 9 bw <= 370.8 -> 40 GB/s
  CHECK(h100.graph[kNvls].channels == 8);
  CHECK(h100.graph[kNvls].bw_intra == Approx(40));
  CHECK(h100.channels == 24);  // ncclTopoPostset doubles; "24 coll channels" on DGX H100
  // A100: 12 x 20 = 240; 6 x 40 covers totalBw, duplicated (cc 80) to 12 x 20; no NVLS.
  auto a100 = build_model(node(3, 300));
  CHECK(a100.graph[kRing].channels == 12);
  CHECK(a100.graph[kRing].bw_intra == Approx(20));
  CHECK(a100.graph[kNvls].channels == 0);
  // B200 (2.27 sm100 speeds, 18 x 40.1): ring 8 x 90 -> 16 x 45; NVLS 8 x 80.
  auto b200 = build_model(node(5, 900));
  CHECK(b200.graph[kRing].channels == 16);
  CHECK(b200.graph[kRing].bw_intra == Approx(45));
  CHECK(b200.graph[kNvls].bw_intra == Approx(80));
  // DGX H100 multi-node: 8 NICs of 50 GB/s behind PCIe Gen5 (48): 8 rings at 48 GB/s, no dup.
  System dgx = node(4, 450, 32);
  dgx.nodes = 4;
  auto m = build_model(dgx);
  CHECK(m.graph[kRing].channels == 8);
  CHECK(m.graph[kRing].bw_inter == Approx(48));
  CHECK(m.graph[kNvls].bw_intra == Approx(40));
  CHECK(m.graph[kNvls].bw_inter == Approx(48));
}

TEST_CASE("NCCL tables: bandwidths and latencies of tuning.cc") {
  auto m = build_model(node(4, 450));
  // Ring Simple busBw 12 x 30 = 360 -> algbw 360 x 8 / 14; latency 8.4 + 14 x 3.4
  CHECK(m.bandwidth[kAllReduce][kRing][kSimple] == Approx(360.0 * 8 / 14));
  CHECK(m.latency[kAllReduce][kRing][kSimple] == Approx(8.4 + 14 * 3.4));
  // Ring LL: min(llMaxBw 141, 360 / 2); latency 6.6 + 14 x 0.6
  CHECK(m.bandwidth[kAllReduce][kRing][kLL] == Approx(141.0 * 8 / 14));
  CHECK(m.latency[kAllReduce][kRing][kLL] == Approx(6.6 + 14 * 0.6));
  // Ring LL128: min(0.92 x 360, 12 x 36.7)
  CHECK(m.bandwidth[kAllReduce][kRing][kLL128] == Approx(0.92 * 360 * 8 / 14));
  // NVLS: 8 x 40 x 5/6, 25 us
  CHECK(m.bandwidth[kAllReduce][kNvls][kSimple] == Approx(320.0 * 5 / 6));
  CHECK(m.latency[kAllReduce][kNvls][kSimple] == Approx(25));
  CHECK(m.bandwidth[kAllReduce][kNvls][kLL] == 0);          // NVLS is Simple only
  CHECK(m.bandwidth[kAllReduce][kNvlsTree][kSimple] == 0);  // one node
  CHECK(m.bandwidth[kAllReduce][kCollNetDirect][kSimple] == 0);
  CHECK(m.bandwidth[kAllGather][kTree][kSimple] == 0);  // tree is all-reduce only
  // measured LL hop override (execution model) changes only LL over NVLink
  System x = node(4, 450);
  x.ll_nvlink_hop = 2.0;
  auto e = build_model(x);
  CHECK(e.latency[kAllReduce][kRing][kLL] == Approx(6.6 + 14 * 2.0));
  CHECK(e.latency[kAllReduce][kRing][kSimple] == Approx(m.latency[kAllReduce][kRing][kSimple]));
  CHECK(e.latency[kAllReduce][kTree][kLL] == Approx(m.latency[kAllReduce][kTree][kLL]));  // ring only
}

TEST_CASE("NCCL tuner picks what NCCL picks") {
  auto m = build_model(node(4, 450));
  // 8 x H200, NCCL 2.27.7 (ml-engineering all-reduce-8xH200.md): Ring/LL up to 1 MiB, NVLS from 2 MiB.
  for (double s : {8.0, 4096.0, 65536.0, 1048576.0}) {
    const auto c = choose(m, kAllReduce, s);
    INFO(s);
    CHECK(c.algo == kRing);
    CHECK(c.proto == kLL);
  }
  for (double s : {2097152.0, 67108864.0, 8589934592.0}) {
    const auto c = choose(m, kAllReduce, s);
    INFO(s);
    CHECK(c.algo == kNvls);
    CHECK(c.channels == 16);  // nvlsChannels
  }
  // small messages shed channels (topoGetAlgoInfo): 32 KiB ring LL -> 1 channel
  CHECK(choose(m, kAllReduce, 32768).channels == 1);
  CHECK(choose(m, kAllReduce, 1 << 20).channels == 24);
  // all-gather: ring (NVLS all-gather is not faster by NCCL's model at these sizes? it is Simple only)
  const auto ag = choose(m, kAllGather, 1 << 30);
  CHECK((ag.algo == kRing || ag.algo == kNvls));
  // restricted: ring only
  Allowed ring;
  ring.algo.fill(false);
  ring.algo[kRing] = true;
  CHECK(choose(m, kAllReduce, 1 << 30, ring).algo == kRing);
  CHECK(choose(m, kAllReduce, 1 << 30, ring).proto == kSimple);
  // A100: no NVLS
  CHECK(choose(build_model(node(3, 300)), kAllReduce, 1 << 30).algo == kRing);
}

TEST_CASE("NCCL tuner at scale: tree for latency, NVLSTree / ring for bandwidth") {
  System s = node(4, 450, 8192);
  s.nodes = 1024;
  auto m = build_model(s);
  // 1024 nodes: a ring has 2 x 1023 network steps; the tree's latency is logarithmic
  CHECK(choose(m, kAllReduce, 65536).algo == kTree);
  CHECK(predicted_time(m, kAllReduce, kRing, kLL, 65536) > 10 * predicted_time(m, kAllReduce, kTree, kLL, 65536));
  // large messages with NVLS GPUs: NVLSTree (NCCL's default on H100 clusters without SHARP)
  CHECK(choose(m, kAllReduce, 1 << 30).algo == kNvlsTree);
  s.nvls = false;
  CHECK(choose(build_model(s), kAllReduce, 1 << 30).algo != kNvlsTree);
  // with SHARP: NVLS across nodes (NVLS + CollNet) or CollNet
  s.nvls = true;
  s.collnet = true;
  const auto c = choose(build_model(s), kAllReduce, 1 << 30);
  CHECK((c.algo == kNvls || c.algo == kCollNetDirect || c.algo == kCollNetChain));
}

TEST_CASE("NCCL model input errors") {
  System s;
  s.ranks = 12;
  s.nodes = 5;
  CHECK_THROWS(build_model(s));
  s.ranks = 0;
  CHECK_THROWS(build_model(s));
}
