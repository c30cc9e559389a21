// NCCL's chunking of the tree, NVLSTree and broadcast / reduce pipelines (enqueue.cc
// calcCollChunking and scheduleCollTasksToPlan, NVIDIA/nccl v2.28.3-1), and the stepped tree and
// NVLSTree that run that many chunks per channel.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "models/collectives/collective.hpp"
#include "models/collectives/nccl_model.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/collectives/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::collectives;

namespace {

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

/// NCCL's model of `nodes` x 8 H100-class GPUs on the rail cluster of the tests.
nccl::Model h100_model(int nodes) {
  const auto fabric = topology::build_fabric(test::rail_cluster(nodes, 8, topology::FabricKind::Clos3, 64));
  return nccl::build_model(nccl_system(iota(nodes * 8), Layout::from(fabric, test::nvlink4_gpu())));
}

/// Stepped (every chunk simulated) or collapsed all-reduce on `nodes` x 8 GPUs of the rail
/// cluster: simulated time and the largest repetition count of its transfers.
std::pair<double, int> run(int nodes, Algorithm a, double bytes, bool collapse, Proto proto = Proto::Auto,
                           std::string* note = nullptr, double pipeline_work = 0) {
  const auto fabric = topology::build_fabric(test::rail_cluster(nodes, 8, topology::FabricKind::Clos3, 64));
  network::FlowNetwork net(fabric);
  const Layout l = Layout::from(fabric, test::nvlink4_gpu());
  Collective c;
  c.algorithm = a;
  c.gpus = iota(nodes * 8);
  c.bytes = bytes;
  c.collapse = collapse;
  c.pipeline_work = pipeline_work;
  Protocol p;
  p.proto = proto;
  network::Schedule s;
  s.gpu_flops = {1e15};
  const auto e = emit(s, c, l, p);
  REQUIRE(e.algorithm == a);
  if (note) *note = e.note;
  int reps = 0;
  for (const auto& act : s.activities) reps = std::max(reps, act.repeat);
  return {net.run(s).makespan, reps};
}

}  // namespace

TEST_CASE("NCCL's connection buffers and chunk per protocol (init.cc, enqueue.cc v2.28.3-1)") {
  // DEFAULT_LL_BUFFSIZE 8 lines x 512 threads x 8 steps x 16 B; DEFAULT_LL128_BUFFSIZE 120 x 640 x
  // 8 x 8 B; DEFAULT_BUFFSIZE 4 MiB.
  CHECK(nccl::buff_size(nccl::kLL) == 524288);
  CHECK(nccl::buff_size(nccl::kLL128) == 4915200);
  CHECK(nccl::buff_size(nccl::kSimple) == 4194304);
  const auto m = h100_model(4);  // ppn 8, 4 nodes: LL128 tree nsteps = 1 + 2 + 0.8 = 3.8
  // A step (buffer / NCCL_STEPS): Simple 512 KiB; LL the data half of 64 KiB; LL128 15/16 of 614,400.
  CHECK(nccl::coll_chunk(m, nccl::kAllReduce, nccl::kTree, nccl::kSimple, 64 << 20) == 524288);
  CHECK(nccl::coll_chunk(m, nccl::kAllReduce, nccl::kTree, nccl::kLL, 64 << 20) == 32768);
  CHECK(nccl::coll_chunk(m, nccl::kAllReduce, nccl::kTree, nccl::kLL128, 64 << 20) == 576000);  // 116 >= 30.4 chunks
  CHECK(nccl::coll_chunk(m, nccl::kBroadcast, nccl::kRing, nccl::kSimple, 64 << 20) == 524288);
  // The LL128 tree's clamp: 1 MiB holds 1 < 3.8 x 64 / 8 chunks of 576,000: halved to 288,000,
  // 144,000, 72,000 (no longer > 131,072), 14 >= 3.8 x 16 / 8; the grain 1,920 B: 37 x 1,920.
  CHECK(nccl::coll_chunk(m, nccl::kAllReduce, nccl::kTree, nccl::kLL128, 1 << 20) == 71040);
  // 64 KiB: 72,000, then 36,000 and 18,000 (not > 32,768); 9 x 1,920.
  CHECK(nccl::coll_chunk(m, nccl::kAllReduce, nccl::kTree, nccl::kLL128, 65536) == 17280);
}

