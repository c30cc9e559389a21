// Link utilization over time (FlowNetwork::set_timeline_bins, congestion_timeline), closed forms:
// a lone flow fills the bins it sends in at line rate and nothing during its latency; two flows
// on one bottleneck get half the rate each, then the survivor the full rate; a computation
// between two flows leaves an idle gap; the 80 % alarm counts busy bins the step average hides;
// the bins add up to the run's per-link totals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::Activity;
using network::FlowNetwork;
using network::Schedule;
using test::compute;
using test::kRate;
using test::leaf_spine;
using test::transfer;
using topology::FabricSpec;

namespace {

/// Bytes of a link direction in bin b (0 when no flow uses it).
double bytes_in(const network::RunResult& r, int link, bool forward, int b) {
  for (std::size_t row = 0; row < r.timeline_links.size(); ++row)
    if (r.timeline_links[row] == 2 * link + (forward ? 0 : 1))
      return r.timeline_dense()[b * r.timeline_links.size() + row];
  return 0;
}

double overlap(double a0, double a1, double b0, double b1) {
  return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

}  // namespace

TEST_CASE("a lone flow's bytes fall in the bins it sends in, at line rate", "[network][timeline]") {
  const topology::Fabric fabric = topology::build_fabric(leaf_spine(4, 4, 2));
  FlowNetwork net(fabric);
  Schedule s;
  const double bytes = 1e9;  // 20 ms at 50 GB/s, far above the route latency
  s.activities = {transfer(0, 2, bytes)};
  const double lat = fabric.latency(fabric.route(0, 2, 0)), end = lat + bytes / kRate;
  for (const double hint : {0.0, end}) {
    net.set_timeline_bins(10, hint);
    const auto r = net.run(s);
    INFO("hint " << hint << " s: " << r.timeline_bins << " bins of " << r.timeline_bin << " s");
    REQUIRE(r.timeline_bins >= 10);
    REQUIRE(r.timeline_bins <= 20);
    CHECK(r.timeline_bins * r.timeline_bin >= r.makespan * (1 - 1e-12));
    const int nic = fabric.access_link(0);
    double total = 0;
    for (int b = 0; b < r.timeline_bins; ++b) {
      const double expected = kRate * overlap(b * r.timeline_bin, (b + 1) * r.timeline_bin, lat, end);
      CHECK(bytes_in(r, nic, true, b) == Approx(expected).epsilon(1e-6).margin(1.0));
      total += bytes_in(r, nic, true, b);
    }
    CHECK(total == bytes);
    // The hot link directions are the route's 4 hops, at line rate in a middle bin.
    const auto t = network::congestion_timeline(fabric, r, 8);
    CHECK(t.hot.size() == 4);
    const int mid = r.timeline_bins / 2;
    CHECK(t.hot_utilization[mid * t.hot.size()] == Approx(1.0).epsilon(1e-6));
    CHECK(t.max_by_tier[mid * 4 + static_cast<int>(topology::Tier::Access)] == Approx(1.0).epsilon(1e-6));
    // Above the 80 % alarm in a full middle bin: the 4 link directions of the route.
    CHECK(t.above_alarm[mid] == 4);
    const auto strict = network::congestion_timeline(fabric, r, 8, 1.0 + 1e-6);
    CHECK(strict.above_alarm[mid] == 0);
  }
}

TEST_CASE("two flows sharing a link get half the rate each while both send", "[network][timeline]") {
  const topology::Fabric fabric = topology::build_fabric(leaf_spine(4, 4, 2));
  FlowNetwork net(fabric);
  Schedule s;
  // GPUs 0 and 1 share leaf 0; both send to GPU 2: its NIC link is the bottleneck. The small flow
  // ends at 2 x 0.5e9 / rate, then the big one runs alone at line rate.
  s.activities = {transfer(0, 2, 0.5e9, 1), transfer(1, 2, 1.5e9, 2)};
  const double lat = fabric.latency(fabric.route(0, 2, 1));
  const double t1 = lat + 2 * 0.5e9 / kRate, t2 = t1 + 1.0e9 / kRate;
  net.set_timeline_bins(8, t2);
  const auto r = net.run(s);
  const int nic2 = fabric.access_link(2), nic1 = fabric.access_link(1);
  for (int b = 0; b < r.timeline_bins; ++b) {
    const double lo = b * r.timeline_bin, hi = (b + 1) * r.timeline_bin;
    // GPU 2's NIC (leaf -> GPU: reverse direction) at line rate whenever anything is sent.
    CHECK(bytes_in(r, nic2, false, b) == Approx(kRate * overlap(lo, hi, lat, t2)).epsilon(1e-6).margin(1.0));
    // GPU 1's NIC (GPU -> leaf) at half rate while sharing, then full rate.
    const double e1 = 0.5 * kRate * overlap(lo, hi, lat, t1) + kRate * overlap(lo, hi, t1, t2);
    CHECK(bytes_in(r, nic1, true, b) == Approx(e1).epsilon(1e-6).margin(1.0));
  }
}

TEST_CASE("a computation between two flows leaves the link idle", "[network][timeline]") {
  const topology::Fabric fabric = topology::build_fabric(leaf_spine(4, 4, 2));
  FlowNetwork net(fabric);
  net.set_timeline_bins(30);
  Schedule s;
  Activity c;
  c.kind = Activity::Kind::Compute;
  c.gpu = 2;
  c.amount = 2e13;  // 20 ms at 1 PFLOP/s between two 20 ms flows
  c.after = {0};
  s.activities = {transfer(0, 2, 1e9), c, transfer(2, 0, 1e9, 0, {1})};
  s.gpu_flops = {1e15};
  const auto r = net.run(s);
  const int nic0 = fabric.access_link(0);
  const double c0 = r.finish[0], c1 = r.finish[1];
  int idle = 0;
  for (int b = 0; b < r.timeline_bins; ++b) {
    const double lo = b * r.timeline_bin, hi = (b + 1) * r.timeline_bin;
    if (lo >= c0 && hi <= c1) {
      CHECK(bytes_in(r, nic0, true, b) + bytes_in(r, nic0, false, b) == 0.0);
      ++idle;
    }
  }
  CHECK(idle >= 8);
}

TEST_CASE("the 80 % alarm sees a busy bin that the step average hides", "[network][timeline]") {
  // Issue 16: "0 links above 80 % while the busiest time bin is at 100 %". A 20 ms flow at line
  // rate, then 60 ms of computation: over the run its links average 25 %, in its bins 100 %.
  const topology::Fabric fabric = topology::build_fabric(leaf_spine(4, 4, 2));
  FlowNetwork net(fabric);
  Activity c;
  c.kind = Activity::Kind::Compute;
  c.gpu = 2;
  c.amount = 6e13;  // 60 ms at 1 PFLOP/s
  c.after = {0};
  Schedule s;
  s.activities = {transfer(0, 2, 1e9), c};
  s.gpu_flops = {1e15};
  net.set_timeline_bins(40);
  const auto r = net.run(s);
  const double flow_end = r.finish[0];
  REQUIRE(r.makespan == Approx(flow_end + 0.06).epsilon(1e-9));
  CHECK(network::congestion(fabric, r).links_above_80 == 0);
  CHECK(network::congestion(fabric, r).max_utilization == Approx(1e9 / (kRate * r.makespan)).epsilon(1e-9));
  const auto t = network::congestion_timeline(fabric, r);
  CHECK(*std::max_element(t.above_alarm.begin(), t.above_alarm.end()) == 4);  // the route's 4 hops
  // By tier: a lone flow at line rate puts its two NIC-leaf and two leaf-spine hops above 80 %.
  const auto busiest =
      static_cast<std::size_t>(std::max_element(t.above_alarm.begin(), t.above_alarm.end()) - t.above_alarm.begin());
  REQUIRE(t.above_alarm_by_tier.size() == 4 * t.above_alarm.size());
  CHECK(t.above_alarm_by_tier[busiest * 4 + static_cast<int>(topology::Tier::NvLink)] == 0);
  CHECK(t.above_alarm_by_tier[busiest * 4 + static_cast<int>(topology::Tier::Access)] == 2);
  CHECK(t.above_alarm_by_tier[busiest * 4 + static_cast<int>(topology::Tier::LeafSpine)] == 2);
  for (std::size_t b = 0; b < t.above_alarm.size(); ++b) {
    int sum = 0;
    for (int tier = 0; tier < 4; ++tier) sum += t.above_alarm_by_tier[b * 4 + tier];
    CHECK(sum == t.above_alarm[b]);
  }
  // Time above the alarm: the bins the flow fills above 80 %, i.e. its 20 ms to within a bin.
  double expected = 0;
  for (int b = 0; b < r.timeline_bins; ++b) {
    const double lo = b * r.timeline_bin, hi = (b + 1) * r.timeline_bin;
    if (overlap(lo, hi, r.start[0] + fabric.latency(fabric.route(0, 2, 0)), flow_end) > 0.8 * r.timeline_bin)
      expected += std::min(hi, r.makespan) - lo;
  }
  CHECK(t.time_above_alarm == Approx(expected).epsilon(1e-9));
  CHECK(t.time_above_alarm == Approx(1e9 / kRate).margin(r.timeline_bin));
  CHECK(t.time_above_alarm < 0.3 * r.makespan);
  // Nothing above a 100 % threshold: no bin exceeds line rate.
  CHECK(network::congestion_timeline(fabric, r, 8, 1.0 + 1e-6).time_above_alarm == 0.0);
}

TEST_CASE("the timeline's bins add up to the run's bytes per link", "[network][timeline]") {
  const topology::Fabric fabric = topology::build_fabric(leaf_spine(64, 16, 8));
  FlowNetwork net(fabric);
  net.set_timeline_bins(16);
  Schedule s;
  for (int g = 0; g < 64; ++g) s.activities.push_back(transfer(g, (g * 37 + 11) % 64, 1e8 * (1 + g % 5), g));
  const auto r = net.run(s);
  std::vector<double> fwd(fabric.link_count(), 0.0), rev(fabric.link_count(), 0.0);
  const std::vector<double> dense = r.timeline_dense();
  for (std::size_t row = 0; row < r.timeline_links.size(); ++row)
    for (int b = 0; b < r.timeline_bins; ++b)
      (r.timeline_links[row] % 2 == 0 ? fwd : rev)[r.timeline_links[row] / 2] +=
          dense[b * r.timeline_links.size() + row];
  // The sparse table: cells > 0 by ascending row in each bin, and what the dense one holds.
  REQUIRE(r.timeline_bin_start.size() == static_cast<std::size_t>(r.timeline_bins) + 1);
  std::size_t nonzero = 0;
  for (double x : dense) nonzero += x != 0;
  CHECK(r.timeline_cell_row.size() == nonzero);
  for (int b = 0; b < r.timeline_bins; ++b)
    for (std::size_t k = r.timeline_bin_start[b]; k < r.timeline_bin_start[b + 1]; ++k) {
      CHECK(r.timeline_cell_bytes[k] > 0);
      if (k > r.timeline_bin_start[b]) CHECK(r.timeline_cell_row[k - 1] < r.timeline_cell_row[k]);
    }
  for (int l = 0; l < fabric.link_count(); ++l) {
    CHECK(fwd[l] == Approx(r.link_bytes_fwd[l]).margin(64));  // flows are put as whole bytes
    CHECK(rev[l] == Approx(r.link_bytes_rev[l]).margin(64));
  }
  const auto t = network::congestion_timeline(fabric, r);
  REQUIRE(t.hot.size() == 8);
  std::vector<double> peak(8, 0.0);
  for (int b = 0; b < r.timeline_bins; ++b)
    for (int k = 0; k < 8; ++k) peak[k] = std::max(peak[k], t.hot_utilization[b * 8 + k]);
  for (int k = 1; k < 8; ++k) CHECK(peak[k - 1] >= peak[k]);  // hottest first
  for (int k = 0; k < 8; ++k) CHECK(peak[k] <= 1.0 + 1e-9);   // never above line rate
  // An alarm below 0 counts the idle scale-out link directions too (rows without a cell).
  const auto all = network::congestion_timeline(fabric, r, 8, -1.0);
  int scale_out = 0;
  for (int link : r.timeline_links) scale_out += fabric.link(link / 2).tier != topology::Tier::NvLink;
  for (int b = 0; b < r.timeline_bins; ++b) {
    CHECK(all.above_alarm[b] == scale_out);
    int by_tier = 0;
    for (int tier = 0; tier < 4; ++tier) by_tier += all.above_alarm_by_tier[b * 4 + tier];
    CHECK(by_tier == scale_out);
  }
}

TEST_CASE("no timeline unless asked for", "[network][timeline]") {
  const topology::Fabric fabric = topology::build_fabric(leaf_spine(4, 4, 2));
  FlowNetwork net(fabric);
  Schedule s;
  s.activities = {transfer(0, 2, 1e6)};
  const auto r = net.run(s);
  CHECK(r.timeline_bins == 0);
  CHECK(r.timeline_bin_start.empty());
  CHECK(r.timeline_cell_row.empty());
  CHECK_THROWS_AS(network::congestion_timeline(fabric, r), SimulationError);
  CHECK_THROWS_AS(net.set_timeline_bins(-1), InvalidParameter);
  CHECK_THROWS_AS(net.set_timeline_bins(8, -1.0), InvalidParameter);
}

TEST_CASE("bins of several arena chunks, merged: the bins still add up, and pair up to the coarser run's",
          "[network][timeline]") {
  // Each bin's cells sit in chunks of 2048 (Timeline::kChunkCells): 2,048 GPUs sending at once touch
  // ~8,000 link directions per bin, so bins span several chunks, and an unknown run length (no hint)
  // makes the bins merge pair by pair, their chunks going back to the arena and being reused.
  const topology::Fabric fabric = topology::build_fabric(leaf_spine(2048, 64, 32));
  Schedule s;
  for (int g = 0; g < 2048; ++g) s.activities.push_back(transfer(g, (g * 37 + 11) % 2048, 1e7 * (1 + g % 7), g));
  FlowNetwork fine(fabric), coarse(fabric);
  fine.set_timeline_bins(8);
  coarse.set_timeline_bins(4);
  const auto r = fine.run(s);
  const auto q = coarse.run(s);
  const std::size_t rows = r.timeline_links.size();
  REQUIRE(rows > 2 * 2048);
  std::size_t widest = 0;
  for (int b = 0; b < r.timeline_bins; ++b)
    widest = std::max(widest, r.timeline_bin_start[b + 1] - r.timeline_bin_start[b]);
  CHECK(widest > 2 * 2048);  // a bin over three chunks
  std::vector<double> fwd(fabric.link_count(), 0.0), rev(fabric.link_count(), 0.0);
  const std::vector<double> dense = r.timeline_dense();
  for (std::size_t row = 0; row < rows; ++row)
    for (int b = 0; b < r.timeline_bins; ++b)
      (r.timeline_links[row] % 2 == 0 ? fwd : rev)[r.timeline_links[row] / 2] += dense[b * rows + row];
  for (int l = 0; l < fabric.link_count(); ++l) {
    CHECK(fwd[l] == Approx(r.link_bytes_fwd[l]).margin(64));
    CHECK(rev[l] == Approx(r.link_bytes_rev[l]).margin(64));
  }
  // Both runs start at the same first width and double it on each merge: the fine run's width
  // ends at half the coarse one's, and fine bins 2j and 2j+1 hold what coarse bin j holds (up to the
  // order of the additions), row by row.
  REQUIRE(q.timeline_links == r.timeline_links);
  REQUIRE(q.timeline_bin == 2 * r.timeline_bin);  // 10 bins of 0.512 ms, 5 of 1.024 ms
  REQUIRE(q.timeline_bins == (r.timeline_bins + 1) / 2);
  const std::vector<double> cd = q.timeline_dense();
  for (int j = 0; j < q.timeline_bins; ++j)
    for (std::size_t row = 0; row < rows; ++row) {
      double sum = 0;
      for (int b = 2 * j; b < std::min(2 * j + 2, r.timeline_bins); ++b) sum += dense[b * rows + row];
      CHECK(cd[j * rows + row] == Approx(sum).margin(64));
    }
}
