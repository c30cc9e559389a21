// SiteModel's grouping tier: a GPU joins the group of every GPU with its key (load, clock,
// temperatures) in its rack, whether that GPU is its neighbour or not, and group numbers and
// member lists follow the GPUs' order (site_model.cpp reuses the previous GPU's class and group
// before searching its maps: a key seen earlier but not just before must still find its class).
#include <catch2/catch.hpp>

#include <vector>

#include "models/thermal/site_model.hpp"

using namespace aidcsim::thermal;

TEST_CASE("grouping: GPUs with the same key join one group, neighbours or not", "[thermal][grouping]") {
  CoolingSpec spec;
  SiteLayout layout;
  layout.gpus = 2 * 6;
  layout.gpus_per_rack = 6;
  SiteModel m(spec, layout);
  // Per rack: loads a b a a c b. Both racks alike: one rack group, three GPU groups.
  const std::vector<double> rack{0.5, 0.7, 0.5, 0.5, 0.9, 0.7};
  std::vector<double> util;
  for (int r = 0; r < 2; ++r) util.insert(util.end(), rack.begin(), rack.end());
  const std::vector<double> clock(layout.gpus, 1.0);
  m.build(util, clock, m.design_conditions(), nullptr, true);
  REQUIRE(m.rack_groups().size() == 1);
  REQUIRE(m.gpu_groups().size() == 3);
  CHECK(m.gpu_groups()[0].members == std::vector<int>{0, 2, 3, 6, 8, 9});
  CHECK(m.gpu_groups()[1].members == std::vector<int>{1, 5, 7, 11});
  CHECK(m.gpu_groups()[2].members == std::vector<int>{4, 10});
  CHECK(m.rack_groups()[0].members == std::vector<int>{0, 1});

  // With the temperatures of that state as keys (a transient's rebuild), the same groups.
  m.network().solve_steady();
  const PhysicalTemps t = m.physical_temps();
  m.build(util, clock, m.design_conditions(), &t, true);
  REQUIRE(m.gpu_groups().size() == 3);
  CHECK(m.gpu_groups()[1].members == std::vector<int>{1, 5, 7, 11});

  // Per-GPU tier: every GPU its own group, in order.
  m.build(util, clock, m.design_conditions(), nullptr, false);
  REQUIRE(m.gpu_groups().size() == static_cast<size_t>(layout.gpus));
  for (int g = 0; g < layout.gpus; ++g) CHECK(m.gpu_groups()[g].members == std::vector<int>{g});
}
