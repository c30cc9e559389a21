#include "models/network/network_report.hpp"

#include <algorithm>
#include <iterator>

#include "models/common/units.hpp"
#include "models/network/rdma_latency.hpp"

namespace aidcsim::network {
namespace {

void add_timeline(Results& r, const StepTraffic& traffic, double step_time) {
  const auto& t = traffic.timeline;
  if (t.time.empty()) return;
  double peak = 0;  // scale-out tiers only (NVLink carries PP/DP flows only)
  for (std::size_t b = 0; b < t.time.size(); ++b)
    for (int tier = 1; tier < 4; ++tier) peak = std::max(peak, t.max_by_tier[b * 4 + tier]);
  r.add("peak_link_utilization", 100.0 * peak, "%",
        "Busiest scale-out link direction in the busiest time bin of the step (link timeline; "
        "max_link_utilization averages over the whole step)");
  r.add("links_above_80_busiest_bin", *std::max_element(t.above_alarm.begin(), t.above_alarm.end()), "1",
        "Scale-out link directions above 80 % in the time bin with the most of them (brief's alarm, "
        "judged in the checklist)");
  r.add("time_above_80", step_time > 0 ? 100.0 * std::min(1.0, t.time_above_alarm / step_time) : 0.0, "%",
        "Share of the step with at least one scale-out link direction above 80 % (time bins)");
  r.datasets.push_back(vector_dataset("/network/timeline/links_above_80",
                                      std::vector<double>(t.above_alarm.begin(), t.above_alarm.end()), "1",
                                      "Scale-out link directions above 80 % in each bin", "time"));
  r.datasets.push_back(vector_dataset("/network/timeline/time", t.time, "s",
                                      "Start of each bin of the step's link timeline, from the step's start", "time"));
  const std::size_t bins = t.time.size(), hot = t.hot.size();
  r.datasets.push_back(matrix_dataset("/network/timeline/max_utilization_by_tier", t.max_by_tier, bins, 4, "1",
                                      "Busiest link direction per tier in each bin, bytes / (rate x bin)",
                                      {"time", "tier"}));
  r.datasets.push_back(matrix_dataset("/network/timeline/mean_utilization_by_tier", t.mean_by_tier, bins, 4, "1",
                                      "Mean over each tier's link directions that carry traffic in the step",
                                      {"time", "tier"}));
  r.datasets.push_back(matrix_dataset("/network/timeline/hot_link_utilization", t.hot_utilization, bins, hot, "1",
                                      "The scale-out link directions with the highest peak utilization, over the step",
                                      {"time", "hot_link"}));
  r.labels.push_back({"/network/timeline/tier", tier_names(), "Fabric tiers"});
  r.labels.push_back({"/network/timeline/hot_link", traffic.timeline_hot_names,
                      "Hot link directions of /network/timeline/hot_link_utilization (up = lower to upper tier)"});
}

void add_notes(Results& r, const StepTraffic& traffic) {
  r.notes.push_back(
      "network: link utilization is averaged over the simulated step (/network/timeline/* over time; "
      "the 80 % alarm of the checklist counts links in the busiest time bin); "
      "every rail carries its own DP flows; NVLink links carry PP/DP flows only (TP collectives are "
      "analytic)");
  if (traffic.repetitions_fast_forwarded > 0)
    r.notes.push_back(
        "network: " + std::to_string(traffic.repetitions_fast_forwarded) +
        " repetitions of the step's ring / pipeline transfers were not simulated one by one: they "
        "repeat an exact template once the fabric's state repeats (fast-forward by whole periods; "
        "same times, link bytes and timeline as the unrolled run, tests/unit/network/test_repetition.cpp)");
}

}  // namespace

std::vector<std::string> tier_names() {
  std::vector<std::string> names;
  for (auto t : {topology::Tier::NvLink, topology::Tier::Access, topology::Tier::LeafSpine, topology::Tier::SpineCore})
    names.emplace_back(topology::tier_name(t));
  return names;
}

void report_step_traffic(Results& r, const StepTraffic& traffic, const topology::FabricSpec& spec,
                         const topology::BillOfMaterials& bom, double step_time) {
  const auto& c = traffic.congestion;
  r.add("max_link_utilization", 100.0 * c.max_utilization, "%",
        "Busiest scale-out link direction, bytes / (rate x step time)");
  r.add("p99_link_utilization", 100.0 * c.p99_utilization, "%",
        "99th percentile over scale-out link directions that carried traffic");
  r.add("links_above_80", c.links_above_80, "1",
        "Scale-out link directions above 80 % utilization averaged over the step (links_above_80_busiest_bin: "
        "in the busiest time bin)");
  const auto [base, queue] = rdma_latency_p99_estimate(spec, bom, c);
  r.add("rdma_latency_p99", (base + queue) * 1e6, "us",
        "Estimate: p99 one-way RDMA latency on the longest path, switches and cables + M/M/1 queueing at each "
        "tier's p99 link utilization (models/network/rdma_latency.hpp)");
  r.datasets.push_back(vector_dataset("/network/link_utilization", traffic.link_utilization, "1",
                                      "Per fabric link: max over both directions of bytes / (rate x step time)",
                                      "link"));
  r.datasets.push_back(vector_dataset("/network/link_bytes", traffic.link_bytes, "B",
                                      "Per fabric link: bytes carried in one step, both directions", "link"));
  std::vector<double> tiers(traffic.link_tiers.begin(), traffic.link_tiers.end());
  Dataset tier = vector_dataset(
      "/network/link_tier", tiers, "1",
      "Per fabric link: tier code (flag_meanings: NVLink, access NIC-leaf, leaf-spine, spine-core)", "link");
  tier.flag_meanings = tier_names();
  r.datasets.push_back(std::move(tier));
  r.labels.push_back({"/network/link", traffic.link_names, "Per fabric link: name (endpoints)"});
  std::vector<double> max_by_tier(std::begin(c.max_by_tier), std::end(c.max_by_tier));
  std::vector<double> p99_by_tier(std::begin(c.p99_by_tier), std::end(c.p99_by_tier));
  r.datasets.push_back(
      vector_dataset("/network/max_utilization_by_tier", max_by_tier, "1",
                     "Max link-direction utilization per tier (NVLink, access, leaf-spine, spine-core)", "tier"));
  r.datasets.push_back(vector_dataset("/network/p99_utilization_by_tier", p99_by_tier, "1",
                                      "p99 link-direction utilization per tier", "tier"));
  std::vector<double> bytes_by_tier(4, 0.0);
  for (std::size_t l = 0; l < traffic.link_bytes.size() && l < traffic.link_tiers.size(); ++l)
    bytes_by_tier.at(static_cast<std::size_t>(traffic.link_tiers[l])) += traffic.link_bytes[l];
  r.datasets.push_back(vector_dataset("/network/bytes_by_tier", bytes_by_tier, "B",
                                      "Bytes the tier's links carry in one step, both directions (sum of "
                                      "/network/link_bytes over the tier's links)",
                                      "tier"));
  r.labels.push_back({"/network/tier", tier_names(), "Fabric tiers"});
  add_timeline(r, traffic, step_time);
  add_notes(r, traffic);
}

}  // namespace aidcsim::network
