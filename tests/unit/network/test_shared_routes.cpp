// Transfers with the same ends and hash (a step's repeated ZeRO / FSDP collectives on one ring)
// share their sub-flows' routes in FlowNetwork::run's route phase instead of asking the fabric
// again and holding a copy each: exact (routes depend on nothing else within a run).
#include <catch2/catch.hpp>

#include <string>

#include "models/common/profile.hpp"
#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::FlowNetwork;
using network::Schedule;
using test::compute;
using test::leaf_spine;
using test::transfer;

namespace {

long long counter(const std::string& name) {
  for (const auto& e : profile::entries())
    if (e.name == name) return e.calls;
  return 0;
}

/// 8 transfers (4 sub-flows each on 4 spines), issued twice: the second round waits for the first
/// and repeats its ends and hashes; one more transfer with the ends of the first but another hash.
Schedule rounds(int n_rounds) {
  Schedule s;
  s.gpu_flops = {1e15};
  s.activities.push_back(compute(0, 1e12));
  std::vector<int> prev = {0};
  for (int r = 0; r < n_rounds; ++r) {
    std::vector<int> now;
    for (int i = 0; i < 8; ++i) {
      now.push_back(static_cast<int>(s.activities.size()));
      s.activities.push_back(transfer(i, (i * 5 + 3) % 16, 4e7, 101 + 7 * i, prev));
    }
    prev = now;
  }
  s.activities.push_back(transfer(0, 3, 4e7, 999, prev));
  return s;
}

}  // namespace

TEST_CASE("transfers repeating an earlier one's ends and hash share its routes, with the same result",
          "[network][shared_routes]") {
  auto spec = leaf_spine(16, 8, 4);
  spec.flows_per_pair = 4;
  const topology::Fabric f = topology::build_fabric(spec);
  profile::enable(true);
  profile::reset();
  FlowNetwork net(f);
  const auto two = net.run(rounds(2));
  const long long shared = counter("network: transfers sharing an earlier transfer's routes (count)");
  profile::enable(false);
  const auto one = FlowNetwork(f).run(rounds(1));
  CHECK(shared == 8);  // the second round; not the last transfer (another hash)
  // Round 2 starts when round 1 ends, alone on the fabric: the same durations as round 1.
  for (int i = 0; i < 8; ++i) {
    const int a = 1 + i, b = 9 + i;
    CHECK(two.finish[b] - two.start[b] == Approx(two.finish[a] - two.start[a]).epsilon(1e-12));
  }
  // Each round adds the same bytes to every link: two rounds - one round = one round - none.
  const auto none = FlowNetwork(f).run(rounds(0));
  REQUIRE(two.link_bytes_fwd.size() == one.link_bytes_fwd.size());
  double moved = 0;
  for (std::size_t l = 0; l < one.link_bytes_fwd.size(); ++l) {
    CHECK(two.link_bytes_fwd[l] - one.link_bytes_fwd[l] ==
          Approx(one.link_bytes_fwd[l] - none.link_bytes_fwd[l]).margin(1e-6));
    CHECK(two.link_bytes_rev[l] - one.link_bytes_rev[l] ==
          Approx(one.link_bytes_rev[l] - none.link_bytes_rev[l]).margin(1e-6));
    moved += one.link_bytes_fwd[l] + one.link_bytes_rev[l] - none.link_bytes_fwd[l] - none.link_bytes_rev[l];
  }
  CHECK(moved > 8 * 4e7);  // a round's bytes on at least its access links
}
