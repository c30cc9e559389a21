// MaxMinSharing: SimGrid 3.32's max-min solver through aidcsim's own declarations
// (models/network/simgrid_maxmin.hpp). Closed-form max-min fair shares (Bertsekas & Gallager,
// Data Networks, §6.5.2: progressive filling) and the selective-update contract.
#include <catch2/catch.hpp>

#include <map>

#include "models/common/errors.hpp"
#include "models/network/sharing.hpp"

using aidcsim::network::detail::MaxMinSharing;

namespace {

std::map<int, double> solve(MaxMinSharing& m) {
  std::map<int, double> r;
  m.solve([&](int tag, double rate) { r[tag] = rate; });
  return r;
}

}  // namespace

TEST_CASE("max-min shares by progressive filling", "[network][sharing]") {
  MaxMinSharing m;
  const int A = m.add_resource(10), B = m.add_resource(4);
  const int a[] = {A}, ab[] = {A, B}, b[] = {B};
  m.add_item(a, 1, 1);
  const auto h2 = m.add_item(ab, 2, 2);
  const auto h3 = m.add_item(b, 1, 3);
  auto r = solve(m);
  // B saturates first at 4/2 = 2 for items 2 and 3; item 1 takes the rest of A: 10 - 2 = 8.
  REQUIRE(r.size() == 3);
  CHECK(r[1] == Approx(8));
  CHECK(r[2] == Approx(2));
  CHECK(r[3] == Approx(2));
  // Without item 3, item 2 is limited by B alone (4), item 1 gets 6.
  m.remove_item(h3);
  r = solve(m);
  CHECK(r[1] == Approx(6));
  CHECK(r[2] == Approx(4));
  // Capacity change: B at 20 -> A is the bottleneck, shared equally (5, 5).
  m.set_capacity(B, 20);
  r = solve(m);
  CHECK(r[1] == Approx(5));
  CHECK(r[2] == Approx(5));
  // Nothing changed: nothing reported.
  CHECK(solve(m).empty());
  m.remove_item(h2);
  CHECK(solve(m).at(1) == Approx(10));
  CHECK_THROWS_AS(m.add_resource(0), aidcsim::SimulationError);
}

TEST_CASE("selective update reports only the changed component", "[network][sharing]") {
  MaxMinSharing m;
  const int A = m.add_resource(1), B = m.add_resource(1);
  const int a[] = {A}, b[] = {B};
  m.add_item(a, 1, 10);
  m.add_item(a, 1, 11);
  m.add_item(b, 1, 20);
  auto r = solve(m);
  CHECK(r.size() == 3);
  CHECK(r[10] == Approx(0.5));
  CHECK(r[20] == Approx(1));
  const auto h = m.add_item(b, 1, 21);  // only B's component changes
  r = solve(m);
  CHECK(r.size() == 2);
  CHECK(r.count(20) == 1);
  CHECK(r[21] == Approx(0.5));
  // Handles are reused after removal; the new item is independent of the old one.
  m.remove_item(h);
  const auto h2 = m.add_item(a, 1, 12);
  CHECK(h2 == h);
  r = solve(m);
  CHECK(r[12] == Approx(1.0 / 3));
  CHECK(r[20] == Approx(1));
}
