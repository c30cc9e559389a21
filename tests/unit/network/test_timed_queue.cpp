// TimedQueue (models/network/timed_queue.hpp): the event loop's timed events, kept in per-delay
// lanes and a general heap, must come out in exactly the order of one binary heap of them
// (std::priority_queue with Timed's order), whatever mix of lanes, out-of-order pushes, equal
// times and interleaved pops the loop makes.
#include <catch2/catch.hpp>

#include <functional>
#include <queue>
#include <random>
#include <vector>

#include "models/network/timed_queue.hpp"

using aidcsim::network::detail::Timed;
using aidcsim::network::detail::TimedQueue;

namespace {

using Reference = std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>>;

/// Pops both until empty, checking every top is the same event (seq is unique).
void drain_same(TimedQueue& q, Reference& r) {
  while (!r.empty()) {
    REQUIRE(q.size() == r.size());
    REQUIRE(q.top().seq == r.top().seq);
    q.pop();
    r.pop();
  }
  REQUIRE(q.empty());
}

}  // namespace

TEST_CASE("timed queue: same pops as one heap over lanes, equal times and interleaved pops", "[timed_queue]") {
  std::mt19937_64 rng(GENERATE(1u, 2u, 3u, 4u));
  // Few distinct delays (route latencies), so that lanes fill and times often tie; more delays
  // than lanes, so that some go to the general heap.
  std::vector<double> delays;
  for (std::size_t k = 0; k < TimedQueue::kMaxLanes + 4; ++k)
    delays.push_back(1e-6 * static_cast<double>(k % 7 + 1) / (k / 7 + 1));
  TimedQueue q;
  Reference r;
  double now = 0;
  std::uint64_t seq = 0;
  std::uniform_int_distribution<int> op(0, 9), kind(0, 4), pick(0, static_cast<int>(delays.size()) - 1);
  for (int step = 0; step < 20000; ++step) {
    const int o = op(rng);
    if (o < 5) {  // an event at now + d in d's lane (Start), as FlowNetwork's begin() pushes it
      const double d = delays[static_cast<std::size_t>(pick(rng))];
      const Timed e{now + d, Timed::Start, step, seq++};
      q.push(e, d);
      r.push(e);
    } else if (o < 7) {  // any other event: any kind, at now or later, no lane
      const Timed e{now + (op(rng) < 5 ? 0.0 : delays[static_cast<std::size_t>(pick(rng))]), kind(rng), step, seq++};
      q.push(e);
      r.push(e);
    } else if (o < 8 && !r.empty()) {  // a lane push that does not follow its lane's order
      const double d = delays[0];
      const Timed e{now, Timed::Start, step, seq++};  // at now, before the lane's pending now' + d
      q.push(e, d);
      r.push(e);
    } else if (!r.empty()) {  // the loop advances to the first event and pops it
      REQUIRE(q.top().seq == r.top().seq);
      now = r.top().t;
      q.pop();
      r.pop();
    }
    REQUIRE(q.size() == r.size());
  }
  drain_same(q, r);
}

TEST_CASE("timed queue: assign replaces the contents, lanes usable again", "[timed_queue]") {
  TimedQueue q;
  Reference r;
  std::uint64_t seq = 0;
  for (int i = 0; i < 100; ++i) q.push(Timed{1e-6 * (i % 5), Timed::Start, i, seq++}, 1e-6 * (i % 5));
  std::vector<Timed> all;  // in pop order, shifted as the periodic fast-forward shifts them
  for (; !q.empty(); q.pop()) all.push_back(q.top());
  for (Timed& e : all) e.t += 0.5;
  for (const Timed& e : all) r.push(e);
  q.assign(all);
  for (int i = 0; i < 50; ++i) {  // lanes after the assignment, times past the assigned ones
    const Timed e{0.5 + 1e-6 * (i % 3), Timed::Start, 100 + i, seq++};
    q.push(e, 1e-6 * (i % 3));
    r.push(e);
  }
  drain_same(q, r);
}
