// FlowNetwork::run's thread with a large stack (models/network/large_stack.hpp): SimGrid 3.32's
// solver recursion overflowed the default 8 MiB stack at ~0.5 M transfers in flight.
#include <catch2/catch.hpp>

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <thread>

#include "models/common/errors.hpp"
#include "models/common/profile.hpp"
#include "models/network/large_stack.hpp"

using namespace aidcsim;
using network::detail::on_large_stack;
using network::detail::run_on_large_stack;

namespace {

// Non-tail recursion with a 4 KiB frame the compiler cannot drop: `depth` x 4 KiB of stack.
std::size_t deep(std::size_t depth) {
  volatile char frame[4096];
  std::memset(const_cast<char*>(frame), static_cast<int>(depth & 0x7f), sizeof frame);
  if (depth == 0) return frame[0];
  return deep(depth - 1) + frame[depth % sizeof frame];
}

}  // namespace

TEST_CASE("large-stack run thread: flag, result and exceptions", "[network][large_stack]") {
  CHECK_FALSE(on_large_stack());
  bool inside = false;
  run_on_large_stack([&] { inside = on_large_stack(); });
  CHECK(inside);
  CHECK_FALSE(on_large_stack());
  CHECK_THROWS_AS(run_on_large_stack([] { throw SimulationError("from the run thread"); }), SimulationError);
}

TEST_CASE("large-stack run thread: a recursion 8 x deeper than the default stack allows", "[network][large_stack]") {
  // 16,384 frames of 4 KiB = 64 MiB: past the 8 MiB default stack (a SIGSEGV there), well inside 1 GiB.
  STATIC_REQUIRE(network::detail::kRunStackBytes >= (std::size_t{256} << 20));
  std::size_t r = 0;
  run_on_large_stack([&] { r = deep(16384); });
  CHECK(r > 0);
}

TEST_CASE("large-stack run thread: its CPU time counts in the run profile", "[network][large_stack][profile]") {
  // The profile's stages measure profile::cpu_seconds(): the calling thread's CPU clock alone
  // would not see the run thread's work (the caller sleeps in pthread_join meanwhile).
  profile::enable(true);
  const double total0 = profile::cpu_seconds(), own0 = profile::thread_cpu_seconds();
  double worked = 0;
  run_on_large_stack([&] {
    const double c0 = profile::thread_cpu_seconds();
    volatile double x = 0;
    while (profile::thread_cpu_seconds() - c0 < 0.05) x = x + 1;  // 50 ms of CPU on the run thread
    worked = profile::thread_cpu_seconds() - c0;
  });
  // The caller's own clock is read after total's at the start and before it at the end, so the
  // caller's CPU between the two reads never counts against the run thread's (it was read the
  // other way round at the end, and 2 us of the caller's CPU could make total - own < worked).
  const double own = profile::thread_cpu_seconds() - own0;
  const double total = profile::cpu_seconds() - total0;
  profile::enable(false);
  CHECK(worked >= 0.05);
  CHECK(total >= worked);     // the run thread's CPU is charged to the caller's stage
  CHECK(own < 0.5 * worked);  // which its own clock does not see
  CHECK(total - own >= worked);
}

TEST_CASE("large-stack run thread: one long-lived thread, a spare one when it is busy", "[network][large_stack]") {
  // Runs one after the other reuse the same thread (its stack and allocator cache stay mapped:
  // no page faults again for every run); a caller that finds it busy gets a thread of its own.
  pthread_t first{}, second{};
  run_on_large_stack([&] { first = pthread_self(); });
  run_on_large_stack([&] { second = pthread_self(); });
  CHECK(pthread_equal(first, second));
  CHECK_FALSE(pthread_equal(first, pthread_self()));

  std::atomic<int> inside{0}, both{0};
  auto body = [&] {
    if (on_large_stack()) ++inside;
    ++both;
    while (both.load() < 2) std::this_thread::yield();  // both runs at once: one cannot wait for the other
  };
  std::thread a([&] { run_on_large_stack(body); }), b([&] { run_on_large_stack(body); });
  a.join();
  b.join();
  CHECK(inside == 2);
  // and a run inside a run stays on its large stack
  bool nested = false;
  run_on_large_stack([&] { run_on_large_stack([&] { nested = on_large_stack(); }); });
  CHECK(nested);
}
