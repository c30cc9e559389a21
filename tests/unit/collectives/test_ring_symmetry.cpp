// A stepped ring run as its channel 0 (models/collectives/ring_symmetry.hpp) against the full
// stepped ring: every position's start and finish equal to 1e-9 on fabrics where the channels are
// images of each other (one leaf; leaves and spines; three tiers with cross-leaf and cross-pod
// hops of other latencies), and no reduction where they are not. (A radix-16 clos3 of 8-GPU nodes
// fails the check, so bench-collective simulates its rings in full.)
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "models/collectives/collective.hpp"
#include "models/collectives/ring_symmetry.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/collectives/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::collectives;

namespace {

struct Ring {
  network::Schedule s;
  Emitted e;
  int n = 0;
};

/// The stepped ring of all GPUs of `fabric` on NCCL's search channels without their copies
/// (NCCL_MAX_NCHANNELS = GPUs per node), or with ncclTopoPostset's copies (`copies`).
Ring stepped(const topology::Fabric& fabric, Op op, double bytes, bool copies = false) {
  const auto l = Layout::from(fabric, test::nvlink4_gpu());
  Protocol p;
  if (!copies) p.max_channels = fabric.spec().gpus_per_node;
  Collective c;
  c.op = op;
  c.algorithm = Algorithm::Ring;
  c.gpus.resize(fabric.gpu_count());
  std::iota(c.gpus.begin(), c.gpus.end(), 0);
  c.bytes = bytes;
  c.collapse = false;
  c.hash = 17;
  Ring r;
  r.s.gpu_flops = {1e15};
  r.e = emit(r.s, c, l, p);
  r.n = fabric.gpu_count();
  return r;
}

}  // namespace

TEST_CASE("stepped ring on channel 0: the same times as all channels", "[ring_symmetry]") {
  struct Case {
    const char* what;
    topology::FabricSpec fs;
    bool pipelined;      // hops slower than nominal: pipeline_ring's lanes
    bool copies_images;  // with ncclTopoPostset's copies the channels are still images
  };
  const Case cases[] = {
      {"4 nodes, one leaf per rail", test::rail_cluster(4, 8, topology::FabricKind::LeafSpine, 64), false, true},
      {"16 nodes, leaf-spine of radix 16 (cross-leaf hops)",
       test::rail_cluster(16, 8, topology::FabricKind::LeafSpine, 16), true, false},
      {"32 nodes, clos3 of radix 32", test::rail_cluster(32, 8, topology::FabricKind::Clos3, 32), true, false},
      {"64 nodes of 2 GPUs, clos3 of radix 16 (cross-leaf and cross-pod hops)",
       test::rail_cluster(64, 2, topology::FabricKind::Clos3, 16), true, false},
  };

  for (const auto& k : cases) {
    const auto fabric = topology::build_fabric(k.fs);
    network::FlowNetwork net(fabric);
    for (Op op : {Op::AllReduce, Op::AllGather})
      for (double bytes : {16e6, 256e6})  // (below, NCCL runs fewer channels than NICs: not images)
        for (bool copies : {false, true}) {
          INFO(k.what << ", " << op_name(op) << ", " << bytes << " B, copies " << copies);
          const Ring r = stepped(fabric, op, bytes, copies);
          const auto one = ring_one_channel(r.s, r.e, r.n, fabric);
          if (copies && !k.copies_images) {  // copies of a cross-leaf hop hash onto other spines
            CHECK_FALSE(one.has_value());
            continue;
          }
          REQUIRE(one.has_value());
          const int channels = r.e.rings, g = k.fs.gpus_per_node;
          // NCCL's search channels (one per GPU and NIC), or with ncclTopoPostset's copies m x g
          if (!copies) CHECK(channels == g);
          if (copies) CHECK(channels >= 2 * g);
          const int m = channels / g;                           // copies of channel 0 in the reduced ring
          const int block = (r.e.last - r.e.first) / channels;  // n positions x pipeline lanes
          CHECK((block > r.n) == k.pipelined);
          REQUIRE(static_cast<int>(one->activities.size()) == m * block);
          const auto full = net.run(r.s);
          const auto red = net.run(*one);
          CHECK(red.makespan == Approx(full.makespan).epsilon(1e-9));
          double worst = 0;
          for (int c = 0; c < channels; ++c)
            for (int i = 0; i < block; ++i) {
              const int a = r.e.first + c * block + i, b = (c / g) * block + i;  // copy c / g of channel 0
              worst = std::max(worst, std::abs(full.finish[a] - red.finish[b]) / full.makespan);
              worst = std::max(worst, std::abs(full.start[a] - red.start[b]) / full.makespan);
            }
          CHECK(worst <= 1e-9);
        }
  }
}

TEST_CASE("stepped ring on channel 0: not where the channels differ", "[ring_symmetry]") {
  SECTION("two flows per pair (sub-flows)") {
    auto fs = test::rail_cluster(4, 8, topology::FabricKind::LeafSpine, 64);
    fs.flows_per_pair = 2;
    const auto fabric = topology::build_fabric(fs);
    const Ring r = stepped(fabric, Op::AllReduce, 1e6);
    CHECK_FALSE(ring_one_channel(r.s, r.e, r.n, fabric).has_value());
  }
  SECTION("channels colliding on an oversubscribed leaf-spine") {
    // Rack-local wiring: every node on its own leaf, 4:1 uplinks hashed over few spines: some
    // channels' cross-leaf hops share a leaf-spine link, others do not.
    auto fs = test::rail_cluster(8, 8, topology::FabricKind::LeafSpine, 16);
    fs.wiring = topology::Wiring::RackLocal;
    fs.gpus_per_leaf = 8;
    fs.oversub_leaf = 4;
    const auto fabric = topology::build_fabric(fs);
    const Ring r = stepped(fabric, Op::AllReduce, 1e6);
    CHECK_FALSE(ring_one_channel(r.s, r.e, r.n, fabric).has_value());
  }
  SECTION("collapsed or one channel") {
    const auto fabric = topology::build_fabric(test::rail_cluster(1, 8, topology::FabricKind::LeafSpine, 64));
    const Ring r = stepped(fabric, Op::AllReduce, 1e6);  // one node: a single ring
    CHECK_FALSE(ring_one_channel(r.s, r.e, r.n, fabric).has_value());
  }
}
