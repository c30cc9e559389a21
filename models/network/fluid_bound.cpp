// The fluid bound of a wave of independent transfers (fluid_bound.hpp): one pass over the routes,
// then per link direction its sub-flows by start of sending (equal starts merged as they come).
#include "models/network/fluid_bound.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "models/common/errors.hpp"
#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network {

bool single_wave(const Schedule& s) {
  for (const Activity& a : s.activities)
    if (a.kind != Activity::Kind::Transfer || !a.after.empty() || a.repeat != 1) return false;
  return true;
}

void check_fluid_transfer(const topology::Fabric& fab, const Activity& a, int i, bool waves) {
  // The key is built only to throw: this runs on every one of ~1M transfers (32K halving / doubling).
  auto key = [i] { return "schedule.activities[" + std::to_string(i) + "]"; };
  const char* what = waves ? "(fluid estimate of waves)" : "(fluid bound: one wave)";
  if (a.kind != Activity::Kind::Transfer)
    throw InvalidParameter(key() + ".kind", "not a transfer", std::string("a transfer ") + what);
  if (!waves && !a.after.empty()) throw InvalidParameter(key() + ".after", "dependencies", std::string("none ") + what);
  if (a.repeat != 1 || !a.after_previous.empty() || !a.after_same.empty())
    throw InvalidParameter(key() + ".repeat", std::to_string(a.repeat), std::string("1, no repetition links ") + what);
  if (waves)
    for (int d : a.after)
      if (d < 0 || d >= i)
        throw InvalidParameter(key() + ".after", std::to_string(d), "earlier activities " + std::string(what));
  if (!fab.is_endpoint(a.gpu) || !fab.is_endpoint(a.dst_gpu))
    throw InvalidParameter(key() + ".gpu", std::to_string(a.gpu) + " -> " + std::to_string(a.dst_gpu), "GPU ranks");
  if (!(a.amount >= 0) || !(a.delay >= 0) || !(a.rate_limit >= 0))
    throw InvalidParameter(key() + ".amount", std::to_string(a.amount), "amount, delay and rate_limit >= 0");
}

namespace {

/// A transfer's sub-flow routes as FlowNetwork sends them (each route once, `of` its multiplicity:
/// the transfer's bytes / of[k] go over routes[k]) and `latency`, s, the longest of their latencies.
struct TransferRoutes {
  std::vector<std::vector<topology::Hop>> routes;
  std::vector<int> of;
  double latency = 0;
};

TransferRoutes transfer_routes(const topology::Fabric& fab, const Activity& a, bool spray, int fpp,
                               int spray_subflows) {
  TransferRoutes t;
  detail::subflow_routes(fab, a, spray, fpp, spray_subflows, 0, -1, /*once=*/true,
                         [&](int, int m, std::vector<topology::Hop>&& h) {
                           t.routes.push_back(std::move(h));
                           t.of.push_back(m);
                         });
  for (const auto& r : t.routes) t.latency = std::max(t.latency, fab.latency(r));
  return t;
}

/// The bound of the activities `ids` of `s` taken as one wave (their `after` ignored).
FluidBound wave_bound(const topology::Fabric& fab, const Schedule& s, const std::vector<int>& ids, int spray_subflows) {
  FluidBound out;
  const int L = fab.link_count();
  out.link_bytes_fwd.assign(L, 0.0);
  out.link_bytes_rev.assign(L, 0.0);
  const auto& spec = fab.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  // Per link direction (2 l + d): (start of sending, bytes) of its sub-flows, consecutive ones
  // with the same start merged (a transfer's sub-flows, and most of a wave, start together: the
  // 32K all-to-all's 29 M hop uses become a few per direction).
  std::vector<std::vector<std::pair<double, double>>> per_dir(2 * static_cast<std::size_t>(L));
  for (int id : ids) {
    const Activity& a = s.activities[id];
    if (a.gpu == a.dst_gpu) continue;  // takes no time (FlowNetwork::run)
    auto [routes, of, lat] = transfer_routes(fab, a, spray, fpp, spray_subflows);
    const double start = lat + a.delay;
    out.makespan = std::max(out.makespan, start);  // a transfer of 0 B finishes after its latency
    for (std::size_t k = 0; k < routes.size(); ++k) {
      const double bytes = a.amount / of[k];
      if (!(bytes > 0)) continue;
      double rate = a.rate_limit > 0 ? a.rate_limit / of[k] : 0;
      for (const topology::Hop& h : routes[k]) {
        const double r = fab.sharing_rate(h.link);
        if (!(r > 0))
          throw SimulationError("network: link " + fab.link(h.link).name + " has rate " + std::to_string(r));
        rate = rate > 0 ? std::min(rate, r) : r;
        (h.forward ? out.link_bytes_fwd : out.link_bytes_rev)[h.link] += bytes;
        auto& v = per_dir[2 * static_cast<std::size_t>(h.link) + (h.forward ? 0 : 1)];
        if (!v.empty() && v.back().first == start)
          v.back().second += bytes;
        else
          v.emplace_back(start, bytes);
      }
      if (rate > 0) out.makespan = std::max(out.makespan, start + bytes / rate);
    }
  }
  // Per direction: latest starts first, the bytes that start at or after s_k must leave after s_k.
  for (int d = 0; d < 2 * L; ++d) {
    auto& v = per_dir[d];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    const double rate = fab.sharing_rate(d / 2);
    double bytes = 0, t = 0;
    for (std::size_t i = v.size(); i-- > 0;) {
      bytes += v[i].second;
      t = std::max(t, v[i].first + bytes / rate);
    }
    if (t > out.makespan) {
      out.makespan = t;
      out.busiest_link = d / 2;
      out.busiest_forward = d % 2 == 0;
    }
  }
  return out;
}

}  // namespace

