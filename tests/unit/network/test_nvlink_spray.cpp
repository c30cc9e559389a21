// Sprayed (EcmpMode::Spray) and spread (Activity::spread) transfers between two GPUs of one NVLink
// domain take NVLink, as hashed ones do: Fabric::routes / routes_strided give the pair its NVLink
// path. They used to list the scale-out paths, so such a transfer crossed two NICs and the leaf
// and spine tiers at the NIC rate (an 8-GPU all-reduce inside an NVL72 domain on `ecmp: spray`:
// 40 GB/s busbw instead of 663).
#include <catch2/catch.hpp>

#include "models/network/flow_network.hpp"
#include "tests/unit/network/helpers.hpp"

using namespace aidcsim;
using network::FlowNetwork;
using network::Schedule;
using test::kRate;
using test::transfer;
using topology::Fabric;
using topology::FabricSpec;

namespace {

/// Two 8-GPU nodes (one NVLink domain each, 450 GB/s), one 400G NIC per GPU, one leaf-spine.
FabricSpec two_nodes(topology::EcmpMode ecmp) {
  FabricSpec s = test::leaf_spine(16, 16, 8);
  s.gpus_per_node = 8;
  s.nvlink_domain = 8;
  s.nvlink_bandwidth = 450e9;
  s.ecmp = ecmp;
  return s;
}

/// Bytes the run put on links of tier t (both directions).
double tier_bytes(const Fabric& f, const network::RunResult& r, topology::Tier t) {
  double b = 0;
  for (int l = 0; l < f.link_count(); ++l)
    if (f.link(l).tier == t) b += r.link_bytes_fwd[l] + r.link_bytes_rev[l];
  return b;
}

}  // namespace

TEST_CASE("a sprayed or spread transfer inside a node takes NVLink", "[network]") {
  const double bytes = 1e9;
  for (bool spray : {true, false}) {
    CAPTURE(spray);
    const Fabric f = topology::build_fabric(two_nodes(spray ? topology::EcmpMode::Spray : topology::EcmpMode::Hash));
    FlowNetwork net(f);
    Schedule s;
    s.activities = {transfer(0, 5, bytes, 3)};
    if (!spray) {  // hashed fabric: the transfer spread over the paths (SHARP, sampled all-to-all)
      s.activities[0].spread = true;
      s.activities[0].spread_phase = 0x9e3779b97f4a7c15ull;
    }
    const auto r = net.run(s);
    const auto nvlink = f.route(0, 5, 3);
    REQUIRE(nvlink.size() == 2);
    CHECK(r.finish[0] - r.start[0] == Approx(f.latency(nvlink) + bytes / 450e9).epsilon(1e-9));
    CHECK(tier_bytes(f, r, topology::Tier::NvLink) == Approx(2 * bytes).epsilon(1e-9));
    CHECK(tier_bytes(f, r, topology::Tier::Access) == 0.0);
    CHECK(tier_bytes(f, r, topology::Tier::LeafSpine) == 0.0);
    // Across nodes the same transfer still takes the scale-out fabric at the NIC rate.
    Schedule x = s;
    x.activities[0].dst_gpu = 13;
    const auto rx = net.run(x);
    CHECK(tier_bytes(f, rx, topology::Tier::NvLink) == 0.0);
    CHECK(tier_bytes(f, rx, topology::Tier::Access) == Approx(2 * bytes).epsilon(1e-9));
    CHECK(rx.finish[0] - rx.start[0] > bytes / kRate);
  }
}