TEST_CASE("NCCL's channel parts and pipeline chunks (scheduleCollTasksToPlan, calcCollChunking v2.28.3-1)") {
  // All-reduce: 2 B of traffic per byte (x 4 for LL) in cells of 16 KiB of traffic.
  CHECK(nccl::channel_part(nccl::kAllReduce, nccl::kSimple, 32, 8, 16) == 8);  // one cell, one channel
  CHECK(nccl::channel_part(nccl::kAllReduce, nccl::kSimple, 32, 1 << 30, 16) == 64 << 20);
  CHECK(nccl::channel_part(nccl::kAllReduce, nccl::kLL, 32, 1 << 20, 16) == 65536);
  // 100 KB over 16 channels: 13 cells of 8 KiB, at least 16 KiB of traffic (one cell) a channel
  CHECK(nccl::channel_part(nccl::kAllReduce, nccl::kSimple, 32, 100e3, 16) == 8192);
  const auto m = h100_model(4);
  // The tree: one chunk at small messages (the stepped tree emitted 8), 128 of 512 KiB per channel
  // at 1 GiB over 16 channels, LL 2 of 32 KiB for 1 MiB.
  CHECK(nccl::pipeline_chunks(m, nccl::kAllReduce, nccl::kTree, nccl::kLL, 8, 16) == 1);
  CHECK(nccl::pipeline_chunks(m, nccl::kAllReduce, nccl::kTree, nccl::kSimple, 1 << 30, 16) == 128);
  CHECK(nccl::pipeline_chunks(m, nccl::kAllReduce, nccl::kTree, nccl::kLL, 1 << 20, 16) == 2);
  // NVLSTree: a loop moves a chunk per head (8); the chunk is 128 KiB on 2 nodes, at most 64 KiB
  // from 4 (NCCL_NVLSTREE_MAX_CHUNKSIZE), so 1 GiB over 16 CTAs: 64 MiB / (8 x 128 KiB) = 64 loops
  // on 2 nodes, 128 on 4.
  REQUIRE(m.nvls_channels == 16);
  REQUIRE(m.graph[nccl::kNvls].channels == 8);
  CHECK(nccl::pipeline_chunks(h100_model(2), nccl::kAllReduce, nccl::kNvlsTree, nccl::kSimple, 1 << 30, 16) == 64);
  CHECK(nccl::pipeline_chunks(m, nccl::kAllReduce, nccl::kNvlsTree, nccl::kSimple, 1 << 30, 16) == 128);
  CHECK(nccl::pipeline_chunks(m, nccl::kAllReduce, nccl::kNvlsTree, nccl::kSimple, 8 << 20, 16) == 1);
}

TEST_CASE("stepped tree and NVLSTree emit NCCL's chunks per channel") {
  // The stepped tree repeated every edge 8 times whatever the size, and NVLSTree's tree part was
  // one transfer per edge even stepped.
  CHECK(run(4, Algorithm::Tree, 8, false).second == 1);
  CHECK(run(4, Algorithm::Tree, 1 << 30, false).second == 128);
  CHECK(run(4, Algorithm::Tree, 1 << 20, false, Proto::LL).second == 2);
  CHECK(run(4, Algorithm::NvlsTree, 1 << 30, false).second == 128);
  CHECK(run(4, Algorithm::NvlsTree, 1 << 30, true).second == 1);
}

