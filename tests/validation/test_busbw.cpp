// busbw of simulated all-reduce vs NVIDIA's published nccl-tests figures (published-figures.md
// §4.2-4.3), and the alpha-beta closed forms on an uncongested fabric.
#include <catch2/catch.hpp>

#include <iterator>
#include <numeric>
#include <utility>

#include "models/collectives/closed_form.hpp"
#include "models/collectives/collective.hpp"
#include "models/collectives/nccl_model.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

using namespace aidcsim;
using collectives::Algorithm;
using collectives::Op;

namespace {

BenchOptions dgx(const char* gpu, int nodes, Algorithm a) {
  BenchOptions o;
  o.gpu = builtin_gpus().find(gpu);
  o.fabric.gpus = nodes * 8;
  o.fabric.gpus_per_node = 8;
  o.fabric.nvlink_domain = 8;
  o.fabric.kind = topology::FabricKind::LeafSpine;  // DGX SuperPOD SU: rail-optimised leaves, 1:1
  o.fabric.switch_radix = 64;
  o.fabric.link_rate = 50e9;  // NDR 400 Gb/s
  o.fabric.nic_rate = 50e9;
  o.algorithm = a;
  o.sizes = {8.0 * (1ULL << 30)};  // 8 GiB: the bandwidth plateau of the published curves
  return o;
}

double busbw_gbs(const BenchOptions& o) { return bench_collective(o).back().busbw / 1e9; }

/// Domains of 8 H100 (NVLink 4, 450 GB/s, NVLS) with one 400G NIC per GPU (50 GB/s).
collectives::Layout h100_nvls_layout() {
  collectives::Layout l;
  l.domain_of = [](int gpu) { return gpu / 8; };
  l.nvlink_rate = 450e9;
  l.nic_rate = 50e9;
  l.gpus_per_node = 8;
  l.nvlink_generation = 4;
  l.nvls = true;
  return l;
}

/// An all-reduce of `bytes` (B) by `a` over GPUs 0 .. gpus - 1.
collectives::Collective all_reduce_of(Algorithm a, int gpus, double bytes) {
  collectives::Collective c;
  c.op = Op::AllReduce;
  c.algorithm = a;
  c.gpus.resize(gpus);
  std::iota(c.gpus.begin(), c.gpus.end(), 0);
  c.bytes = bytes;
  return c;
}

/// Pipeline fill of an NVLS / NVLSTree all-reduce of `bytes` over `nodes` domains of 8 H100 (8 x
/// 400G): the execution model's latency less NCCL's own (tuning.cc), in s.
double nvls_fill(Algorithm a, int nodes, double bytes) {
  collectives::Layout l = h100_nvls_layout();
  const collectives::Collective c = all_reduce_of(a, 8 * nodes, bytes);
  const auto sel = collectives::select(c, l);
  collectives::nccl::System sys;
  sys.nvls = true;
  sys.nodes = nodes;
  sys.ranks = 8 * nodes;
  const auto m = collectives::nccl::build_model(sys);
  const auto algo = nodes > 1 ? collectives::nccl::kNvlsTree : collectives::nccl::kNvls;
  return sel.latency - m.latency[collectives::nccl::kAllReduce][algo][collectives::nccl::kSimple] * 1e-6;
}

}  // namespace

TEST_CASE("all-reduce busbw reproduces NVIDIA's published figures within 10 %", "[validation][busbw]") {
  // GTC24 S62129 / GTC25 S72583 slide 12; nccl-tests issue #212.
  CHECK(busbw_gbs(dgx("H100", 1, Algorithm::Ring)) == Approx(370).epsilon(0.10));
  CHECK(busbw_gbs(dgx("H100", 1, Algorithm::Nvls)) == Approx(480).epsilon(0.10));
  CHECK(busbw_gbs(dgx("B200", 1, Algorithm::Ring)) == Approx(700).epsilon(0.10));
  CHECK(busbw_gbs(dgx("B200", 1, Algorithm::Nvls)) == Approx(850).epsilon(0.10));  // GTC25: NVLink5 SHARP
  // DGX H100 multi-node, 8 x 400G per node (GTC25: 32 GPUs): 370-380 ring, 480 with SHARP.
  CHECK(busbw_gbs(dgx("H100", 4, Algorithm::Ring)) == Approx(375).epsilon(0.10));
  // With SHARP: NVLS across domains holds the NVLS busbw of its 8 heads' domain (NCCL 2.28's
  // NVLS rate is a busBw per channel with no node term, to algbw by the ring's ratio at 32 ranks):
  // 490 asymptotically, 487 at 8 GiB, +1.5 %. The domain's algbw unchanged (280 GB/s, busbw 539
  // at 32 GPUs) was +12.3 %, a known miss held at 15 %; NCCL 2.28's table, whose NIC term counts
  // a ring's traffic, gives 384 (-20 %) (docs/validation-busbw.md).
  auto sharp = dgx("H100", 4, Algorithm::Sharp);
  sharp.fabric.sharp = true;
  CHECK(busbw_gbs(sharp) == Approx(480).epsilon(0.10));
  // A100 (no NVLS): NVLink3 232 GB/s (GTC24); auto picks ring.
  const auto a100 = bench_collective(dgx("A100", 1, Algorithm::Auto)).back();
  CHECK(a100.algorithm == "ring");
  CHECK(a100.busbw / 1e9 == Approx(232).epsilon(0.10));
}