FluidBound fluid_bound(const topology::Fabric& fab, const Schedule& s, int spray_subflows) {
  const int n = static_cast<int>(s.activities.size());
  for (int i = 0; i < n; ++i) check_fluid_transfer(fab, s.activities[i], i, false);
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  return wave_bound(fab, s, all, spray_subflows);
}

CriticalParts critical_parts(const topology::Fabric& fab, const Schedule& s, int spray_subflows) {
  const int n = static_cast<int>(s.activities.size());
  for (int i = 0; i < n; ++i) check_fluid_transfer(fab, s.activities[i], i, false);
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  CriticalParts out;
  out.lower = wave_bound(fab, s, all, spray_subflows).makespan;
  const auto& spec = fab.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  // Components: union-find over activities sharing a link direction.
  std::vector<int> root(n);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&root](int x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  const int L = fab.link_count();
  std::vector<int> dir_owner(2 * static_cast<std::size_t>(L), -1);
  std::vector<double> dir_weight(2 * static_cast<std::size_t>(L), 0.0);
  struct Sub {
    int activity;
    double start, bytes, bound, weight;
    std::vector<int> dirs;
  };
  std::vector<Sub> subs;
  std::vector<double> ends(n, 0.0);  // s, upper bound of each activity's end
  for (int i = 0; i < n; ++i) {
    const Activity& a = s.activities[i];
    if (a.gpu == a.dst_gpu) continue;  // ends when it begins (FlowNetwork::run)
    auto [routes, of, lat] = transfer_routes(fab, a, spray, fpp, spray_subflows);
    ends[i] = lat + a.delay;
    for (std::size_t k = 0; k < routes.size(); ++k) {
      Sub f{i, lat + a.delay, a.amount / of[k], a.rate_limit > 0 ? a.rate_limit / of[k] : 0.0, a.weight, {}};
      if (!(f.bytes > 0)) continue;  // never an item of the solver
      for (const topology::Hop& h : routes[k]) {
        const int d = 2 * h.link + (h.forward ? 0 : 1);
        f.dirs.push_back(d);
        dir_weight[d] += f.weight;
        if (dir_owner[d] < 0)
          dir_owner[d] = i;
        else
          root[find(i)] = find(dir_owner[d]);
      }
      subs.push_back(std::move(f));
    }
  }
  for (const Sub& f : subs) {
    double rate = f.bound > 0 ? f.bound : std::numeric_limits<double>::infinity();
    for (int d : f.dirs) rate = std::min(rate, f.weight * fab.sharing_rate(d / 2) / dir_weight[d]);
    ends[f.activity] = std::max(ends[f.activity], f.start + f.bytes / rate);
  }
  std::vector<double> comp_end(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const int r = find(i);
    if (r == i) ++out.components;
    comp_end[r] = std::max(comp_end[r], ends[i]);
  }
  // Margin: the solver's own tolerances (completions within 1e-9 s merge, rates to ~1e-5 B/s).
  constexpr double kMargin = 1e-6;
  for (int i = 0; i < n; ++i)
    if (!(comp_end[find(i)] * (1 + kMargin) + 1e-9 < out.lower)) out.keep.push_back(i);
  return out;
}

}  // namespace aidcsim::network
