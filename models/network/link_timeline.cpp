// Link timeline of a run (RunResult::timeline_*, FlowNetwork::set_timeline_bins): bytes per
// link direction per time bin, read from SimGrid's remaining bytes at every bin boundary (a
// sampler daemon actor) and at each flow's completion. See Timeline in flow_network_internal.hpp.
#include <algorithm>
#include <cmath>

#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

/// Merges adjacent bin pairs: w doubles, the filled bins halve.
void tl_compact(Timeline& t) {
  const int cap = t.capacity();
  for (std::size_t r = 0; r < t.links.size(); ++r) {
    double* row = t.bytes.data() + r * cap;
    for (int j = 0; j < t.target; ++j) row[j] = row[2 * j] + row[2 * j + 1];
    std::fill(row + t.target, row + cap, 0.0);
  }
  t.w *= 2;
}

/// Bin of time `rel` (s from the run's start), compacting until it fits.
int tl_bin(Timeline& t, double rel) {
  for (;;) {
    const double k = std::floor(std::max(rel, 0.0) / t.w);
    if (k < t.capacity()) return static_cast<int>(k);
    tl_compact(t);
  }
}

/// Credits flow f's bytes sent up to `upto` (of its total) to bin k on every hop.
void tl_credit(const RunCtx& c, Timeline& t, int f, double upto, int k) {
  const double delta = upto - t.sent[f];
  if (!(delta > 0)) return;
  t.sent[f] = upto;
  for (const Hop& h : c.flows[f].hops) {
    const int r = t.row_of[2 * static_cast<std::size_t>(h.link) + (h.forward ? 0 : 1)];
    t.bytes[static_cast<std::size_t>(r) * t.capacity() + k] += delta;
  }
}

/// Flow f started sending on `comm`.
void tl_start(RunCtx& c, int f, const sg::CommPtr& comm) {
  if (!c.tl) return;
  Timeline& t = *c.tl;
  t.comm[f] = comm;
  t.pos[f] = static_cast<int>(t.active.size());
  t.active.push_back(f);
}

/// Flow f completed: its last bytes go to the bin of now.
void tl_done(RunCtx& c, int f) {
  if (!c.tl || c.tl->pos[f] < 0) return;
  Timeline& t = *c.tl;
  tl_credit(c, t, f, std::llround(c.flows[f].bytes), tl_bin(t, sg::Engine::get_clock() - c.t0));
  const int i = t.pos[f], last = t.active.back();
  t.active[i] = last;
  t.pos[last] = i;
  t.active.pop_back();
  t.pos[f] = -1;
  t.comm[f] = nullptr;
}

/// Sampler daemon: at every bin boundary, credits each sending flow's progress to the bin that
/// just ended.
void tl_sampler(RunCtx& c) {
  Timeline& t = *c.tl;
  for (;;) {
    const double rel = sg::Engine::get_clock() - c.t0;
    // The next boundary after now (now may sit on a boundary, up to rounding).
    const double next = (std::floor(rel / t.w + 1e-9) + 1) * t.w;
    sg::this_actor::sleep_until(c.t0 + next);
    const double now = sg::Engine::get_clock() - c.t0;
    const int k = tl_bin(t, now - 0.5 * t.w);  // the bin that just ended
    for (int f : t.active) {
      const double total = std::llround(c.flows[f].bytes);
      tl_credit(c, t, f, total - t.comm[f]->get_remaining(), k);
    }
  }
}

}  // namespace aidcsim::network::detail