TEST_CASE("stepped tree with NCCL's chunks agrees with the collapsed tree (idle fabric, 4-16 nodes)") {
  // With 8 chunks the stepped tree's pipeline fill made 1 GiB +6 / +14 / +25 % slower than the
  // collapsed tree on 4 / 8 / 16 nodes; NCCL's 128 chunks per channel leave +1.2 / +0.4 / +1.2 %.
  for (int nodes : {4, 8, 16}) {
    const double stepped = run(nodes, Algorithm::Tree, 1 << 30, false).first;
    const double collapsed = run(nodes, Algorithm::Tree, 1 << 30, true).first;
    INFO(nodes << " nodes, 1 GiB: stepped " << stepped * 1e6 << " us, collapsed " << collapsed * 1e6 << " us");
    CHECK(stepped == Approx(collapsed).epsilon(0.02));
  }
  // NVLSTree's tree stepped in its chunks: within 5 % at 128 MiB on 4 nodes (+2.5 %)
  const double stepped = run(4, Algorithm::NvlsTree, 128 << 20, false).first;
  const double collapsed = run(4, Algorithm::NvlsTree, 128 << 20, true).first;
  INFO("NVLSTree 4 nodes, 128 MiB: stepped " << stepped * 1e6 << " us, collapsed " << collapsed * 1e6 << " us");
  CHECK(stepped == Approx(collapsed).epsilon(0.05));
  CHECK(stepped > collapsed);  // its pipeline's fill, not the collapsed form
}

TEST_CASE("stepped tree and NVLSTree's tree over the CPU budget: 3 transfers per edge") {
  // 128 nodes, 1 GiB: NCCL's 128 chunks on 4,064 edges are over kPipelineWork (8 repetitions at
  // least): 3 transfers per edge (first chunk, 126, last chunk), for the tree and for NVLSTree's
  // tree part (which collapsed here before: the collapsed time, without the pipeline's fill).
  std::string note;
  CHECK(run(128, Algorithm::Tree, 1 << 30, false, Proto::Auto, &note).second == 1);
  CHECK_THAT(note, Catch::Contains("tree: NCCL's 128 pipeline chunks per channel simulated as 3 transfers per edge"));
  const auto [t, reps] = run(128, Algorithm::NvlsTree, 1 << 30, false, Proto::Auto, &note);
  CHECK(reps == 1);
  CHECK_THAT(note, Catch::Contains("NVLSTree's tree: NCCL's 128 pipeline chunks per channel simulated as 3 "
                                   "transfers per edge"));
  CHECK(t > run(128, Algorithm::NvlsTree, 1 << 30, true).first);
  // within the budget no note: 4 nodes
  run(4, Algorithm::Tree, 1 << 30, false, Proto::Auto, &note);
  CHECK(note.empty());
}

TEST_CASE("stepped tree over the CPU budget against every chunk (Collective::pipeline_work)") {
  // The same 1 GiB all-reduce in NCCL's 128 chunks per channel (a budget that holds them) and
  // over the budget (1; on 32 nodes also the default). The groups whose every level waited for the
  // whole group below (the plan before: 8 groups of 16 chunks) took +23 % over every chunk on 16
  // nodes, where every chunk takes +1.2 % over the collapsed tree; now the first and last chunk
  // keep NCCL's fill and drain: +0.05 / +0.2 % from every chunk on 16 / 32 nodes.
  for (int nodes : {16, 32}) {
    const auto [exact, exact_reps] = run(nodes, Algorithm::Tree, 1 << 30, false, Proto::Auto, nullptr, 1e15);
    const double collapsed = run(nodes, Algorithm::Tree, 1 << 30, true).first;
    INFO(nodes << " nodes: every chunk " << exact * 1e6 << " us, collapsed " << collapsed * 1e6 << " us");
    REQUIRE(exact_reps == 128);  // a budget beyond int once wrapped to one group
    for (double work : {1.0, 0.0}) {
      if (work == 0 && nodes < 32) continue;  // the default budget holds 16 nodes' 128 chunks
      std::string note;
      const auto [grouped, reps] = run(nodes, Algorithm::Tree, 1 << 30, false, Proto::Auto, &note, work);
      INFO("budget " << work << ": " << grouped * 1e6 << " us, " << reps << " repetitions; " << note);
      CHECK_THAT(note, Catch::Contains("3 transfers per edge"));
      CHECK(grouped == Approx(exact).epsilon(0.006));
      // the fill and drain kept: more than half of every chunk's excess over the collapsed tree
      CHECK(grouped - collapsed > 0.5 * (exact - collapsed));
    }
  }
  // Few chunks against the tree's depth: 16 MiB (LL128, 15 chunks) on 16 nodes, -1.3 % (268.90
  // us every chunk); the 13 between paying one chunk's latency share instead of 13 took -6.6 %.
  const double exact = run(16, Algorithm::Tree, 16 << 20, false, Proto::Auto, nullptr, 1e15).first;
  const auto [grouped, reps] = run(16, Algorithm::Tree, 16 << 20, false, Proto::Auto, nullptr, 1);
  INFO("16 nodes, 16 MiB: grouped " << grouped * 1e6 << " us, every chunk " << exact * 1e6 << " us");
  CHECK(reps == 1);
  CHECK(grouped == Approx(exact).epsilon(0.02));
}

