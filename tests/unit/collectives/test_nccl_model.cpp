// NCCL's cost model and tuner (nccl_model.hpp) against hand-worked values of NCCL's own code
// (tuning.cc / enqueue.cc / search.cc / connect.cc v2.28.3-1) and NCCL's documented choices.
#include <algorithm>

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
  // NVLS (tuning.cc v2.28.3-1): per channel min(40 x 0.85 x 7/8 x 2, bwInter 60) = 59.5, 8 heads,
  // the ring's ratio 8 / 14; 25 us. (v2.23.4-1: 8 x 40 x 5/6 = 266.7.)
  CHECK(m.bandwidth[kAllReduce][kNvls][kSimple] == Approx(8 * 59.5 * 8 / 14));
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

TEST_CASE("NCCL tables equal NCCL 2.29.2's own printout on 4 x H100 of an NVSwitch node") {
  // waynehacking8/nccl-collectives-bench results/scaling_attributed/g4_auto.log: NCCL 2.29.2
  // (`NCCL version 2.29.2+cuda13.1`), `all_reduce_perf -g 4` on 4 H100 80GB HBM3 of an 8-GPU
  // NVSwitch host, NCCL_DEBUG_SUBSYS=TUNING: NCCL prints latency (us) / bandwidth (GB/s) per
  // function x algorithm x protocol to one decimal ("24 coll channels, 16 nvls channels",
  // "threadThresholds 8/8/64 | 32/8/64"). The port (tag v2.28.3-1, whose tables 2.29.2 keeps for
  // Hopper but NVLSTree's NET latency) prints the same table, NVLS included: per channel
  // min(60 x 0.85 x 3/4 x 2, 60) for all-reduce (160.0 algbw), 60 x 0.85 x 3/4 x 3/4 for
  // all-gather / reduce-scatter (114.8). The v2.23.4-1 port printed 200.0 (4 x 60 x 5/6) and no
  // NVLS all-gather row to match.
  const auto m = build_model(node(4, 450, 4));
  CHECK(m.channels == 24);
  CHECK(m.nvls_channels == 16);
  CHECK(m.thread_threshold[kTree][kLL] == 8);
  CHECK(m.thread_threshold[kRing][kLL] == 32);
  CHECK(m.thread_threshold[kRing][kSimple] == 64);
  struct Row {
    Func f;
    Algo a;
    Proto p;
    double lat, bw;
  };
  const Row printed[] = {{kBroadcast, kRing, kLL, 7.2, 141.0},         {kBroadcast, kRing, kLL128, 15.9, 331.2},
                         {kBroadcast, kRing, kSimple, 11.8, 360.0},    {kReduce, kRing, kLL, 7.2, 141.0},
                         {kReduce, kRing, kSimple, 11.8, 360.0},       {kAllGather, kRing, kLL, 8.4, 188.0},
                         {kAllGather, kRing, kLL128, 19.7, 441.6},     {kAllGather, kRing, kSimple, 18.6, 480.0},
                         {kReduceScatter, kRing, kLL, 8.4, 188.0},     {kReduceScatter, kRing, kSimple, 18.6, 480.0},
                         {kAllReduce, kTree, kLL, 10.4, 43.6},         {kAllReduce, kTree, kLL128, 21.5, 128.8},
                         {kAllReduce, kTree, kSimple, 32.4, 165.6},    {kAllReduce, kRing, kLL, 10.2, 94.0},
                         {kAllReduce, kRing, kLL128, 25.4, 220.8},     {kAllReduce, kRing, kSimple, 28.8, 240.0},
                         {kAllReduce, kNvls, kSimple, 25.0, 160.0},    {kAllGather, kNvls, kSimple, 25.0, 114.8},
                         {kReduceScatter, kNvls, kSimple, 25.0, 114.8}};
  for (const auto& r : printed) {
    INFO(int(r.f) << " " << algo_name(r.a) << "/" << proto_name(r.p));
    CHECK(m.latency[r.f][r.a][r.p] == Approx(r.lat).margin(0.051));
    CHECK(m.bandwidth[r.f][r.a][r.p] == Approx(r.bw).margin(0.051));
  }
  // printed as 0 bandwidth: tree for non-all-reduce, NVLSTree on one node, CollNet without SHARP, PAT
  CHECK(m.bandwidth[kAllGather][kTree][kSimple] == 0);
  CHECK(m.bandwidth[kAllReduce][kNvlsTree][kSimple] == 0);
  CHECK(m.bandwidth[kAllReduce][kCollNetDirect][kSimple] == 0);
  CHECK(m.bandwidth[kAllReduce][kCollNetChain][kSimple] == 0);
  CHECK(m.bandwidth[kAllGather][kPat][kSimple] == 0);
  // So by NCCL 2.29.2's printed table its choice at 2 MiB is ring/LL, 32.5 us predicted (LL128
  // 34.9, Simple 37.5, NVLS 38.1): the 4 x H100 sweep's 2 MiB point (same library) ran ring/LL.
  const auto c = choose(m, kAllReduce, 2097152);
  CHECK(c.algo == kRing);
  CHECK(c.proto == kLL);
  CHECK(c.time == Approx(10.2 + 2097152 / (1000 * 94.0)).epsilon(1e-3));
  CHECK(choose(m, kAllReduce, 4194304).proto == kLL128);
  // the log's own choices, 256 MiB to 8 GiB: "Algo RING proto SIMPLE channel{Lo..Hi}={0..23}"
  for (double s : {268435456.0, 1073741824.0, 8589934592.0}) {
    const auto big = choose(m, kAllReduce, s);
    CHECK(big.algo == kRing);
    CHECK(big.proto == kSimple);
    CHECK(big.channels == 24);
  }
}

