// All-reduce busbw against published figures beyond the calibration points of test_busbw.cpp:
// 8 x H100 by GPUs per node, multi-node H100 / H200 clusters, and the tuner at 1K-32K GPUs
// (issue 12). Sources and set-ups are next to each figure; docs/validation-busbw.md has the tables.
#include <catch2/catch.hpp>

#include "models/topology/fabric.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

using namespace aidcsim;
using collectives::Algorithm;

namespace {

/// `nodes` HGX / DGX-like servers of `gpn` GPUs, one 400 Gb/s NIC per GPU, rail-optimised
/// 3-tier Clos of 64-port switches at 1:1 (the CLI's defaults), one message size.
BenchOptions hgx(const char* gpu, int nodes, int gpn, Algorithm a, double bytes) {
  BenchOptions o;
  o.gpu = builtin_gpus().find(gpu);
  o.fabric.gpus = nodes * gpn;
  o.fabric.gpus_per_node = gpn;
  o.fabric.nvlink_domain = gpn;
  o.fabric.kind = topology::FabricKind::Clos3;
  o.fabric.switch_radix = 64;
  o.fabric.link_rate = 50e9;  // NDR 400 Gb/s
  o.fabric.nic_rate = 50e9;
  o.algorithm = a;
  o.sizes = {bytes};
  return o;
}

BenchRow run(const BenchOptions& o) { return bench_collective(o).back(); }

constexpr double GiB = 1024.0 * 1024 * 1024;

}  // namespace

TEST_CASE("8 x H100 all-reduce busbw by GPUs per node, ring and NVLS (NVIDIA/nccl#1455)", "[validation][busbw]") {
  // NVIDIA/nccl#1455 (2024-09-19): 8 x H100 SXM, NGC PyTorch container, nccl-tests
  // `NCCL_ALGO=[ALGO] all_reduce_perf -b 2G -e 4G -f 2 -g [gpus]`: ring 365-370 GB/s busbw for 2 to
  // 8 GPUs; NVLS 370 at 4 GPUs, then 420 / 440 / 460 / 480 at 5 / 6 / 7 / 8 (algbw 258 to 273).
  // Together with NVIDIA's 480 (nccl-tests#212, sjeaugey) and 476 with the default algorithm on
  // 8 x H100 (nccl-tests#290, AddyLaddy: "in the expected range for H100").
  const double nvls[] = {370, 420, 440, 460, 480};
  for (int g = 2; g <= 8; ++g) {
    INFO(g << " GPUs");
    CHECK(run(hgx("H100", 1, g, Algorithm::Ring, 4 * GiB)).busbw / 1e9 == Approx(367.5).epsilon(0.10));
    if (g >= 4) {
      const auto r = run(hgx("H100", 1, g, Algorithm::Nvls, 4 * GiB));
      INFO("NVLS simulated " << r.busbw / 1e9 << " GB/s");
      CHECK(r.busbw / 1e9 == Approx(nvls[g - 4]).epsilon(0.05));
    }
  }
  const auto def = run(hgx("H100", 1, 8, Algorithm::Auto, 4 * GiB));
  CHECK(def.algorithm == "nvls");
  CHECK(def.busbw / 1e9 == Approx(476).epsilon(0.10));
}

TEST_CASE("248 x 8 H200 all-reduce at 512 MiB, NCCL's default algorithm (NVIDIA/nccl-tests#283)", "[validation][busbw]") {
  // NVIDIA/nccl-tests#283 (2025-01-18): 248 servers x 8 H200, 8 HCAs per server (mlx5_1..8),
  // default NCCL_ALGO, `all_reduce_perf --minbytes 512M --maxbytes 512M`: busbw "typically around
  // 350G". NIC speed not stated: 400 Gb/s NDR taken (the H200 server's standard NIC).
  const auto r = run(hgx("H200", 248, 8, Algorithm::Auto, 512.0 * 1024 * 1024));
  INFO(r.algorithm << "/" << r.proto << " " << r.busbw / 1e9 << " GB/s");
  CHECK(r.algorithm == "nvls_tree");
  CHECK(r.busbw / 1e9 == Approx(350).epsilon(0.10));
}

