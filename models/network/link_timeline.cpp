// Link timeline of a run (RunResult::timeline_*, FlowNetwork::set_timeline_bins): bytes per
// link direction per time bin, from the flows' progress at every bin boundary (a timed event of
// the run loop) and at each flow's completion. See Timeline in flow_network_internal.hpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

namespace {

/// Points `pos` at bin k's cells (bins up to k exist afterwards).
void tl_focus(Timeline& t, int k) {
  if (t.hot >= 0) {
    const Timeline::Bin& h = t.bins[static_cast<std::size_t>(t.hot)];
    for (int i = 0; i < h.size; ++i) t.pos[t.at(h, i).row] = -1;
  }
  if (t.bins.size() <= static_cast<std::size_t>(k)) t.bins.resize(static_cast<std::size_t>(k) + 1);
  const Timeline::Bin& b = t.bins[static_cast<std::size_t>(k)];
  for (int i = 0; i < b.size; ++i) t.pos[t.at(b, i).row] = i;
  t.hot = k;
}

/// Merges adjacent bin pairs: w doubles, the filled bins halve (bin j = bins 2j + 2j+1). A cell
/// is bin 2j's bytes + bin 2j+1's, a missing cell counting 0 (so a + 0.0 = a and 0.0 + b = b: the
/// same sums bit for bit as a dense table's row-major merge; credits are > 0, never -0.0).
/// The pair merges into whichever of its two bins has more chunks (IEEE addition is commutative,
/// and the order of a bin's cells does not reach the result: tl_finish emits them by row); the
/// other one's chunks go back to the arena for the next cells.
void tl_compact(Timeline& t) {
  if (t.hot >= 0) {
    const Timeline::Bin& h = t.bins[static_cast<std::size_t>(t.hot)];
    for (int i = 0; i < h.size; ++i) t.pos[t.at(h, i).row] = -1;
  }
  t.hot = -1;
  const std::size_t have = t.bins.size();
  for (std::size_t j = 0; 2 * j < have; ++j) {
    Timeline::Bin out = std::move(t.bins[2 * j]);
    if (2 * j + 1 < have) {
      Timeline::Bin in = std::move(t.bins[2 * j + 1]);
      if (in.chunks.size() > out.chunks.size()) std::swap(out, in);
      for (int i = 0; i < out.size; ++i) t.pos[t.at(out, i).row] = i;
      for (int i = 0; i < in.size; ++i) {
        const Timeline::Cell y = t.at(in, i);
        const int p = t.pos[y.row];
        if (p >= 0) {
          Timeline::Cell& x = t.at(out, p);
          x.bytes = x.bytes + y.bytes;
        } else {
          t.pos[y.row] = out.size;
          t.push(out, y);
        }
      }
      for (int i = 0; i < out.size; ++i) t.pos[t.at(out, i).row] = -1;
      t.release(in);
    }
    t.bins[j] = std::move(out);
  }
  t.bins.resize((have + 1) / 2);
  t.w *= 2;
}

/// Credits flow f's bytes sent up to `upto` (of its total) to bin k on every hop.
void tl_credit(const RunCtx& c, Timeline& t, int f, double upto, int k) {
  const double delta = upto - t.sent[f];
  if (!(delta > 0)) return;
  t.sent[f] = upto;
  if (k != t.hot) tl_focus(t, k);
  Timeline::Bin& b = t.bins[static_cast<std::size_t>(k)];
  const RunCtx::Span sp = c.flow_span[static_cast<std::size_t>(f)];
  for (int i = sp.off; i < sp.off + sp.n; ++i) {
    const int r = t.route_rows[static_cast<std::size_t>(i)];
    int& p = t.pos[r];
    if (p < 0) {
      p = b.size;
      t.push(b, {r, delta});  // 0.0 + delta
    } else {
      t.at(b, p).bytes += delta;
    }
  }
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
  // Rows in order of first use over the flows and their hops; each route's rows once (a route's
  // later flows add no row), routes numbered in order of first use too (FlowNetwork::run).
  t->route_rows.reserve(static_cast<std::size_t>(c.route_off.back()));
  for (std::size_t f = 0; f < c.flows.size(); ++f) {
    if (c.flow_span[f].off != static_cast<int>(t->route_rows.size()))
      continue;  // a route seen before (or an empty one)
    for (const Hop& h : c.flows[f].hops) {
      int& r = t->row_of[2 * static_cast<std::size_t>(h.link) + (h.forward ? 0 : 1)];
      if (r < 0) {
        r = static_cast<int>(t->links.size());
        t->links.push_back(2 * h.link + (h.forward ? 0 : 1));
      }
      t->route_rows.push_back(r);
    }
  }
  t->pos.assign(t->links.size(), -1);
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
  // Bins past the last finish dropped; rows ascending (congestion_timeline sums in row order).
  const std::size_t n = std::min(t.bins.size(), static_cast<std::size_t>(t.used));
  std::size_t cells = 0;
  for (std::size_t b = 0; b < n; ++b) cells += static_cast<std::size_t>(t.bins[b].size);
  t.start.assign(static_cast<std::size_t>(t.used) + 1, 0);
  t.cell_row.reserve(cells);
  t.cell_bytes.reserve(cells);
  // Rows ascending without sorting (a bin has each row at most once): mark the bin's rows in a
  // bitmap, keep their bytes by row, then walk the bitmap's set bits in order. O(cells + rows / 64)
  // per bin instead of a comparison sort (which was ~3 % of the 31K event loop); same output.
  std::vector<std::uint64_t> mark((t.links.size() + 63) / 64, 0);
  std::vector<double> by_row(t.links.size());
  for (std::size_t b = 0; b < static_cast<std::size_t>(t.used); ++b) {
    if (b < n) {
      const Timeline::Bin& bin = t.bins[b];
      for (int i = 0; i < bin.size; ++i) {
        const Timeline::Cell& x = t.at(bin, i);
        mark[static_cast<std::size_t>(x.row) >> 6] |= std::uint64_t{1} << (x.row & 63);
        by_row[static_cast<std::size_t>(x.row)] = x.bytes;
      }
      for (std::size_t wd = 0; wd < mark.size(); ++wd)
        for (std::uint64_t m = mark[wd]; m != 0; m &= m - 1) {
          const int row = static_cast<int>(64 * wd) + std::countr_zero(m);
          t.cell_row.push_back(row);
          t.cell_bytes.push_back(by_row[static_cast<std::size_t>(row)]);
        }
      std::fill(mark.begin(), mark.end(), 0);
    }
    t.start[b + 1] = t.cell_row.size();
  }
  t.bins = {};
  t.chunks = {};
  t.blocks.clear();
  t.blocks.shrink_to_fit();
  t.free_chunks = {};
}

}  // namespace aidcsim::network::detail