TEST_CASE("NCCL per-hop latencies, the measured LL hop inside one node only, bandwidth on fewer channels") {
  // 4,096 H100 on 512 nodes, 8 x 400G NICs (NET speed 48: PCIe Gen5): ring graph 8 channels of
  // 48 GB/s (search.cc: 8 x 48 >= 370.8, no dup below 50 GB/s on Hopper with > 4 channels).
  System s = node(4, 450, 4096);
  s.nodes = 512;
  s.ll_nvlink_hop = 2.0;  // the execution model's measured hop: not charged across nodes
  const auto m = build_model(s);
  REQUIRE(m.graph[kRing].channels == 8);
  REQUIRE(m.graph[kRing].bw_inter == Approx(48));
  // Ring / LL (tuning.cc 2.23): intraLat = max(hwLat NVLINK 0.6, net overhead 1.0), interLat =
  // hwLat NET 2.7; 8,190 steps of which 1,022 cross nodes.
  CHECK(m.hop_latency[kAllReduce][kRing][kLL][0] == Approx(1.0));
  CHECK(m.hop_latency[kAllReduce][kRing][kLL][1] == Approx(2.7));
  CHECK(m.latency[kAllReduce][kRing][kLL] == Approx(6.6 + 7168 * 1.0 + 1022 * 2.7));
  // Tree / LL: hwLat NVLINK 0.6, NET 5.0
  CHECK(m.hop_latency[kAllReduce][kTree][kLL][0] == Approx(0.6));
  CHECK(m.hop_latency[kAllReduce][kTree][kLL][1] == Approx(5.0));
  // LL busbw: min(llMaxBw 20.4 (> 2 nodes, Intel row), channels x 48 x 0.5): the cap holds on 4
  // channels (96 > 20.4), the Simple bandwidth scales with them.
  const double ll = m.bandwidth[kAllReduce][kRing][kLL];
  CHECK(ll == Approx(20.4 * 4096 / 8190));
  CHECK(bandwidth_on(m, kAllReduce, kRing, kLL, 4) == Approx(ll));
  CHECK(bandwidth_on(m, kAllReduce, kRing, kLL, 1) == Approx(20.4 * 4096 / 8190));  // 24 > 20.4
  CHECK(bandwidth_on(m, kAllReduce, kRing, kSimple, 4) == Approx(m.bandwidth[kAllReduce][kRing][kSimple] / 2));
  CHECK(bandwidth_on(m, kAllReduce, kRing, kSimple, 8) == Approx(m.bandwidth[kAllReduce][kRing][kSimple]));
  // 64 MiB, ring (NCCL_ALGO=Ring, as bench-collective --algo ring): LL on 4 channels (the
  // thread threshold 8 x 4096 x 512 B a channel)
  Allowed ring;
  ring.algo.fill(false);
  ring.algo[kRing] = true;
  const auto c = choose(m, kAllReduce, 67108864.0, ring);
  CHECK(c.algo == kRing);
  CHECK(c.proto == kLL);
  CHECK(c.channels == 4);
  CHECK(c.time == Approx(6.6 + 7168 + 1022 * 2.7 + 67108864.0 / (1000 * ll)));  // 16,511.7 us
  // On one node the measured hop is charged; NCCL's own table keeps 0.6.
  System one = node(4, 450);
  one.ll_nvlink_hop = 2.0;
  CHECK(build_model(one).hop_latency[kAllReduce][kRing][kLL][0] == Approx(2.0));
  CHECK(build_model(one).hop_latency[kAllReduce][kRing][kLL][1] == Approx(2.0));  // no network hop
  CHECK(build_model(node(4, 450)).hop_latency[kAllReduce][kRing][kLL][0] == Approx(0.6));
}

