// The network area's report (models/network/network_report.hpp): what a step's traffic writes
// into the results, from a hand-made StepTraffic whose values are known.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/network/network_report.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;

namespace {

const Dataset& dataset(const Results& r, const std::string& path) {
  const auto it = std::find_if(r.datasets.begin(), r.datasets.end(), [&](const Dataset& d) { return d.path == path; });
  REQUIRE(it != r.datasets.end());
  return *it;
}

}  // namespace

TEST_CASE("network report: per-link bytes summed per tier, utilization in percent", "[network][report]") {
  const auto spec = test::leaf_spine(16, 8, 4);
  const auto f = topology::build_fabric(spec);
  network::RunResult run;
  run.makespan = 2.0;
  run.link_bytes_fwd.assign(f.link_count(), 0.0);
  run.link_bytes_rev.assign(f.link_count(), 0.0);
  double access = 0, leaf_spine = 0;
  for (int l = 0; l < f.link_count(); ++l) {  // every link carries a different, known load
    run.link_bytes_fwd[l] = 1e6 * (l + 1);
    run.link_bytes_rev[l] = 0.5e6 * (l + 1);
    (f.link(l).tier == topology::Tier::Access ? access : leaf_spine) += 1.5e6 * (l + 1);
  }
  network::StepTraffic t;
  t.congestion = network::congestion(f, run, 2.0);
  t.link_bytes.resize(f.link_count());
  t.link_tiers.resize(f.link_count());
  t.link_utilization.resize(f.link_count());
  t.link_names.resize(f.link_count());
  for (int l = 0; l < f.link_count(); ++l) {
    t.link_bytes[l] = run.link_bytes_fwd[l] + run.link_bytes_rev[l];
    t.link_tiers[l] = static_cast<int>(f.link(l).tier);
  }
  Results r;
  network::report_step_traffic(r, t, spec, f.bom(), 2.0);

  const Dataset& by_tier = dataset(r, "/network/bytes_by_tier");
  REQUIRE(by_tier.shape == std::vector<std::size_t>{4});
  CHECK(by_tier.unit == "B");
  CHECK(by_tier.data[static_cast<int>(topology::Tier::NvLink)] == 0.0);
  CHECK(by_tier.data[static_cast<int>(topology::Tier::Access)] == Approx(access));
  CHECK(by_tier.data[static_cast<int>(topology::Tier::LeafSpine)] == Approx(leaf_spine));
  CHECK(by_tier.data[static_cast<int>(topology::Tier::SpineCore)] == 0.0);
  CHECK(r.scalar("max_link_utilization") == Approx(100.0 * t.congestion.max_utilization));
  CHECK(dataset(r, "/network/link_tier").flag_meanings == network::tier_names());
  // No timeline in the traffic: no timeline datasets, no per-bin summary figures.
  CHECK_THROWS(r.scalar("peak_link_utilization"));
  CHECK(std::none_of(r.datasets.begin(), r.datasets.end(),
                     [](const Dataset& d) { return d.path.rfind("/network/timeline/", 0) == 0; }));
}
