// The fluid bound of a wave of independent transfers (fluid_bound.hpp): one pass over the routes,
// then per link direction its sub-flows by start of sending.
#include "models/network/fluid_bound.hpp"

#include <algorithm>
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
  const std::string key = "schedule.activities[" + std::to_string(i) + "]";
  const char* what = waves ? "(fluid estimate of waves)" : "(fluid bound: one wave)";
  if (a.kind != Activity::Kind::Transfer)
    throw InvalidParameter(key + ".kind", "not a transfer", std::string("a transfer ") + what);
  if (!waves && !a.after.empty()) throw InvalidParameter(key + ".after", "dependencies", std::string("none ") + what);
  if (a.repeat != 1 || !a.after_previous.empty() || !a.after_same.empty())
    throw InvalidParameter(key + ".repeat", std::to_string(a.repeat), std::string("1, no repetition links ") + what);
  if (waves)
    for (int d : a.after)
      if (d < 0 || d >= i)
        throw InvalidParameter(key + ".after", std::to_string(d), "earlier activities " + std::string(what));
  if (!fab.is_endpoint(a.gpu) || !fab.is_endpoint(a.dst_gpu))
    throw InvalidParameter(key + ".gpu", std::to_string(a.gpu) + " -> " + std::to_string(a.dst_gpu), "GPU ranks");
  if (!(a.amount >= 0) || !(a.delay >= 0) || !(a.rate_limit >= 0))
    throw InvalidParameter(key + ".amount", std::to_string(a.amount), "amount, delay and rate_limit >= 0");
}

namespace {

/// The bound of the activities `ids` of `s` taken as one wave (their `after` ignored).
FluidBound wave_bound(const topology::Fabric& fab, const Schedule& s, const std::vector<int>& ids, int spray_subflows) {
  FluidBound out;
  const int L = fab.link_count();
  out.link_bytes_fwd.assign(L, 0.0);
  out.link_bytes_rev.assign(L, 0.0);
  const auto& spec = fab.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  // Per link direction (2 l + d): (start of sending, bytes) of its sub-flows.
  std::vector<std::pair<double, double>> uses;
  std::vector<int> use_dir;
  for (int id : ids) {
    const Activity& a = s.activities[id];
    if (a.gpu == a.dst_gpu) continue;  // takes no time (FlowNetwork::run)
    std::vector<std::vector<topology::Hop>> routes;
    std::vector<int> of;
    detail::subflow_routes(fab, a, spray, fpp, spray_subflows, 0, -1, [&](int, int m, std::vector<topology::Hop>&& h) {
      routes.push_back(std::move(h));
      of.push_back(m);
    });
    double lat = 0;
    for (const auto& r : routes) lat = std::max(lat, fab.latency(r));
    const double start = lat + a.delay;
    out.makespan = std::max(out.makespan, start);  // a transfer of 0 B finishes after its latency
    for (std::size_t k = 0; k < routes.size(); ++k) {
      const double bytes = a.amount / of[k];
      if (!(bytes > 0)) continue;
      double rate = a.rate_limit > 0 ? a.rate_limit / of[k] : 0;
      for (const topology::Hop& h : routes[k]) {
        const double r = fab.link(h.link).rate;
        if (!(r > 0))
          throw SimulationError("network: link " + fab.link(h.link).name + " has rate " + std::to_string(r));
        rate = rate > 0 ? std::min(rate, r) : r;
        (h.forward ? out.link_bytes_fwd : out.link_bytes_rev)[h.link] += bytes;
        uses.emplace_back(start, bytes);
        use_dir.push_back(2 * h.link + (h.forward ? 0 : 1));
      }
      if (rate > 0) out.makespan = std::max(out.makespan, start + bytes / rate);
    }
  }
  // Group the uses by link direction (counting sort), then per direction: latest starts first,
  // the bytes that start at or after s_k must leave after s_k.
  std::vector<std::size_t> off(2 * static_cast<std::size_t>(L) + 1, 0);
  for (int d : use_dir) ++off[d + 1];
  for (std::size_t i = 0; i + 1 < off.size(); ++i) off[i + 1] += off[i];
  std::vector<std::pair<double, double>> by_dir(uses.size());
  {
    std::vector<std::size_t> fill(off.begin(), off.end() - 1);
    for (std::size_t i = 0; i < uses.size(); ++i) by_dir[fill[use_dir[i]]++] = uses[i];
  }
  for (int d = 0; d < 2 * L; ++d) {
    const std::size_t b = off[d], e = off[d + 1];
    if (b == e) continue;
    std::sort(by_dir.begin() + static_cast<std::ptrdiff_t>(b), by_dir.begin() + static_cast<std::ptrdiff_t>(e));
    const double rate = fab.link(d / 2).rate;
    double bytes = 0, t = 0;
    for (std::size_t i = e; i-- > b;) {
      bytes += by_dir[i].second;
      t = std::max(t, by_dir[i].first + bytes / rate);
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

}  // namespace aidcsim::network
