#pragma once
// Bit-for-bit comparison of two FlowNetwork runs, for the tests of what a run keeps between runs
// (test_route_memo: the route table; test_run_prefix: the kept prefixes).
#include <catch2/catch.hpp>

#include "models/network/flow_network.hpp"

namespace aidcsim::test {

/// Every start and finish time, the makespan, bytes per link and per traffic group, and the
/// repetitions fast-forwarded of `a` and `b` are equal (exact ==, no tolerance).
inline void same_run(const network::RunResult& a, const network::RunResult& b) {
  CHECK(a.start == b.start);
  CHECK(a.finish == b.finish);
  CHECK(a.makespan == b.makespan);
  CHECK(a.link_bytes_fwd == b.link_bytes_fwd);
  CHECK(a.link_bytes_rev == b.link_bytes_rev);
  CHECK(a.groups == b.groups);
  CHECK(a.link_bytes_group_fwd == b.link_bytes_group_fwd);
  CHECK(a.link_bytes_group_rev == b.link_bytes_group_rev);
  CHECK(a.repetitions_fast_forwarded == b.repetitions_fast_forwarded);
}

/// `s` run by a new FlowNetwork on `f` (nothing kept from an earlier run).
inline network::RunResult fresh_run(const topology::Fabric& f, const network::Schedule& s) {
  network::FlowNetwork net(f);
  return net.run(s);
}

}  // namespace aidcsim::test
