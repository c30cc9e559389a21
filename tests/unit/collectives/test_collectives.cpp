#include <catch2/catch.hpp>

#include <map>
#include <numeric>

#include "models/collectives/collective.hpp"
#include "models/common/errors.hpp"

using namespace aidcsim;
using namespace aidcsim::collectives;

namespace {
Layout nodes_of(int g) {
  Layout l;
  l.domain_of = [g](int gpu) { return gpu / g; };
  l.nvlink_rate = 450e9;
  l.nic_rate = 50e9;
  return l;
}
std::vector<int> iota(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}
}  // namespace

TEST_CASE("nccl-tests busbw factors (PERFORMANCE.md)") {
  CHECK(busbw_factor(Op::AllReduce, 8) == Approx(14.0 / 8));
  CHECK(busbw_factor(Op::AllGather, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(Op::ReduceScatter, 4) == Approx(0.75));
  CHECK(busbw_factor(Op::AllToAll, 2) == Approx(0.5));
  CHECK(busbw_factor(Op::Broadcast, 16) == 1.0);
  CHECK(busbw(Op::AllReduce, 8, 1e9, 1e-2) == Approx(1e11 * 1.75));
}

TEST_CASE("ring closed forms") {
  // at n = 2 an all-reduce is one exchange of S/2 each way, twice
  CHECK(ring_allreduce_time(2, 1e9, 1e9, 0) == Approx(1.0));
  CHECK(ring_allreduce_time(8, 8e9, 1e9, 1e-6) == Approx(14.0 + 14e-6));
  CHECK(ring_allgather_time(8, 8e9, 1e9, 1e-6) == Approx(7.0 + 7e-6));
  CHECK(halving_doubling_allreduce_time(8, 8e9, 1e9, 1e-6) == Approx(14.0 + 6e-6));
  CHECK(ring_allreduce_time(1, 1e9, 1e9, 1) == 0);
}

TEST_CASE("ring all-reduce emission: steps, bytes conservation, dependencies") {
  const Layout l = nodes_of(8);
  Protocol p;
  p.alpha = 0;
  network::Schedule s;
  Collective c;
  c.op = Op::AllReduce;
  c.algorithm = Algorithm::Ring;
  c.gpus = iota(8);
  c.bytes = 8e6;
  c.collapse = false;
  auto e = emit(s, c, l, p);
  REQUIRE(s.activities.size() == 14u * 8u);
  double sent = 0;
  std::map<int, double> out, in;
  for (const auto& a : s.activities) {
    sent += a.amount;
    out[a.gpu] += a.amount;
    in[a.dst_gpu] += a.amount;
  }
  // every GPU sends and receives 2(n-1)/n S (payload / efficiency)
  CHECK(sent == Approx(8 * 2.0 * 7 / 8 * 8e6 / p.nvlink));
  for (int g = 0; g < 8; ++g) CHECK(out[g] == Approx(in[g]));
  CHECK(e.done.size() == 8u);
  // step k+1 of a GPU waits for step k into it
  CHECK(s.activities[8].after.size() == 1u);
  // collapsed: one flow per neighbour carrying all steps
  network::Schedule s2;
  c.collapse = true;
  emit(s2, c, l, p);
  REQUIRE(s2.activities.size() == 8u);
  CHECK(s2.activities[0].amount == Approx(14 * 1e6 / p.nvlink));
}

TEST_CASE("multi-node rings are rail aligned: every inter-node hop stays on one local index") {
  const Layout l = nodes_of(8);
  network::Schedule s;
  Collective c;
  c.op = Op::AllReduce;
  c.algorithm = Algorithm::Ring;
  c.gpus = iota(32);
  c.bytes = 1e9;
  emit(s, c, l);
  int inter = 0;
  std::map<int, int> nic_out, nic_in;
  for (const auto& a : s.activities)
    if (a.gpu / 8 != a.dst_gpu / 8) {
      ++inter;
      CHECK(a.gpu % 8 == a.dst_gpu % 8);
      ++nic_out[a.gpu];
      ++nic_in[a.dst_gpu];
    }
  CHECK(inter == 8 * 4);  // 8 channels x 4 node boundaries
  for (auto& kv : nic_out) CHECK(kv.second == 1);
  for (auto& kv : nic_in) CHECK(kv.second == 1);
}

TEST_CASE("algorithm choice and the other algorithms emit") {
  const Layout l = nodes_of(8);
  Protocol p;
  Collective c;
  c.op = Op::AllReduce;
  c.gpus = iota(8);
  c.bytes = 1e9;
  CHECK(choose_algorithm(c, l, p) == Algorithm::Nvls);
  p.nvls_capable = false;
  CHECK(choose_algorithm(c, l, p) == Algorithm::Ring);
  c.gpus = iota(64);
  c.bytes = 1024;
  CHECK(choose_algorithm(c, l, p) == Algorithm::Tree);  // small message across nodes: latency-bound
  c.bytes = 1e9;
  CHECK(choose_algorithm(c, l, p) == Algorithm::Ring);
  for (Algorithm a : {Algorithm::Tree, Algorithm::Hierarchical, Algorithm::Sharp, Algorithm::HalvingDoubling}) {
    network::Schedule s;
    c.algorithm = a;
    auto e = emit(s, c, l, p);
    CHECK(e.algorithm == a);
    CHECK(!e.done.empty());
    for (std::size_t i = 0; i < s.activities.size(); ++i)
      for (int d : s.activities[i].after) CHECK(d < static_cast<int>(s.activities.size()));
  }
  c.gpus = iota(12);
  c.algorithm = Algorithm::HalvingDoubling;
  network::Schedule s;
  CHECK_THROWS(emit(s, c, l, p));
  c.op = Op::AllToAll;
  c.algorithm = Algorithm::Auto;
  network::Schedule s3;
  emit(s3, c, l, p);
  CHECK(s3.activities.size() == 12u * 11u);
  CHECK(algorithm_from("nvls") == Algorithm::Nvls);
  CHECK_THROWS(algorithm_from("bogus"));
}

TEST_CASE("implements(): what emit() models per operation; emit refuses the rest") {
  using collectives::Algorithm;
  using collectives::Op;
  CHECK(collectives::implements(Algorithm::Sharp, Op::AllReduce));
  CHECK(collectives::implements(Algorithm::Tree, Op::AllReduce));
  CHECK(collectives::implements(Algorithm::Ring, Op::ReduceScatter));
  CHECK(collectives::implements(Algorithm::Auto, Op::AllGather));
  CHECK_FALSE(collectives::implements(Algorithm::Tree, Op::ReduceScatter));  // NCCL has no tree reduce-scatter
  CHECK_FALSE(collectives::implements(Algorithm::Sharp, Op::AllGather));     // not modelled yet
  CHECK_FALSE(collectives::implements(Algorithm::Ring, Op::AllToAll));
  network::Schedule s;
  collectives::Collective c;
  c.op = Op::ReduceScatter;
  c.algorithm = Algorithm::Tree;
  c.gpus = {0, 1, 2, 3};
  c.bytes = 1e6;
  collectives::Layout l;
  l.domain_of = [](int g) { return g; };
  CHECK_THROWS_AS(collectives::emit(s, c, l), aidcsim::Error);
}
