#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "models/collectives/collective.hpp"
#include "models/collectives/flow_plan.hpp"
#include "models/collectives/halving_doubling.hpp"
#include "models/collectives/ring_symmetry.hpp"
#include "models/common/errors.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/collectives/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::collectives;

namespace {
Layout nodes_of(int g, int gen = 4, bool nvls = true, bool sharp = false) {
  Layout l;
  l.domain_of = [g](int gpu) { return gpu / g; };
  l.nvlink_rate = 450e9;
  l.nic_rate = 50e9;
  l.gpus_per_node = g;
  l.nvlink_generation = gen;
  l.nvls = nvls;
  l.sharp = sharp;
  return l;
}
std::vector<int> iota(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}
Collective make(Op op, Algorithm a, int n, double bytes, bool collapse = true) {
  Collective c;
  c.op = op;
  c.algorithm = a;
  c.gpus = iota(n);
  c.bytes = bytes;
  c.collapse = collapse;
  return c;
}
}  // namespace

TEST_CASE("nccl-tests busbw factors (PERFORMANCE.md)") {
  CHECK(busbw_factor(Op::AllReduce, 8) == Approx(14.0 / 8));
  CHECK(busbw_factor(Op::AllGather, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(Op::ReduceScatter, 4) == Approx(0.75));
  CHECK(busbw_factor(Op::AllToAll, 2) == Approx(0.5));
  CHECK(busbw_factor(Op::Broadcast, 16) == 1.0);
  CHECK(busbw(Op::AllReduce, 8, 1e9, 1e-2) == Approx(1e11 * 1.75));
}

TEST_CASE("ring closed forms") {
  CHECK(ring_allreduce_time(2, 1e9, 1e9, 0) == Approx(1.0));
  CHECK(ring_allreduce_time(8, 8e9, 1e9, 1e-6) == Approx(14.0 + 14e-6));
  CHECK(ring_allgather_time(8, 8e9, 1e9, 1e-6) == Approx(7.0 + 7e-6));
  CHECK(halving_doubling_allreduce_time(8, 8e9, 1e9, 1e-6) == Approx(14.0 + 6e-6));
  CHECK(ring_allreduce_time(1, 1e9, 1e9, 1) == 0);
}

TEST_CASE("names round-trip and reject nonsense") {
  for (Algorithm a : {Algorithm::Auto, Algorithm::Ring, Algorithm::Tree, Algorithm::Nvls, Algorithm::NvlsTree,
                      Algorithm::CollNetDirect, Algorithm::CollNetChain, Algorithm::Pat, Algorithm::Sharp,
                      Algorithm::Hierarchical, Algorithm::HalvingDoubling, Algorithm::Direct})
    CHECK(algorithm_from(algorithm_name(a)) == a);
  CHECK(algorithm_from("NVLSTree") == Algorithm::NvlsTree);
  CHECK_THROWS_AS(algorithm_from("bogus"), Error);
  CHECK(proto_from("ll128") == Proto::LL128);
  CHECK_THROWS_AS(proto_from("LL256"), Error);
}

TEST_CASE("ring all-reduce emission: steps, bytes conservation, dependencies") {
  const Layout l = nodes_of(8);
  network::Schedule s;
  auto c = make(Op::AllReduce, Algorithm::Ring, 8, 8e6, false);
  auto e = emit(s, c, l);
  // step by step: each position's transfer repeated 2(n-1) = 14 times (network::Activity::repeat)
  REQUIRE(s.activities.size() == 8u);
  std::map<int, double> out, in;
  for (std::size_t i = 0; i < s.activities.size(); ++i) {
    const auto& a = s.activities[i];
    CHECK(a.repeat == 14);
    out[a.gpu] += a.amount * a.repeat;
    in[a.dst_gpu] += a.amount * a.repeat;
    // step k+1 leaves a GPU after step k of the previous position came in
    REQUIRE(a.after_previous.size() == 1u);
    CHECK(s.activities[a.after_previous[0]].dst_gpu == a.gpu);
  }
  for (int g = 0; g < 8; ++g) CHECK(out[g] == Approx(in[g]));
  CHECK(e.done.size() == 8u);
  // collapsed: one transfer per neighbour carrying all steps, the same bytes in all
  network::Schedule s2;
  c.collapse = true;
  emit(s2, c, l);
  REQUIRE(s2.activities.size() == 8u);
  double a1 = 0, a2 = 0;
  for (const auto& a : s.activities) a1 += a.amount * a.repeat;
  for (const auto& a : s2.activities) a2 += a.amount;
  CHECK(a2 == Approx(a1).epsilon(1e-9));
  CHECK(s2.activities[0].delay == Approx(14 * s.activities[0].delay).epsilon(0.05));
}

TEST_CASE("multi-node rings are rail aligned: every inter-node hop stays on one local index") {
  // 4 x 8 H100: 8 search channels x 48 GB/s, copied once by ncclTopoPostset (connect.cc
  // v2.28.3-1): 16 channels, every NIC sends and receives a search channel and its copy.
  const Layout l = nodes_of(8);
  network::Schedule s;
  auto c = make(Op::AllReduce, Algorithm::Ring, 32, 1e9);
  emit(s, c, l);
  int inter = 0;
  std::map<int, int> nic_out, nic_in;
  for (const auto& a : s.activities)
    if (a.gpu / 8 != a.dst_gpu / 8) {
      ++inter;
      CHECK(a.gpu % 8 == a.dst_gpu % 8);
      ++nic_out[a.gpu];
      ++nic_in[a.dst_gpu];
    }
  CHECK(inter == 16 * 4);  // 16 channels x 4 node boundaries
  CHECK(nic_out.size() == 32u);
  for (auto& kv : nic_out) CHECK(kv.second == 2);
  for (auto& kv : nic_in) CHECK(kv.second == 2);
}

TEST_CASE("double binary tree: NCCL's btree and its mirror / shift") {
  // n = 14 (illustration of trees.cc): 0 is the root of tree 0, 8 its child, 4 and 12 below it
  CHECK(detail::dtree_parent(14, 0, 0) == -1);
  CHECK(detail::dtree_parent(14, 8, 0) == 0);
  CHECK(detail::dtree_parent(14, 4, 0) == 8);
  CHECK(detail::dtree_parent(14, 12, 0) == 8);
  CHECK(detail::dtree_parent(14, 13, 0) == 12);
  CHECK(detail::dtree_parent(14, 1, 0) == 2);
  // tree 1 mirrors (n even): root 13
  CHECK(detail::dtree_parent(14, 13, 1) == -1);
  CHECK(detail::dtree_parent(14, 5, 1) == 13);
  // every rank but the root has a parent, in both trees, for many sizes
  for (int n : {2, 3, 5, 8, 13, 64, 1000})
    for (int t = 0; t < 2; ++t) {
      int roots = 0;
      for (int r = 0; r < n; ++r) {
        const int p = detail::dtree_parent(n, r, t);
        if (p < 0)
          ++roots;
        else
          CHECK((p >= 0 && p < n && p != r));
      }
      CHECK(roots == 1);
    }
}

TEST_CASE("capabilities restrict the algorithms, with a reason") {
  auto c = make(Op::AllReduce, Algorithm::Nvls, 8, 1e9);
  // A100: NVLink3, no NVLS
  CHECK_THROWS_WITH(select(c, nodes_of(8, 3, false)), Catch::Contains("NVLink SHARP"));
  CHECK(select(c, nodes_of(8)).algorithm == Algorithm::Nvls);
  // NVLS across domains needs SHARP in the fabric; NVLSTree needs several domains
  c.gpus = iota(32);
  CHECK_THROWS_WITH(select(c, nodes_of(8)), Catch::Contains("fabric.sharp"));
  CHECK(select(c, nodes_of(8, 4, true, true)).algorithm == Algorithm::Nvls);
  c.algorithm = Algorithm::NvlsTree;
  c.gpus = iota(8);
  CHECK_THROWS_WITH(select(c, nodes_of(8)), Catch::Contains("more than one NVLink domain"));
  c.algorithm = Algorithm::CollNetDirect;
  c.gpus = iota(32);
  CHECK_THROWS_WITH(select(c, nodes_of(8)), Catch::Contains("fabric.sharp"));
  // PAT: all-gather / reduce-scatter, one GPU per domain
  auto p = make(Op::AllGather, Algorithm::Pat, 16, 1e8);
  CHECK_THROWS_WITH(select(p, nodes_of(8)), Catch::Contains("one GPU per NVLink domain"));
  CHECK(select(p, nodes_of(1, 0, false)).algorithm == Algorithm::Pat);
  auto t = make(Op::AllGather, Algorithm::Tree, 16, 1e8);
  CHECK_THROWS_WITH(select(t, nodes_of(8)), Catch::Contains("not tree"));
  auto hd = make(Op::AllReduce, Algorithm::HalvingDoubling, 12, 1e8);
  CHECK_THROWS_WITH(select(hd, nodes_of(8)), Catch::Contains("power-of-two"));
  auto a2a = make(Op::AllToAll, Algorithm::Ring, 8, 1e8);
  CHECK_THROWS_WITH(select(a2a, nodes_of(8)), Catch::Contains("point to point"));
  // Sharp = the in-network algorithms
  auto sh = make(Op::AllReduce, Algorithm::Sharp, 32, 1e9);
  const auto sel = select(sh, nodes_of(8, 4, true, true));
  CHECK((sel.algorithm == Algorithm::Nvls || sel.algorithm == Algorithm::CollNetDirect ||
         sel.algorithm == Algorithm::CollNetChain));
  CHECK(select(sh, nodes_of(8, 3, false, true)).algorithm != Algorithm::Nvls);  // A100 + SHARP: CollNet
}

TEST_CASE("every algorithm emits valid, acyclic transfers") {
  const Layout l = nodes_of(8, 4, true, true);
  for (Algorithm a : {Algorithm::Ring, Algorithm::Tree, Algorithm::Nvls, Algorithm::NvlsTree, Algorithm::CollNetDirect,
                      Algorithm::CollNetChain, Algorithm::Hierarchical, Algorithm::HalvingDoubling})
    for (bool collapse : {true, false}) {
      network::Schedule s;
      auto c = make(Op::AllReduce, a, 64, 1e9, collapse);
      auto e = emit(s, c, l);
      INFO(algorithm_name(a) << " collapse " << collapse);
      CHECK(e.algorithm == a);
      CHECK(!e.done.empty());
      CHECK(e.time > 0);
      for (std::size_t i = 0; i < s.activities.size(); ++i) {
        if (s.activities[i].kind == network::Activity::Kind::Delay) {  // hierarchical's phase barriers
          CHECK(a == Algorithm::Hierarchical);
          CHECK(s.activities[i].amount == 0);
        } else {
          CHECK(s.activities[i].kind == network::Activity::Kind::Transfer);
          CHECK(s.activities[i].amount > 0);
          CHECK(s.activities[i].gpu != s.activities[i].dst_gpu);
        }
        for (int d : s.activities[i].after) CHECK(d < static_cast<int>(i));
      }
    }
  // PAT on one GPU per node, all-to-all (sampled above the pair budget), chains
  const Layout one = nodes_of(1, 0, false);
  network::Schedule s;
  auto pat = make(Op::ReduceScatter, Algorithm::Pat, 16, 1e8, false);
  CHECK(emit(s, pat, one).algorithm == Algorithm::Pat);
  auto a2a = make(Op::AllToAll, Algorithm::Auto, 12, 1e8);
  network::Schedule s3;
  emit(s3, a2a, l);
  CHECK(s3.activities.size() == 12u * 11u);
  auto bc = make(Op::Broadcast, Algorithm::Auto, 16, 1e8, false);
  network::Schedule s4;
  CHECK(emit(s4, bc, l).algorithm == Algorithm::Ring);
}

TEST_CASE("the idle-fabric time of the flows is the execution model's") {
  topology::FabricSpec fs;
  fs.gpus = 32;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  fs.nvlink_bandwidth = 450e9;
  fs.kind = topology::FabricKind::LeafSpine;
  const auto fabric = topology::build_fabric(fs);
  network::FlowNetwork net(fabric);
  compute::GpuSpec h100;
  h100.nvlink_generation = 4;
  h100.nvls = true;
  const auto l = Layout::from(fabric, h100);
  for (Algorithm a : {Algorithm::Ring, Algorithm::Tree, Algorithm::NvlsTree, Algorithm::Auto})
    for (double bytes : {1e6, 1e9})
      for (int n : {8, 32}) {
        if (a == Algorithm::NvlsTree && n == 8) continue;
        auto c = make(Op::AllReduce, a, n, bytes);
        network::Schedule s;
        s.gpu_flops = {1e15};
        const auto e = emit(s, c, l);
        const double sim = net.run(s).makespan;
        INFO(algorithm_name(e.algorithm) << " n=" << n << " bytes=" << bytes);
        CHECK(sim == Approx(e.time).epsilon(0.03));
        CHECK(estimate_time(c, l) == Approx(e.time));
      }
}

TEST_CASE("SHARP's tree streams are not hashed onto colliding uplinks: busbw does not depend on N") {
  // The rail-aligned shift that emulates SHARP crosses a leaf at its last node; hashed, two such
  // streams shared a core uplink at 1,024 nodes of the default 3-tier Clos (radix 64) and the
  // collective took 2x its model time, while 512 and 2,048 nodes ran at it. Spread like the
  // aggregation manager's tree, every size runs at the execution model's time.
  for (int nodes : {512, 1024}) {
    auto fs = test::rail_cluster(nodes, 8, topology::FabricKind::Clos3, 64);
    fs.sharp = true;
    const auto fabric = topology::build_fabric(fs);
    network::FlowNetwork net(fabric);
    const auto l = Layout::from(fabric, test::nvlink4_gpu());
    auto c = make(Op::AllReduce, Algorithm::Sharp, nodes * 8, 1 << 30);
    network::Schedule s;
    s.gpu_flops = {1e15};
    const auto e = emit(s, c, l);
    INFO("nodes " << nodes);
    CHECK(net.run(s).makespan == Approx(e.time).epsilon(0.01));
  }
}

TEST_CASE("collapsed steps match every step simulated within 2 % (idle and congested fabric)") {
  topology::FabricSpec fs;
  fs.gpus = 32;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  fs.nvlink_bandwidth = 450e9;
  fs.kind = topology::FabricKind::LeafSpine;
  fs.oversub_leaf = 2;
  const auto fabric = topology::build_fabric(fs);
  network::FlowNetwork net(fabric);
  compute::GpuSpec h100;
  h100.nvlink_generation = 4;
  h100.nvls = true;
  const auto l = Layout::from(fabric, h100);
  for (Op op : {Op::AllReduce, Op::AllGather})
    for (int n : {8, 32})
      for (bool congested : {false, true}) {
        double t[2];
        for (bool collapse : {false, true}) {
          network::Schedule s;
          s.gpu_flops = {1e15};
          auto c = make(op, Algorithm::Ring, n, 256e6, collapse);
          emit(s, c, l);
          if (congested) {
            // background: long transfers through GPU 0's NVLink and NIC for the whole collective
            for (int dst : {1, 9, 17}) {
              network::Activity b;
              b.kind = network::Activity::Kind::Transfer;
              b.gpu = 0;
              b.dst_gpu = dst;
              b.amount = 40e9;
              b.flow_hash = 77 + dst;
              s.activities.push_back(b);
            }
          }
          const auto r = net.run(s);
          double end = 0;
          for (std::size_t i = 0; i < s.activities.size() - (congested ? 3 : 0); ++i) end = std::max(end, r.finish[i]);
          t[collapse] = end;
        }
        INFO(op_name(op) << " n=" << n << " congested=" << congested << " steps " << t[0] << " collapsed " << t[1]);
        CHECK(t[1] == Approx(t[0]).epsilon(0.02));
      }
}

TEST_CASE("implements(): what emit() models per operation; emit refuses the rest") {
  CHECK(implements(Algorithm::Sharp, Op::AllReduce));
  CHECK(implements(Algorithm::Tree, Op::AllReduce));
  CHECK(implements(Algorithm::Ring, Op::ReduceScatter));
  CHECK(implements(Algorithm::Nvls, Op::AllGather));
  CHECK(implements(Algorithm::Pat, Op::AllGather));
  CHECK(implements(Algorithm::Auto, Op::AllGather));
  CHECK_FALSE(implements(Algorithm::Tree, Op::ReduceScatter));  // NCCL has no tree reduce-scatter
  CHECK_FALSE(implements(Algorithm::Sharp, Op::AllGather));     // CollNet all-gather not modelled
  CHECK_FALSE(implements(Algorithm::Pat, Op::AllReduce));
  CHECK_FALSE(implements(Algorithm::Ring, Op::AllToAll));
  network::Schedule s;
  auto c = make(Op::ReduceScatter, Algorithm::Tree, 4, 1e6);
  CHECK_THROWS_WITH(emit(s, c, nodes_of(1, 0, false)), Catch::Contains("not tree"));
}

namespace {

/// One collective of 32 GPUs on `fabric` (idle): simulated makespan (s), bytes on all links in
/// both directions (B), and the execution model's time (s).
std::tuple<double, double, double> run_on(const topology::Fabric& fabric, const compute::GpuSpec& gpu, Op op,
                                          Algorithm a, double bytes) {
  network::FlowNetwork net(fabric);
  const auto l = Layout::from(fabric, gpu);
  auto c = make(op, a, 32, bytes);
  network::Schedule s;
  s.gpu_flops = {1e15};
  const auto e = emit(s, c, l);
  const auto r = net.run(s);
  double b = 0;
  for (double x : r.link_bytes_fwd) b += x;
  for (double x : r.link_bytes_rev) b += x;
  return std::make_tuple(r.makespan, b, e.time);
}

}  // namespace

TEST_CASE("a NIC faster than its PCIe attachment is never slower and moves the same bytes") {
  // NCCL's NET speed is min(NIC, PCIe) (48 GB/s per Gen5 x16 NIC): an 800 Gb/s NIC on an H100
  // runs NCCL at its 400 Gb/s-class speed. That bound is a rate bound on the transfers, not more
  // bytes: with 400 Gb/s switch links, 800 Gb/s NICs doubled the bytes and queued them on the
  // uplinks (bundled 8K step 6.46 s -> 9.50 s).
  auto run = [](double nic, Op op, Algorithm a, double bytes) {
    auto fs = test::rail_cluster(4, 8, topology::FabricKind::LeafSpine, 64);  // 400 Gb/s switch ports
    fs.nic_rate = nic;
    return run_on(topology::build_fabric(fs), test::nvlink4_gpu(), op, a, bytes);
  };
  for (Op op : {Op::AllReduce, Op::AllGather, Op::AllToAll})
    for (Algorithm a : {Algorithm::Auto, Algorithm::Ring, Algorithm::Tree}) {
      if (op == Op::AllToAll && a != Algorithm::Auto) continue;
      if (op == Op::AllGather && a == Algorithm::Tree) continue;
      for (double bytes : {1e6, 1e9}) {
        const auto [t400, b400, m400] = run(50e9, op, a, bytes);
        const auto [t800, b800, m800] = run(100e9, op, a, bytes);
        INFO(op_name(op) << " " << algorithm_name(a) << " " << bytes << " B: 400G " << t400 << " s " << b400
                         << " B, 800G " << t800 << " s " << b800 << " B");
        CHECK(t800 <= t400 * (1 + 1e-9));
        CHECK(b800 == Approx(b400).epsilon(1e-9));
        CHECK(m800 == Approx(m400).epsilon(1e-9));  // NCCL: PCIe-bound either way
        // idle fabric: the execution model's time (all-to-all at 1 MB: latency-bound, +3.7 %)
        CHECK(t400 == Approx(m400).epsilon(op == Op::AllToAll ? 0.05 : 0.03));
      }
    }
}

TEST_CASE("the GPU -> NIC PCIe path comes from the GPU's data, not from its NVLink domain") {
  // One GPU per NVLink domain (PCIe servers, or the 1-GPU domains of a scenario) made the layout
  // NVLink generation 0, and NCCL's PCI speed followed it: Gen4's 24 GB/s on an H100, half its
  // Gen5 x16 path. NCCL's PCI link is width x speed / 80 (topo.cc v2.23.4-1): Gen4 24, Gen5 48,
  // Gen6 96 GB/s.
  for (int gpn : {1, 8}) {
    const auto fabric = topology::build_fabric(test::rail_cluster(4, gpn, topology::FabricKind::LeafSpine, 64));
    compute::GpuSpec gpu = test::nvlink4_gpu();  // an H100-class GPU, Gen5 (its default)
    Layout l = Layout::from(fabric, gpu);
    INFO(gpn << " GPUs per NVLink domain");
    CHECK(l.pcie_generation == 5);
    CHECK(nccl_system(iota(4 * gpn), l).pci_bw == Approx(48.0));
    CHECK(net_rate(l) == Approx(48e9));  // min(400 Gb/s NIC, Gen5 x16)
    gpu.pcie_generation = 4;             // an A100's Gen4 path
    l = Layout::from(fabric, gpu);
    CHECK(nccl_system(iota(4 * gpn), l).pci_bw == Approx(24.0));
    CHECK(net_rate(l) == Approx(24e9));
    gpu.pcie_generation = 6;
    l = Layout::from(fabric, gpu);
    CHECK(nccl_system(iota(4 * gpn), l).pci_bw == Approx(96.0));
    CHECK(net_rate(l) == Approx(50e9));  // the NIC's 400 Gb/s now binds
  }
  // and the time it gives: 1 GiB ring all-reduce over 4 one-GPU nodes is NET-bound, twice as fast
  // on Gen5 as on Gen4 (the old code gave every one-GPU node Gen4)
  const auto fabric = topology::build_fabric(test::rail_cluster(4, 1, topology::FabricKind::LeafSpine, 64));
  compute::GpuSpec gpu = test::nvlink4_gpu();
  const auto c = make(Op::AllReduce, Algorithm::Ring, 4, 1 << 30);
  const double gen5 = select(c, Layout::from(fabric, gpu)).bw_time;
  gpu.pcie_generation = 4;
  const double gen4 = select(c, Layout::from(fabric, gpu)).bw_time;
  CHECK(gen4 / gen5 == Approx(2.0).epsilon(0.01));
}

TEST_CASE("small messages of tree, NVLS, NVLSTree and PAT take NCCL's per-hop latency") {
  // tuning.cc v2.23.4-1, H100 8 per node: tree = baseLat 6.8 + 2 ((g - 1) 0.6 + log2i(nodes) 5.0)
  // (LL), NVLS = intraLat 25, NVLSTree = 25 + 2 log2i(nodes) 14, PAT = 8 + log2i(nodes) 14 / 3.5 +
  // 2.8 ranks (one GPU per node, all-gather). 8 B: the bytes are negligible (< 0.05 us). Collapsed
  // and every step simulated (the stepped tree took 9x NCCL's latency on 2 nodes and 11x on 4
  // before materialize split the latency over the path of most hops).
  struct Case {
    Op op;
    Algorithm a;
    int nodes, gpn;
    double us;
  };
  const Case cases[] = {{Op::AllReduce, Algorithm::Tree, 2, 8, 6.8 + 2 * (7 * 0.6 + 1 * 5.0)},
                        {Op::AllReduce, Algorithm::Tree, 4, 8, 6.8 + 2 * (7 * 0.6 + 2 * 5.0)},
                        {Op::AllReduce, Algorithm::Tree, 16, 8, 6.8 + 2 * (7 * 0.6 + 4 * 5.0)},
                        {Op::AllReduce, Algorithm::Nvls, 1, 8, 25.0},
                        {Op::AllReduce, Algorithm::NvlsTree, 2, 8, 25.0 + 2 * 1 * 14.0},
                        {Op::AllReduce, Algorithm::NvlsTree, 16, 8, 25.0 + 2 * 4 * 14.0},
                        {Op::AllGather, Algorithm::Pat, 8, 1, 8 + 3 * 14.0 / 3.5 + 8 * 2.8},
                        {Op::AllGather, Algorithm::Pat, 64, 1, 8 + 6 * 14.0 / 3.5 + 64 * 2.8}};
  for (const auto& k : cases) {
    const auto fabric = topology::build_fabric(test::rail_cluster(k.nodes, k.gpn, topology::FabricKind::Clos3, 64));
    network::FlowNetwork net(fabric);
    const Layout l = Layout::from(fabric, test::nvlink4_gpu());
    for (bool collapse : {true, false}) {
      const auto c = make(k.op, k.a, k.nodes * k.gpn, 8, collapse);
      network::Schedule s;
      s.gpu_flops = {1e15};
      const auto e = emit(s, c, l);
      const double sim = net.run(s).makespan;
      INFO(algorithm_name(k.a) << " " << k.nodes << " x " << k.gpn << (collapse ? " collapsed" : " stepped")
                               << ": NCCL " << k.us << " us, model " << e.time * 1e6 << " us, simulated " << sim * 1e6
                               << " us");
      CHECK(e.time * 1e6 == Approx(k.us).epsilon(0.002));
      CHECK(sim == Approx(e.time).epsilon(0.02));
    }
  }
}

TEST_CASE("stepped tree: the latency on its path of most hops, large messages as before") {
  // materialize spread the latency evenly over the hops of the critical path of bytes. At 8 B on 2
  // and 4 nodes that is a one-hop NVLink chain transfer (7/8 of the message at 450 GB/s), so every
  // hop took the whole latency and the tree's chunk path (2 edges x 8 chunks: 9 hops in series on
  // 2 nodes) took 9x NCCL's: 226.8 us against 25.2 (387.2 against 35.2 on 4 nodes). Now the share
  // is the one with which the path of most hops takes the execution model's time.
  auto run = [](int nodes, double bytes, bool collapse) {
    const auto fabric = topology::build_fabric(test::rail_cluster(nodes, 8, topology::FabricKind::Clos3, 64));
    network::FlowNetwork net(fabric);
    const Layout l = Layout::from(fabric, test::nvlink4_gpu());
    const auto c = make(Op::AllReduce, Algorithm::Tree, nodes * 8, bytes, collapse);
    network::Schedule s;
    s.gpu_flops = {1e15};
    const auto e = emit(s, c, l);
    return std::make_pair(net.run(s).makespan, e.time);
  };
  for (int nodes : {2, 4, 8, 16}) {
    const auto [stepped, model] = run(nodes, 8, false);
    const auto [collapsed, model_c] = run(nodes, 8, true);
    INFO(nodes << " nodes, 8 B: stepped " << stepped * 1e6 << " us, collapsed " << collapsed * 1e6 << " us, model "
               << model * 1e6 << " us");
    CHECK(model == model_c);
    CHECK(stepped == Approx(collapsed).epsilon(1e-3));  // old code: 9x on 2 nodes, 11x on 4
    CHECK(stepped == Approx(model).epsilon(1e-3));
  }
  // 1 GiB on 2 nodes: the critical path of bytes keeps the whole even share, as before (the
  // stepped and collapsed runs were equal to the printed 0.01 us and stay so).
  const auto [stepped, model] = run(2, 1 << 30, false);
  const auto [collapsed, model_c] = run(2, 1 << 30, true);
  INFO("2 nodes, 1 GiB: stepped " << stepped * 1e6 << " us, collapsed " << collapsed * 1e6 << " us");
  CHECK(stepped == Approx(collapsed).epsilon(1e-9));
}

TEST_CASE("stepped tree: the exact pipeline converges to the collapsed tree (idle fabric, 2-8 nodes)") {
  // The stepped tree simulates every chunk (Collective::chunks) of each edge of the double binary
  // tree; collapsed, each edge is one transfer. Each chunk took the even share of the latency over
  // the hops of the critical path of bytes: where that is a one-hop NVLink chain (4 nodes, 1 GiB),
  // every chunk took the whole latency (120 us) and more chunks were slower (old code: +22 % at 8
  // chunks, +56 % at 32). Now a chunk takes latency / the most chunk hops of a path in its tree,
  // so the pipeline pays NCCL's latency once; what remains is the pipeline's fill, ~1/chunks (64
  // chunks at 1 GiB: +0.8 % on 4 nodes, +1.1 % on 8). At 8 B the default 8 chunks (with 64 each
  // chunk's route latency, paid in series, outweighs its latency share).
  for (int nodes : {2, 4, 8})
    for (double bytes : {8.0, double(1 << 30)}) {
      const auto fabric = topology::build_fabric(test::rail_cluster(nodes, 8, topology::FabricKind::Clos3, 64));
      network::FlowNetwork net(fabric);
      const Layout l = Layout::from(fabric, test::nvlink4_gpu());
      double t[2];
      for (bool collapse : {false, true}) {
        auto c = make(Op::AllReduce, Algorithm::Tree, nodes * 8, bytes, collapse);
        if (bytes > 1e6) c.chunks = 64;
        network::Schedule s;
        s.gpu_flops = {1e15};
        emit(s, c, l);
        t[collapse] = net.run(s).makespan;
      }
      INFO(nodes << " nodes, " << bytes << " B: stepped " << t[0] * 1e6 << " us, collapsed " << t[1] * 1e6 << " us");
      CHECK(t[0] == Approx(t[1]).epsilon(0.02));
    }
}

TEST_CASE("stepped tree across leaves and pods: a chunk's longer route is within its latency share") {
  // From 64 nodes the tree's hops cross leaves and pods (routes 1.4 / 2.8 us longer than a rail
  // hop). A chunk's delay was its share less the nominal route, so every chunk paid the excess
  // again: 8 B took 90.6 us on 64 nodes and 131.6 us on 256, NCCL's latency 75.2 and 95.2 us.
  for (int nodes : {64, 256}) {
    const auto fabric = topology::build_fabric(test::rail_cluster(nodes, 8, topology::FabricKind::Clos3, 64));
    network::FlowNetwork net(fabric);
    const Layout l = Layout::from(fabric, test::nvlink4_gpu());
    const auto c = make(Op::AllReduce, Algorithm::Tree, nodes * 8, 8, false);
    network::Schedule s;
    s.gpu_flops = {1e15};
    const auto e = emit(s, c, l);
    const double sim = net.run(s).makespan;
    INFO(nodes << " nodes, 8 B stepped: " << sim * 1e6 << " us, NCCL " << e.time * 1e6 << " us");
    CHECK(sim == Approx(e.time).epsilon(0.02));
  }
}

TEST_CASE("a NIC faster than its PCIe attachment: plans whose transfers of a port overlap in part too") {
  // Pipelined tree chunks, stepped PAT and halving / doubling's waves start and end a port's
  // transfers at different times: a per-transfer rate bound would idle the port, so the PCIe
  // attachment is a constraint of the fabric's sharing (topology::Fabric::sharing_rate). An
  // 800 Gb/s NIC on PCIe Gen5 moves the bytes of a 400 Gb/s one (it carried 2x, on 400 Gb/s
  // switch links), no slower.
  struct Case {
    Op op;
    Algorithm a;
    int gpn;
    bool collapse;
  };
  auto run = [](double nic, const Case& k) {
    auto fs = test::rail_cluster(32 / k.gpn, k.gpn, topology::FabricKind::LeafSpine, 64);  // 400 Gb/s ports
    fs.nic_rate = nic;
    const auto fabric = topology::build_fabric(fs);
    network::FlowNetwork net(fabric);
    const auto l = Layout::from(fabric, test::nvlink4_gpu());
    auto c = make(k.op, k.a, 32, 1e9, k.collapse);
    network::Schedule s;
    s.gpu_flops = {1e15};
    const auto e = emit(s, c, l);
    CHECK(e.algorithm == k.a);
    const auto r = net.run(s);
    double b = 0;
    for (double x : r.link_bytes_fwd) b += x;
    for (double x : r.link_bytes_rev) b += x;
    // halving / doubling's compact waves (bench-collective at scale) and their fluid run
    const auto w = halving_doubling_waves(c, l, select(c, l));
    const double fluid = w ? network::fluid_bound_waves(fabric, *w).makespan : 0.0;
    return std::make_tuple(r.makespan, b, e.time, fluid);
  };
  for (const Case& k :
       {Case{Op::AllReduce, Algorithm::Tree, 8, false}, Case{Op::AllGather, Algorithm::Pat, 1, false},
        Case{Op::ReduceScatter, Algorithm::Pat, 1, true}, Case{Op::AllReduce, Algorithm::HalvingDoubling, 8, true}}) {
    const auto [t400, b400, m400, f400] = run(50e9, k);
    const auto [t800, b800, m800, f800] = run(100e9, k);
    INFO(op_name(k.op) << " " << algorithm_name(k.a) << (k.collapse ? " collapsed" : " stepped") << ": 400G " << t400
                       << " s " << b400 << " B, 800G " << t800 << " s " << b800 << " B; fluid " << f400 << " / " << f800
                       << " s");
    CHECK(b800 == Approx(b400).epsilon(1e-9));
    CHECK(t800 <= t400 * (1 + 1e-9));
    CHECK(m800 == Approx(m400).epsilon(1e-9));  // NCCL: PCIe-bound either way
    CHECK(f800 <= f400 * (1 + 1e-9));
    // idle fabric: the execution model's time (not the stepped tree: its pipelined chunks take
    // +23 % here, at 400 Gb/s as before this change)
    if (k.a != Algorithm::Tree) CHECK(t800 == Approx(m800).epsilon(0.05));
  }
}

TEST_CASE("an 800 Gb/s NIC as 2 x 400 Gb/s planes gives a multi-node ring one 800 Gb/s plane's busbw") {
  // NCCL sees each plane's port as a NIC and spreads a GPU's channels over them round robin
  // (src/graph/topo.cc, ncclTopoGetLocalNet): a GPU's transfer crosses both planes at once. One
  // hashed plane per flow capped a ring at 400 Gb/s (stargate-uk-8k step 5.444 s on one 800G
  // plane, 5.968 s on two). The planes' ports share the GPU's one PCIe attachment: PCIe-bound
  // (Gen5, 48 GB/s) two planes are no faster than one (each port at half the share).
  auto run = [](int planes, int pcie_gen, Algorithm a, double bytes) {
    auto fs = test::rail_cluster(4, 8, topology::FabricKind::LeafSpine, 64);  // 400 Gb/s switch ports
    fs.nic_rate = 100e9;
    fs.link_rate = 100e9 / planes;
    fs.planes = planes;
    auto gpu = test::nvlink4_gpu();
    gpu.pcie_generation = pcie_gen;  // 6: 96 GB/s per x16 NIC (ConnectX-8 class), under the NIC's 100
    fs.nic_pcie_rate = collectives::pcie_rate(fs, gpu);
    return run_on(topology::build_fabric(fs), gpu, Op::AllReduce, a, bytes);
  };
  for (int gen : {6, 5})
    for (Algorithm a : {Algorithm::Ring, Algorithm::Tree})
      for (double bytes : {1e9, 4e9}) {
        const auto [t1, b1, m1] = run(1, gen, a, bytes);
        const auto [t2, b2, m2] = run(2, gen, a, bytes);
        INFO("PCIe Gen" << gen << " " << algorithm_name(a) << " " << bytes << " B: 1 x 800G " << t1 << " s, 2 x 400G "
                        << t2 << " s (model " << m1 << " / " << m2 << " s)");
        CHECK(m2 == Approx(m1).epsilon(1e-12));  // NCCL's model: the same NIC either way
        CHECK(t2 == Approx(t1).epsilon(0.03));   // old code: 2 x 400G at 400G per flow (Gen6: +26 to +28 %)
        CHECK(b2 == Approx(b1).epsilon(1e-9));
      }
}

TEST_CASE("NVLS on one NVLink domain of more than 32 GPUs: NCCL's 32 heads (NCCL_MAX_NVLS_ARITY)") {
  // NCCL's NVLS graph has min(GPUs, NCCL_MAX_NVLS_ARITY = 32) heads (search.cc v2.26.2-1 ..
  // v2.30.7-1, device.h); only they ld_reduce / multicast (connect.cc headRank -1 for the rest),
  // each 1/32 of the buffer: a head's NVLink carries (1 + 1/32) S per direction, the others' S.
  // Before, every GPU of a 72-GPU NVL72 domain was taken for a head: (1 + 1/72) S, 1.7 % faster.
  CHECK(nccl::nvls_heads(8) == 8);
  CHECK(nccl::nvls_heads(32) == 32);
  CHECK(nccl::nvls_heads(72) == 32);
  const double S = 8.0 * 1024 * 1024 * 1024;
  for (int g : {8, 32, 72}) {
    Layout l = nodes_of(g, 5);
    l.nvlink_rate = 900e9;  // NVLink5: 18 links x 50 GB/s; NCCL counts 18 x 40.1 = 721.8 GB/s
    const auto sel = select(make(Op::AllReduce, Algorithm::Nvls, g, S), l);
    const int h = std::min(g, 32);
    INFO(g << " GPUs: bandwidth time " << sel.bw_time * 1e3 << " ms");
    CHECK(sel.bw_time == Approx(S / (721.8e9 * 0.74 * h / (h + 1.0))).epsilon(1e-9));
  }
  // The flows: a head's transfer carries (h + 1)/h x S, every other GPU's S.
  Layout l = nodes_of(72, 5);
  const auto c = make(Op::AllReduce, Algorithm::Nvls, 72, S);
  const Protocol p;
  const detail::EmitContext ctx{c, l, p};
  const auto plan = detail::plan_nvls(ctx, detail::by_domain(c.gpus, l), false, false);
  REQUIRE(plan.flows.size() == 72);
  for (int i = 0; i < 72; ++i) {
    INFO("GPU " << i);
    CHECK(plan.flows[i].payload == Approx(i < 32 ? S * 33.0 / 32 : S).epsilon(1e-12));
  }
}

TEST_CASE("one GPU per NVLink domain keeps the GPU's compute capability for NCCL's tables", "[collectives][nccl]") {
  // A node without NVLink between its GPUs (nvlink_domain 1) is still Hopper or Blackwell: NCCL
  // keys its speeds and channel rules on the GPU's architecture (cc 90 / 100), not on the NVLink
  // the layout uses. It came from the layout's NVLink generation, 0 there, read as Ampere (80).
  const auto fabric = topology::build_fabric(test::rail_cluster(16, 1, topology::FabricKind::LeafSpine, 64));
  std::vector<int> gpus(16);
  for (int g = 0; g < 16; ++g) gpus[g] = g;
  for (const auto& [gen, cc] : std::vector<std::pair<int, int>>{{3, 80}, {4, 90}, {5, 100}}) {
    compute::GpuSpec gpu;
    gpu.nvlink_generation = gen;
    const Layout l = Layout::from(fabric, gpu);
    INFO("NVLink generation " << gen);
    CHECK(l.nvlink_generation == 0);  // no NVLink path between the GPUs of this fabric
    CHECK(nccl_system(gpus, l).compute_capability == cc);
    CHECK(!nccl_system(gpus, l).nvlink);
  }
}

TEST_CASE("NVLSTree at NCCL 2.28's rate: NVLS efficiency by architecture, the 2-node NIC term, perChMaxNVLSTreeBw") {
  // tuning.cc v2.28.3-1: per head channel min(bwIntra x eff x (ch - 1)/ch x 2, bwInter x (2 on
  // <= 2 nodes, else 1), perChMaxNVLSTreeBw), x channels = busBw; algbw = busBw x n / (2 (n - 1)).
  // Before, the execution model took v2.23's min(bwIntra, bwInter) x ch x 5/6 on 2 nodes (8 x
  // H100: 266.7 GB/s algbw, 500 busbw) and beyond 2 nodes the flows' tree load.
  nccl::System h;
  h.nvls = true;
  h.nodes = 2;
  h.ranks = 16;  // 8 x H100 per node, 8 x 400G: NVLS graph 8 heads, bwIntra 40, bwInter 48
  auto m = nccl::build_model(h);
  REQUIRE(m.graph[nccl::kNvlsTree].channels == 8);
  CHECK(nccl::nvls_tree_busbw(m) == Approx(8 * 57.7));  // cap (Hopper, 2 nodes) under 40 x 0.85 x 7/8 x 2 = 59.5
  h.nodes = 4;
  h.ranks = 32;
  CHECK(nccl::nvls_tree_busbw(nccl::build_model(h)) == Approx(8 * 45.5));  // cap beyond 2 nodes
  // 2 x GB200 NVL72 (MNNVL: one NCCL node of 72 GPUs and 72 NICs): 32 heads, bwIntra 20 (33 x 20
  // <= 18 x 40.1), bwInter 40; the NVLS part binds: 32 x 20 x 0.74 x 31/32 x 2 = 917.6 GB/s.
  nccl::System b;
  b.nvls = true;
  b.compute_capability = 100;
  b.nvlink_bw = 18 * 40.1;
  b.pci_bw = 96;
  b.nodes = 2;
  b.ranks = 144;
  b.nics = 72;
  auto mb = nccl::build_model(b);
  REQUIRE(mb.graph[nccl::kNvlsTree].channels == 32);
  CHECK(mb.graph[nccl::kNvlsTree].bw_intra == Approx(20.0));
  CHECK(nccl::nvls_tree_busbw(mb) == Approx(32 * 20 * 0.74 * 31 / 32 * 2));
  // The execution model's bandwidth time is this rate.
  const double S = 8.0 * 1024 * 1024 * 1024;
  for (int n : {16, 32}) {
    const auto sel = select(make(Op::AllReduce, Algorithm::NvlsTree, n, S), nodes_of(8));
    const double busbw = 8 * (n == 16 ? 57.7 : 45.5);
    INFO(n << " GPUs: bandwidth time " << sel.bw_time * 1e3 << " ms");
    CHECK(sel.bw_time == Approx(S / (busbw * 1e9 * n / (2.0 * (n - 1)))).epsilon(1e-9));
  }
}

TEST_CASE("NVLS across domains: NCCL's heads are min(NICs, GPUs, 32), in the domain's flows too") {
  // search.cc v2.26.2-1 .. v2.30.7-1: the multi-node NVLS graph adds a head while nChannels < the
  // NICs, one per GPU, at most NCCL_MAX_NVLS_ARITY. Before, add_nvls took min(g, 32) heads inside
  // the domain and the tree / SHARP part min(NICs, g): 8 GPUs on 4 NICs loaded 8 heads with 9/8 S
  // each (NCCL: 4 heads, 5/4 S), and 72-GPU domains sent the tree over 72 heads (NCCL: 32).
  CHECK(nccl::nvls_heads(8, 4) == 4);
  CHECK(nccl::nvls_heads(72, 72) == 32);
  CHECK(nccl::nvls_heads(72) == 32);
  const double S = 1e9;
  const Protocol p;
  {
    Layout l = nodes_of(8);
    l.nics_per_node = 4;
    const auto c = make(Op::AllReduce, Algorithm::NvlsTree, 16, S);
    const detail::EmitContext ctx{c, l, p};
    const auto plan = detail::plan_nvls(ctx, detail::by_domain(c.gpus, l), false, true);
    for (int i = 0; i < 16; ++i) {
      INFO("GPU " << i);
      CHECK(plan.flows[i].payload == Approx(i % 8 < 4 ? S * 5.0 / 4 : S).epsilon(1e-12));
    }
    std::map<int, int> tree_heads;  // sources of the transfers between domains
    for (std::size_t f = 16; f < plan.flows.size(); ++f) {
      CHECK(plan.flows[f].payload == Approx(S / 8).epsilon(1e-12));  // S / 2h, h = 4
      ++tree_heads[plan.flows[f].src % 8];
    }
    CHECK(tree_heads.size() == 4u);
  }
  {
    Layout l = nodes_of(72, 5);
    l.nvlink_rate = 900e9;
    const auto c = make(Op::AllReduce, Algorithm::NvlsTree, 144, S);
    const detail::EmitContext ctx{c, l, p};
    const auto plan = detail::plan_nvls(ctx, detail::by_domain(c.gpus, l), false, true);
    REQUIRE(plan.flows.size() == 144u + 32u * 2 * 2);  // 32 heads x 2 trees x up and down
    for (std::size_t f = 144; f < plan.flows.size(); ++f) CHECK(plan.flows[f].payload == Approx(S / 64).epsilon(1e-12));
  }
}

TEST_CASE("a collapsed ring asks whether a scale-out pair has one route once per pair, not per channel copy",
          "[ring][merge_channels]") {
  // 3 HGX domains of 8 on one leaf-spine fabric: 16 channels (8 search channels, each copied by
  // ncclTopoPostset), so every scale-out (src, dst) pair of the ring is a hop of 2 channels.
  // Layout::one_route asks the fabric for a route; asked per hop it was 2 asks per pair.
  const auto fabric = topology::build_fabric(test::rail_cluster(3, 8, topology::FabricKind::LeafSpine, 16));
  auto l = Layout::from(fabric, test::nvlink4_gpu());
  REQUIRE(l.one_route);
  std::set<std::pair<int, int>> asked_pairs;
  int asks = 0;
  const auto inner = l.one_route;
  l.one_route = [&](int a, int b) {
    ++asks;
    asked_pairs.emplace(a, b);
    return inner(a, b);
  };
  Collective c;
  c.op = Op::AllReduce;
  c.algorithm = Algorithm::Ring;
  c.gpus = iota(24);
  c.bytes = 1 << 30;
  c.merge_channels = true;
  REQUIRE(select(c, l).channels == 16);
  network::Schedule s;
  s.gpu_flops = {1e15};
  emit(s, c, l);
  std::set<std::pair<int, int>> scale_out;
  for (const auto& a : s.activities)
    if (a.kind == network::Activity::Kind::Transfer && a.gpu / 8 != a.dst_gpu / 8) scale_out.emplace(a.gpu, a.dst_gpu);
  CHECK(asks == static_cast<int>(asked_pairs.size()));
  CHECK(asked_pairs == scale_out);
}

TEST_CASE("a ring over unequal domain shares runs NCCL's channels and their copies on the same NICs",
          "[ring][unequal_shares]") {
  // 3 HGX domains of 8; the group holds 8, 4 and 8 of them (as a DP group does whose span is not
  // a multiple of the domain: the rollout's DP 112 over 72-GPU domains). NCCL searches each
  // domain's ring graph on its own GPUs (one channel per NIC): the 8-GPU domains 8 x 48 GB/s,
  // the 4-GPU domain 4 x 48 copied to 8 x 24 (search.cc ncclTopoDupChannels); AllGather3 keeps 8
  // channels (init.cc) and ncclTopoPostset copies them to 16 (connect.cc v2.28.3-1). Channel k
  // runs search channel k mod 8: in the domains of 8 all 8 NICs send and receive 2 channels each,
  // in the domain of 4 its 4 NICs 4 each, 1/4 of the scale-out bytes per NIC there (as before).
  // The old plan ran min share = 4 channels without copies: 4 NICs per domain, one flow each.
  const auto fabric = topology::build_fabric(test::rail_cluster(3, 8, topology::FabricKind::LeafSpine, 16));
  network::FlowNetwork net(fabric);
  const auto l = Layout::from(fabric, test::nvlink4_gpu());
  std::vector<int> group = iota(8);
  for (int g : {8, 9, 10, 11}) group.push_back(g);
  for (int g = 16; g < 24; ++g) group.push_back(g);
  Collective c;
  c.op = Op::AllReduce;
  c.algorithm = Algorithm::Ring;
  c.gpus = group;
  c.bytes = 1 << 30;
  const auto sel = select(c, l);
  CHECK(sel.channels == 16);
  CHECK(sel.graph_channels == 8);
  network::RunResult run[2];
  for (int merge = 0; merge < 2; ++merge) {
    c.merge_channels = merge == 1;
    network::Schedule s;
    s.gpu_flops = {1e15};
    emit(s, c, l);
    // every channel's scale-out hop is a transfer of its own (its own connection and hash): 16
    // channels x 3 domain boundaries; merged, the copies of a hop inside one leaf (one route
    // whatever the hash, Layout::one_route) are one transfer of their weight
    int scale_out = 0;
    double weight = 0;
    for (const auto& a : s.activities) {
      scale_out += a.gpu / 8 != a.dst_gpu / 8;
      if (a.gpu / 8 != a.dst_gpu / 8) weight += a.weight;
    }
    CHECK(weight == 16 * 3);
    if (merge == 0) CHECK(scale_out == 16 * 3);
    if (merge == 1) CHECK(scale_out < 16 * 3);
    run[merge] = net.run(s);
  }
  const auto& r = run[1];
  for (int d = 0; d < 3; ++d) {
    int senders = 0, receivers = 0;
    std::vector<double> sent;
    for (int g : group) {
      if (g / 8 != d) continue;
      const int a = fabric.access_link(g);
      if (r.link_bytes_fwd[a] > 0) {
        ++senders;
        sent.push_back(r.link_bytes_fwd[a]);
      }
      receivers += r.link_bytes_rev[a] > 0;
      // the domain of 4: every member's NIC carries scale-out bytes both ways
      if (d == 1) CHECK((r.link_bytes_fwd[a] > 0 && r.link_bytes_rev[a] > 0));
    }
    INFO("domain " << d);
    CHECK(senders == (d == 1 ? 4 : 8));
    CHECK(receivers == (d == 1 ? 4 : 8));
    for (double b : sent) CHECK(b == Approx(sent[0]).epsilon(1e-9));
    // a NIC of the domain of 4 carries twice the bytes of one of a domain of 8
    if (d == 0) {
      const double small = r.link_bytes_fwd[fabric.access_link(8)];
      CHECK(small == Approx(2 * sent[0]).epsilon(1e-9));
    }
  }
  // Exact aggregation: the NVLink hops of the channels over one GPU pair as one weighted transfer
  // (collapsed_channels) give the run of one transfer per channel and hop.
  CHECK(run[1].makespan == Approx(run[0].makespan).epsilon(1e-9));
  // Every step simulated (the 16 channels as stepped rings) ends with the collapsed run on an idle fabric.
  {
    c.collapse = false;
    network::Schedule s;
    s.gpu_flops = {1e15};
    const auto e = emit(s, c, l);
    CHECK(e.rings == 16);
    // Not images of each other on the NVLink ports (a domain of 8 has ports carrying 3 or 4 of
    // the channels' hops): run in full, never reduced to channel 0 (ring_symmetry.hpp).
    CHECK_FALSE(ring_one_channel(s, e, static_cast<int>(group.size()), fabric).has_value());
    // (the check is not vacuous: the whole cluster, 8 per domain, on NCCL's 8 search channels
    // without their copies (NCCL_MAX_NCHANNELS = 8) is reduced)
    Collective all = c;
    all.gpus = iota(24);
    Protocol eight;
    eight.max_channels = 8;
    network::Schedule s_all;
    const auto e_all = emit(s_all, all, l, eight);
    CHECK(e_all.rings == 8);
    CHECK(ring_one_channel(s_all, e_all, 24, fabric).has_value());
    const double stepped = net.run(s).makespan;
    INFO("stepped " << stepped << " s, collapsed " << run[1].makespan << " s");
    CHECK(stepped == Approx(run[1].makespan).epsilon(0.02));
  }
  for (int k = 0; k < fabric.link_count(); ++k) {
    CHECK(run[1].link_bytes_fwd[k] == Approx(run[0].link_bytes_fwd[k]).epsilon(1e-9).margin(1e-6));
    CHECK(run[1].link_bytes_rev[k] == Approx(run[0].link_bytes_rev[k]).epsilon(1e-9).margin(1e-6));
  }
}

TEST_CASE("ring channels: NCCL's copies are hashed flows of their own, and at most 32 search channels enter a domain",
          "[ring][unequal_shares]") {
  // Two NVL72 domains of 72 B200 with one 100G NIC each (12.5 GB/s: the search's 12 GB/s
  // channels, 61 of which the NVLink would hold), all 144 in the ring. Every node's ring search
  // stops at ringGraph->maxChannels = MAXCHANNELS/2 = 32 channels (init.cc, device.h MAXCHANNELS
  // 64, v2.28.3-1), ncclTopoPostset copies them to 64 (connect.cc): 32 NICs of each domain send
  // (2 channels each), not 72 (the old plan: one channel per member of the smallest share,
  // uncapped). (At 400G the NVLink binds first: 16 x 45.1 GB/s.)
  Layout l = nodes_of(72, 5);
  l.nvlink_rate = 900e9;
  l.nic_rate = 12.5e9;
  Collective c = make(Op::AllReduce, Algorithm::Ring, 144, 1 << 30);
  const auto sel = select(c, l);
  REQUIRE(sel.algorithm == Algorithm::Ring);
  CHECK(sel.graph_channels == 32);
  CHECK(sel.channels == 64);
  network::Schedule s;
  const auto e = emit(s, c, l);
  std::set<int> senders;
  std::map<std::pair<int, int>, std::set<std::uint64_t>> hashes;  // scale-out pair -> flow hashes
  int scale_out = 0;
  for (int i = e.first; i < e.last; ++i) {
    const auto& a = s.activities[i];
    if (a.gpu / 72 == a.dst_gpu / 72) continue;
    ++scale_out;
    senders.insert(a.gpu);
    hashes[{a.gpu, a.dst_gpu}].insert(a.flow_hash);
  }
  CHECK(scale_out == 64 * 2);
  CHECK(senders.size() == 2u * 32);
  // each NIC pair carries a search channel and its copy, as two flows of different hashes
  CHECK(hashes.size() == 2u * 32);
  for (const auto& [pair, h] : hashes) CHECK(h.size() == 2u);
}

TEST_CASE("unequal domain shares: NCCL's analytic ring runs at the smallest share's channels and speed",
          "[ring][unequal_shares]") {
  // 20 H100 as 8 + 8 + 4 over 3 HGX domains of 8 (8 x 400G NICs each). Every node searches its
  // own ring graph: the 8-GPU domains 8 channels x 48 GB/s, the 4-GPU domain 4 x 48 duplicated to
  // 8 x 24 (search.cc ncclTopoDupChannels); AllGather3 keeps the min of nChannels and bwInter
  // over ranks (init.cc v2.28.3-1): 8 x 24 = 192 GB/s busbw, not the mean share's 7 x 48 = 336.
  const auto fabric = topology::build_fabric(test::rail_cluster(3, 8, topology::FabricKind::LeafSpine, 16));
  const auto l = Layout::from(fabric, test::nvlink4_gpu());
  std::vector<int> group = iota(16);
  for (int g : {16, 17, 18, 19}) group.push_back(g);
  const nccl::System sys = nccl_system(group, l);
  CHECK(sys.ranks == 20);  // ring steps and latencies count every rank
  CHECK(sys.nodes == 3);
  CHECK(nccl::min_local_ranks(sys) == 4);
  CHECK(nccl::max_local_ranks(sys) == 8);
  CHECK(sys.nics == 4);
  const auto m = nccl::build_model(sys);
  CHECK(m.graph[nccl::kRing].channels == 8);
  CHECK(m.graph[nccl::kRing].bw_inter == Approx(24.0));
  const double S = 1 << 30;
  Collective c = make(Op::AllReduce, Algorithm::Ring, 20, S);
  c.gpus = group;
  const auto sel = select(c, l);
  REQUIRE(sel.algorithm == Algorithm::Ring);
  const double busbw = S / sel.bw_time * 2 * 19 / 20;
  CHECK(busbw == Approx(192e9).epsilon(1e-9));
  // the same group over equal shares (3 x 8 = 24 GPUs, a share of 8 each): 8 x 48 = 384
  c.gpus = iota(24);
  CHECK(S / select(c, l).bw_time * 2 * 23 / 24 == Approx(384e9).epsilon(1e-9));
  // NVLS needs more than 2 GPUs on every node (ncclNvlsInit, gpuCount <= 2; AllGather3 then
  // turns it off for all): 8 + 8 + 2 has no NVLSTree although its mean share is 6
  std::vector<int> g2 = iota(16);
  for (int g : {16, 17}) g2.push_back(g);
  c.gpus = g2;
  c.algorithm = Algorithm::NvlsTree;
  CHECK_THROWS_WITH(select(c, l), Catch::Contains("more than 2 GPUs"));
  CHECK(nccl::build_model(nccl_system(g2, l)).graph[nccl::kNvlsTree].channels == 0);
}

TEST_CASE("unequal domain shares: NVLS and CollNet across domains run every domain on the fewest heads",
          "[unequal_shares]") {
  // 20 H100 as 8 + 8 + 4 over 3 HGX domains of 8, with SHARP. NCCL connects minHeadNum NVLS heads
  // on every node, the fewest any node's NVLS graph found (connect.cc ncclTopoPostset /
  // connectNvls, v2.28.3-1), and AllGather3 keeps the fewest CollNet channels (init.cc). The old
  // block took the mean share (20 / 3 = 6 GPUs) with the smallest share's NICs.
  const double S = 1 << 30;
  std::vector<int> group = iota(16);
  for (int g : {16, 17, 18, 19}) group.push_back(g);
  {
    // 2 NICs per GPU (16 x 200G a domain: NCCL sees 25 GB/s NICs): heads min(8, 16) and
    // min(4, 8) = 4 (old: min(6, 8) = 6); algbw min(370.8 x 0.85 x 4/5, 4 x 25) = 100 GB/s
    // (old 6 x 25 = 150)
    Layout l = nodes_of(8, 4, true, true);
    l.nics_per_node = 16;
    const nccl::System sys = nccl_system(group, l);
    CHECK(nccl::nvls_heads(sys) == 4);
    Collective c = make(Op::AllReduce, Algorithm::Nvls, 20, S);
    c.gpus = group;
    const auto sel = select(c, l);
    REQUIRE(sel.algorithm == Algorithm::Nvls);
    CHECK(sel.bw_time == Approx(S / (4 * 25 * 1e9)).epsilon(1e-9));
  }
  {
    // CollNet direct: 4 heads (the domain of 4), and the domains of 8 reduce-scatter and gather
    // 2 x 7/8 S over NVLink at the ring graph's 8 x 24 GB/s: min(4 x 48, 192 x 8/14) x 0.85 (old:
    // the mean share's 192 x 6/10)
    const Layout l = nodes_of(8, 4, true, true);
    Collective c = make(Op::AllReduce, Algorithm::CollNetDirect, 20, S);
    c.gpus = group;
    CHECK(nccl::collnet_heads(nccl_system(group, l)) == 4);
    const auto sel = select(c, l);
    REQUIRE(sel.algorithm == Algorithm::CollNetDirect);
    CHECK(sel.bw_time == Approx(S / (192e9 * 8 / 14 * 0.85)).epsilon(1e-9));
  }
}

TEST_CASE("NVLS across domains holds the heads' one-domain NVLS busbw, capped by their NICs") {
  // 4 x 8 H100 + SHARP, 8 x 400G: 8 heads (one per NIC), NVLink 18 x 20.6 = 370.8 GB/s, NVLS
  // efficiency 0.85 (tuning.cc v2.28.3-1): one domain's algbw 370.8 x 0.85 x 8/9 = 280.2 GB/s,
  // busbw x 2 x 7/8 = 490.4, held at 32 ranks (NCCL's NVLS busBw per channel has no node term
  // and goes to algbw by the ring's ratio): algbw 490.4 x 32/62 = 253.1 (busbw 490 against
  // NVIDIA's 480, GTC24 S62129). The old code ran the domain's algbw, 280.2 (busbw 543).
  const double S = 1 << 30;
  const double domain = 370.8 * 0.85 * 8 / 9;
  const auto sel = select(make(Op::AllReduce, Algorithm::Nvls, 32, S), nodes_of(8, 4, true, true));
  REQUIRE(sel.algorithm == Algorithm::Nvls);
  CHECK(sel.bw_time == Approx(S / (domain * 7 / 8 * 32 / 31 * 1e9)).epsilon(1e-9));
  // 16 nodes: n/(n - 1) = 128/127, the busbw the same
  const auto sel16 = select(make(Op::AllReduce, Algorithm::Nvls, 128, S), nodes_of(8, 4, true, true));
  REQUIRE(sel16.algorithm == Algorithm::Nvls);
  CHECK(sel16.bw_time == Approx(S / (domain * 7 / 8 * 128 / 127 * 1e9)).epsilon(1e-9));
  // with 2 NICs a node the heads' NICs bind: 2 heads, min(370.8 x 0.85 x 2/3 x 1/2 x 32/31, 2 x 48) = 96
  Layout two = nodes_of(8, 4, true, true);
  two.nics_per_node = 2;
  const auto sel2 = select(make(Op::AllReduce, Algorithm::Nvls, 32, S), two);
  REQUIRE(sel2.algorithm == Algorithm::Nvls);
  CHECK(sel2.bw_time == Approx(S / (2 * 48 * 1e9)).epsilon(1e-9));
}

TEST_CASE("the call's datatype and reduction reach NCCL's per-call rules (enqueue.cc v2.28.3-1)") {
  // 4 x 8 H100, 8 GiB all-reduce: ring for bfloat16; for fp8 the ring is relegated above 8 ranks
  // and NVLS does not reduce fp8 (ncclNvlsSupported), so the tree
  auto c = make(Op::AllReduce, Algorithm::Auto, 32, 8.0 * (1 << 30));
  CHECK(select(c, nodes_of(8)).algorithm == Algorithm::Ring);
  c.type = DataType::F8e4m3;
  CHECK(select(c, nodes_of(8)).algorithm == Algorithm::Tree);
  // 64 nodes of one GPU, 8 KiB reduce-scatter: PAT for sum, ring for avg
  auto rs = make(Op::ReduceScatter, Algorithm::Auto, 64, 8192);
  CHECK(select(rs, nodes_of(1)).algorithm == Algorithm::Pat);
  rs.redop = RedOp::Avg;
  CHECK(select(rs, nodes_of(1)).algorithm == Algorithm::Ring);
}

TEST_CASE("stepped broadcast / reduce chain takes the collapsed chain's time (idle fabric, 1-32 nodes)") {
  // NCCL runs ring broadcast / reduce as a pipelined chain in ring order: its first chunk crosses
  // the n - 1 hops in series. NCCL's tuner charges one hop (tuning.cc v2.28.3-1, sameChannels),
  // which the collapsed chain took; stepped, every hop paid at least its route in series, so the
  // two disagreed (old code, 8 B: 22.4 / 98.0 / 804 us stepped against 10.7 collapsed on 2 / 8 /
  // 64 nodes). Now both charge the chain's hops once (NCCL's per-step ring latency, at least the
  // hop's route): within 1 % with one chunk (8 B). With K chunks the flows pay the slowest hop's
  // route and chunk once more per chunk (NCCL's FIFO keeps the route in flight): at most (K - 1) x
  // (that route + a chunk at the NIC's rate) over (2 nodes, 64 KiB in 2 LL chunks: +3.7 us).
  for (int nodes : {1, 2, 8, 32})
    for (Op op : {Op::Broadcast, Op::Reduce})
      for (double bytes : {8.0, 65536.0}) {
        const auto fabric = topology::build_fabric(test::rail_cluster(nodes, 8, topology::FabricKind::Clos3, 64));
        network::FlowNetwork net(fabric);
        const Layout l = Layout::from(fabric, test::nvlink4_gpu());
        double t[2], model = 0;
        int K = 1;
        for (bool collapse : {false, true}) {
          auto c = make(op, Algorithm::Ring, nodes * 8, bytes, collapse);
          network::Schedule s;
          s.gpu_flops = {1e15};
          model = emit(s, c, l).time;
          for (const auto& a : s.activities) K = std::max(K, a.repeat);
          t[collapse] = net.run(s).makespan;
        }
        double routes = 0, slowest = 0;
        for (int i = 0; i + 1 < nodes * 8; ++i) {
          routes += l.route_latency(i, i + 1);
          slowest = std::max(slowest, l.route_latency(i, i + 1));
        }
        INFO(nodes << " nodes, " << op_name(op) << ", " << bytes << " B, " << K << " chunks: stepped " << t[0] * 1e6
                   << " us, collapsed " << t[1] * 1e6 << " us, model " << model * 1e6 << " us");
        if (K == 1) CHECK(t[0] == Approx(t[1]).epsilon(0.01));
        CHECK(t[0] <= t[1] * 1.01 + (K - 1) * (slowest + bytes / K / l.nic_rate));
        CHECK(t[0] >= t[1] * 0.97);
        CHECK(t[1] == Approx(model).epsilon(0.03));
        CHECK(t[0] >= routes);  // the chain's first chunk crosses every hop
      }
}

TEST_CASE("tree inside a domain of 2 GPUs: each direction of the link carries both chains, S") {
  // Channel j's chain starts at GPU j; with g = 2 chain 0 (0 -> 1) and chain 1 (1 -> 0) share the
  // one NVLink, so 0 -> 1 carries chain 0's broadcast S/2 and chain 1's reduce S/2. The plan gave
  // each direction (g - 1)/g S = S/2 (it skipped the reverse flows at g = 2 as duplicates).
  const double S = 1e9;
  const Layout l = nodes_of(2);
  auto c = make(Op::AllReduce, Algorithm::Tree, 8, S);
  const detail::EmitContext ctx{c, l, Protocol{}, 2};
  const auto doms = detail::by_domain(c.gpus, l);
  const auto plan = detail::plan_tree(ctx, doms);
  std::map<std::pair<int, int>, double> bytes;
  for (const auto& f : plan.flows)
    if (l.domain_of(f.src) == l.domain_of(f.dst)) bytes[{f.src, f.dst}] += f.payload * f.repeat;
  REQUIRE(bytes.size() == 8u);  // 4 domains, both directions
  for (const auto& [pair, b] : bytes) {
    INFO(pair.first << " -> " << pair.second);
    CHECK(b == Approx(S));
  }
}

TEST_CASE("bench --max-channels is NCCL_MAX_NCHANNELS: ring, tree and NVLS across domains, not NVLS CTAs",
          "[collectives][nccl]") {
  const double S = 1 << 30;
  Protocol four;
  four.max_channels = 4;
  // NVLS on one domain runs comm->nvlsChannels (enqueue.cc topoGetAlgoInfo v2.28.3-1), which
  // NCCL_MAX_NCHANNELS does not cap (transport/nvls.cc ncclNvlsInit: NCCL_MAX_CTAS only): 16 CTAs,
  // the same time. The old code reported 4 channels.
  const auto nvls = select(make(Op::AllReduce, Algorithm::Nvls, 8, S), nodes_of(8));
  const auto nvls4 = select(make(Op::AllReduce, Algorithm::Nvls, 8, S), nodes_of(8), four);
  REQUIRE(nvls.channels == 16);
  CHECK(nvls4.channels == 16);
  CHECK(nvls4.time() == nvls.time());
  // NVLSTree likewise; its stepped tree runs NCCL's chunks per channel of 16 channels (128 at 1 GiB
  // on 4 nodes), not of 4 (the old code: 512).
  const auto tree = make(Op::AllReduce, Algorithm::NvlsTree, 32, S, false);
  const auto t4 = select(tree, nodes_of(8), four);
  CHECK(t4.channels == 16);
  CHECK(t4.time() == select(tree, nodes_of(8)).time());
  network::Schedule s0, s4;
  emit(s0, tree, nodes_of(8));
  emit(s4, tree, nodes_of(8), four);
  auto reps = [](const network::Schedule& s) {
    int r = 0;
    for (const auto& a : s.activities) r = std::max(r, a.repeat);
    return r;
  };
  CHECK(reps(s4) == reps(s0));
  // NVLS across domains (SHARP) runs min(nvlsChannels, comm->nChannels): capped, and its first
  // round (calcCollChunking on those CTAs) with it.
  const auto sharp = select(make(Op::AllReduce, Algorithm::Nvls, 32, S), nodes_of(8, 4, true, true));
  const auto sharp4 = select(make(Op::AllReduce, Algorithm::Nvls, 32, S), nodes_of(8, 4, true, true), four);
  REQUIRE(sharp.channels == 16);
  CHECK(sharp4.channels == 4);
  CHECK(sharp4.latency < sharp.latency);
  // Ring: comm->nChannels capped after ncclTopoPostset's copies (connect.cc), so NCCL's model
  // has 4 channels (its ring plateau test, bytes / (nChannels x ranks) >= 64, sees them).
  const auto sys4 = nccl_system(iota(32), nodes_of(8), four);
  CHECK(nccl::build_model(sys4).channels == 4);
  CHECK(select(make(Op::AllReduce, Algorithm::Ring, 32, S), nodes_of(8), four).channels == 4);
  // NCCL caps NCCL_MAX_NCHANNELS at MAXCHANNELS (64).
  Protocol many;
  many.max_channels = 1000;
  CHECK(nccl::build_model(nccl_system(iota(32), nodes_of(8), many)).channels ==
        nccl::build_model(nccl_system(iota(32), nodes_of(8))).channels);
}

TEST_CASE("NCCL_NVLS_NCHANNELS and NCCL_MAX_CTAS set the NVLS CTAs (transport/nvls.cc v2.28.3-1)",
          "[collectives][nccl]") {
  const double S = 256 << 20;
  Protocol nvls8;
  nvls8.nvls_channels = 8;
  // 8 CTAs instead of 16: the first round (CTAs x heads x chunk) halves, and so the fill.
  const auto c = make(Op::AllReduce, Algorithm::Nvls, 8, S);
  const auto base = select(c, nodes_of(8));
  const auto eight = select(c, nodes_of(8), nvls8);
  CHECK(eight.channels == 8);
  CHECK(eight.bw_time == base.bw_time);
  const double nccl_lat = 25e-6;
  CHECK((eight.latency - nccl_lat) == Approx((base.latency - nccl_lat) / 2).epsilon(1e-9));
  // NCCL_MAX_CTAS caps both nvlsChannels and comm->nChannels.
  Protocol ctas;
  ctas.max_ctas = 6;
  CHECK(select(c, nodes_of(8), ctas).channels == 6);
  CHECK(select(make(Op::AllReduce, Algorithm::Ring, 32, S), nodes_of(8), ctas).channels == 6);
  // NCCL_NVLS_NCHANNELS above NCCL_MAX_CTAS: max(minCTAs, min(maxCTAs, channels)).
  ctas.nvls_channels = 12;
  CHECK(select(c, nodes_of(8), ctas).channels == 6);
}

TEST_CASE("NCCL_MIN_NCHANNELS raises comm->nChannels after the caps (graph/connect.cc v2.28.3-1)",
          "[collectives][nccl]") {
  Protocol min32;
  min32.min_channels = 32;
  // 8 x H100: comm->nChannels 24 (12 search channels doubled), copied up to 32 by ncclTopoPostset;
  // the old code ignored the setting (there was none) and ran 24.
  const auto ring = make(Op::AllReduce, Algorithm::Ring, 8, 1 << 30);
  const auto base = select(ring, nodes_of(8));
  const auto more = select(ring, nodes_of(8), min32);
  REQUIRE(base.channels == 24);
  CHECK(more.channels == 32);
  // NCCL's tables use the search graph's 12 channels (tuning.cc): neither its prediction nor the
  // bandwidth moves; the copies share the same NVLinks.
  CHECK(more.nccl_time == base.nccl_time);
  CHECK(more.time() == base.time());
  // topoGetAlgoInfo sheds from 32 now: 1 MiB ring/LL keeps 1 MiB / (512 threads x 64 B) = 32.
  CHECK(select(make(Op::AllReduce, Algorithm::Ring, 8, 1 << 20), nodes_of(8), min32).channels == 32);
  CHECK(select(make(Op::AllReduce, Algorithm::Ring, 8, 1 << 20), nodes_of(8)).channels == 24);
  // ...and still sheds small messages: no minimum reaches enqueue.cc's loop.
  CHECK(select(make(Op::AllReduce, Algorithm::Ring, 8, 32 << 10), nodes_of(8), min32).channels == 1);
  // Max, then min: "only use the first channels, then duplicate them". 4 channels copied to 8
  // run NCCL's bandwidth formula on 8 of the graph's 12 channels, not on 4.
  Protocol four, four_to_eight;
  four.max_channels = four_to_eight.max_channels = 4;
  four_to_eight.min_channels = 8;
  const auto capped = select(ring, nodes_of(8), four);
  const auto copied = select(ring, nodes_of(8), four_to_eight);
  CHECK(copied.channels == 8);
  const nccl::Model m = nccl::build_model(nccl_system(iota(8), nodes_of(8)));
  const double bw4 = nccl::bandwidth_on(m, nccl::kAllReduce, nccl::kRing, nccl::kSimple, 4);
  const double bw8 = nccl::bandwidth_on(m, nccl::kAllReduce, nccl::kRing, nccl::kSimple, 8);
  REQUIRE(bw8 > bw4);
  CHECK(copied.bw_time == Approx(capped.bw_time * bw4 / bw8).epsilon(1e-9));
  // A minimum above NCCL_MAX_CTAS wins too (the copies are not capped again).
  Protocol ctas8;
  ctas8.max_ctas = 8;
  ctas8.min_channels = 16;
  CHECK(select(ring, nodes_of(8), ctas8).channels == 16);
  // Not NVLS on one domain (nvlsChannels); capped at MAXCHANNELS 64.
  CHECK(select(make(Op::AllReduce, Algorithm::Nvls, 8, 1 << 30), nodes_of(8), min32).channels == 16);
  Protocol many;
  many.min_channels = 1000;
  CHECK(nccl::build_model(nccl_system(iota(8), nodes_of(8), many)).channels == 64);
  // The ring plateau (ncclTopoGetAlgoTime: latency x 1.4 when bytes / (nChannels x ranks) >= 64,
  // Simple, several nodes) on 2 x 8 H100 at 16 KiB: 16 KiB / (16 x 16) = 64 with NCCL's 16
  // channels, 32 with 32: NCCL predicts, and the execution model charges, 1/1.4 of the latency.
  Protocol simple = min32;
  simple.proto = Proto::Simple;
  Protocol simple_base;
  simple_base.proto = Proto::Simple;
  const auto small = make(Op::AllReduce, Algorithm::Ring, 16, 16 << 10);
  const auto plateau = select(small, nodes_of(8), simple_base);
  const auto flat = select(small, nodes_of(8), simple);
  REQUIRE(nccl::build_model(nccl_system(iota(16), nodes_of(8))).channels == 16);
  CHECK(flat.latency == Approx(plateau.latency / 1.4).epsilon(1e-9));
  CHECK(flat.nccl_time < plateau.nccl_time);
}

TEST_CASE("NCCL_MIN_CTAS raises comm->nChannels and nvlsChannels (init.cc, transport/nvls.cc v2.28.3-1)",
          "[collectives][nccl]") {
  const double S = 256 << 20;
  Protocol min32;
  min32.min_ctas = 32;
  // nvlsChannels = max(minCTAs, min(maxCTAs, 16)) = 32 CTAs: the first round (CTAs x heads x
  // chunk) doubles, and so the fill over NCCL's 25 us.
  const auto c = make(Op::AllReduce, Algorithm::Nvls, 8, S);
  const auto base = select(c, nodes_of(8));
  const auto more = select(c, nodes_of(8), min32);
  CHECK(more.channels == 32);
  CHECK(more.bw_time == base.bw_time);
  const double nccl_lat = 25e-6;
  CHECK((more.latency - nccl_lat) == Approx(2 * (base.latency - nccl_lat)).epsilon(1e-9));
  // ...and comm->nChannels (ncclTopoPostset: max(ncclMinNchannels(), config.minCTAs)).
  CHECK(select(make(Op::AllReduce, Algorithm::Ring, 8, S), nodes_of(8), min32).channels == 32);
  // Above NCCL_NVLS_NCHANNELS.
  Protocol nvls8 = min32;
  nvls8.nvls_channels = 8;
  nvls8.min_ctas = 12;
  CHECK(select(c, nodes_of(8), nvls8).channels == 12);
  // Above NCCL_MAX_CTAS, NCCL lowers minCTAs to maxCTAs (envConfigOverride, "set both").
  Protocol both;
  both.min_ctas = 32;
  both.max_ctas = 8;
  const auto m = nccl::build_model(nccl_system(iota(8), nodes_of(8), both));
  CHECK(m.nvls_channels == 8);
  CHECK(m.channels == 8);
}

TEST_CASE("merged ring channels: one transfer per pair of the unmerged plan, for dense and sparse GPU ranks",
          "[collectives][merge_channels]") {
  // 2 x 8 GPUs, 16 channels; every scale-out pair under one leaf (Layout::one_route), so its
  // channel copies merge too. The same group on GPU ranks 0-15 and on two domains 10,000 apart
  // (collapsed_channels' and materialize's hash-map paths instead of their dense arrays) must
  // give the same transfers. Each merged transfer: the unmerged pair's bytes, its copies as
  // weight, the hash of its first hop. Emitting again (another collective between, on other
  // ports of the same range) gives the same bits: materialize's port scratch is left zeroed.
  auto plan = [](int second, bool merge) {
    Layout l = nodes_of(8);
    l.one_route = [](int a, int b) { return a / 8 != b / 8; };
    Collective c = make(Op::ReduceScatter, Algorithm::Ring, 16, 1 << 28);
    for (int i = 8; i < 16; ++i) c.gpus[i] = second + i - 8;
    c.merge_channels = merge;
    c.hash = 7;
    network::Schedule s;
    emit(s, c, l);
    return s.activities;
  };
  auto rank = [](int g) { return g < 8 ? g : 8 + g % 8; };
  const auto dense = plan(8, true), sparse = plan(80000, true), unmerged = plan(8, false);
  REQUIRE(dense.size() == sparse.size());
  CHECK(dense.size() == 32u);  // each domain's 8 NVLink pairs, 8 scale-out pairs each way
  for (std::size_t i = 0; i < dense.size(); ++i) {
    INFO(i);
    CHECK(dense[i].gpu == rank(sparse[i].gpu));
    CHECK(dense[i].dst_gpu == rank(sparse[i].dst_gpu));
    CHECK(std::bit_cast<std::uint64_t>(dense[i].amount) == std::bit_cast<std::uint64_t>(sparse[i].amount));
    CHECK(dense[i].weight == sparse[i].weight);
    CHECK(dense[i].flow_hash == sparse[i].flow_hash);
  }
  std::map<std::pair<int, int>, std::tuple<double, int, std::uint64_t>> pairs;  // bytes, hops, first hash
  for (const auto& a : unmerged) {
    auto [it, fresh] = pairs.try_emplace({a.gpu, a.dst_gpu}, 0.0, 0, a.flow_hash);
    std::get<0>(it->second) += a.amount;
    std::get<1>(it->second) += 1;
  }
  REQUIRE(pairs.size() == dense.size());
  for (const auto& a : dense) {
    const auto& [bytes, hops, hash] = pairs.at({a.gpu, a.dst_gpu});
    CHECK(a.amount == Approx(bytes).epsilon(1e-12));
    CHECK(a.weight == hops);
    CHECK(a.flow_hash == hash);
  }
  // again, after another collective on the same GPU range
  Layout l = nodes_of(8);
  network::Schedule other;
  emit(other, make(Op::AllGather, Algorithm::Ring, 12, 1 << 20), l);
  const auto again = plan(8, true);
  REQUIRE(again.size() == dense.size());
  for (std::size_t i = 0; i < again.size(); ++i) {
    CHECK(std::bit_cast<std::uint64_t>(again[i].amount) == std::bit_cast<std::uint64_t>(dense[i].amount));
    CHECK(std::bit_cast<std::uint64_t>(again[i].delay) == std::bit_cast<std::uint64_t>(dense[i].delay));
  }
}
