// Bad input: impossible topologies raise InvalidParameter with the scenario key and the constraint.
#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"
#include "tests/unit/topology/helpers.hpp"

using namespace aidcsim::topology;
using aidcsim::InvalidParameter;
using test::fat_tree;
using test::superpod;

namespace {
InvalidParameter error_of(const FabricSpec& s) {
  try {
    build_fabric(s);
  } catch (const InvalidParameter& e) {
    return e;
  }
  FAIL("no InvalidParameter");
  throw;
}
}  // namespace

TEST_CASE("radix too small for the GPU count in a 2-tier Clos names the radix needed", "[topology]") {
  FabricSpec s = superpod(16);  // 4096 GPUs: 128 rail leaves > 64 ports per spine
  const InvalidParameter e = error_of(s);
  CHECK(e.key() == "fabric.switch_radix");
  CHECK(e.value() == "64");
  CHECK_THAT(e.expected(), Catch::Contains("a radix of at least 94 for 4096 GPUs in a 2-tier Clos"));
  s.switch_radix = 94;
  CHECK_NOTHROW(build_fabric(s));
  s.switch_radix = 93;
  CHECK_THROWS_AS(build_fabric(s), InvalidParameter);
  // The largest 2-tier radix-64 fabric: 64 leaves = 8 SU = 2048 GPUs.
  CHECK_NOTHROW(build_fabric(superpod(8)));
}

TEST_CASE("radix too small in a 3-tier Clos", "[topology]") {
  FabricSpec s = fat_tree(8);
  s.gpus = 2 * 128;  // twice what a radix-8 fat tree holds
  const InvalidParameter e = error_of(s);
  CHECK(e.key() == "fabric.switch_radix");
  CHECK_THAT(e.expected(), Catch::Contains("3-tier Clos"));
}

TEST_CASE("oversubscription below 1, zero rates and bad counts name their keys", "[topology]") {
  FabricSpec s = fat_tree(4);
  s.oversub_leaf = 0.5;
  CHECK(error_of(s).key() == "fabric.oversubscription.leaf");
  s = fat_tree(4);
  s.oversub_spine = 0.9;
  CHECK(error_of(s).key() == "fabric.oversubscription.spine");
  s = fat_tree(4);
  s.oversub_leaf = 10;  // radix 4 leaves no uplink
  CHECK(error_of(s).key() == "fabric.oversubscription.leaf");
  s = fat_tree(4);
  s.link_rate = 0;
  CHECK(error_of(s).key() == "fabric.link_rate");
  s = fat_tree(4);
  s.nic_rate = -1;
  CHECK(error_of(s).key() == "fabric.nic_rate");
  s = fat_tree(4);
  s.gpus = 0;
  CHECK(error_of(s).key() == "cluster.gpus");
  s = superpod(1);
  s.gpus = 250;
  CHECK(error_of(s).key() == "cluster.gpus");
  s = superpod(1);
  s.nvlink_domain = 12;
  CHECK(error_of(s).key() == "cluster.nvlink_domain");
  s = fat_tree(4);
  s.switch_radix = 64;
  s.gpus_per_leaf = 60;  // 60 GPU ports + 60 uplinks > 64
  CHECK(error_of(s).key() == "fabric.gpus_per_leaf");
}
