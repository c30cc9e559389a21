// Fabric::routes and Fabric::routes_strided on a healthy fabric pick each path of a rank from the
// next-hop lists of the fabric as built (routing.cpp ranked_paths; a division per hop where the
// next hops' path counts are equal). With any link down they scan each switch's links instead, as
// they always did. A GPU's NIC link down changes no switch distance, so every other pair's paths
// must come out the same either way: the list walk against the scanning walk, path for path.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using test::fat_tree;
using test::superpod;

namespace {

/// The access (NIC) link of GPU g: the first hop of its route to a GPU outside its NVLink domain.
int access_link(const Fabric& f, int g) {
  const int other = (g + f.spec().nvlink_domain) % f.gpu_count();
  return f.route(g, other, 0).front().link;
}

void require_same(const std::vector<std::vector<Hop>>& a, const std::vector<std::vector<Hop>>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    REQUIRE(a[k].size() == b[k].size());
    for (std::size_t h = 0; h < a[k].size(); ++h) {
      CHECK(a[k][h].link == b[k][h].link);
      CHECK(a[k][h].forward == b[k][h].forward);
    }
  }
}

/// Routes of 400 random pairs (not GPU `skip`) at several path counts and seeds, both walks.
void compare(const Fabric& healthy, const Fabric& scan, int skip, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> g(0, healthy.gpu_count() - 1);
  int multi = 0;
  for (int i = 0; i < 400; ++i) {
    const int s = g(rng), d = g(rng);
    if (s == skip || d == skip) continue;
    multi += healthy.path_count(s, d) > 1 ? 1 : 0;
    for (std::size_t m : {1, 2, 7, 16, 1000000}) {
      require_same(healthy.routes(s, d, m), scan.routes(s, d, m));
      const std::uint64_t seed = rng();
      for (bool phase : {false, true})
        require_same(healthy.routes_strided(s, d, m, seed, phase), scan.routes_strided(s, d, m, seed, phase));
    }
  }
  CHECK(multi > 100);  // pairs with a choice of paths were compared
}

}  // namespace

TEST_CASE("routes and routes_strided: the next-hop lists give the scanning walk's paths", "[topology][routes]") {
  std::vector<FabricSpec> specs{superpod(4), fat_tree(8), fat_tree(16)};
  FabricSpec partial = fat_tree(8);  // last pod partly filled
  partial.gpus = 100;
  specs.push_back(partial);
  FabricSpec over = fat_tree(16);  // 2:1 at the leaves
  over.oversub_leaf = 2.0;
  specs.push_back(over);
  FabricSpec planes = superpod(2);  // two disjoint planes
  planes.planes = 2;
  specs.push_back(planes);
  for (const FabricSpec& spec : specs) {
    const Fabric healthy = build_fabric(spec);
    Fabric scan = build_fabric(spec);
    const int skip = scan.gpu_count() - 1;
    scan.set_link_up(access_link(scan, skip), false);
    std::mt19937_64 rng(11);
    compare(healthy, scan, skip, rng);
  }
}
