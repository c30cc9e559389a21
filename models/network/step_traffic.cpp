#include "models/network/step_traffic.hpp"

#include <algorithm>

namespace aidcsim::network {

StepTraffic step_traffic(const topology::Fabric& fabric, const RunResult& run, double step_time) {
  StepTraffic out;
  // Utilization over the whole step: the fabric's average load while the step runs.
  out.congestion = congestion(fabric, run, step_time);
  out.timeline = congestion_timeline(fabric, run);
  out.repetitions_fast_forwarded = run.repetitions_fast_forwarded;
  for (int d : out.timeline.hot)
    out.timeline_hot_names.push_back(fabric.link(d / 2).name + (d % 2 == 0 ? " (up)" : " (down)"));
  const int links = fabric.link_count();
  out.link_utilization.resize(static_cast<std::size_t>(links));
  out.link_bytes.resize(static_cast<std::size_t>(links));
  out.link_names.resize(static_cast<std::size_t>(links));
  out.link_tiers.resize(static_cast<std::size_t>(links));
  for (int l = 0; l < links; ++l) {
    const auto& link = fabric.link(l);
    const double fwd = l < static_cast<int>(run.link_bytes_fwd.size()) ? run.link_bytes_fwd[l] : 0.0;
    const double rev = l < static_cast<int>(run.link_bytes_rev.size()) ? run.link_bytes_rev[l] : 0.0;
    out.link_bytes[l] = fwd + rev;
    out.link_utilization[l] = step_time > 0 && link.rate > 0 ? std::max(fwd, rev) / (link.rate * step_time) : 0.0;
    out.link_names[l] = link.name;
    out.link_tiers[l] = static_cast<int>(link.tier);
  }
  return out;
}

}  // namespace aidcsim::network
