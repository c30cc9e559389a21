// Congestion metrics of a run: link-direction utilization, max / p99 / above-80 % (the product
// brief's alarm threshold) per tier, the same over time (link timeline), and flow slowdowns
// against the isolated alpha-beta time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network {
using topology::Fabric;
using topology::Tier;

namespace {

double resolve_interval(const RunResult& run, double interval) {
  const double t = interval > 0 ? interval : run.makespan;
  return t;
}

/// Nearest-rank percentile (p in (0,1]) of the values, 0 when empty.
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
  rank = std::clamp<std::size_t>(rank, 1, v.size());
  return v[rank - 1];
}

}  // namespace

std::vector<double> link_utilization(const Fabric& fabric, const RunResult& run, double interval) {
  const int L = fabric.link_count();
  if (run.link_bytes_fwd.size() != static_cast<std::size_t>(L) ||
      run.link_bytes_rev.size() != static_cast<std::size_t>(L))
    throw SimulationError("network: run result does not match the fabric (" +
                          std::to_string(run.link_bytes_fwd.size()) + " links vs " + std::to_string(L) + ")");
  std::vector<double> u(2 * static_cast<std::size_t>(L), 0.0);
  const double t = resolve_interval(run, interval);
  if (!(t > 0)) return u;
  for (int l = 0; l < L; ++l) {
    const double cap = fabric.link(l).rate * t;
    if (!(cap > 0)) continue;
    u[2 * l] = run.link_bytes_fwd[l] / cap;
    u[2 * l + 1] = run.link_bytes_rev[l] / cap;
  }
  return u;
}

Congestion congestion(const Fabric& fabric, const RunResult& run, double interval) {
  const std::vector<double> u = link_utilization(fabric, run, interval);
  Congestion c;
  std::vector<double> fabric_u, tier_u[4];
  for (int l = 0; l < fabric.link_count(); ++l) {
    const int t = static_cast<int>(fabric.link(l).tier);
    for (int d = 0; d < 2; ++d) {
      const double x = u[2 * l + d];
      if (!(x > 0)) continue;
      tier_u[t].push_back(x);
      c.max_by_tier[t] = std::max(c.max_by_tier[t], x);
      if (fabric.link(l).tier == Tier::NvLink) continue;
      fabric_u.push_back(x);
      c.max_utilization = std::max(c.max_utilization, x);
      if (x > 0.8) ++c.links_above_80;
    }
  }
  c.p99_utilization = percentile(std::move(fabric_u), 0.99);
  for (int t = 0; t < 4; ++t) c.p99_by_tier[t] = percentile(std::move(tier_u[t]), 0.99);
  return c;
}

