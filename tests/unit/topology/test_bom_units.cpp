// The bill of materials prints bisection bandwidth in Tb/s (bits), as `aidcsim run` does.
#include <catch2/catch.hpp>

#include "models/topology/bom_price.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;

TEST_CASE("bill of materials: bisection bandwidth in Tb/s like the run summary", "[topology]") {
  const BillOfMaterials b = build_fabric(test::superpod(1)).bom();
  // 256 x 400 Gb/s NICs, 1:1: half of them cross the cut = 51.2 Tb/s (6.4 TB/s).
  REQUIRE(b.bisection_bandwidth == Approx(6.4e12));
  const std::string table = format_bom(b, FabricCost{});
  CHECK_THAT(table, Catch::Contains("bisection bandwidth (Tb/s, one way)"));
  CHECK_THAT(table, Catch::Contains("51.20"));
  CHECK_THAT(table, !Catch::Contains("TB/s"));
}
