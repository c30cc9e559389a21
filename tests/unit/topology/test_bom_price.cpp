// Priced bill of materials (bom_price.hpp): cable lengths from the layout model, media by reach,
// modules per twin-port cage, power and cost, against hand-computed values.
#include <catch2/catch.hpp>

#include "models/topology/bom_price.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;

namespace {

// Parts as in bom_parts.yaml at 400G (round prices for hand arithmetic).
BomSpec parts() {
  BomSpec b;
  b.layout = PhysicalLayout{32, 16, 0.6, 2.4, 16, 5.0, 2.0};
  b.switches = {{"QM9700", 64, 50e9, 2, 750, 36000, "test"}};
  b.optics = {
      {"DAC sw", Medium::Copper, 50e9, 2, "OSFP", true, 3, 0, 100, "test"},
      {"DAC nic", Medium::Copper, 50e9, 1, "OSFP", false, 3, 0, 50, "test"},
      {"SR sw", Medium::Multimode, 50e9, 2, "OSFP", true, 50, 15, 800, "test"},
      {"SR nic", Medium::Multimode, 50e9, 1, "OSFP", false, 50, 8, 400, "test"},
      {"DR sw", Medium::Singlemode, 50e9, 2, "OSFP", true, 500, 17, 1200, "test"},
      {"DR nic", Medium::Singlemode, 50e9, 1, "OSFP", false, 100, 9, 600, "test"},
  };
  b.nic_power = 25;
  b.nic_price = 2000;
  return b;
}

long long modules(const FabricCost& c, const std::string& name) {
  for (const auto& o : c.optics)
    if (o.name == name) return o.modules;
  return 0;
}

}  // namespace

TEST_CASE("priced BOM: one DGX SuperPOD H100 SU, by hand", "[topology][bom]") {
  // 256 GPUs in 8 racks of 32 (one row, shifted behind the network row: y = 2.4 m); 8 leaves and
  // 4 spines in one network rack at x = 0, y = 0. Access cable of rack r: 0.6 r + 2.4 + 5 m
  // (<= 11.6 m: multimode, not DAC); leaf-spine cables stay in the network rack: 2 m, DAC.
  const Fabric f = build_fabric(test::superpod(1));
  const FabricCost c = price_fabric(f, parts());
  CHECK(c.compute_racks == 8);
  CHECK(c.rows == 1);
  CHECK(c.network_racks == 1);
  CHECK(c.media[int(Medium::Multimode)].links == 256);
  CHECK(c.media[int(Medium::Copper)].links == 256);
  CHECK(c.media[int(Medium::Singlemode)].links == 0);
  CHECK(c.media[int(Medium::Multimode)].longest == Approx(0.6 * 7 + 2.4 + 5));
  CHECK(c.media[int(Medium::Multimode)].length / 256 == Approx(0.6 * 3.5 + 7.4));
  CHECK(c.media[int(Medium::Copper)].length == Approx(256 * 2.0));
  // The optics of a SuperPOD SU's compute fabric as ordered (Vitex case study "H100 SuperPOD
  // optics: a 256-GPU fabric", vitextech.com): 256 single-port 400G OSFP in the ConnectX-7s and
  // 128 twin-port 800G OSFP in the leaves' access cages, 16 per leaf.
  CHECK(modules(c, "SR nic") == 256);
  CHECK(modules(c, "SR sw") == 128);
  // DAC ends: 8 leaves x 32 uplinks / 2 + 4 spines x 64 / 2.
  CHECK(modules(c, "DAC sw") == 8 * 16 + 4 * 32);
  CHECK(c.switch_model == "QM9700");
  CHECK_FALSE(c.switch_estimated);
  CHECK(c.power_switches == Approx(12 * 750));
  CHECK(c.power_optics == Approx(128 * 15 + 256 * 8));
  CHECK(c.power_nics == Approx(256 * 25));
  CHECK(c.power_total == Approx(12 * 750 + 128 * 15 + 256 * 8 + 256 * 25));
  CHECK(c.cost_total == Approx(12 * 36000 + 128 * 800 + 256 * 400 + 256 * 100 + 256 * 2000));
  const std::string t = format_fabric_cost(c);
  CHECK_THAT(t, Catch::Contains("multimode links"));
  CHECK_THAT(t, Catch::Contains("indicative"));
}

