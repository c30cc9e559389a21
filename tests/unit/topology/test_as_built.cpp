// The fabric as built, said plainly: an oversubscription whole ports cannot give, and a clos3 that
// collapses to 2 tiers, are warnings (Fabric::warnings()) or, with FabricSpec::exact, errors.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using aidcsim::InvalidParameter;

namespace {
FabricSpec stargate(int gpus) {
  FabricSpec s;  // defaults: the stargate-uk-8k fabric (4 GPUs/tray, rail-optimized clos3, radix 64)
  s.gpus = gpus;
  return s;
}

std::string error_key(FabricSpec s) {
  s.exact = true;
  try {
    build_fabric(s);
  } catch (const InvalidParameter& e) {
    return e.key();
  }
  return "";
}
}  // namespace

TEST_CASE("spine 2:1 with rail-optimized pods is built at 2:1, not 40/21 = 1.90:1", "[topology][as_built]") {
  FabricSpec s = stargate(8064);
  s.oversub_spine = 2;
  const Fabric f = build_fabric(s);
  CHECK(f.layout().leaves_per_pod == 40);  // 42 spine down ports, whole SUs of 4 rail leaves
  CHECK(f.layout().spine_down == 40);
  CHECK(f.layout().spine_up == 20);
  CHECK(f.bom().oversub_spine == Approx(2.0));
  CHECK(f.warnings().empty());
  CHECK(error_key(s).empty());  // exact mode accepts it
  // 4:1: 48 down / 12 up.
  s.oversub_spine = 4;
  const Fabric g = build_fabric(s);
  CHECK(g.bom().oversub_spine == Approx(4.0));
  CHECK(g.warnings().empty());
}

TEST_CASE("a spine ratio whole ports cannot give warns, and is an error in exact mode", "[topology][as_built]") {
  FabricSpec s = stargate(8064);
  s.oversub_spine = 2.5;  // 45 down ports -> 44 leaves per pod (whole SUs); 44 / 2.5 = 17.6 uplinks
  const Fabric f = build_fabric(s);
  CHECK(f.layout().spine_down == 44);
  CHECK(f.layout().spine_up == 18);
  CHECK(f.bom().oversub_spine == Approx(44.0 / 18));
  REQUIRE(f.warnings().size() == 1);
  CHECK_THAT(f.warnings()[0], Catch::Contains("fabric.oversubscription.spine: asked 2.5:1, built 2.44:1"));
  CHECK(error_key(s) == "fabric.oversubscription.spine");
}

TEST_CASE("a leaf ratio whole ports cannot give warns, and is an error in exact mode", "[topology][as_built]") {
  FabricSpec s = stargate(8064);
  s.oversub_leaf = 1.5;  // exact split exists: 24 up / 36 down
  Fabric f = build_fabric(s);
  CHECK(f.layout().leaf_up == 24);
  CHECK(f.layout().leaf_down == 36);
  CHECK(f.warnings().empty());
  s.oversub_leaf = 1.37;  // no whole-port split within 64 ports: floor(64 / 2.37) = 27 up, 36 down
  f = build_fabric(s);
  CHECK(f.layout().leaf_up == 27);
  CHECK(f.layout().leaf_down == 36);
  REQUIRE(f.warnings().size() == 1);
  CHECK_THAT(f.warnings()[0], Catch::Contains("fabric.oversubscription.leaf: asked 1.37:1, built 1.33:1"));
  CHECK(error_key(s) == "fabric.oversubscription.leaf");
  // gpus_per_leaf 16 at 3:1 needs 5.33 uplinks: 6 are built (2.67:1).
  FabricSpec t = stargate(8064);
  t.wiring = Wiring::RackLocal;
  t.gpus_per_leaf = 16;
  t.oversub_leaf = 3;
  f = build_fabric(t);
  CHECK(f.layout().leaf_up == 6);
  REQUIRE(f.warnings().size() == 1);
  CHECK_THAT(f.warnings()[0], Catch::Contains("built 2.67:1"));
  CHECK(error_key(t) == "fabric.oversubscription.leaf");
}

TEST_CASE("clos3 whose leaves fit in one pod is built as 2 tiers, and says so", "[topology][as_built]") {
  // 576 GPUs = 144 trays = 5 SUs = 20 rail leaves <= 32 leaves per pod: no core tier, and a spine
  // 1:1 / 2:1 / 4:1 sweep gives the same fabric three times.
  for (double o : {1.0, 2.0, 4.0}) {
    FabricSpec s = stargate(576);
    s.oversub_spine = o;
    const Fabric f = build_fabric(s);
    CHECK(f.bom().tiers == 2);
    CHECK(f.bom().cores == 0);
    REQUIRE(f.warnings().size() == 1);
    CHECK_THAT(f.warnings()[0], Catch::Contains("fabric.topology: clos3 asked, built a 2-tier leaf-spine"));
    CHECK_THAT(f.warnings()[0], Catch::Contains("the 20 leaves fit in one pod"));
    if (o != 1.0) CHECK_THAT(f.warnings()[0], Catch::Contains("fabric.oversubscription.spine"));
    CHECK(error_key(s) == "fabric.topology");
  }
  // The same GPUs asked as a leaf-spine are built as asked.
  FabricSpec ls = stargate(576);
  ls.kind = FabricKind::LeafSpine;
  CHECK(build_fabric(ls).warnings().empty());
  CHECK(build_fabric(stargate(8064)).bom().tiers == 3);
}