TEST_CASE("8 x H100 over 8 x 400G RoCE, 1 to 4 nodes: a known miss with a bound (NVIDIA/nccl#1221)", "[validation][busbw]") {
  // NVIDIA/nccl#1221 (2024-03-13): 8 x H100 per node, 8 x 400 Gb RoCE, NCCL 2.19.3,
  // `all_reduce_perf -b 4G -e 8G`: 1 or 2 nodes 330 GB/s with NVLS off, 430 with NVLS on;
  // 4 nodes 320 either way. Its one-node ring (330, NVLink only) is already 11 % under NVIDIA's
  // 370 on the same NVLink, so that site runs below NVIDIA's reference for reasons the model does
  // not hold (NCCL 2.19, RoCE, host set-up); one set of constants per GPU cannot follow it.
  // Held instead: the model is at most 10 % above that site on one node and, across nodes, its
  // 4-node / 1-node ratio is within 10 % of the site's own (320 / 330).
  const double one_ring = run(hgx("H100", 1, 8, Algorithm::Ring, 8 * GiB)).busbw / 1e9;
  const double one_nvls = run(hgx("H100", 1, 8, Algorithm::Auto, 8 * GiB)).busbw / 1e9;
  const auto two = run(hgx("H100", 2, 8, Algorithm::Auto, 8 * GiB));
  auto off = hgx("H100", 2, 8, Algorithm::Auto, 8 * GiB);
  off.protocol.nvls = false;  // NCCL_NVLS_ENABLE=0
  const auto two_off = run(off);
  const auto four = run(hgx("H100", 4, 8, Algorithm::Auto, 8 * GiB));
  INFO("2 nodes " << two.algorithm << " " << two.busbw / 1e9 << ", NVLS off " << two_off.algorithm << " "
                  << two_off.busbw / 1e9);
  INFO("1 node ring " << one_ring << ", NVLS " << one_nvls << "; 4 nodes " << four.algorithm << " " << four.busbw / 1e9);
  CHECK(one_ring == Approx(330).epsilon(0.10));
  CHECK(one_nvls == Approx(430).epsilon(0.12));
  CHECK(four.algorithm == "ring");  // NCCL 2.19 picks ring at 4 nodes too: NVLS on/off changes nothing
  CHECK((four.busbw / 1e9) / one_ring == Approx(320.0 / 330.0).epsilon(0.10));
  CHECK(four.busbw / 1e9 == Approx(320).epsilon(0.20));  // the bounds of the known miss
  CHECK(two.algorithm == "nvls_tree");
  CHECK(two.busbw / 1e9 == Approx(430).epsilon(0.20));
  CHECK(two_off.busbw / 1e9 == Approx(330).epsilon(0.20));
}

TEST_CASE("tuner at 1,024 to 32,768 H100: tree/LL for latency, NVLSTree for bandwidth, busbw holds", "[validation][busbw][scale]") {
  // NCCL's tuner (tuning.cc / enqueue.cc v2.23.4-1, nccl_model.cpp) over 8-GPU NVLink domains on
  // 8 x 400G per node: small messages on the double binary tree with LL (latency 2 log2(nodes)
  // network hops, not a ring's 2(n-1)); large ones on NVLSTree (NVLS in the node, trees across).
  // NVIDIA shows NVLS + tree at 370-380 GB/s busbw at scale (GTC24 S62129, via NVIDIA/nccl#1649);
  // busbw must not collapse from 1K to 32K GPUs: the tree's per-NIC load is bounded (each head
  // NIC carries at most 3 tree transfers per direction whatever the node count).
  const int nodes[] = {128, 4096};  // 1,024 and 32,768 GPUs
  double big[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    INFO(nodes[i] * 8 << " GPUs");
    const auto small = run(hgx("H100", nodes[i], 8, Algorithm::Auto, 8));
    CHECK(small.algorithm == "tree");
    CHECK(small.proto == "LL");
    const auto large = run(hgx("H100", nodes[i], 8, Algorithm::Auto, 8 * GiB));
    CHECK(large.algorithm == "nvls_tree");
    big[i] = large.busbw / 1e9;
    CHECK(big[i] == Approx(375).epsilon(0.10));
  }
  CHECK(big[1] / big[0] > 0.95);  // 32K vs 1K: no collapse
}
