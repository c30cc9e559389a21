// Link timeline of a run (RunResult::timeline_*, FlowNetwork::set_timeline_bins): bytes per
// link direction per time bin, from the flows' progress at every bin boundary (a timed event of
// the run loop) and at each flow's completion. See Timeline in flow_network_internal.hpp.
#include <algorithm>
#include <cmath>

#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

namespace {

/// Merges adjacent bin pairs: w doubles, the filled bins halve (bin j = bins 2j + 2j+1, rows in
/// the same order as a row-major merge: the same sums bit for bit).
void tl_compact(Timeline& t) {
  const std::size_t rows = t.links.size(), have = rows > 0 ? t.bytes.size() / rows : 0;
  for (std::size_t j = 0; 2 * j < have; ++j) {
    double* out = t.bytes.data() + j * rows;
    const double* a = t.bytes.data() + 2 * j * rows;
    if (2 * j + 1 < have) {
      const double* b = a + rows;
      for (std::size_t r = 0; r < rows; ++r) out[r] = a[r] + b[r];
    } else {
      for (std::size_t r = 0; r < rows; ++r) out[r] = a[r] + 0.0;
    }
  }
  t.bytes.resize(((have + 1) / 2) * rows);
  t.w *= 2;
}

/// Credits flow f's bytes sent up to `upto` (of its total) to bin k on every hop.
void tl_credit(const RunCtx& c, Timeline& t, int f, double upto, int k) {
  const double delta = upto - t.sent[f];
  if (!(delta > 0)) return;
  t.sent[f] = upto;
  const std::size_t rows = t.links.size(), off = static_cast<std::size_t>(k) * rows;
  if (t.bytes.size() < off + rows) t.bytes.resize(off + rows, 0.0);  // bins up to k, zeroed
  double* bin = t.bytes.data() + off;
  for (const Hop& h : c.flows[f].hops)
    bin[t.row_of[2 * static_cast<std::size_t>(h.link) + (h.forward ? 0 : 1)]] += delta;
}

/// The next boundary after now (now may sit on a boundary, up to rounding).
double next_boundary(const Timeline& t, double now) { return (std::floor(now / t.w + 1e-9) + 1) * t.w; }

}  // namespace

int tl_bin(Timeline& t, double rel) {
  for (;;) {
    const double k = std::floor(std::max(rel, 0.0) / t.w);
    if (k < t.capacity()) return static_cast<int>(k);
    tl_compact(t);
  }
}

void tl_init(RunCtx& c, int bins, double hint) {
  auto t = std::make_unique<Timeline>();
  t->target = bins;
  t->w = hint > 0 ? hint / bins : kTimelineFirstBin;
  t->row_of.assign(2 * static_cast<std::size_t>(c.fab->link_count()), -1);
  for (const SubFlow& f : c.flows)
    for (const Hop& h : f.hops) {
      int& r = t->row_of[2 * static_cast<std::size_t>(h.link) + (h.forward ? 0 : 1)];
      if (r < 0) {
        r = static_cast<int>(t->links.size());
        t->links.push_back(2 * h.link + (h.forward ? 0 : 1));
      }
    }
  // Address space for every bin; pages are touched (and zeroed) only as bins fill.
  t->bytes.reserve(t->links.size() * static_cast<std::size_t>(t->capacity()));
  t->sent.assign(c.flows.size(), 0.0);
  t->next = next_boundary(*t, 0.0);
  c.push_timed(t->next, Timed::Bin, 0);
  c.tl = std::move(t);
}

void tl_boundary(RunCtx& c) {
  Timeline& t = *c.tl;
  const int k = tl_bin(t, c.now - 0.5 * t.w);  // the bin that just ended
  for (const Slot& s : c.slots)
    if (s.used && s.flow >= 0) {
      const SubFlow& f = c.flows[s.flow];
      tl_credit(c, t, s.flow, f.done_bytes + f.bytes - remains_now(c, s), k);
    }
  for (std::size_t g = 0; g < c.groups.size(); ++g)  // fast-forwarded repetitions (repetition.cpp)
    if (c.groups[g].active)
      for (int a : c.groups[g].members)
        for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f)
          tl_credit(c, t, f, group_flow_sent(c, static_cast<int>(g), f), k);
  t.next = next_boundary(t, c.now);
  c.push_timed(t.next, Timed::Bin, 0);
}

void tl_done(RunCtx& c, int f) {
  Timeline& t = *c.tl;
  tl_credit(c, t, f, c.flows[f].done_bytes, tl_bin(t, c.now));
}

void tl_progress(RunCtx& c, int f) {
  Timeline& t = *c.tl;
  const SubFlow& sf = c.flows[f];
  const double sent = sf.slot >= 0 ? sf.done_bytes + sf.bytes - remains_now(c, c.slots[sf.slot]) : sf.done_bytes;
  tl_credit(c, t, f, sent, tl_bin(t, c.now));
}

void tl_finish(RunCtx& c) {
  double last = 0;
  for (double f : c.finish) last = std::max(last, f);
  Timeline& t = *c.tl;
  t.used = std::min(t.capacity(), tl_bin(t, last) + 1);
  if (last > 0 && last == t.used * t.w) --t.used;  // a finish exactly on a boundary ends the bin before
  t.bytes.resize(t.links.size() * static_cast<std::size_t>(t.used), 0.0);  // bins past the last finish dropped
}

}  // namespace aidcsim::network::detail
