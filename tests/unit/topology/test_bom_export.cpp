// Bill of materials table and GraphML / DOT export.
#include <catch2/catch.hpp>
#include <sstream>

#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}
}  // namespace

TEST_CASE("bill of materials: scale-out cables and NVLink copper", "[topology]") {
  const Fabric f = build_fabric(test::superpod(1));
  const BillOfMaterials b = f.bom();
  CHECK(b.scaleout_cables == 256 + 256);
  CHECK(b.copper_cables == 256);
  // Leaf-spine, 1:1: the cut crosses half of the GPU NIC capacity.
  CHECK(b.bisection_bandwidth == Approx(256 * 50e9 / 2));
  const std::string table = format_bom(b, FabricCost{});
  CHECK_THAT(table, Catch::Contains("leaf switches"));
  CHECK_THAT(table, Catch::Contains("scale-out cables"));
  CHECK_THAT(table, Catch::Contains("512"));
}

TEST_CASE("GraphML and DOT hold every node and link", "[topology]") {
  const Fabric f = build_fabric(test::fat_tree(4));
  std::ostringstream ml, dot;
  write_graphml(f, ml);
  write_dot(f, dot);
  CHECK(count(ml.str(), "<node ") == static_cast<std::size_t>(f.node_count()));
  CHECK(count(ml.str(), "<edge ") == static_cast<std::size_t>(f.link_count()));
  CHECK_THAT(ml.str(), Catch::Contains("spine_core"));
  CHECK(count(dot.str(), "--") == static_cast<std::size_t>(f.link_count()));
  CHECK_THAT(dot.str(), Catch::Contains("core3"));
}