TEST_CASE("8 x H200 all-reduce sweep, 32 KiB to 16 GiB, auto (case step/16)", "[validation][busbw]") {
  // stas00/ml-engineering network/benchmarks/results/all-reduce-8xH200.md (NCCL 2.27.7, torch
  // all_reduce_bench.py, 8 x H200 SXM, NVLink 4, measured 2026-08-04): busbw in GB/s per size.
  // Issue 12: within 15 % in busbw from 1 MiB up, within 30 % in time below (latency-bound).
  // 0.1.0 was 3.6x / 2.8x / 1.9x / 1.32x too fast at 1 / 4 / 16 / 64 MiB (no NVLS start-up cost).
  const std::pair<double, double> measured[] = {
      {32768, 1.44},        {65536, 2.93},        {131072, 5.73},       {262144, 11.74},      {524288, 23.94},
      {1048576, 39.93},     {2097152, 64.53},     {4194304, 107.16},    {8388608, 155.53},    {16777216, 219.89},
      {33554432, 275.84},   {67108864, 346.51},   {134217728, 401.93},  {268435456, 436.15},  {536870912, 450.29},
      {1073741824, 463.58}, {2147483648, 469.17}, {4294967296, 473.10}, {8589934592, 477.45}, {17179869184, 482.26}};
  auto o = dgx("H200", 1, Algorithm::Auto);
  o.sizes.clear();
  for (const auto& m : measured) o.sizes.push_back(m.first);
  const auto rows = bench_collective(o);
  REQUIRE(rows.size() == std::size(measured));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double size = measured[i].first, busbw = measured[i].second * 1e9;
    INFO("size " << size << " B: simulated " << rows[i].busbw / 1e9 << " GB/s (" << rows[i].algorithm << "/"
                 << rows[i].proto << "), measured " << measured[i].second << " GB/s");
    if (size >= (1 << 20))
      CHECK(rows[i].busbw == Approx(busbw).epsilon(0.15));
    else  // time = size x factor / busbw, so the time ratio is the inverse busbw ratio
      CHECK(busbw / rows[i].busbw == Approx(1.0).epsilon(0.30));
  }
  // NCCL 2.27.7's choice on that node (same page): Ring/LL up to 1 MiB, NVLS/Simple from 2 MiB.
  CHECK(rows[5].algorithm == "ring");
  CHECK(rows[6].algorithm == "nvls");
}

TEST_CASE("bench rows follow nccl-tests definitions", "[validation][busbw]") {
  auto o = dgx("H100", 1, Algorithm::Ring);
  o.sizes = {1 << 20, 1 << 26};
  const auto rows = bench_collective(o);
  REQUIRE(rows.size() == 2);
  for (const auto& r : rows) {
    CHECK(r.algbw == Approx(r.size / r.time));
    CHECK(r.busbw == Approx(r.algbw * 2.0 * 7 / 8));
    CHECK(r.count == Approx(r.size / 4));
  }
  CHECK(rows[0].busbw < rows[1].busbw);  // latency-bound small messages
  const std::string table = format_bench(o, rows);
  CHECK(table.find("busbw") != std::string::npos);
  CHECK(table.find("67108864") != std::string::npos);
}

