// Max-min fluid run of dependent transfers without a global solve (fluid_bound.hpp,
// fluid_bound_waves): event-driven, each start or completion re-rates only the sub-flows its
// change reaches (distributed max-min fixpoint iteration).
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
#include <string>
#include <utility>

#include "models/common/errors.hpp"
#include "models/network/flow_network_internal.hpp"
#include "models/network/fluid_bound.hpp"

namespace aidcsim::network {

std::vector<int> wave_levels(const Schedule& s) {
  const int n = static_cast<int>(s.activities.size());
  std::vector<int> level(n, 0);
  for (int i = 0; i < n; ++i) {
    const Activity& a = s.activities[i];
    if (a.kind != Activity::Kind::Transfer || a.repeat != 1 || !a.after_previous.empty() || !a.after_same.empty())
      return {};
    for (int d : a.after) {
      if (d < 0 || d >= i) return {};
      level[i] = std::max(level[i], level[d] + 1);
    }
  }
  return level;
}

namespace {

struct Sub {
  int activity = 0;
  double remaining = 0;     ///< B at `last`
  double rate = 0;          ///< B/s since `last`
  double last = 0;          ///< s
  double cap = 0;           ///< B/s: its route's smallest link rate, or its rate limit's share
  int first = 0, hops = 0;  ///< its link directions: dirs[first, first + hops)
  unsigned version = 0;     ///< completion events of older versions are stale
  bool sent = false;        ///< completed
};

struct Event {
  double time;
  long long seq;  ///< order of equal times: creation order (deterministic)
  int kind;       ///< 0: an activity starts sending, 1: a sub-flow completes
  int id;
  unsigned version;
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

}  // namespace

WavesFluidBound fluid_bound_waves(const topology::Fabric& fab, const Schedule& s, int spray_subflows) {
  const int n = static_cast<int>(s.activities.size());
  for (int i = 0; i < n; ++i) check_fluid_transfer(fab, s.activities[i], i, true);
  const std::vector<int> level = wave_levels(s);
  WavesFluidBound out;
  if (n == 0) return out;
  out.wave_finish.assign(*std::max_element(level.begin(), level.end()) + 1, 0.0);
  // Dependents (CSR) and unfinished dependencies per activity.
  std::vector<int> off(n + 1, 0), pending(n, 0);
  for (int i = 0; i < n; ++i) {
    pending[i] = static_cast<int>(s.activities[i].after.size());
    for (int d : s.activities[i].after) ++off[d + 1];
  }
  for (int i = 0; i < n; ++i) off[i + 1] += off[i];
  std::vector<int> dependents(off[n]);
  {
    std::vector<int> fill(off.begin(), off.end() - 1);
    for (int i = 0; i < n; ++i)
      for (int d : s.activities[i].after) dependents[fill[d]++] = i;
  }
  const auto& spec = fab.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  const int L = fab.link_count();
  std::vector<double> dir_rate(2 * static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l) dir_rate[2 * l] = dir_rate[2 * l + 1] = fab.link(l).rate;
  // Active sub-flows per link direction with their rates and `keep` (below), the first three
  // inline: what a rate evaluation reads of a link stays in one place (the run is bound by memory
  // latency).
  struct More {
    int id;
    double rate, keep;
  };
  struct OnDir {
    int n = 0;
    int id[3];
    double rate[3];
    double keep[3];
    std::vector<More> more;
    std::size_t size() const { return n + more.size(); }
    int sub(std::size_t i) const { return i < 3 ? id[i] : more[i - 3].id; }
    double rate_at(std::size_t i) const { return i < 3 ? rate[i] : more[i - 3].rate; }
    double keep_at(std::size_t i) const { return i < 3 ? keep[i] : more[i - 3].keep; }
    void set_keep(std::size_t i, double k) { (i < 3 ? keep[i] : more[i - 3].keep) = k; }
    void add(int f) {
      constexpr double never = std::numeric_limits<double>::infinity();  // not evaluated yet
      if (n < 3) {
        id[n] = f;
        rate[n] = 0;
        keep[n++] = never;
      } else {
        more.push_back({f, 0.0, never});
      }
    }
    void set(int f, double r) {
      for (int i = 0; i < n; ++i)
        if (id[i] == f) {
          rate[i] = r;
          return;
        }
      for (auto& m : more)
        if (m.id == f) m.rate = r;
    }
    void remove(int f) {
      for (int i = 0; i < n; ++i)
        if (id[i] == f) {
          if (!more.empty()) {
            id[i] = more.back().id;
            rate[i] = more.back().rate;
            keep[i] = more.back().keep;
            more.pop_back();
          } else {
            id[i] = id[n - 1];
            rate[i] = rate[n - 1];
            keep[i] = keep[n - 1];
            --n;
          }
          return;
        }
      more.erase(std::find_if(more.begin(), more.end(), [f](const More& m) { return m.id == f; }));
    }
  };
  std::vector<OnDir> on_dir(2 * static_cast<std::size_t>(L));
  std::vector<Sub> subs;
  std::vector<int> dirs;                            // link directions of the sub-flows, Sub::first..
  std::vector<int> open(n, 0);                      // sub-flows of an activity still sending
  std::vector<int> sub_begin(n, 0), sub_end(n, 0);  // its sub-flows: subs[sub_begin, sub_end)
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  long long seq = 0;

  // Routes and latency of activity i (FlowNetwork::run's sub-flows); schedules its start.
  auto become_ready = [&](int i, double t) {
    const Activity& a = s.activities[i];
    if (a.gpu == a.dst_gpu) {  // takes no time (FlowNetwork::run)
      events.push({t, seq++, 0, i, 0});
      return;
    }
    double lat = 0;
    const int before = static_cast<int>(subs.size());
    detail::subflow_routes(fab, a, spray, fpp, spray_subflows, 0, -1, [&](int, int m, std::vector<topology::Hop>&& h) {
      lat = std::max(lat, fab.latency(h));
      Sub sub;
      sub.activity = i;
      sub.remaining = a.amount / m;
      sub.cap = a.rate_limit > 0 ? a.rate_limit / m : 0;
      sub.first = static_cast<int>(dirs.size());
      for (const topology::Hop& hop : h) {
        const double r = fab.link(hop.link).rate;
        if (!(r > 0))
          throw SimulationError("network: link " + fab.link(hop.link).name + " has rate " + std::to_string(r));
        sub.cap = sub.cap > 0 ? std::min(sub.cap, r) : r;
        dirs.push_back(2 * hop.link + (hop.forward ? 0 : 1));
      }
      sub.hops = static_cast<int>(dirs.size()) - sub.first;
      if (sub.remaining > 0)
        subs.push_back(sub);
      else
        dirs.resize(sub.first);
    });
    open[i] = static_cast<int>(subs.size()) - before;
    sub_begin[i] = before;
    sub_end[i] = static_cast<int>(subs.size());
    events.push({t + lat + a.delay, seq++, 0, i, 0});
  };
  auto finish = [&](int i, double t) {
    out.makespan = std::max(out.makespan, t);
    out.wave_finish[level[i]] = std::max(out.wave_finish[level[i]], t);
    for (int k = off[i]; k < off[i + 1]; ++k)
      if (--pending[dependents[k]] == 0) become_ready(dependents[k], t);
  };
  // Max-min share of sub-flow g on link direction d given the others' present rates: the water
  // level w with sum over the others of min(rate, w) + w = the link's rate. Also stores g's `keep`
  // on d: the computed level subtracts the others' rates below it, smallest first, up to the
  // largest x below it; a neighbour whose rate moves between two values both >= keep = max(w,
  // the next double above x) leaves that computation, and so the level, bit for bit the same (the
  // same rates subtracted in the same order, the next one still >= w).
  std::vector<double> others;
  auto keep_of = [](double w, double x) { return w > x ? w : std::nextafter(x, std::numeric_limits<double>::infinity()); };
  auto level_on = [&](int g, int d) {
    OnDir& on = on_dir[d];
    const double c = dir_rate[d];
    const std::size_t size = on.size();
    constexpr double none = -std::numeric_limits<double>::infinity();
    if (size == 1) {  // g alone
      on.keep[0] = c;
      return c;
    }
    if (size == 2) {  // g and one other at rate r: c - r if r < c / 2
      const int i = on.id[0] == g ? 0 : 1;
      const double r = on.rate[1 - i];
      const double w = r < c / 2 ? c - r : c / 2;
      on.keep[i] = keep_of(w, r < c / 2 ? r : none);
      return w;
    }
    others.clear();
    std::size_t self = 0;
    for (std::size_t i = 0; i < size; ++i)
      if (on.sub(i) != g)
        others.push_back(on.rate_at(i));
      else
        self = i;
    std::sort(others.begin(), others.end());
    double rem = dir_rate[d];
    double m = static_cast<double>(others.size()) + 1;
    double below = none;
    for (double r : others) {
      if (r >= rem / m) break;
      rem -= r;
      m -= 1;
      below = r;
    }
    on.set_keep(self, keep_of(rem / m, below));
    return rem / m;
  };
  // Sub-flows on the link directions of `f` take their max-min rates again at t: each one's rate
  // the smallest water level on its route given its neighbours' rates, neighbours of a changed
  // rate re-evaluated in turn until no rate moves (the distributed max-min fixpoint iteration;
  // Bertsekas & Gallager, Data Networks, 2nd ed., sec. 6.5.2). A queued sub-flow is re-evaluated
  // only if some change since its last evaluation can move one of its levels (its `keep` on that
  // link, above): the others would compute the same rate again and do nothing, so skipping them
  // leaves every rate, event and their order as they were (78 % of the evaluations at 32K GPUs).
  // queued: 0 not queued, 1 queued with nothing that can move it, 2 queued to be evaluated.
  std::deque<int> work;
  std::vector<char> queued;
  auto enqueue = [&](int g, bool needed) {
    if (!queued[g]) {
      queued[g] = needed ? 2 : 1;
      work.push_back(g);
    } else if (needed) {
      queued[g] = 2;
    }
  };
  // f started or stopped sending: every sub-flow on its links (f itself when starting).
  auto push_neighbours = [&](int f) {
    const Sub& sf = subs[f];
    for (int k = sf.first; k < sf.first + sf.hops; ++k) {
      const OnDir& on = on_dir[dirs[k]];
      for (std::size_t i = 0, size = on.size(); i < size; ++i) enqueue(on.sub(i), true);
    }
  };
  // f's rate moved from `was` to `now`: its neighbours whose level that can move.
  auto push_changed = [&](int f, double was, double now) {
    const Sub& sf = subs[f];
    for (int k = sf.first; k < sf.first + sf.hops; ++k) {
      const OnDir& on = on_dir[dirs[k]];
      for (std::size_t i = 0, size = on.size(); i < size; ++i) {
        const int g = on.sub(i);
        const double keep = on.keep_at(i);
        enqueue(g, g != f && !(was >= keep && now >= keep));
      }
    }
  };
  auto reshare = [&](double t) {
    while (!work.empty()) {
      const int g = work.front();
      work.pop_front();
      const bool needed = queued[g] == 2;
      queued[g] = 0;
      Sub& sg = subs[g];
      if (sg.sent || !needed) continue;  // completed at this instant after it was queued, or unchanged
      ++out.evaluations;
      double r = sg.cap;
      for (int k = sg.first; k < sg.first + sg.hops; ++k) r = std::min(r, level_on(g, dirs[k]));
      if (std::abs(r - sg.rate) <= 1e-9 * r && sg.version > 0) continue;
      const double was = sg.rate;
      sg.remaining = std::max(0.0, sg.remaining - sg.rate * (t - sg.last));
      sg.last = t;
      sg.rate = r;
      for (int k = sg.first; k < sg.first + sg.hops; ++k) on_dir[dirs[k]].set(g, r);
      ++sg.version;
      events.push({t + sg.remaining / r, seq++, 1, g, sg.version});
      push_changed(g, was, r);
    }
  };

  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) become_ready(i, 0.0);
  std::vector<int> done_now;
  while (!events.empty()) {
    // Every start and completion at this instant first, then one re-sharing of what they touch.
    const double t = events.top().time;
    done_now.clear();
    if (queued.size() < subs.size()) queued.resize(subs.size(), 0);
    while (!events.empty() && events.top().time == t) {
      const Event e = events.top();
      events.pop();
      ++out.events;
      if (e.kind == 0) {
        const int i = e.id;
        const int b = sub_begin[i], end = sub_end[i];
        if (s.activities[i].gpu == s.activities[i].dst_gpu || b == end) {
          finish(i, t);  // no bytes: done when it could start sending
          if (queued.size() < subs.size()) queued.resize(subs.size(), 0);
          continue;
        }
        for (int f = b; f < end; ++f) {
          subs[f].last = t;
          for (int k = subs[f].first; k < subs[f].first + subs[f].hops; ++k) on_dir[dirs[k]].add(f);
        }
        for (int f = b; f < end; ++f) push_neighbours(f);
      } else {
        const int f = e.id;
        if (subs[f].version != e.version) continue;
        Sub& sf = subs[f];
        sf.remaining = 0;
        sf.rate = 0;
        sf.sent = true;
        ++sf.version;
        for (int k = sf.first; k < sf.first + sf.hops; ++k) on_dir[dirs[k]].remove(f);
        push_neighbours(f);
        done_now.push_back(f);
      }
    }
    reshare(t);
    for (int f : done_now)
      if (--open[subs[f].activity] == 0) finish(subs[f].activity, t);
  }
  return out;
}

}  // namespace aidcsim::network