TEST_CASE("NVLSTree's tree over the CPU budget against every chunk (Collective::pipeline_work)") {
  // NVLSTree's tree part in NCCL's chunks (16 at 128 MiB, 128 at 1 GiB per channel) with a budget
  // that holds them (1e15) and over the budget (1): the tree's three transfers per edge, +1.1 /
  // +0.7 % from every chunk on 16 nodes, +1.7 / +0.5 % on 32. Collapsed, as it was over the budget
  // before, the tree part leaves out the pipeline's fill (-4.5 / -0.6 %, -7.9 / -1.4 %).
  for (int nodes : {16, 32})
    for (double bytes : {128.0 * (1 << 20), 1.0 * (1 << 30)}) {
      const auto [exact, exact_reps] = run(nodes, Algorithm::NvlsTree, bytes, false, Proto::Auto, nullptr, 1e15);
      const double collapsed = run(nodes, Algorithm::NvlsTree, bytes, true).first;
      std::string note;
      const auto [grouped, reps] = run(nodes, Algorithm::NvlsTree, bytes, false, Proto::Auto, &note, 1);
      INFO(nodes << " nodes, " << bytes / (1 << 20) << " MiB: every chunk " << exact * 1e6 << " us, over the budget "
                 << grouped * 1e6 << " us, collapsed " << collapsed * 1e6 << " us; " << note);
      REQUIRE(exact_reps == (bytes < (1 << 30) ? 16 : 128));
      CHECK(reps == 1);
      CHECK_THAT(note, Catch::Contains("NVLSTree's tree: NCCL's"));
      CHECK_THAT(note, Catch::Contains("3 transfers per edge"));
      CHECK(grouped == Approx(exact).epsilon(0.02));
      // the fill and drain kept: more than half of every chunk's excess over the collapsed form
      CHECK(grouped - collapsed > 0.5 * (exact - collapsed));
    }
}

namespace {

/// An all-gather / reduce-scatter of `bytes` (nccl-tests size S) on one node of 8 H100-class GPUs
/// of the rail cluster, NVLS forced; stepped or collapsed: simulated time, the selection and the
/// largest repetition count of its transfers.
struct NvlsRun {
  double time = 0;
  Selection sel;
  int reps = 0;
};
NvlsRun nvls_one_node(Op op, double bytes, bool collapse) {
  const auto fabric = topology::build_fabric(test::rail_cluster(1, 8, topology::FabricKind::Clos3, 64));
  network::FlowNetwork net(fabric);
  const Layout l = Layout::from(fabric, test::nvlink4_gpu());
  Collective c;
  c.op = op;
  c.algorithm = Algorithm::Nvls;
  c.gpus = iota(8);
  c.bytes = bytes;
  c.collapse = collapse;
  network::Schedule s;
  s.gpu_flops = {1e15};
  NvlsRun r;
  r.sel = select(c, l);
  const auto e = emit(s, c, l);
  REQUIRE(e.algorithm == Algorithm::Nvls);
  for (const auto& act : s.activities) r.reps = std::max(r.reps, act.repeat);
  r.time = net.run(s).makespan;
  return r;
}

}  // namespace

