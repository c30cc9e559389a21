// bench_options (sim/engine/collective_bench_args.hpp): the checks `aidcsim bench-collective` and
// aidcsim.bench_collective share. A bad argument is a BenchArgumentError naming it as the caller's
// BenchArgNames spell it (the CLI's by default), with the same reason for both; good arguments give
// the cluster and sizes the CLI documents (docs/cli.md, bench-collective).
#include <catch2/catch.hpp>

#include <string>

#include "sim/engine/collective_bench_args.hpp"

using namespace aidcsim;

namespace {

BenchArgNames python_like() {
  BenchArgNames n;
  n.min_bytes = "min_bytes", n.max_bytes = "max_bytes", n.factor = "step_factor", n.step_bytes = "step_bytes";
  n.nodes = "nodes", n.ngpus = "gpus_per_node", n.nthreads = "", n.redop = "op", n.collective = "collective";
  n.assign = true;
  return n;
}

/// The error bench_options throws for `a` named by `names`.
BenchArgumentError error_of(const BenchArgs& a, const BenchArgNames& names = {}) {
  try {
    bench_options(a, names);
  } catch (const BenchArgumentError& e) {
    return e;
  }
  FAIL("no BenchArgumentError");
  throw;
}

}  // namespace

TEST_CASE("bench_options: the defaults are nccl-tests' sweep on one 8-GPU node", "[bench_args]") {
  const BenchOptions o = bench_options(BenchArgs{});
  REQUIRE(o.sizes.size() == 31);  // 8 B to 8 GiB by 2
  CHECK(o.sizes.front() == 8);
  CHECK(o.sizes.back() == 0x1p33);
  CHECK(o.fabric.gpus == 8);
  CHECK(o.fabric.nvlink_domain == 8);
  CHECK(o.gpu.name == "H100");
  CHECK(o.fabric.link_rate == 50e9);  // 400 Gbps NIC, 400 Gbps ports
  CHECK(o.collapse);
}

TEST_CASE("bench_options: a bad argument is named as the caller spells it, with one reason", "[bench_args]") {
  BenchArgs a;
  a.min_bytes = "8Q";
  const auto cli = error_of(a), py = error_of(a, python_like());
  CHECK(std::string(cli.what()) == "-b: " + cli.expected());
  CHECK(std::string(py.what()) == "min_bytes: " + py.expected());
  CHECK(cli.key() == "-b");
  CHECK(py.key() == "min_bytes");
  CHECK(py.value() == "8Q");
  CHECK(cli.expected() == py.expected());

  a = {};
  a.factor = "1";
  CHECK(error_of(a).expected() == "'1' must be an integer from 2 to 1024 (use -i for linear steps)");
  CHECK(error_of(a, python_like()).expected() ==
        "'1' must be an integer from 2 to 1024 (use step_bytes for linear steps)");

  a = {};
  a.ngpus = 16;  // one NVLink domain of 16 H100: beyond the HGX board
  CHECK(error_of(a).key() == "-g/-t");
  CHECK(error_of(a, python_like()).key() == "gpus_per_node");

  a = {};
  a.ranks = 17;
  a.nodes = 2;
  CHECK(error_of(a).expected() == "17 GPUs asked, the cluster has 16 (-N x -g x -t)");
  CHECK(error_of(a, python_like()).expected() == "17 GPUs asked, the cluster has 16 (nodes x gpus_per_node)");

  a = {};
  a.redop = "all_gather";
  CHECK_THAT(error_of(a, python_like()).expected(),
             Catch::EndsWith("(op is the reduction operation, as in nccl-tests; the collective is "
                             "collective='all_gather')"));
}

TEST_CASE("bench_options: a scenario's cluster, and the GPUs taken from it", "[bench_args]") {
  Scenario s;
  s.fabric.gpus = 16;
  s.fabric.gpus_per_node = 8;
  s.fabric.nvlink_domain = 8;
  s.gpu.name = "from the scenario";
  BenchArgs a;
  a.scenario = &s;
  a.ranks = 12;
  const BenchOptions o = bench_options(a);
  CHECK(o.gpu.name == "from the scenario");
  CHECK(o.fabric.gpus == 16);
  CHECK(o.ranks == 12);
  a.ranks = 17;
  CHECK(error_of(a).expected() == "17 GPUs asked, the scenario's cluster has 16");
}
