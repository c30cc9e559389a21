// One rack layout for the whole program (topology::gpus_per_rack): the thermal site the engine,
// the feasibility check and the Python bindings build (thermal_layout) has the racks the priced
// bill of materials lays out, not one rack per NVLink domain. An 8-GPU HGX H100 domain is a
// server: 1,024 GPUs stand in 32 racks of 4 servers, with 32 rear doors, not 128.
#include <catch2/catch.hpp>

#include "models/thermal/site.hpp"
#include "models/topology/bom_price.hpp"
#include "models/topology/rack_layout.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/scenario/scenario.hpp"

using namespace aidcsim;

namespace {

Scenario default_scenario() { return load_scenario_file(AIDCSIM_SOURCE_DIR "/scenarios/stargate-uk-8k.yaml"); }

// The bundled scenario's cluster as 1,024 H100 in 8-GPU HGX servers (NVLink domain 8).
Scenario hgx_1024() {
  Scenario sc = default_scenario();
  sc.fabric.gpus = 1024;
  sc.fabric.gpus_per_node = 8;
  sc.fabric.nvlink_domain = 8;
  return sc;
}

int bom_racks(const Scenario& sc) {
  const topology::Fabric f = topology::build_fabric(situation_fabric_spec(sc, sc.fabric.gpus));
  return topology::price_fabric(f, sc.bom).compute_racks;
}

}  // namespace

TEST_CASE("rack layout: HGX H100 racks hold 4 servers in thermal and BOM alike", "[engine][racks]") {
  const Scenario sc = hgx_1024();
  const thermal::SiteLayout layout = thermal_layout(sc, sc.fabric.gpus, 0);
  CHECK(layout.gpus_per_rack == 32);
  CHECK(layout.racks() == 32);
  CHECK(layout.racks() == bom_racks(sc));
  // The solved site has 32 racks (one rear door each), not 128.
  const thermal::SiteReport r = thermal::steady_state(sc.cooling, layout, {thermal::GpuLoad{1.0, 0.0}}, {});
  CHECK(r.state.rack_power.size() == 32);
}

TEST_CASE("rack layout: bom.layout.gpus_per_rack sets the thermal racks too", "[engine][racks]") {
  Scenario sc = hgx_1024();
  sc.bom.layout.gpus_per_rack = 16;
  const thermal::SiteLayout layout = thermal_layout(sc, sc.fabric.gpus, 0);
  CHECK(layout.racks() == 64);
  CHECK(layout.racks() == bom_racks(sc));
}

TEST_CASE("rack layout: an NVL72 domain is a rack", "[engine][racks]") {
  const Scenario sc = default_scenario();
  CHECK(topology::gpus_per_rack(sc.bom.layout, 72) == 72);
  const thermal::SiteLayout layout = thermal_layout(sc, sc.fabric.gpus, 0);
  CHECK(layout.racks() == 112);
  CHECK(layout.racks() == bom_racks(sc));
}
