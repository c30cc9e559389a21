// Activity's dependency lists (models/common/dep_list.hpp): read and written as std::vector<int>
// (the engine iterates them unchanged), in 8 bytes, so that a 31K-GPU step's ~500K activities take
// 96 B each instead of 144 B with three vectors.
#include <catch2/catch.hpp>

#include <vector>

#include "models/common/schedule.hpp"

using namespace aidcsim;
using network::DepList;

namespace {
std::vector<int> as_vector(const DepList& d) { return {d.begin(), d.end()}; }
}  // namespace

TEST_CASE("dependency list: an Activity's three lists in 8 bytes each", "[dep_list]") {
  CHECK(sizeof(network::Activity().after) == 8);
  CHECK(sizeof(network::Activity) == 96);
}

TEST_CASE("dependency list: the same contents and order as a std::vector<int>", "[dep_list]") {
  DepList d;
  std::vector<int> v;
  CHECK(d.empty());
  CHECK(d.begin() == d.end());
  // In place (one index, any int: the engine reports a negative one as invalid input), then on
  // the heap as it grows.
  for (int x : {-7, 5, 0, 2147483647, -2147483647 - 1, 3, 3, 9, 11}) {
    d.push_back(x);
    v.push_back(x);
    REQUIRE(d.size() == v.size());
    CHECK(as_vector(d) == v);
    CHECK(d.back() == x);
    CHECK(d == v);
  }
  d.insert(d.begin() + 2, v.begin(), v.begin() + 3);
  v.insert(v.begin() + 2, v.begin(), v.begin() + 3);
  CHECK(as_vector(d) == v);
  DepList copy = d;
  CHECK(copy == d);
  copy[0] = 42;
  CHECK(d[0] == -7);  // a deep copy
  DepList moved = std::move(copy);
  CHECK(moved[0] == 42);
  CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from list is empty
  d.clear();
  CHECK(d.empty());
  d.push_back(4);
  CHECK(as_vector(d) == std::vector<int>{4});
  d = {1, 2};
  CHECK(as_vector(d) == std::vector<int>{1, 2});
  d = std::vector<int>{8};
  CHECK(as_vector(d) == std::vector<int>{8});
  CHECK(!(d == DepList{8, 9}));
  DepList one{6};
  one.insert(one.begin(), v.begin(), v.begin() + 1);
  CHECK(as_vector(one) == std::vector<int>{-7, 6});
  DepList r;
  r.reserve(3);
  r.push_back(1);
  CHECK(r.capacity() >= 3);
  CHECK(as_vector(r) == std::vector<int>{1});
}

TEST_CASE("dependency list: activities compare by their lists", "[dep_list]") {
  network::Activity a, b;
  a.after = {1, 2};
  b.after = {1, 2};
  CHECK(network::same_but_amount(a, b));
  b.after_same.push_back(0);
  CHECK(!network::same_but_amount(a, b));
}
