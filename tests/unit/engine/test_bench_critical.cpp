// network::critical_parts: the transfers of a collapsed collective that cannot end last, left out
// of bench-collective's run. Guards the cause of issue 12's NVL72 tree slowdown: the tree's
// cross-domain transfers (one per GPU of a 72-GPU domain, per tree edge) hash onto shared leaf
// uplinks at distinct max-min rates (one solver event per few completions, each re-solving all of
// them), yet end long before the NVLink chains that set the time.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/fluid_bound.hpp"
#include "models/topology/fabric.hpp"
#include "sim/engine/collective_bench.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

using namespace aidcsim;

namespace {

/// GB200 NVL72 domains of 18 four-GPU nodes on a rail-optimised clos3 of 64-port switches, one
/// 400G NIC per GPU: scenarios/stargate-uk-8k.yaml's fabric, `domains` x 72 GPUs.
topology::FabricSpec nvl72(int domains, const compute::GpuSpec& gpu) {
  topology::FabricSpec fs;
  fs.gpus = 72 * domains;
  fs.gpus_per_node = 4;
  fs.nvlink_domain = 72;
  fs.kind = topology::FabricKind::Clos3;
  fs.wiring = topology::Wiring::RailOptimized;
  fs.switch_radix = 64;
  fs.link_rate = fs.nic_rate = 50e9;
  fit_fabric_to_gpu(fs, gpu);
  return fs;
}

/// 8 GPUs, one per node (no NVLink), on a leaf-spine at 400 Gb/s.
topology::Fabric eight_single_gpu_nodes() {
  topology::FabricSpec fs;
  fs.gpus = 8;
  fs.gpus_per_node = 1;
  fs.nvlink_domain = 1;
  fs.kind = topology::FabricKind::LeafSpine;
  fs.link_rate = fs.nic_rate = 50e9;
  return topology::build_fabric(fs);
}

/// Appends a transfer of `bytes` B from GPU `src` to `dst` to `s`.
void add_transfer(network::Schedule& s, int src, int dst, double bytes) {
  network::Activity a;
  a.kind = network::Activity::Kind::Transfer;
  a.gpu = src;
  a.dst_gpu = dst;
  a.amount = bytes;
  s.activities.push_back(a);
}

}  // namespace

TEST_CASE("critical parts: an NVL72 tree runs its NVLink chains only, with the same makespan", "[critical]") {
  const auto gpu = builtin_gpus().find("GB200");
  const int D = 4, g = 72;
  const topology::Fabric fab = topology::build_fabric(nvl72(D, gpu));
  const auto layout = collectives::Layout::from(fab, gpu);
  collectives::Collective c;
  c.op = collectives::Op::AllReduce;
  c.algorithm = collectives::Algorithm::Tree;
  for (int r = 0; r < D * g; ++r) c.gpus.push_back(r);
  c.bytes = 1 << 30;
  c.collapse = true;
  network::Schedule s;
  s.gpu_flops = {1e15};
  collectives::emit(s, c, layout);
  // The plan's closed form: chains 2 g per domain, the double binary tree (D - 1) edges per tree,
  // two trees, up and down, on each of the g GPUs' NICs.
  const int chains = 2 * g * D, across = 2 * 2 * (D - 1) * g;
  REQUIRE(static_cast<int>(s.activities.size()) == chains + across);

  const auto parts = network::critical_parts(fab, s);
  // Every cross-domain transfer is bounded off the critical path; only the chains remain.
  CHECK(static_cast<int>(parts.keep.size()) == chains);
  for (int i : parts.keep) CHECK(layout.domain_of(s.activities[i].gpu) == layout.domain_of(s.activities[i].dst_gpu));
  CHECK(parts.components > D);

  network::FlowNetwork net(fab);
  const auto full = net.run(s);
  network::Schedule kept;
  kept.gpu_flops = s.gpu_flops;
  for (int i : parts.keep) kept.activities.push_back(s.activities[i]);
  const auto part = net.run(kept);
  CHECK(part.makespan == Approx(full.makespan).epsilon(1e-12));
  CHECK(full.makespan >= parts.lower);
  // What the bound claims, on the full run: every left-out transfer ends before the lower bound.
  const std::set<int> keep(parts.keep.begin(), parts.keep.end());
  for (int i = 0; i < static_cast<int>(s.activities.size()); ++i)
    if (!keep.count(i)) CHECK(full.finish[i] < parts.lower);
}

TEST_CASE("critical parts: one shared component is kept whole", "[critical]") {
  // Eight GPUs sending to one: a single component, nothing can be left out.
  const topology::Fabric fab = eight_single_gpu_nodes();
  network::Schedule s;
  for (int r = 1; r < 8; ++r) add_transfer(s, r, 0, 1e6 * r);
  const auto parts = network::critical_parts(fab, s);
  CHECK(parts.components == 1);
  CHECK(parts.keep.size() == s.activities.size());
}

TEST_CASE("critical parts: an incast that ends last is kept, a lone transfer left out", "[critical]") {
  // A: 0 -> 1, 10 MB alone on its ports. B: 2..5 -> 6, 3 MB each, sharing 6's port: 12 MB there,
  // so B ends last although each of its transfers is smaller than A's. A bound without the
  // sharing (bytes / rate) would leave B out and give A's makespan.
  const topology::Fabric fab = eight_single_gpu_nodes();
  network::Schedule s;
  add_transfer(s, 0, 1, 10e6);
  for (int r = 2; r <= 5; ++r) add_transfer(s, r, 6, 3e6);
  const auto parts = network::critical_parts(fab, s);
  CHECK(parts.components == 2);
  CHECK(parts.keep == std::vector<int>{1, 2, 3, 4});
  network::FlowNetwork net(fab);
  network::Schedule kept;
  for (int i : parts.keep) kept.activities.push_back(s.activities[i]);
  CHECK(net.run(kept).makespan == Approx(net.run(s).makespan).epsilon(1e-12));
}
