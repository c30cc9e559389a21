// The collective-algorithm registry (models/collectives/algorithm_registry.hpp): every algorithm
// has one entry, names and aliases resolve to it, and the lists derived from it (names in errors,
// what an algorithm implements, NCCL's algorithms it allows) are the ones the library acts on.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "models/collectives/algorithm_registry.hpp"
#include "models/common/errors.hpp"

using namespace aidcsim::collectives;

TEST_CASE("every algorithm is registered once, in enum order", "[collectives][registry]") {
  const auto& reg = detail::algorithm_registry();
  REQUIRE(reg.size() == static_cast<std::size_t>(Algorithm::Direct) + 1);
  std::set<std::string> names;
  for (std::size_t i = 0; i < reg.size(); ++i) {
    CAPTURE(reg[i].name);
    CHECK(static_cast<std::size_t>(reg[i].id) == i);
    CHECK(names.insert(reg[i].name).second);
    CHECK(std::string(reg[i].description).size() > 20);
    CHECK_FALSE(reg[i].ops.empty());
    CHECK(std::string(algorithm_name(reg[i].id)) == reg[i].name);
    // Every algorithm but the two that only choose (auto, sharp) plans its own flows.
    CHECK((reg[i].plan != nullptr) == (reg[i].id != Algorithm::Auto && reg[i].id != Algorithm::Sharp));
    // Its time: NCCL's cost model for NCCL's algorithms, its own estimate for the others.
    CHECK((reg[i].estimate != nullptr) == reg[i].nccl.empty());
  }
}

TEST_CASE("an algorithm outside NCCL's tuner is timed by its registered estimate", "[collectives][registry]") {
  Layout l;
  l.domain_of = [](int g) { return g / 8; };
  l.gpus_per_node = 8;
  Collective c;
  c.op = Op::AllReduce;
  c.bytes = 1 << 30;
  for (int g = 0; g < 32; ++g) c.gpus.push_back(g);
  for (Algorithm a : {Algorithm::HalvingDoubling, Algorithm::Hierarchical}) {
    c.algorithm = a;
    const Selection s = select(c, l);
    CAPTURE(algorithm_name(a));
    CHECK(s.algorithm == a);
    const auto& e = detail::algorithm_entry(a);
    REQUIRE(e.estimate != nullptr);
    const nccl::System sys = nccl_system(c.gpus, l);
    const auto doms = detail::by_domain(c.gpus, l);
    const Selection t = e.estimate(detail::EstimateContext{c, l, Protocol{}, sys, doms});
    CHECK(t.time() == s.time());
    CHECK(t.time() > 0);
  }
}

TEST_CASE("names and aliases resolve through the registry", "[collectives][registry]") {
  for (const auto& e : detail::algorithm_registry()) {
    CHECK(algorithm_from(e.name) == e.id);
    for (const char* alias : e.aliases) CHECK(algorithm_from(alias) == e.id);
  }
  CHECK(algorithm_from("NVLS-Tree") == Algorithm::NvlsTree);  // case, '-' and '_' do not matter
  CHECK(algorithm_from("collnet") == Algorithm::CollNetDirect);
  try {
    algorithm_from("butterfly");
    FAIL("an unknown name was accepted");
  } catch (const aidcsim::Error& e) {
    const std::string what = e.what();
    CHECK(what.find("'butterfly'") != std::string::npos);
    for (const auto& entry : detail::algorithm_registry()) CHECK(what.find(entry.name) != std::string::npos);
  }
}

TEST_CASE("what an algorithm implements comes from its entry", "[collectives][registry]") {
  CHECK(implements(Algorithm::Pat, Op::AllGather));
  CHECK_FALSE(implements(Algorithm::Pat, Op::AllReduce));
  CHECK(implements(Algorithm::Direct, Op::AllToAll));
  CHECK_FALSE(implements(Algorithm::Ring, Op::AllToAll));
  CHECK_FALSE(implements(Algorithm::Tree, Op::ReduceScatter));
  for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::AllToAll, Op::Broadcast, Op::Reduce, Op::SendRecv})
    CHECK(implements(Algorithm::Auto, op));
  // NCCL's algorithms are registered once each (the tuner's choice maps back to one entry).
  std::set<int> single;
  for (const auto& e : detail::algorithm_registry())
    if (e.nccl.size() == 1) CHECK(single.insert(e.nccl[0]).second);
  CHECK(single.size() == static_cast<std::size_t>(nccl::kNumAlgos));
}
