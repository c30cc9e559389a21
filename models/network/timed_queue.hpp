#pragma once
// Timed events of the network event loop and their queue (flow_network.cpp). Internal: include
// from models/network/*.cpp and their unit tests only.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace aidcsim::network::detail {

/// Timed event: a transfer's flows start after its route latency, a rerouted flow restarts, a
/// failure applies, a timeline bin ends. Equal times run in kind order, then insertion order.
struct Timed {
  enum Kind { Failure = 0, Bin = 1, GroupEnd = 2, Start = 3, Restart = 4 };
  double t;
  int kind;
  int id;  ///< activity (Start), flow (Restart), failure index (Failure), 0 (Bin), group (GroupEnd)
  std::uint64_t seq;
  bool operator>(const Timed& o) const {
    if (t != o.t) return t > o.t;
    if (kind != o.kind) return kind > o.kind;
    return seq > o.seq;
  }
};

/// The timed events in Timed order (time, kind, insertion): the same sequence of tops as one
/// binary heap of them (std::priority_queue<Timed, ..., std::greater<Timed>>), with fewer
/// comparisons for the common case.
///
/// Why: at 31K GPUs a step pushes ~640K Start events (one per transfer, at now + its route
/// latency), and popping them from one heap of ~18K was a third of the event loop's own
/// instructions and half its branch mispredictions (callgrind). Events pushed as now + d for
/// one delay d (push(e, d)) come in time order, since now never goes back: they are
/// kept in a FIFO lane per delay (appended, popped from the front), and only the lanes' heads
/// are ordered, in a heap of a few entries (a k-way merge of sorted runs). An event that would
/// not keep its lane in order (and any event without a lane) goes to the general heap.
/// Exactness: each lane is sorted in Timed order (checked at every append) and seq is unique,
/// so the merge of the lanes and the general heap pops the events in exactly the order of one
/// heap.
class TimedQueue {
 public:
  /// Lanes kept at most; events with other delays go to the general heap.
  static constexpr std::size_t kMaxLanes = 16;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// The first event (not empty()).
  const Timed& top() const { return lane_first() ? heads_.front().e : general_.top(); }
  /// Adds e (its seq greater than every seq pushed before).
  void push(const Timed& e) {
    general_.push(e);
    ++size_;
  }
  /// Adds e, scheduled at now + d for the caller's clock now (never decreasing between pushes):
  /// into the lane of delay d when it keeps that lane in order, else as push(e).
  void push(const Timed& e, double d) {
    const std::uint64_t key = std::bit_cast<std::uint64_t>(d);
    // The lane of key: open addressing over kSlots slots from the key's Fibonacci hash.
    std::size_t i = static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> (64 - kSlotBits));
    while (slot_[i] >= 0 && lanes_[static_cast<std::size_t>(slot_[i])].key != key) i = (i + 1) & (kSlots - 1);
    if (slot_[i] < 0) {
      if (lanes_.size() == kMaxLanes) return push(e);
      slot_[i] = static_cast<std::int8_t>(lanes_.size());
      lanes_.push_back(Lane{key, {}});
    }
    const int li = slot_[i];
    Lane& l = lanes_[static_cast<std::size_t>(li)];
    if (l.q.empty()) {  // an empty lane: e is its head
      l.q.push_back(e);
      heads_.push_back(Head{e, li});
      std::push_heap(heads_.begin(), heads_.end(), std::greater<Head>());
    } else {
      if (!(e > l.q.back())) return push(e);  // would break the lane's order
      l.q.push_back(e);
    }
    ++size_;
  }
  /// Removes the first event (not empty()).
  void pop() {
    --size_;
    if (!lane_first()) {
      general_.pop();
      return;
    }
    Lane& l = lanes_[static_cast<std::size_t>(heads_.front().lane)];
    l.q.pop_front();
    if (l.q.empty()) {
      std::pop_heap(heads_.begin(), heads_.end(), std::greater<Head>());
      heads_.pop_back();
      return;
    }
    replace_top(l.q.front());
  }
  /// Replaces the contents with `events` (any order).
  void assign(std::vector<Timed> events) {
    for (Lane& l : lanes_) l.q.clear();
    heads_.clear();
    size_ = events.size();
    general_ = decltype(general_)(std::greater<Timed>(), std::move(events));
  }

 private:
  struct Lane {
    std::uint64_t key = 0;  ///< the delay's bits
    /// Its events in Timed order. A deque (fixed blocks taken and freed as the lane moves): with
    /// a vector per lane (doubling reallocations) the rollout's peak RSS was ~40 MiB higher than
    /// with one binary heap, though the lanes hold < 1 MB (allocator placement, measured).
    std::deque<Timed> q;
  };
  struct Head {  ///< a non-empty lane's first event
    Timed e;
    int lane;
    bool operator>(const Head& o) const { return e > o.e; }
  };
  /// Whether the first event is a lane's head (seqs are unique: never equal to the heap's top).
  bool lane_first() const { return !heads_.empty() && (general_.empty() || general_.top() > heads_.front().e); }
  /// The top lane's head becomes e (later than before): e sinks to its place in heads_.
  void replace_top(const Timed& e) {
    const std::size_t n = heads_.size();
    const int lane = heads_[0].lane;
    std::size_t p = 0;
    for (;;) {
      std::size_t c = 2 * p + 1;
      if (c >= n) break;
      if (c + 1 < n && heads_[c].e > heads_[c + 1].e) ++c;
      if (!(e > heads_[c].e)) break;
      heads_[p] = heads_[c];
      p = c;
    }
    heads_[p] = Head{e, lane};
  }
  std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>> general_;
  std::vector<Lane> lanes_;
  std::vector<Head> heads_;  ///< the non-empty lanes' heads, a min-heap
  /// Lane lookup by delay: slot -> index in lanes_, -1 empty (at most half full).
  static constexpr int kSlotBits = 5;
  static constexpr std::size_t kSlots = std::size_t{1} << kSlotBits;
  static_assert(kSlots >= 2 * kMaxLanes);
  std::array<std::int8_t, kSlots> slot_ = filled_slots();
  static constexpr std::array<std::int8_t, kSlots> filled_slots() {
    std::array<std::int8_t, kSlots> a{};
    a.fill(-1);
    return a;
  }
  std::size_t size_ = 0;
};

}  // namespace aidcsim::network::detail