TEST_CASE("NVLS all-gather / reduce-scatter in NCCL's chunks per channel (all_gather.h, reduce_scatter.h v2.28.3-1)") {
  const nccl::Model m = h100_model(1);
  REQUIRE(m.nvls_channels == 16);
  REQUIRE(m.graph[nccl::kNvls].channels == 8);
  const double MiB = 1 << 20;
  for (const auto f : {nccl::kAllGather, nccl::kReduceScatter}) {
    // A rank's 2 MiB of 16 MiB over 16 CTAs: traffic 8 B per byte, cells of 2 KiB, 64 cells (128
    // KiB) a channel; calcCollChunking sees 128 KiB x 8 ranks = 1 MiB on one channel, concurrentOps
    // 8 heads: 128 -> 64 KiB (< 64 x 8 x 128 KiB) -> 32 KiB (< 8 x 8 x 64 KiB), not 16 KiB (1 MiB is
    // not < 2 x 8 x 32 KiB): 4 loops of 32 KiB, a round of 16 x 8 x 32 KiB = 4 MiB of S.
    CHECK(nccl::channel_part(f, nccl::kSimple, 8, 2 * MiB, 16) == 128 * 1024);
    CHECK(nccl::coll_chunk(m, f, nccl::kNvls, nccl::kSimple, 1 * MiB) == 32768);
    CHECK(nccl::pipeline_chunks(m, f, nccl::kNvls, nccl::kSimple, 16 * MiB, 16) == 4);
    CHECK(nccl::nvls_first_round(m, f, nccl::kNvls, 16 * MiB, 16) == Approx(4 * MiB));
    // 1 GiB: 8 MiB a channel, 64 MiB to calcCollChunking (not < 64 x 8 x 128 KiB): 64 loops of
    // 128 KiB, a round of 16 MiB. 64 KiB: 8 KiB a rank in cells of 2 KiB, 16 KiB of traffic (one
    // cell) a channel at least: 4 channels of one loop each, the message is the round.
    CHECK(nccl::pipeline_chunks(m, f, nccl::kNvls, nccl::kSimple, 1024 * MiB, 16) == 64);
    CHECK(nccl::nvls_first_round(m, f, nccl::kNvls, 1024 * MiB, 16) == Approx(16 * MiB));
    CHECK(nccl::pipeline_chunks(m, f, nccl::kNvls, nccl::kSimple, 65536, 16) == 1);
    CHECK(nccl::nvls_first_round(m, f, nccl::kNvls, 65536, 16) == 65536);
    // Two warp groups on one node (bcast -> gather; scatter -> reduce), a NET group between across nodes.
    CHECK(nccl::nvls_warp_groups(f, nccl::kNvls, 1) == 2);
    CHECK(nccl::nvls_warp_groups(f, nccl::kNvls, 2) == 3);
  }
  CHECK(nccl::nvls_warp_groups(nccl::kAllReduce, nccl::kNvls, 1) == 3);
  CHECK(nccl::nvls_warp_groups(nccl::kAllReduce, nccl::kNvlsTree, 2) == 4);
}

TEST_CASE("NVLS all-gather / reduce-scatter: the fill of two warp groups, the loops as one transfer") {
  const double MiB = 1 << 20;
  for (const Op op : {Op::AllGather, Op::ReduceScatter}) {
    for (const double bytes : {16 * MiB, 1024 * MiB}) {
      const auto collapsed = nvls_one_node(op, bytes, true);
      const auto stepped = nvls_one_node(op, bytes, false);
      // The execution model: NCCL's 25 us + one round (16 CTAs x 8 heads x NCCL's chunk: 4 MiB at
      // 16 MiB, 16 MiB at 1 GiB) at the collective's rate beyond the steady state (the old code
      // charged 3 rounds of a whole-message chunk).
      const double round = bytes < 100 * MiB ? 4 * MiB : 16 * MiB;
      const double rate = bytes / collapsed.sel.bw_time;
      CHECK(collapsed.sel.latency == Approx(25e-6 + round / rate).epsilon(1e-9));
      // NCCL's loops per channel (4 / 64) stream on one connection: stepped or collapsed, one
      // transfer per GPU carries them all (add_nvls), in the execution model's time.
      CHECK(collapsed.reps == 1);
      CHECK(stepped.reps == 1);
      CHECK(stepped.time == collapsed.time);
      CHECK(collapsed.time == Approx(collapsed.sel.time()).epsilon(0.01));
    }
  }
}
