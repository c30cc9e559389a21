// The brief's fabric checklist on a simulated step (see fabric_checks.hpp).
#include "sim/engine/fabric_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/common/units.hpp"
#include "models/network/rdma_latency.hpp"
#include "models/thermal/checks.hpp"

namespace aidcsim {

using network::FabricLimits;
using network::kRdmaMtu;
using network::rdma_latency_p99_estimate;
namespace {

std::string gbps(double bytes_per_s) { return fmt::format("{:.0f} Gb/s", bytes_per_s * units::kBitsPerByte / 1e9); }

}  // namespace

std::vector<thermal::ChecklistItem> fabric_checklist(const topology::FabricSpec& spec,
                                                     const topology::BillOfMaterials& bom,
                                                     const network::Congestion& congestion,
                                                     const network::CongestionTimeline& timeline, double step_time,
                                                     const FabricLimits& lim) {
  using thermal::limit_above;
  using thermal::limit_below;
  std::vector<thermal::ChecklistItem> out;
  out.push_back(
      limit_above("switch port rate", spec.link_rate, lim.port_rate_min, "B/s",
                  fmt::format("{} per port (brief: at least {})", gbps(spec.link_rate), gbps(lim.port_rate_min))));
  out.push_back(limit_above("NIC rate per GPU", spec.nic_rate, lim.port_rate_min, "B/s",
                            fmt::format("{} per GPU over {} plane(s) (brief: at least {})", gbps(spec.nic_rate),
                                        spec.planes, gbps(lim.port_rate_min))));
  const double node = spec.nic_rate * spec.gpus_per_node;
  out.push_back(limit_above("injection bandwidth per node", node, lim.node_injection_min, "B/s",
                            fmt::format("{} GPUs x {} = {} (brief: at least {})", spec.gpus_per_node,
                                        gbps(spec.nic_rate), gbps(node), gbps(lim.node_injection_min))));

  const int pct = static_cast<int>(lim.utilization_alarm * 100 + 0.5);
  if (!timeline.time.empty()) {
    const auto busiest = std::max_element(timeline.above_alarm.begin(), timeline.above_alarm.end());
    const int links = busiest == timeline.above_alarm.end() ? 0 : *busiest;
    // Which tiers: a flow at its path's full rate is above 80 % on every hop, its GPU's own NIC
    // link (access) included, in any fabric; switch-to-switch links above it are what the fabric
    // design changes (oversubscription, ECMP collisions).
    std::string tiers;
    if (links > 0 && timeline.above_alarm_by_tier.size() == 4 * timeline.above_alarm.size()) {
      const auto b = static_cast<std::size_t>(busiest - timeline.above_alarm.begin());
      const auto n = [&](topology::Tier t) { return timeline.above_alarm_by_tier[b * 4 + static_cast<int>(t)]; };
      tiers = fmt::format(" (NIC-leaf {}, leaf-spine {}, spine-core {})", n(topology::Tier::Access),
                          n(topology::Tier::LeafSpine), n(topology::Tier::SpineCore));
    }
    double peak = 0;  // scale-out tiers (1..3) only
    for (std::size_t b = 0; b < timeline.time.size(); ++b)
      for (int tier = 1; tier < 4; ++tier) peak = std::max(peak, timeline.max_by_tier[b * 4 + tier]);
    const double share = step_time > 0 ? std::min(1.0, timeline.time_above_alarm / step_time) : 0.0;
    out.push_back(limit_below(
        fmt::format("links above {} % (busiest time bin)", pct), links, 0, "1",
        fmt::format(
            "{} scale-out link direction(s) above {} % in the busiest of {} bins of {:.3g} ms{}; peak bin "
            "utilization {:.0f} %; a link above {} % during {:.1f} % of the step ({} above it on the step average)",
            links, pct, timeline.time.size(), timeline.bin * 1e3, tiers, 100 * peak, pct, 100 * share,
            congestion.links_above_80),
        false));
  } else {
    out.push_back(limit_below(fmt::format("links above {} % (step average)", pct), congestion.links_above_80, 0, "1",
                              fmt::format("{} scale-out link direction(s) above {} % averaged over the step (no "
                                          "link timeline in this run: a busy phase may be hidden)",
                                          congestion.links_above_80, pct),
                              false));
  }

  const auto [base, queue] = rdma_latency_p99_estimate(spec, bom, congestion);
  out.push_back(limit_below(
      "RDMA p99 latency (estimate)", base + queue, lim.latency_p99_max, "s",
      fmt::format("estimate: {:.2f} us on the longest path ({} switch tier(s)) = {:.2f} us switches and cables + "
                  "{:.2f} us queueing (M/M/1 p99 per hop at each tier's p99 link utilization over the step, "
                  "{:.0f} B packets; PFC/DCQCN not modelled); brief: p99 <= {:.0f} us",
                  (base + queue) * 1e6, bom.tiers, base * 1e6, queue * 1e6, kRdmaMtu, lim.latency_p99_max * 1e6),
      false));

  const double full = spec.gpus * spec.nic_rate / 2;
  double ratio = full > 0 ? bom.bisection_bandwidth / full : 0.0;
  if (std::abs(ratio - 1.0) < 1e-9) ratio = 1.0;  // capacity sums over many links: rounding only
  out.push_back(limit_above(
      "bisection ratio", ratio, lim.bisection_ratio_min, "1",
      fmt::format("bisection {:.2f} Tb/s of {:.2f} Tb/s for full bisection (GPUs x NIC / 2); "
                  "brief: non-blocking is the default aim",
                  bom.bisection_bandwidth * units::kBitsPerByte / 1e12, full * units::kBitsPerByte / 1e12)));
  return out;
}

thermal::ChecklistItem cable_length_item(const topology::FabricCost& cost, double link_latency,
                                         const FabricLimits& lim) {
  const topology::LongCables over = topology::cables_at_or_over(cost, lim.cable_length_max);
  long long cables = 0;
  for (const auto& m : cost.media) cables += m.links;
  std::string media;
  for (topology::Medium m : {topology::Medium::Singlemode, topology::Medium::Multimode, topology::Medium::Copper})
    if (over.by_medium[static_cast<int>(m)] > 0)
      media += fmt::format("{}{} {}", media.empty() ? "" : ", ", over.by_medium[static_cast<int>(m)],
                           topology::medium_name(m));
  return thermal::limit_below(
      "longest scale-out cable", over.longest, lim.cable_length_max, "m",
      fmt::format("{} of {} scale-out cables {:.0f} m or longer in the layout model{}; longest {:.1f} m "
                  "(lengths: bom.layout), {:.0f} ns in fibre at {:.2f} ns/m, where the simulation and the RDMA "
                  "latency estimate take fabric.link_latency = {:.0f} ns per cable; brief: cables under {:.0f} m",
                  over.links, cables, lim.cable_length_max, media.empty() ? "" : " (" + media + ")", over.longest,
                  over.longest * network::kFibreDelayPerMetre * 1e9, network::kFibreDelayPerMetre * 1e9,
                  link_latency * 1e9, lim.cable_length_max));
}

}  // namespace aidcsim