TEST_CASE("priced BOM: each link's laid-out length, and the cables at or over a limit", "[topology][bom]") {
  // The SuperPOD SU above: access cables of rack r are 0.6 r + 7.4 m (multimode), leaf-spine 2 m (DAC).
  const Fabric f = build_fabric(test::superpod(1));
  const FabricCost c = price_fabric(f, parts());
  REQUIRE(c.link_length.size() == static_cast<std::size_t>(f.link_count()));
  double by_medium[3] = {0, 0, 0};
  for (int l = 0; l < f.link_count(); ++l) {
    if (f.link(l).tier == Tier::NvLink) {
      CHECK(c.link_medium[l] == -1);
      continue;
    }
    REQUIRE(c.link_medium[l] >= 0);
    by_medium[c.link_medium[l]] += c.link_length[l];
  }
  for (int m = 0; m < 3; ++m) CHECK(by_medium[m] == Approx(c.media[m].length));
  // Racks 5-7 (10.4, 11.0, 11.6 m): 3 x 32 access cables of 10 m or more.
  const LongCables over = cables_at_or_over(c, 10.0);
  CHECK(over.links == 96);
  CHECK(over.by_medium[int(Medium::Multimode)] == 96);
  CHECK(over.longest == Approx(11.6));
  REQUIRE(over.longest_link >= 0);
  CHECK(f.link(over.longest_link).tier == Tier::Access);
  // A limit is strict ("under 11.6 m"): the longest cable, exactly at it, counts.
  CHECK(cables_at_or_over(c, c.media[int(Medium::Multimode)].longest).links == 32);
  CHECK(cables_at_or_over(c, 12.0).links == 0);
}

TEST_CASE("priced BOM: a part's end is written once", "[topology][bom]") {
  BomSpec spec = parts();
  for (auto& o : spec.optics)
    if (o.name == "DAC sw") o.name = "DAC (switch end)";
  const std::string t = format_fabric_cost(price_fabric(build_fabric(test::superpod(1)), spec));
  CHECK_THAT(t, Catch::Contains("DAC (switch end) ("));
  CHECK_THAT(t, !Catch::Contains("switch end) (OSFP 2x400G, switch end)"));
  CHECK_THAT(t, Catch::Contains("SR sw ("));  // a name without its end gets it appended
  CHECK_THAT(t, Catch::Contains(", switch end)"));
}

TEST_CASE("priced BOM: rack-local ToR leaves use in-rack copper", "[topology][bom]") {
  FabricSpec s = test::superpod(1);
  s.wiring = Wiring::RackLocal;
  s.gpus_per_leaf = 32;  // one leaf per 32-GPU rack
  const FabricCost c = price_fabric(build_fabric(s), parts());
  CHECK(c.media[int(Medium::Copper)].links == 256);     // access: in the rack, 2 m
  CHECK(c.media[int(Medium::Multimode)].links == 256);  // leaf-spine: rack to network row
  CHECK(modules(c, "DAC nic") == 256);
  CHECK(modules(c, "SR nic") == 0);
}

TEST_CASE("priced BOM: reach decides the medium; beyond every reach is said", "[topology][bom]") {
  BomSpec b = parts();
  b.optics[2].reach = b.optics[3].reach = 5;  // multimode 5 m: access cables (>= 7.4 m) go single mode
  FabricCost c = price_fabric(build_fabric(test::superpod(1)), b);
  CHECK(c.media[int(Medium::Singlemode)].links == 256);
  CHECK(c.links_beyond_reach == 0);
  b.optics[4].reach = b.optics[5].reach = 6;  // nothing reaches 7.4 m
  c = price_fabric(build_fabric(test::superpod(1)), b);
  CHECK(c.links_beyond_reach == 256);
  CHECK(c.media[int(Medium::Singlemode)].links == 256);  // the longest-reach parts are counted
  bool said = false;
  for (const auto& n : c.notes) said = said || n.find("longer than every part's reach") != std::string::npos;
  CHECK(said);
}

TEST_CASE("priced BOM: a radix without a model is scaled per port and said; a rate without parts is unpriced",
          "[topology][bom]") {
  FabricSpec s = test::superpod(1);
  s.switch_radix = 128;
  FabricCost c = price_fabric(build_fabric(s), parts());
  CHECK(c.switch_estimated);
  CHECK(c.switch_power == Approx(750.0 * 2));
  CHECK(c.switch_price == Approx(36000.0 * 2));
  s = test::superpod(1);
  s.link_rate = s.nic_rate = 100e9;  // 800G: no parts in this list
  c = price_fabric(build_fabric(s), parts());
  CHECK(c.links_unpriced == 512);
  CHECK(c.power_optics == 0);
  CHECK(c.switch_estimated);  // QM9700 is 400G
}

namespace {
std::string note_with(const FabricCost& c, const std::string& text) {
  for (const auto& n : c.notes)
    if (n.find(text) != std::string::npos) return n;
  return "";
}
}  // namespace