CongestionTimeline congestion_timeline(const Fabric& fabric, const RunResult& run, int hot, double alarm) {
  const int B = run.timeline_bins;
  const std::size_t rows = run.timeline_links.size();
  if (B <= 0 || run.timeline_bin_start.size() != static_cast<std::size_t>(B) + 1 ||
      run.timeline_cell_row.size() != run.timeline_bin_start[B] ||
      run.timeline_cell_bytes.size() != run.timeline_bin_start[B])
    throw SimulationError("network: the run has no link timeline (FlowNetwork::set_timeline_bins)");
  CongestionTimeline t;
  t.bin = run.timeline_bin;
  for (int b = 0; b < B; ++b) t.time.push_back(b * t.bin);
  t.max_by_tier.assign(static_cast<std::size_t>(B) * 4, 0.0);
  t.mean_by_tier.assign(static_cast<std::size_t>(B) * 4, 0.0);
  t.alarm = alarm;
  t.above_alarm.assign(static_cast<std::size_t>(B), 0);
  t.above_alarm_by_tier.assign(static_cast<std::size_t>(B) * 4, 0);
  if (!(t.bin > 0)) return t;
  int carrying[4] = {0, 0, 0, 0};
  std::vector<std::pair<double, std::size_t>> peak;  // (peak bin utilization, row), scale-out
  std::vector<double> row_cap(rows), top(rows, 0.0);
  std::vector<int> tier_of(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const int l = run.timeline_links[r] / 2;
    if (l < 0 || l >= fabric.link_count())
      throw SimulationError("network: the run's link timeline does not match the fabric");
    row_cap[r] = fabric.link(l).rate * t.bin;
    tier_of[r] = static_cast<int>(fabric.link(l).tier);
  }
  const int nvlink = static_cast<int>(Tier::NvLink);
  // The timeline is sparse: a row without a cell in a bin has utilization 0 there, which changes
  // no max and adds +0.0 to the sums (the cells are visited in row order, as a dense table's
  // rows were: the same sums bit for bit); it is above the alarm only for an alarm < 0.
  std::size_t rows_above_zero = 0;  // scale-out rows with a capacity: counted when 0 > alarm
  for (std::size_t r = 0; r < rows; ++r) rows_above_zero += row_cap[r] > 0 && tier_of[r] != nvlink;
  for (int b = 0; b < B; ++b) {
    std::size_t zero = rows_above_zero;
    for (std::size_t k = run.timeline_bin_start[b]; k < run.timeline_bin_start[b + 1]; ++k) {
      const auto r = static_cast<std::size_t>(run.timeline_cell_row[k]);
      if (r >= rows) throw SimulationError("network: the run's link timeline does not match the fabric");
      if (!(row_cap[r] > 0)) continue;
      const int tier = tier_of[r];
      const double u = run.timeline_cell_bytes[k] / row_cap[r];
      top[r] = std::max(top[r], u);
      t.max_by_tier[b * 4 + tier] = std::max(t.max_by_tier[b * 4 + tier], u);
      t.mean_by_tier[b * 4 + tier] += u;
      if (tier != nvlink) --zero;
      if (u > alarm && tier != nvlink) ++t.above_alarm[b], ++t.above_alarm_by_tier[b * 4 + tier];
    }
    if (0.0 > alarm) {  // every scale-out row without a cell here: by tier as well
      t.above_alarm[b] += static_cast<int>(zero);
      std::vector<char> seen(rows, 0);
      for (std::size_t k = run.timeline_bin_start[b]; k < run.timeline_bin_start[b + 1]; ++k)
        seen[static_cast<std::size_t>(run.timeline_cell_row[k])] = 1;
      for (std::size_t r = 0; r < rows; ++r)
        if (!seen[r] && row_cap[r] > 0 && tier_of[r] != nvlink) ++t.above_alarm_by_tier[b * 4 + tier_of[r]];
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    if (!(row_cap[r] > 0) || !(top[r] > 0)) continue;
    ++carrying[tier_of[r]];
    if (tier_of[r] != nvlink) peak.emplace_back(top[r], r);
  }
  for (int b = 0; b < B; ++b) {
    for (int tier = 0; tier < 4; ++tier)
      if (carrying[tier] > 0) t.mean_by_tier[b * 4 + tier] /= carrying[tier];
    // The part of the bin inside the run (the last bin may reach past the makespan).
    if (t.above_alarm[b] > 0) t.time_above_alarm += std::clamp(run.makespan - b * t.bin, 0.0, t.bin);
  }
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(std::max(hot, 0)), peak.size());
  auto hotter = [&run](const auto& x, const auto& y) {
    return x.first > y.first || (x.first == y.first && run.timeline_links[x.second] < run.timeline_links[y.second]);
  };
  std::partial_sort(peak.begin(), peak.begin() + static_cast<long>(k), peak.end(), hotter);
  t.hot_utilization.assign(static_cast<std::size_t>(B) * k, 0.0);
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t r = peak[i].second;
    t.hot.push_back(run.timeline_links[r]);
    const double cap = fabric.link(run.timeline_links[r] / 2).rate * t.bin;
    for (int b = 0; b < B; ++b) {  // 0 where the row has no cell (0.0 / cap)
      const auto first = run.timeline_cell_row.begin() + static_cast<long>(run.timeline_bin_start[b]);
      const auto last = run.timeline_cell_row.begin() + static_cast<long>(run.timeline_bin_start[b + 1]);
      const auto it = std::lower_bound(first, last, static_cast<int>(r));
      if (it != last && *it == static_cast<int>(r))
        t.hot_utilization[b * k + i] =
            run.timeline_cell_bytes[static_cast<std::size_t>(it - run.timeline_cell_row.begin())] / cap;
    }
  }
  return t;
}

double isolated_time(const Fabric& fabric, int src, int dst, double bytes, std::uint64_t flow_hash) {
  if (src == dst) return 0;
  Activity a;
  a.kind = Activity::Kind::Transfer;
  a.gpu = src;
  a.dst_gpu = dst;
  a.flow_hash = flow_hash;
  // One hashed flow (no spray, one flow per pair), split over the planes as FlowNetwork::run splits
  // it (detail::subflow_routes: m = planes sub-flows of bytes / m over the NICs, else one): the
  // slowest sub-flow alone.
  double t = 0;
  detail::subflow_routes(fabric, a, /*spray=*/false, /*fpp=*/1, /*spray_n=*/1, /*m_fixed=*/0, /*only=*/-1,
                         [&](int, int m, const std::vector<topology::Hop>& hops) {
                           double rate = std::numeric_limits<double>::infinity();
                           for (const auto& x : hops) rate = std::min(rate, fabric.sharing_rate(x.link));
                           t = std::max(t, fabric.latency(hops) + (bytes > 0 ? bytes / m / rate : 0.0));
                         });
  return t;
}

std::vector<double> slowdowns(const Fabric& fabric, const Schedule& schedule, const RunResult& run) {
  const std::size_t n = schedule.activities.size();
  if (run.start.size() != n || run.finish.size() != n)
    throw SimulationError("network: run result does not match the schedule");
  std::vector<double> s(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const Activity& a = schedule.activities[i];
    if (a.kind != Activity::Kind::Transfer) continue;
    const double iso = isolated_time(fabric, a.gpu, a.dst_gpu, a.amount, a.flow_hash);
    if (iso > 0) s[i] = (run.finish[i] - run.start[i]) / iso;
  }
  return s;
}

}  // namespace aidcsim::network
