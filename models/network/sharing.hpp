#pragma once
// MaxMinSharing: bandwidth (and GPU time) sharing between concurrent activities, solved by
// SimGrid 3.32's max-min solver (kernel::lmm, the solver of SimGrid's CM02 network model and CPU
// model) with its lazy "selective update": only the components whose resources changed are solved
// again, and only their variables are reported as changed.
//
// What this replaces: SimGrid's s4u layer (one actor + mailbox per flow, a platform of every
// link, a forked process per run) cost ~99 % of a step's CPU time for ~1 % spent in this solver
// (issue 13's profile). The event loop that uses it is models/network/flow_network.cpp.
//
// Model (as SimGrid CM02 with crosstraffic 0 and TCP-gamma 0, the configuration aidcsim always
// used): each resource r has a capacity C_r; each item i uses a set of resources (one unit of
// each per unit of rate), has a weight w_i (default 1) and an optional rate bound b_i, and gets
// a rate x_i <= b_i; rates are weighted max-min fair: no x_i / w_i can grow without lowering an
// x_j / w_j <= x_i / w_i that shares a saturated resource (Bertsekas & Gallager, Data Networks,
// §6.5.2). SimGrid's lmm takes the weight as a sharing penalty 1 / w_i and the bound as is.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace aidcsim::network::detail {

/// A hint that the cache line at p is read soon (no effect on results). x86-64: the prefetcht0
/// instruction itself, since GCC 12 at -O3 dropped __builtin_prefetch calls once inlined into the
/// event loop (seen in the assembly of simulate()).
inline void prefetch(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

class MaxMinSharing {
 public:
  MaxMinSharing();
  ~MaxMinSharing();
  MaxMinSharing(const MaxMinSharing&) = delete;
  MaxMinSharing& operator=(const MaxMinSharing&) = delete;

  /// A new resource of capacity `capacity` (> 0, units per s); returns its index (0, 1, ...).
  int add_resource(double capacity);
  /// Changes a resource's capacity (> 0); the items using it are re-solved at the next solve().
  void set_capacity(int resource, double capacity);
  int resource_count() const;

  /// A new item using `n` resources (indices from add_resource, each at most once); its rate is
  /// known after the next solve(). `tag` is the caller's id, reported back by solve().
  /// `weight` (> 0, finite): its max-min share weight; `bound` (units per s, > 0; <= 0 = none):
  /// its rate never exceeds it. Throws SimulationError for a bad weight.
  /// Returns the item's handle (valid until remove()).
  std::uint32_t add_item(const int* resources, int n, int tag, double weight = 1.0, double bound = -1.0);
  /// Removes an item (frees its share for the others at the next solve()).
  void remove_item(std::uint32_t handle);

  /// Solves the changed components and calls changed(tag, rate) (rate in units per s) for every
  /// item whose rate may have changed since the last solve (including new items), in the
  /// solver's order (deterministic for the same sequence of calls). Returns how many.
  template <class F>
  std::size_t solve(F&& changed) {
    solve_only();
    return report(std::forward<F>(changed));
  }
  /// solve() in its two parts, for a profile that times them apart: SimGrid's System::solve
  /// (max-min over the changed components), then report(changed) of its changed items.
  void solve_only();
  template <class F>
  std::size_t report(F&& changed) {
    read_changed(changed_);
    for (const auto& [tag, rate] : changed_) changed(tag, rate);
    return changed_.size();
  }

 private:
  struct Impl;
  void read_changed(std::vector<std::pair<int, double>>& out);
  std::unique_ptr<Impl> impl_;
  std::vector<std::pair<int, double>> changed_;
};

}  // namespace aidcsim::network::detail