TEST_CASE("NVLS CTAs and heads by architecture and domain (nvls.cc 2.27.7, search.cc 2.26.2 on)") {
  // ncclNvlsInit (transport/nvls.cc v2.27.3-1 .. v2.30.7-1): NVLS_NCHANNELS_SM90 16; Blackwell
  // NVLS_NCHANNELS_SM100_NVL 24 inside one NVLink domain, NVLS_NCHANNELS_SM100 32 across them.
  // Before, 16 everywhere (v2.23's NCCL_NVLS_NCHANNELS).
  CHECK(build_model(node(4, 450)).nvls_channels == 16);
  CHECK(build_model(node(5, 900)).nvls_channels == 24);
  const auto nvl72 = build_model(node(5, 900, 72));
  CHECK(nvl72.nvls_channels == 24);
  System two = node(5, 900, 16);
  two.nodes = 2;
  two.collnet = true;
  CHECK(build_model(two).nvls_channels == 32);
  System h2 = node(4, 450, 16);
  h2.nodes = 2;
  CHECK(build_model(h2).nvls_channels == 16);
  // 72 GPUs in one domain: NCCL_MAX_NVLS_ARITY = 32 heads; (32 + 1) x 20 <= 721.8 GB/s
  CHECK(nvl72.graph[kNvls].channels == 32);
  CHECK(nvl72.graph[kNvls].bw_intra == Approx(20));
  // NVLS all-reduce runs on the NVLS CTAs, whatever comm->nChannels
  CHECK(choose(nvl72, kAllReduce, 8.0 * (1 << 30)).algo == kNvls);
  CHECK(choose(nvl72, kAllReduce, 8.0 * (1 << 30)).channels == 24);
}

