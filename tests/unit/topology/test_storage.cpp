// Storage servers on the fabric (FabricSpec::storage): where they attach, their routes to and from
// GPUs, and that GPU routes and ids do not change when storage is added.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using aidcsim::InvalidParameter;

namespace {

/// 2-tier rail-optimized leaf-spine, radix 8 at 1:1: 4 GPU ports and 4 uplinks per leaf; 16 GPUs of
/// 4 per node = one scalable unit of 4 rail leaves; 2 spines, 2 parallel links from each leaf.
FabricSpec small_leaf_spine() {
  FabricSpec s;
  s.gpus = 16;
  s.gpus_per_node = 4;
  s.nvlink_domain = 4;
  s.kind = FabricKind::LeafSpine;
  s.switch_radix = 8;
  return s;
}

StorageSpec storage(int nodes, int nics, StorageSpec::Attach attach) {
  StorageSpec st;
  st.nodes = nodes;
  st.nics_per_node = nics;
  st.nic_rate = 50e9;
  st.attach = attach;
  st.write_bandwidth = 10e9;
  st.read_bandwidth = 20e9;
  return st;
}

int count_tier(const Fabric& f, const std::vector<Hop>& hops, Tier t) {
  int n = 0;
  for (const Hop& h : hops) n += f.link(h.link).tier == t;
  return n;
}

}  // namespace

TEST_CASE("storage on its own leaves of a leaf-spine: servers, leaves, media and routes", "[topology][storage]") {
  FabricSpec s = small_leaf_spine();
  s.storage = storage(2, 2, StorageSpec::Attach::OwnLeaves);
  const Fabric f = build_fabric(s);
  REQUIRE(f.storage_count() == 2);
  CHECK(f.layout().storage_leaves == 1);  // 2 servers x 2 NICs = 4 ports = one leaf of 4
  const int stor0 = f.storage_node(0);
  CHECK(f.node(stor0).kind == NodeKind::Storage);
  CHECK(f.node(stor0).name == "stor0");
  CHECK(f.is_endpoint(stor0));
  CHECK(f.is_endpoint(0));
  CHECK_FALSE(f.is_endpoint(f.find_node("leaf0")));
  CHECK(f.find_node("sleaf0") >= 0);
  CHECK(f.link(f.storage_write_link(0)).rate == 10e9);
  CHECK(f.link(f.storage_read_link(1)).rate == 20e9);
  CHECK(f.link(f.storage_access_link(1, 0)).name == "stor1-sleaf0/0");
  // The storage leaf's 4 uplinks take 2 more ports on each radix-8 spine (4 leaves x 2 + 2 = 10).
  REQUIRE(f.warnings().size() == 1);
  CHECK(f.warnings()[0].find("fabric.storage") == 0);

  // Write GPU 5 -> stor0 on NIC 1 (hash 1 % 2): NIC, leaf-spine, spine-storage leaf, storage NIC, media.
  const auto w = f.route(5, stor0, 1);
  REQUIRE(w.size() == 5);
  CHECK(w.front().link == f.access_link(5));
  CHECK(w.front().forward);
  CHECK(count_tier(f, w, Tier::LeafSpine) == 2);
  CHECK(w[3].link == f.storage_access_link(0, 1));
  CHECK_FALSE(w[3].forward);  // leaf -> server
  CHECK(w.back().link == f.storage_write_link(0));
  CHECK(f.latency(w) == Approx(4 * (s.link_latency + s.switch_latency)));
  // Read stor0 -> GPU 5: media read first, then the NIC, the fabric, the GPU's NIC inwards.
  const auto r = f.route(stor0, 5, 0);
  REQUIRE(r.size() == 5);
  CHECK(r.front().link == f.storage_read_link(0));
  CHECK(r[1].link == f.storage_access_link(0, 0));
  CHECK(r[1].forward);
  CHECK(r.back().link == f.access_link(5));
  CHECK_FALSE(r.back().forward);
  // Cached and deterministic.
  CHECK(f.route(5, stor0, 1).size() == w.size());
  // Server to server is not modelled; a switch is not an endpoint.
  CHECK_THROWS_AS(f.route(stor0, f.storage_node(1), 0), aidcsim::SimulationError);
  CHECK_THROWS(f.route(0, f.find_node("leaf0"), 0));
  // Storage flows are hashed, not sprayed.
  CHECK(f.routes(0, stor0).empty());
}

TEST_CASE("adding storage changes no GPU route, node id or link id, and bom() counts its switches and cables",
          "[topology][storage]") {
  FabricSpec plain = small_leaf_spine();
  FabricSpec with = plain;
  with.storage = storage(2, 2, StorageSpec::Attach::OwnLeaves);
  const Fabric a = build_fabric(plain), b = build_fabric(with);
  for (int src = 0; src < 16; ++src)
    for (int dst = 0; dst < 16; dst += 3)
      for (std::uint64_t h : {0ull, 7ull, 123456789ull}) {
        const auto ra = a.route(src, dst, h), rb = b.route(src, dst, h);
        REQUIRE(ra.size() == rb.size());
        for (std::size_t i = 0; i < ra.size(); ++i) CHECK(ra[i].link == rb[i].link);
      }
  for (int n = 0; n < a.node_count(); ++n) CHECK(a.node(n).name == b.node(n).name);
  const BillOfMaterials ba = a.bom(), bb = b.bom();
  CHECK(bb.leaves == ba.leaves + 1);
  CHECK(bb.access_links == ba.access_links + 4);  // the servers' NICs; media are not cables
  CHECK(bb.leaf_spine_links == ba.leaf_spine_links + 4);
  // Separate storage: no switch, no cable of the back-end fabric.
  FabricSpec sep = plain;
  sep.storage = storage(2, 2, StorageSpec::Attach::Separate);
  const Fabric c = build_fabric(sep);
  CHECK(c.bom().switches == ba.switches);
  CHECK(c.bom().scaleout_cables == ba.scaleout_cables);
  CHECK(c.warnings().empty());
  const auto w = c.route(3, c.storage_node(1), 0);
  REQUIRE(w.size() == 3);  // the GPU's NIC (shared with training), the server's NIC, its media
  CHECK(w[0].link == c.access_link(3));
  CHECK(w[1].link == c.storage_access_link(1, 0));
  CHECK(w[2].link == c.storage_write_link(1));
}

