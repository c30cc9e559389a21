// fabric.failures[].factor is read for type: degrade only; written on another type it is an error
// (it used to be dropped silently).
#include <catch2/catch.hpp>

#include "models/topology/fabric.hpp"
#include "models/topology/topology_schema.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::topology;

namespace {

// One failure item; factor_raw non-empty = the user wrote a factor (the loader keeps raw text only
// for written keys; a defaulted factor is present with no raw text).
Params item(const std::string& type, const std::string& element, const std::string& factor_raw) {
  Params i("fabric.failures[0]");
  i.set("type", type, type);
  i.set("element", element, element);
  i.set("factor", 0.5, factor_raw);
  i.set("at", 0.0);
  return i;
}
}  // namespace

TEST_CASE("fabric.failures: factor on link_down / switch_down is an error", "[topology][failures]") {
  for (const auto& [type, element] : {std::pair<std::string, std::string>{"link_down", "leaf2-spine0.3"},
                                      std::pair<std::string, std::string>{"switch_down", "spine0.3"}}) {
    Params p = test::stargate_params();
    p.set("fabric.failures", Params::List{item(type, element, "50 %")});
    try {
      spec_from(p);
      FAIL("factor on " << type << " was accepted");
    } catch (const InvalidParameter& e) {
      CHECK(e.key() == "fabric.failures[0].factor");
      CHECK(e.value() == "50 %");
      CHECK_THAT(e.expected(), Catch::Contains("factor only applies to type: degrade"));
    }
    // Without a written factor (default filled in by the loader) the item is fine.
    p.set("fabric.failures", Params::List{item(type, element, "")});
    CHECK(spec_from(p).failures.size() == 1);
  }
  Params p = test::stargate_params();
  p.set("fabric.failures", Params::List{item("degrade", "leaf2-spine0.3", "50 %")});
  const FabricSpec s = spec_from(p);
  REQUIRE(s.failures.size() == 1);
  CHECK(s.failures[0].factor == 0.5);
}