TEST_CASE("priced BOM: NICs faster than the GPU's PCIe path are said, with the NIC-link load they reach",
          "[topology][bom][architect]") {
  // An 800G NIC on a PCIe Gen5 GPU (48 GB/s as NCCL rates it): priced at 800G, but the GPU's
  // traffic cannot load its 800G NIC-leaf link beyond 48 %; nothing said at or below the PCIe rate.
  FabricSpec s = test::superpod(1);
  s.link_rate = s.nic_rate = 100e9;
  s.nic_pcie_rate = 48e9;
  const std::string n = note_with(price_fabric(build_fabric(s), parts()), "PCIe path");
  CHECK(n.find("fabric.nic_rate 800 Gb/s per GPU") != std::string::npos);
  CHECK(n.find("384 Gb/s") != std::string::npos);
  CHECK(n.find("at most 48 %") != std::string::npos);
  s.nic_rate = s.link_rate = 48e9;
  CHECK(note_with(price_fabric(build_fabric(s), parts()), "PCIe path").empty());
  s.nic_pcie_rate = 0;  // not modelled
  s.nic_rate = s.link_rate = 100e9;
  CHECK(note_with(price_fabric(build_fabric(s), parts()), "PCIe path").empty());
}

TEST_CASE("priced BOM: failed fabric elements are named, priced as built", "[topology][bom][architect]") {
  FabricSpec s = test::superpod(1);
  FailureSpec down;
  down.type = FailureSpec::Type::SwitchDown;
  down.element = "spine0.1";
  down.key = "fabric.failures[0]";
  FailureSpec late;
  late.type = FailureSpec::Type::LinkDown;
  late.element = "leaf0-spine0.0";
  late.at = 3600;
  late.key = "fabric.failures[1]";
  s.failures = {down, late};
  const FabricCost with = price_fabric(build_fabric(s), parts());
  const FabricCost without = price_fabric(build_fabric(test::superpod(1)), parts());
  CHECK(with.cost_total == Approx(without.cost_total));  // a failed spine is still bought
  CHECK(with.switches == without.switches);
  const std::string n0 = note_with(with, "fabric.failures[0]");
  CHECK(n0.find("spine0.1 switch_down from the start") != std::string::npos);
  CHECK(n0.find("with it down") != std::string::npos);
  const std::string n1 = note_with(with, "fabric.failures[1]");
  CHECK(n1.find("leaf0-spine0.0 link_down at 3600 s") != std::string::npos);
  CHECK(n1.find("step_time_after_fabric_failures") != std::string::npos);
  CHECK(note_with(without, "fabric.failures").empty());
}

TEST_CASE("priced BOM: the structure table counts media and modules as priced", "[topology][bom]") {
  // The structure table called every scale-out link an optical cable with two transceivers (512
  // cables, 1024 transceivers here), the priced section 256 DAC + 256 multimode links and 384
  // modules; both now give the priced count.
  const Fabric f = build_fabric(test::superpod(1));
  const FabricCost c = price_fabric(f, parts());
  REQUIRE(c.media[int(Medium::Copper)].links == 256);
  REQUIRE(c.media[int(Medium::Multimode)].links == 256);
  CHECK(optical_modules(c) == modules(c, "SR nic") + modules(c, "SR sw"));
  CHECK(optical_modules(c) == 256 + 128);
  const std::string t = format_bom(f.bom(), c);
  auto row = [&](const std::string& what) {
    const auto at = t.find("  " + what + " ");
    REQUIRE(at != std::string::npos);
    const auto end = t.find('\n', at);
    return std::stoll(t.substr(at + what.size() + 2, end - at - what.size() - 2));
  };
  CHECK(row("scale-out cables") == 512);
  CHECK(row("  copper (DAC)") == 256);
  CHECK(row("  optical (multimode + single-mode)") == 256);
  CHECK(row("optical modules") == 384);
  CHECK_THAT(t, !Catch::Contains("transceivers"));
}

TEST_CASE("priced BOM: a named switch model other than the fabric's switch is said", "[topology][bom][architect]") {
  BomSpec b = parts();
  b.switches.push_back({"SN5600", 64, 100e9, 1, 900, 50000, "test"});
  b.switch_model = "SN5600";  // 64 x 800G named for a 64 x 400G fabric
  const FabricCost c = price_fabric(build_fabric(test::superpod(1)), b);
  CHECK(c.switch_model == "SN5600");
  CHECK(c.switch_price == Approx(50000));  // priced as asked
  const std::string n = note_with(c, "bom.switch_model");
  CHECK(n.find("SN5600 is 64 x 800G, the fabric's switches 64 x 400G") != std::string::npos);
  b.switch_model = "QM9700";  // the fabric's own: nothing to say
  CHECK(note_with(price_fabric(build_fabric(test::superpod(1)), b), "bom.switch_model").empty());
}

TEST_CASE("priced BOM: estimated NIC figures say they do not follow the NIC rate", "[topology][bom][architect]") {
  // One price and power per NIC (bom.nic): an 800G NIC got the 400G adapter's figures silently.
  BomSpec b = parts();
  b.nic_source = "estimate: a 400G adapter";
  FabricSpec s = test::superpod(1);
  s.link_rate = s.nic_rate = 100e9;
  const std::string n = note_with(price_fabric(build_fabric(s), b), "NIC power and price");
  CHECK(n.find("whatever its rate (here 800 Gb/s per GPU)") != std::string::npos);
  CHECK(n.find("bom.nic.price") != std::string::npos);
}