TEST_CASE("ring alpha-beta closed form with NCCL's constants holds on an idle fabric within 1 %",
          "[validation][closed-form]") {
  topology::FabricSpec fs;
  fs.gpus = 32;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  fs.nvlink_bandwidth = 450e9;
  fs.kind = topology::FabricKind::LeafSpine;
  const auto fabric = topology::build_fabric(fs);
  network::FlowNetwork net(fabric);
  const auto layout = collectives::Layout::from(fabric, builtin_gpus().find("H100"));
  collectives::Protocol p;
  p.proto = collectives::Proto::Simple;
  for (int n : {8, 32})
    for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter})
      for (double size : {1e6, 1e8, 4e9}) {
        collectives::Collective c;
        c.op = op;
        c.algorithm = Algorithm::Ring;
        c.gpus.resize(n);
        std::iota(c.gpus.begin(), c.gpus.end(), 0);
        c.bytes = size;
        c.collapse = false;
        network::Schedule s;
        s.gpu_flops = {1e15};
        collectives::emit(s, c, layout, p);
        const double sim = net.run(s).makespan;
        // NCCL's ring: latency base + steps x hop, bandwidth = channels x speed x n / steps
        const auto m = collectives::nccl::build_model(collectives::nccl_system(c.gpus, layout, p));
        const auto f = op == Op::AllReduce   ? collectives::nccl::kAllReduce
                       : op == Op::AllGather ? collectives::nccl::kAllGather
                                             : collectives::nccl::kReduceScatter;
        const double cf =
            collectives::nccl::predicted_time(m, f, collectives::nccl::kRing, collectives::nccl::kSimple, size) * 1e-6;
        INFO(collectives::op_name(op) << " n=" << n << " size=" << size);
        CHECK(sim == Approx(cf).epsilon(0.01));
        CHECK(collectives::estimate_time(c, layout, p) == Approx(cf).epsilon(0.01));
      }
}

TEST_CASE("NVLS pipeline fill: one round per warp group, the copies at the domain's NVLS rate", "[validation][busbw]") {
  // src/device/all_reduce.h v2.28.3-1: across domains the NVLSTree kernel has four warp groups
  // (scatter, reduce -> NET, NET -> multimem st, gather); scatter and gather copy to and from the
  // GPU's own NVLS buffer (src/transport/nvls.cc: the `up` peers are ucBuff), so they do not wait
  // on the NIC. 2 x 8 H100, 64 MiB: round = 16 CTAs x 8 heads x 128 KiB = 16 MiB; the domain's
  // NVLS rate 370.8 x 0.85 x 8/9 = 280.2 GB/s, NVLSTree 8 x 57.7 x 16/30 = 246.2 GB/s algbw:
  // 2 x 59.9 + 68.1 = 187.9 us (before: 3 rounds at the NVLSTree rate, 204.4 us).
  const double round = 16.0 * 8 * 128 * 1024;
  const double domain = 370.8 * 0.85 * 8 / 9 * 1e9, tree = 8 * 57.7 * 16 / 30.0 * 1e9;
  CHECK(nvls_fill(Algorithm::NvlsTree, 2, 64.0 * (1 << 20)) == Approx(2 * round / domain + round / tree).epsilon(1e-3));
  // One domain: 3 rounds at the NVLS rate (2 from the warp groups, 1 measured: 8 x H200 sweep
  // above); 128 MiB: 16 CTAs x 8 heads x 64 KiB = 8 MiB a round.
  CHECK(nvls_fill(Algorithm::Nvls, 1, 128.0 * (1 << 20)) == Approx(3 * 8.0 * (1 << 20) / domain).epsilon(1e-3));
}

TEST_CASE("NVLS pipeline fill: a message of one round pays every warp group, as the 4-node run measured",
          "[validation][busbw]") {
  // Issue 12 asked whether a message no larger than one round (CTAs x heads x chunk) should pay one
  // round of fill instead of the warp groups' three. NCCL's kernel says no (src/device/all_reduce.h
  // v2.28.3-1 RunWorkColl NVLS_TREE): each CTA's loop runs a round through scatter -> reduce + NET
  // up -> NET down + multimem st -> gather, one after the other, whatever the number of rounds; a
  // pipeline of k stages costs (k - 1) rounds of fill from one round on. The 4 x 8 H100 sweep of
  // NVIDIA/nccl-tests#309 (qoofyk, 2025-05-23, NVLSTree, out-of-place) agrees: its fixed cost
  // (time - S / 164 GB/s) is 166 / 157 / 171 us at 8 / 16 / 32 MiB, i.e. 1 / 2 / 4 rounds of
  // 16 x 8 x 64 KiB per channel (calcCollChunking: 64 KiB from 4 nodes): no less at one round.
  // The model: 230.2 / 274.8 / 364.1 us against 217.3 / 259.6 / 376.0 measured (+5.9 / +5.9 /
  // -3.2 %); one round of fill would give 155.6 us at 8 MiB (-28 %).
  collectives::Layout l = h100_nvls_layout();
  const std::pair<double, double> measured[] = {{8, 217.3e-6}, {16, 259.6e-6}, {32, 376.0e-6}};
  double fixed[3];
  int k = 0;
  for (const auto& [mib, t] : measured) {
    collectives::Collective c;
    c.op = Op::AllReduce;
    c.algorithm = Algorithm::NvlsTree;
    c.gpus.resize(32);
    std::iota(c.gpus.begin(), c.gpus.end(), 0);
    c.bytes = mib * (1 << 20);
    const auto sel = collectives::select(c, l);
    INFO(mib << " MiB: simulated " << sel.time() * 1e6 << " us, measured " << t * 1e6 << " us");
    CHECK(sel.time() == Approx(t).epsilon(0.10));
    fixed[k++] = sel.latency;
  }
  // The fill does not shrink at one round (8 MiB) against 2 and 4 rounds.
  CHECK(fixed[0] == Approx(fixed[1]));
  CHECK(fixed[0] == Approx(fixed[2]));
}