TEST_CASE("NCCL's own one-domain NVLS table rises with the GPUs (tuning.cc / search.cc v2.28.3-1)") {
  // The NVL72 known miss (docs/validation-busbw.md "Blackwell NVLS"): measured busbw is flat at
  // 8, 32 and 72 GPUs (850 / 850 / 840.7). NCCL's own table is not: per head channel
  // min(bwIntra x nvlsEfficiency x (ch - 1)/ch x 2, bwInter) as busBw, converted to algbw with the
  // ring's ratio g / (2 (g - 1)). busBw as nccl-tests would print it, per GPU count:
  auto busbw = [](int gen, double line, int g) {
    return build_model(node(gen, line, g)).bandwidth[kAllReduce][kNvls][kSimple] * 2.0 * (g - 1) / g;
  };
  // Blackwell: 8 GPUs bwIntra 80 (9 x 80 <= 721.8), bwInter raised to the array's top 90 in pass 2,
  // which binds (80 x 0.74 x 7/8 x 2 = 103.6): 720. 32 and 72 GPUs: 32 heads, bwIntra 20.
  CHECK(busbw(5, 900, 8) == Approx(8 * 90.0));
  CHECK(busbw(5, 900, 32) == Approx(32 * 20 * 0.74 * 31 / 32 * 2));  // 917.6
  CHECK(busbw(5, 900, 72) == Approx(32 * 20 * 0.74 * 31 / 32 * 2));
  // Hopper, 4 to 8 GPUs (nccl#1455 measures 370 / 420 / 440 / 460 / 480 with NCCL_ALGO=NVLS):
  // bwInter capped at the sm90 array's top 60, bwIntra the array's speed with (g + 1) x it <= 370.8.
  CHECK(busbw(4, 450, 4) == Approx(4 * 60.0));
  CHECK(busbw(4, 450, 5) == Approx(5 * 60.0));
  CHECK(busbw(4, 450, 6) == Approx(6 * 60.0));
  CHECK(busbw(4, 450, 7) == Approx(7 * 40 * 0.85 * 6 / 7 * 2));  // 408
  CHECK(busbw(4, 450, 8) == Approx(8 * 40 * 0.85 * 7 / 8 * 2));  // 476
}

