#include <catch2/catch.hpp>

#include "models/common/params.hpp"

using aidcsim::InvalidParameter;
using aidcsim::Params;

TEST_CASE("Params returns SI values and names the full key on errors", "[common]") {
  Params root;
  Params fabric("fabric");
  fabric.set("switch_radix", 64.0, "64");
  fabric.set("link_rate", 50e9, "400 Gbps");
  fabric.set("ratio", 1.5, "1.5");
  REQUIRE(fabric.integer("switch_radix") == 64);
  REQUIRE(fabric.number("link_rate") == 50e9);
  REQUIRE(fabric.given("link_rate"));
  REQUIRE_FALSE(fabric.given("missing"));
  try {
    fabric.integer("ratio");
    FAIL("expected InvalidParameter");
  } catch (const InvalidParameter& e) {
    REQUIRE(e.key() == "fabric.ratio");
    REQUIRE(e.value() == "1.5");
    REQUIRE(e.expected() == "an integer");
  }
  REQUIRE_THROWS_AS(fabric.number("absent"), InvalidParameter);
  REQUIRE(fabric.list("absent").empty());
}