TEST_CASE("NVLS pipeline fill: the round on the CTAs and chunk NCCL runs (enqueue.cc v2.28.3-1)",
          "[validation][busbw]") {
  // Domains of 8 B200 (NVLink5, 900 GB/s) with one 400G NIC per GPU.
  auto b200 = [](int nodes, bool sharp, double bytes, Algorithm a) {
    collectives::Layout l = h100_nvls_layout();
    l.nvlink_rate = 900e9;
    l.nvlink_generation = 5;
    l.sharp = sharp;
    const collectives::Collective c = all_reduce_of(a, 8 * nodes, bytes);
    const auto sel = collectives::select(c, l);
    const auto sys = collectives::nccl_system(c.gpus, l, {});
    const auto m = collectives::nccl::build_model(sys);
    const auto algo = sel.algorithm == Algorithm::NvlsTree ? collectives::nccl::kNvlsTree : collectives::nccl::kNvls;
    // the fill per byte of the first round: scatter and gather at the domain's NVLS rate, the
    // second NET group at the collective's (collective.cpp nccl_selection)
    const double domain = sys.nvlink_bw * 1e9 * collectives::nccl::nvls_efficiency(sys.compute_capability) * 8 / 9;
    const double bw = bytes / sel.bw_time;
    const double fill = sel.latency - m.latency[collectives::nccl::kAllReduce][algo][collectives::nccl::kSimple] * 1e-6;
    struct R {
      Algorithm algorithm;
      double first;  // B of the first round the fill charges
    };
    return R{sel.algorithm, fill / (2 / std::max(domain, bw) + 1 / bw)};
  };
  const double MiB = 1 << 20;
  // NVLS + SHARP across 4 domains runs on min(nvlsChannels 32, comm->nChannels 16) = 16 CTAs
  // (topoGetAlgoInfo), and calcCollChunking sees those 16 with the whole message (the CollNet
  // branch of scheduleCollTasksToPlan): concurrentOps 16 x 8 heads, 128 KiB -> 64 KiB (16 MiB <
  // 64 x 128 x 128 KiB) -> 32 KiB (< 8 x 128 x 64 KiB): a round of 16 x 8 x 32 KiB = 4 MiB. The
  // old code took 32 CTAs: 8 MiB, twice the fill (143.9 us against 115.3).
  const auto sharp = b200(4, true, 16 * MiB, Algorithm::Auto);
  REQUIRE(sharp.algorithm == Algorithm::Nvls);
  CHECK(sharp.first == Approx(4 * MiB).epsilon(1e-6));
  // 256 MiB: 128 KiB -> 64 KiB (< 64 x 128 x 128 KiB = 1 GiB), not 32 KiB (>= 8 x 128 x 64 KiB):
  // 16 x 8 x 64 KiB = 8 MiB (32 CTAs: 16 MiB).
  CHECK(b200(4, true, 256 * MiB, Algorithm::Auto).first == Approx(8 * MiB).epsilon(1e-6));
  // NVLSTree on 128 x 8 B200, 16 MiB: 32 CTAs of 512 KiB, calcCollChunking per channel (64 KiB
  // from 4 nodes; 512 KiB < 1 x 8 x 64 KiB is false) -> one loop of 8 heads x 64 KiB per CTA: the
  // whole message is one round, and it pays that round's four warp groups in series (test above).
  const auto tree = b200(128, false, 16 * MiB, Algorithm::NvlsTree);
  REQUIRE(tree.algorithm == Algorithm::NvlsTree);
  CHECK(tree.first == Approx(16 * MiB).epsilon(1e-6));
  // Below one round the first round is the message (4 MiB: 128 KiB a channel, 32 KiB chunks, a
  // round of 32 x 8 x 32 KiB = 8 MiB); 64 MiB runs 4 rounds of 32 x 8 x 64 KiB.
  CHECK(b200(128, false, 4 * MiB, Algorithm::NvlsTree).first == Approx(4 * MiB).epsilon(1e-6));
  CHECK(b200(128, false, 64 * MiB, Algorithm::NvlsTree).first == Approx(16 * MiB).epsilon(1e-6));
}