TEST_CASE("a leaf-spine has no spine uplinks: a spine oversubscription is not applied, and says so",
          "[topology][as_built]") {
  // topology leaf_spine with oversubscription.spine 4:1: the spines have no tier above them, so the
  // ratio cannot be built; the fabric is the 1:1 one, with a warning (an error under exact).
  FabricSpec s = stargate(576);
  s.kind = FabricKind::LeafSpine;
  s.oversub_spine = 4;
  const Fabric f = build_fabric(s);
  FabricSpec one = s;
  one.oversub_spine = 1;
  CHECK(f.bom().switches == build_fabric(one).bom().switches);
  REQUIRE(f.warnings().size() == 1);
  CHECK_THAT(f.warnings()[0], Catch::Contains("fabric.oversubscription.spine: asked 4:1, not applied"));
  CHECK(error_key(s) == "fabric.oversubscription.spine");
}

TEST_CASE("a fabric of one leaf has no spine tier, and says so", "[topology][as_built]") {
  FabricSpec s = stargate(8064);
  s.gpus = 32;
  s.wiring = Wiring::RackLocal;
  s.kind = FabricKind::LeafSpine;
  const Fabric f = build_fabric(s);
  CHECK(f.bom().tiers == 1);
  REQUIRE(f.warnings().size() == 1);
  CHECK_THAT(f.warnings()[0], Catch::Contains("built a single leaf switch"));
  CHECK(error_key(s) == "fabric.topology");
}

TEST_CASE("DGX SuperPOD B200 RA: 3-tier counts for 16, 32 and 64 SU", "[topology][as_built]") {
  // DGX SuperPOD B200 RA, "DGX SuperPOD Architecture" page, larger SuperPOD component counts
  // (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200): 32 DGX
  // B200 (8 GPUs, 8 rails) per SU, 64-port switches, 1:1; from 16 SU a core tier.
  struct Row {
    int su, leaves, spines, cores, leaf_spine, spine_core;
  };
  for (Row r :
       {Row{16, 128, 128, 64, 4096, 4096}, Row{32, 256, 256, 128, 8192, 8192}, Row{64, 512, 512, 256, 16384, 16384}}) {
    INFO("SU = " << r.su);
    FabricSpec s = test::superpod(r.su);
    s.kind = FabricKind::Clos3;
    const Fabric f = build_fabric(s);
    const BillOfMaterials b = f.bom();
    CHECK(b.leaves == r.leaves);
    CHECK(b.spines == r.spines);
    CHECK(b.cores == r.cores);
    CHECK(b.access_links == 256 * r.su);
    CHECK(b.leaf_spine_links == r.leaf_spine);
    CHECK(b.spine_core_links == r.spine_core);
    CHECK(f.warnings().empty());
  }
}

TEST_CASE("a NIC port faster than the switch port it plugs into warns, and is an error in exact mode",
          "[topology][as_built]") {
  // 800 Gb/s NICs on 400 Gb/s switch ports, one plane: the NIC-leaf link is built at 800 Gb/s, so a
  // leaf asked 1:1 carries twice its uplinks' capacity (2:1 as built). It used to build so silently.
  FabricSpec s = stargate(8064);
  s.nic_rate = 100e9;  // 800 Gb/s
  const Fabric f = build_fabric(s);
  CHECK(f.bom().oversub_leaf == Approx(2.0));
  REQUIRE(f.warnings().size() == 1);
  CHECK_THAT(f.warnings()[0], Catch::Contains("fabric.nic_rate: 800 Gb/s NIC port"));
  CHECK_THAT(f.warnings()[0], Catch::Contains("400 Gb/s switch ports"));
  CHECK_THAT(f.warnings()[0], Catch::Contains("leaf 2:1 as built (asked 1:1)"));
  CHECK_THAT(f.warnings()[0], Catch::Contains("fabric.planes: 2"));
  CHECK(error_key(s) == "fabric.nic_rate");
  // The same 800 Gb/s as 2 x 400 Gb/s planes, or on 800 Gb/s switch ports, is built as asked.
  s.planes = 2;
  CHECK(build_fabric(s).warnings().empty());
  CHECK(error_key(s).empty());
  s.planes = 1;
  s.link_rate = 100e9;
  CHECK(build_fabric(s).warnings().empty());
  // A NIC slower than the port (200G NIC on a 400G port) is physical: no warning.
  s = stargate(8064);
  s.nic_rate = 25e9;
  CHECK(build_fabric(s).warnings().empty());
}