TEST_CASE("clos3 storage: own_leaves is a storage pod under the cores, per_pod hangs under each pod's spines",
          "[topology][storage]") {
  FabricSpec s = test::fat_tree(4);  // 16 hosts, 4 pods of 2 leaves and 2 spines, 4 cores
  s.storage = storage(4, 1, StorageSpec::Attach::OwnLeaves);
  const Fabric own = build_fabric(s);
  CHECK(own.layout().storage_leaves == 2);  // 4 NIC ports on leaves of 2
  CHECK(own.layout().storage_spines == 2);
  CHECK(own.find_node("sspine1") >= 0);
  CHECK(own.node(own.find_node("sleaf0")).pod == own.layout().pods);  // the storage pod
  for (int g : {0, 15}) {
    const auto w = own.route(g, own.storage_node(3), 5);
    CHECK(count_tier(own, w, Tier::SpineCore) == 2);  // every GPU reaches it through a core
    CHECK(w.back().link == own.storage_write_link(3));
  }

  s.storage.attach = StorageSpec::Attach::PerPod;
  const Fabric pp = build_fabric(s);
  CHECK(pp.layout().storage_spines == 0);
  CHECK(pp.node(pp.storage_node(1)).pod == 1);  // server i in pod i % pods
  // GPU 0 (pod 0) to server 0 (pod 0) stays in its pod; to server 1 (pod 1) it crosses a core.
  CHECK(count_tier(pp, pp.route(0, pp.storage_node(0), 0), Tier::SpineCore) == 0);
  CHECK(count_tier(pp, pp.route(0, pp.storage_node(1), 0), Tier::SpineCore) == 2);
}

TEST_CASE("storage that cannot be wired is refused with its key", "[topology][storage]") {
  FabricSpec s = small_leaf_spine();
  s.gpus = 4;  // one leaf: no spine tier to wire storage leaves to
  s.kind = FabricKind::LeafSpine;
  s.wiring = Wiring::RackLocal;
  s.storage = storage(1, 1, StorageSpec::Attach::OwnLeaves);
  try {
    build_fabric(s);
    FAIL("no error");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "fabric.storage.attach");
  }
  s.storage.attach = StorageSpec::Attach::Separate;
  CHECK(build_fabric(s).storage_count() == 1);

  FabricSpec p = small_leaf_spine();
  p.planes = 2;
  p.storage = storage(1, 3, StorageSpec::Attach::OwnLeaves);
  try {
    build_fabric(p);
    FAIL("no error");
  } catch (const InvalidParameter& e) {
    CHECK(e.key() == "fabric.storage.nics_per_node");
  }
  p.storage.nics_per_node = 2;  // NIC k on plane k: the GPU's port on the same plane
  const Fabric f = build_fabric(p);
  CHECK(f.route(0, f.storage_node(0), 1).front().link == f.access_link(0, 1));
  CHECK(f.route(0, f.storage_node(0), 0).front().link == f.access_link(0, 0));
}

TEST_CASE("a storage route follows failures: a dead storage NIC disconnects it", "[topology][storage]") {
  FabricSpec s = small_leaf_spine();
  s.storage = storage(1, 1, StorageSpec::Attach::OwnLeaves);
  Fabric f = build_fabric(s);
  const int stor = f.storage_node(0);
  const auto before = f.route(0, stor, 3);
  f.set_link_up(before[1].link, false);  // the leaf-spine link it used
  const auto after = f.route(0, stor, 3);
  REQUIRE(after.size() == before.size());
  CHECK(after[1].link != before[1].link);
  f.set_link_up(f.storage_access_link(0, 0), false);
  CHECK_THROWS_AS(f.route(0, stor, 3), aidcsim::SimulationError);
}

TEST_CASE("hash_on_plane puts a GPU's or a storage flow on the plane asked", "[topology][storage]") {
  for (auto attach : {StorageSpec::Attach::OwnLeaves, StorageSpec::Attach::Separate}) {
    FabricSpec s = small_leaf_spine();
    s.planes = 2;
    s.nic_rate = 100e9;
    s.storage = storage(2, 4, attach);
    const Fabric f = build_fabric(s);
    const int server = f.storage_node(1);
    for (std::uint64_t h = 0; h < 64; ++h)
      for (int q = 0; q < 2; ++q) {
        for (auto [src, dst] : {std::pair{0, 9}, std::pair{3, server}, std::pair{server, 3}}) {
          const std::uint64_t hq = f.hash_on_plane(src, dst, h, q);
          CHECK(f.plane_of(src, dst, hq) == q);
          if (f.plane_of(src, dst, h) == q) CHECK(hq == h);
          const int gpu = src == server ? dst : src;
          const auto r = f.route(src, dst, hq);
          CHECK(((src == server ? r[r.size() - 1] : r[0]).link) == f.access_link(gpu, q));
        }
      }
  }
}