TEST_CASE("NCCL 2.28.3-1 tuner: constants and rules that changed from 2.23.4-1") {
  // Blackwell beyond 2 nodes: perChMaxTreeBws 24.0 (tuning.cc v2.28.3-1; 2 x Hopper's 36 = 72 in
  // the v2.27.7-1 rows the port had), so the tree no longer carries large all-reduces at scale and
  // NVLSTree does (8 heads x min(80 x 0.74 x 7/8 x 2, 48, perChMaxNVLSTreeBw 43.1)).
  System b = node(5, 900, 1024);
  b.nodes = 128;
  const auto mb = build_model(b);
  REQUIRE(mb.graph[kTree].channels == 8);  // 8 rails x 48 GB/s (NET speed min(400G, PCIe Gen5))
  CHECK(mb.bandwidth[kAllReduce][kTree][kSimple] == Approx(std::min(8 * 48 * .92, 8 * 24.0) * .5));
  CHECK(nvls_tree_busbw(mb) == Approx(8 * 43.1));
  CHECK(choose(mb, kAllReduce, 1 << 30).algo == kNvlsTree);  // v2.23.4-1 / 2.27.7-1 rows: tree
  CHECK(choose(mb, kAllReduce, 65536).algo == kTree);
  // ncclTopoPostset (connect.cc v2.28.3-1) no longer raises nChannels to nvlsChannels (32 here)
  CHECK(mb.channels == 16);
  CHECK(mb.nvls_channels == 32);
  // PAT (one GPU per node): busBw x .75 (v2.23.4-1: .85); baseLat 8 + hwLat NET 14 / 3.5 per
  // log2 node + 2.8 per rank; no maxThreads entry, so it never sheds channels.
  System one = node(4, 450, 64);
  one.nodes = 64;
  const auto mp = build_model(one);
  const auto& rg = mp.graph[kRing];
  CHECK(mp.bandwidth[kAllGather][kPat][kSimple] == Approx(rg.channels * rg.bw_inter * .75));
  CHECK(mp.latency[kAllGather][kPat][kSimple] == Approx(8 + 6 * 14 / 3.5 + 64 * 2.8));
  CHECK(mp.hop_latency[kAllGather][kPat][kSimple][0] == Approx(4.0));  // hwLat NVLINK PAT (new)
  const auto small = choose(mp, kAllGather, 8192);
  REQUIRE(small.algo == kPat);
  CHECK(small.channels == mp.channels);  // the v2.23.4-1 port shed them to 1
  // tree of one GPU per node: the search's TREE pattern, busBw x .85 (tuning.cc, maxTreePattern)
  CHECK(mp.bandwidth[kAllReduce][kTree][kSimple] ==
        Approx(std::min(rg.channels * rg.bw_inter * .92, rg.channels * 36.0) * .85 * .5));
  // CollNet direct and chain: <= 8 GPUs a node (enqueue.cc updateCollCostTable; chain new in
  // 2.28): a 72-GPU NVL72 domain with SHARP has neither, NVLS (+ SHARP) carries the all-reduce.
  System r = node(5, 900, 72 * 4);
  r.nodes = 4;
  r.collnet = true;
  const auto mr = build_model(r);
  CHECK(mr.bandwidth[kAllReduce][kCollNetDirect][kSimple] == 0);
  CHECK(mr.bandwidth[kAllReduce][kCollNetChain][kSimple] == 0);
  CHECK(choose(mr, kAllReduce, 1 << 30).algo == kNvls);
  // NVLS on one node of more than NCCL_MAX_NVLS_ARITY GPUs: all-reduce only (enqueue.cc)
  const auto nvl72 = build_model(node(5, 900, 72));
  CHECK(nvl72.bandwidth[kAllReduce][kNvls][kSimple] > 0);
  CHECK(nvl72.bandwidth[kAllGather][kNvls][kSimple] == 0);
  CHECK(build_model(node(5, 900, 8)).bandwidth[kAllGather][kNvls][kSimple] > 0);
  // CollNet direct needs NVSwitches (nvsCount); NVLS / CollNet all-gather across nodes need the
  // CollNet plugin's iallgather (System::collnet_allgather) and 1:1 GPU:NIC.
  System c = node(4, 450, 32);
  c.nodes = 4;
  c.collnet = true;
  CHECK(build_model(c).bandwidth[kAllReduce][kCollNetDirect][kSimple] > 0);
  CHECK(build_model(c).bandwidth[kAllGather][kNvls][kSimple] == 0);
  c.collnet_allgather = true;
  // NVLS all-gather busBw: 8 heads x min(40 x 0.85 x 7/8 x 7/8, 48) (no algbw ratio for all-gather)
  CHECK(build_model(c).bandwidth[kAllGather][kNvls][kSimple] == Approx(8 * 40 * .85 * 7 / 8 * 7 / 8));
  CHECK(build_model(c).bandwidth[kAllGather][kCollNetDirect][kSimple] == Approx(8 * std::min(48.0, 48 * 0.9)));
  c.nics = 4;
  CHECK(build_model(c).bandwidth[kAllGather][kNvls][kSimple] == 0);  // 8 GPUs on 4 heads
  c.nics = 8;
  c.nvswitch = false;
  CHECK(build_model(c).bandwidth[kAllReduce][kCollNetDirect][kSimple] == 0);
  // NVLS across nodes runs on min(nvlsChannels, nChannels) CTAs (topoGetAlgoInfo v2.28.3-1)
  System bs = node(5, 900, 32);
  bs.nodes = 4;
  bs.collnet = true;
  const auto mbs = build_model(bs);
  REQUIRE(choose(mbs, kAllReduce, 1 << 30).algo == kNvls);
  CHECK(choose(mbs, kAllReduce, 1 << 30).channels == std::min(mbs.nvls_channels, mbs.channels));
  CHECK(choose(mbs, kAllReduce, 1 << 30).channels == 16);
}

TEST_CASE("NCCL 2.28.3-1 per-call rules: fp8 relegates the ring above 8 ranks, no PAT reduce-scatter with avg") {
  // enqueue.cc v2.28.3-1 updateCollCostTable. 4 x 8 H100, 8 GiB all-reduce: the ring by time.
  System s = node(4, 450, 32);
  s.nodes = 4;
  const auto m = build_model(s);
  const double S = 8.0 * (1 << 30);
  REQUIRE(choose(m, kAllReduce, S).algo == kRing);
  Call fp8;
  fp8.fp8 = true;
  const auto c = choose(m, kAllReduce, S, {}, fp8);
  CHECK(c.algo == kNvlsTree);
  CHECK(c.time == Approx(predicted_time(m, kAllReduce, kNvlsTree, kSimple, S)));            // unscaled
  CHECK(choose(build_model(node(4, 450, 8)), kAllReduce, 1 << 30, {}, fp8).algo == kNvls);  // 8 ranks: no rule
  // the ring stays when nothing else may run (fp8 all-gather across nodes: ring only)
  CHECK(choose(m, kAllGather, S, {}, fp8).algo == kRing);
  // reduce-scatter with a scaling op (avg): no PAT; all-gather keeps it
  System one = node(4, 450, 64);
  one.nodes = 64;
  const auto mp = build_model(one);
  REQUIRE(choose(mp, kReduceScatter, 8192).algo == kPat);
  Call avg;
  avg.scaling_op = true;
  CHECK(choose(mp, kReduceScatter, 8192, {}, avg).algo == kRing);
  CHECK(choose(mp, kAllGather, 8192, {}, avg).algo == kPat);
}

