// Relaxed link directions (relaxed_links.hpp): left out of the max-min solver while the rates keep
// them below capacity, put back for the rest of the run the first time they would bind.
#include "models/network/relaxed_links.hpp"

#include <algorithm>
#include <cstdio>

#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

namespace {

/// Relative slack a relaxed direction must keep: at load >= (1 - kSlack) x capacity it is put back.
/// Above the solver's own rounding (loads are sums of rates updated by differences), below any
/// difference a step time shows.
constexpr double kSlack = 1e-6;
/// A direction put back is relaxed again once its load falls to this fraction of its capacity: it
/// then binds no flow (removing a constraint that is not saturated leaves the max-min allocation as
/// it is), and the margin keeps a direction near capacity from going in and out at every event.
constexpr double kRelaxAgain = 0.9;

signed char& state_of(RunCtx& c, int r, const Hop& h) {
  RelaxedLinks& x = c.relax;
  if (static_cast<std::size_t>(r) >= x.state.size()) {
    const std::size_t n = static_cast<std::size_t>(r) + 1;
    x.state.resize(std::max(n, 2 * x.state.size()), -1);
    x.load.resize(x.state.size(), 0.0);
    x.cap.resize(x.state.size(), 0.0);
    x.is_touched.resize(x.state.size(), 0);
  }
  signed char& s = x.state[r];
  if (s < 0) {
    const auto tier = static_cast<unsigned>(c.fab->link(h.link).tier);
    s = (x.tiers >> tier) & 1u ? 1 : 0;
    x.cap[r] = c.link_rate[h.link];
  }
  return s;
}

/// Adds item of slot s again with its current resources in the solver (one was put back).
void re_add(RunCtx& c, int s) {
  Slot& x = c.slots[s];
  const SubFlow& sf = c.flows[x.flow];
  int n = 0;
  const int* res = route_resources(c, x.flow, n);
  int kept = 0;
  const int* in = relax_filter(c, x.flow, res, n, kept);
  const Activity& act = c.s->activities[sf.activity];
  const double bound = act.rate_limit > 0 ? act.rate_limit / sf.of * sf.mult : -1.0;  // as start_flow
  c.sharing.remove_item(x.item);
  x.item = c.sharing.add_item(in, kept, s, act.weight * sf.mult, bound);
  ++c.relax.re_added;
}

}  // namespace

const int* relax_filter(RunCtx& c, int f, const int* res, int n, int& kept) {
  kept = n;
  if (!c.relax.on) return res;
  const SubFlow& sf = c.flows[f];
  auto& buf = c.relax.buf;
  buf.clear();
  for (int k = 0; k < n; ++k)
    if (state_of(c, res[k], sf.hops[k]) != 1) buf.push_back(res[k]);
  kept = static_cast<int>(buf.size());
  return buf.data();
}

void relax_rate(RunCtx& c, int f, double delta) {
  if (delta == 0) return;
  RelaxedLinks& x = c.relax;
  int n = 0;
  const int* res = route_resources(c, f, n);
  const SubFlow& sf = c.flows[f];
  for (int k = 0; k < n; ++k) {
    const int r = res[k];
    if (state_of(c, r, sf.hops[k]) == 0) continue;  // loads of relaxed ones and of those put back
    x.load[r] += delta;
    if (!x.is_touched[r]) {
      x.is_touched[r] = 1;
      x.touched.push_back(r);
    }
  }
}

bool relax_check(RunCtx& c) {
  RelaxedLinks& x = c.relax;
  std::vector<int> back, again;
  for (int r : x.touched) {
    x.is_touched[r] = 0;
    if (x.state[r] == 1 && x.load[r] >= (1 - kSlack) * x.cap[r]) back.push_back(r);
    if (x.state[r] == 2 && x.load[r] <= kRelaxAgain * x.cap[r]) again.push_back(r);
  }
  x.touched.clear();
  if (back.empty() && again.empty()) return false;
  for (int r : back) x.state[r] = 2;
  for (int r : again) x.state[r] = 1;
  x.put_back += static_cast<long long>(back.size());
  x.relaxed_again += static_cast<long long>(again.size());
  // Items on a direction put back or relaxed again: found by their routes.
  for (int s = 0; s < static_cast<int>(c.slots.size()); ++s) {
    const Slot& sl = c.slots[s];
    if (!sl.used || sl.flow < 0) continue;
    int n = 0;
    const int* res = route_resources(c, sl.flow, n);
    bool hit = false;
    for (int k = 0; k < n && !hit; ++k) {
      for (int r : back) hit |= res[k] == r;
      for (int r : again) hit |= res[k] == r;
    }
    if (hit) re_add(c, s);
  }
  return !back.empty();  // relaxing again changes no rate: no new solve needed
}

}  // namespace aidcsim::network::detail
