// Point-to-point efficiency per port (collective.cpp p2p_efficiency): NCCL's one-node ring model is
// remembered per system (a plan asks for it at every pipeline send / receive), so an answer must be
// the one a fresh computation gives, whichever systems were asked about before.
#include <catch2/catch.hpp>

#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "models/collectives/estimate.hpp"
#include "models/collectives/nccl_model.hpp"

using namespace aidcsim::collectives;

namespace {

/// An H100 node and that node with each field of the system changed in turn (more systems than
/// the memo holds, so it is also emptied on the way).
std::vector<nccl::System> systems() {
  nccl::System base;
  base.ranks = 8;
  std::vector<nccl::System> out{base};
  auto with = [&](auto change) {
    nccl::System s = base;
    change(s);
    out.push_back(s);
  };
  with([](nccl::System& s) { s.ranks = 16, s.nodes = 2; });  // 8 per node: the same one-node graph
  with([](nccl::System& s) { s.ranks = 4; });
  with([](nccl::System& s) { s.ranks = 12, s.nodes = 3, s.shapes = {{2, 2}, {4, 4}, {6, 6}}; });
  with([](nccl::System& s) { s.compute_capability = 80; });
  with([](nccl::System& s) { s.compute_capability = 100; });
  with([](nccl::System& s) { s.nvlink = false; });
  with([](nccl::System& s) { s.nvswitch = false; });
  with([](nccl::System& s) { s.nvlink_bw = 150; });
  with([](nccl::System& s) { s.nvlink_bw = 741.6; });
  with([](nccl::System& s) { s.pci_bw = 24; });
  with([](nccl::System& s) { s.nics = 4; });
  with([](nccl::System& s) { s.nic_bw = 100; });
  with([](nccl::System& s) { s.net_latency = 2; });
  with([](nccl::System& s) { s.nvls = true; });
  with([](nccl::System& s) { s.collnet = true; });
  with([](nccl::System& s) { s.amd_cpu = true; });
  with([](nccl::System& s) { s.ll_nvlink_hop = 0.4; });
  with([](nccl::System& s) { s.max_nchannels = 2; });
  with([](nccl::System& s) { s.max_ctas = 3; });
  with([](nccl::System& s) { s.nvls_nchannels = 4; });
  with([](nccl::System& s) { s.compute_capability = 100, s.nvlink_bw = 741.6, s.ranks = 4; });
  return out;
}

std::pair<double, double> efficiency(const nccl::System& s) {
  Layout l;
  l.nvlink_rate = 2e12;  // above every graph here: the fraction is not capped at 1
  double nv = -1, nic = -1;
  detail::p2p_efficiency(l, s, &nv, &nic);
  return {nv, nic};
}

}  // namespace

TEST_CASE("point-to-point efficiency does not depend on the systems asked about before", "[collectives][p2p]") {
  const auto all = systems();
  REQUIRE(all.size() > 16);
  // What each system gives alone: in a thread of its own, whose memo is empty.
  std::vector<std::pair<double, double>> alone(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) std::thread([&, i] { alone[i] = efficiency(all[i]); }).join();
  std::set<double> distinct;
  for (const auto& [nv, nic] : alone) distinct.insert(nv);
  CHECK(distinct.size() >= 4);  // the systems do change the answer (not a vacuous comparison)
  // In one thread, in and out of order, more than once: the same answers, bit for bit.
  for (int pass = 0; pass < 3; ++pass)
    for (std::size_t k = 0; k < all.size(); ++k) {
      const std::size_t i = pass == 1 ? all.size() - 1 - k : k;
      INFO("pass " << pass << ", system " << i);
      CHECK(efficiency(all[i]) == alone[i]);
    }
}