TEST_CASE("Tree graph: search pass 2 raises bwIntra alone (search.cc v2.28.3-1 lines 1155-1158)") {
  // 8 x A100 per node, four 200G NICs (25 GB/s) behind PCIe Gen4 (24): the ring is 4 x 24 on
  // every node count. The tree (pattern BALANCED_TREE, min = max = 4 channels) starts pass 2 at
  // bwInter 24 and climbs bwIntra 28, 30, 48 (48 = 2 x 24 stops it): 4 x 48 fits the NVLink.
  System a = node(3, 300, 16);
  a.nodes = 2;
  a.nics = 4;
  a.nic_bw = 25;
  a.pci_bw = 24;
  const auto m2 = build_model(a);
  REQUIRE(m2.graph[kRing].channels == 4);
  CHECK(m2.graph[kRing].bw_intra == Approx(24));
  CHECK(m2.graph[kRing].bw_inter == Approx(24));
  CHECK(m2.graph[kTree].channels == 4);
  CHECK(m2.graph[kTree].bw_inter == Approx(24));
  CHECK(m2.graph[kTree].bw_intra == Approx(48));
  // 2 nodes: the tuner takes bwIntra (tuning.cc: nNodes <= 2): min(4 x 48 x .92, 4 x 23.6) x .5
  // = 47.2 GB/s algbw (ring's bwIntra 24 gave 4 x 24 x .92 x .5 = 44.16); the ring's 51.2 wins.
  CHECK(m2.bandwidth[kAllReduce][kTree][kSimple] == Approx(4 * 23.6 * .5));
  const double big = 4294967296.0;
  CHECK(predicted_time(m2, kAllReduce, kTree, kSimple, big) ==
        Approx(m2.latency[kAllReduce][kTree][kSimple] + big / (47.2 * 1e3)));
  CHECK(choose(m2, kAllReduce, big).algo == kRing);
  // 3 nodes: the search does not know the node count, so the graph is the same; the tuner takes
  // bwInter: min(4 x 24 x .92, 4 x 17.8) x .5 = 35.6.
  a.ranks = 24;
  a.nodes = 3;
  const auto m3 = build_model(a);
  CHECK(m3.graph[kTree].bw_intra == Approx(48));
  CHECK(m3.graph[kTree].bw_inter == Approx(24));
  CHECK(m3.bandwidth[kAllReduce][kTree][kSimple] == Approx(4 * 17.8 * .5));
  // One GPU per node: no NVLink bound, bwIntra climbs to 48. PAT uses the tree graph (init.cc
  // graphs[] table), so on 2 nodes its all-gather bandwidth is 4 x 48 x .75 (the old copy of the
  // ring's graph: 4 x 24 x .75).
  System one = node(3, 300, 2);
  one.nodes = 2;
  one.nics = 4;
  one.nic_bw = 25;
  one.pci_bw = 24;
  const auto mp = build_model(one);
  CHECK(mp.graph[kTree].bw_intra == Approx(48));
  CHECK(mp.graph[kPat].bw_intra == Approx(48));
  REQUIRE(mp.graph[kPat].channels == 4);
  CHECK(mp.bandwidth[kAllGather][kPat][kSimple] == Approx(4 * 48 * .75));
}
