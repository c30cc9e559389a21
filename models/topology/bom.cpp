// Bill of materials and structure figures of a built fabric (switches, links, optics, bisection,
// diameter, oversubscription as built) and its text table.
#include <algorithm>
#include <cstdio>
#include <string>

#include "models/common/units.hpp"
#include "models/topology/bom_price.hpp"
#include "models/topology/fabric_impl.hpp"

namespace aidcsim::topology {

BillOfMaterials Fabric::bom() const {
  const Impl& f = *impl_;
  BillOfMaterials b;
  b.gpus = f.spec.gpus;
  for (const Node& n : f.nodes) {
    if (n.kind == NodeKind::NvSwitch) ++b.nvswitches;
    if (n.kind == NodeKind::Leaf) ++b.leaves;
    if (n.kind == NodeKind::Spine) ++b.spines;
    if (n.kind == NodeKind::Core) ++b.cores;
  }
  b.switches = b.leaves + b.spines + b.cores;
  b.tiers = b.cores > 0 ? 3 : b.spines > 0 ? 2 : b.leaves > 0 ? 1 : 0;
  // Aggregate up capacity per tier (up links only) and per-switch down/up capacity.
  double cap[4] = {0, 0, 0, 0};
  std::vector<double> down(f.n_nodes, 0), up(f.n_nodes, 0);
  for (const Link& x : f.links) {
    switch (x.tier) {
      case Tier::NvLink:
        ++b.nvlink_links;
        break;
      case Tier::Access:
        ++b.access_links;
        break;
      case Tier::LeafSpine:
        ++b.leaf_spine_links;
        break;
      case Tier::SpineCore:
        ++b.spine_core_links;
        break;
    }
    if (!x.up) continue;
    cap[static_cast<int>(x.tier)] += x.rate;
    up[x.a] += x.rate;
    down[x.b] += x.rate;
  }
  b.scaleout_cables = b.access_links + b.leaf_spine_links + b.spine_core_links;
  b.copper_cables = b.nvlink_links;
  // Bisection: half of the narrowest scale-out tier; tiers that are absent do not limit.
  double narrow = cap[static_cast<int>(Tier::Access)];
  if (b.spines > 0) narrow = std::min(narrow, cap[static_cast<int>(Tier::LeafSpine)]);
  if (b.cores > 0) narrow = std::min(narrow, cap[static_cast<int>(Tier::SpineCore)]);
  b.bisection_bandwidth = narrow / 2;
  for (int n = f.first_leaf; n < f.n_nodes; ++n) {
    const NodeKind k = f.nodes[n].kind;
    if (up[n] <= 0) continue;
    if (k == NodeKind::Leaf) b.oversub_leaf = std::max(b.oversub_leaf, down[n] / up[n]);
    if (k == NodeKind::Spine) b.oversub_spine = std::max(b.oversub_spine, down[n] / up[n]);
  }
  // Diameter from the (cached) BFS distances between leaves: switches crossed = leaf hops + 1.
  int far = 0;
  for (int leaf = f.first_leaf; leaf < f.first_spine; ++leaf) {
    const auto& d = f.dist_to_leaf(leaf);
    for (int o = 0; o < b.leaves; ++o)
      if (d[o] != Impl::kUnreachable) far = std::max(far, static_cast<int>(d[o]));
  }
  b.diameter = b.leaves > 0 ? far + 1 : 0;
  return b;
}

std::string format_bom(const BillOfMaterials& b, const FabricCost& cost) {
  std::string s;
  char line[160];
  auto row = [&](const char* what, const std::string& v) {
    std::snprintf(line, sizeof line, "  %-34s %14s\n", what, v.c_str());
    s += line;
  };
  auto i = [](long long v) { return std::to_string(v); };
  auto g = [](double v, const char* fmt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  s += "Fabric bill of materials\n";
  row("GPUs", i(b.gpus));
  row("NVLink switches (logical)", i(b.nvswitches));
  row("leaf switches", i(b.leaves));
  row("spine switches", i(b.spines));
  row("core switches", i(b.cores));
  row("scale-out switches", i(b.switches));
  row("NVLink links (copper)", i(b.nvlink_links));
  row("access links (NIC-leaf)", i(b.access_links));
  row("leaf-spine links", i(b.leaf_spine_links));
  row("spine-core links", i(b.spine_core_links));
  // Media and modules as priced (bom_price.cpp, by reach and rate): a short link is a DAC, not
  // two transceivers.
  row("scale-out cables", i(b.scaleout_cables));
  row("  copper (DAC)", i(cost.media[static_cast<int>(Medium::Copper)].links));
  row("  optical (multimode + single-mode)", i(cost.media[static_cast<int>(Medium::Multimode)].links +
                                               cost.media[static_cast<int>(Medium::Singlemode)].links));
  if (cost.links_unpriced) row("  without parts at their rate", i(cost.links_unpriced));
  row("optical modules", i(optical_modules(cost)));
  // Bits per second, as network rates are quoted and as `aidcsim run` reports it (B/s x 8).
  row("bisection bandwidth (Tb/s, one way)", g(b.bisection_bandwidth * units::kBitsPerByte / 1e12, "%.2f"));
  row("diameter (switches)", i(b.diameter));
  row("oversubscription leaf (as built)", g(b.oversub_leaf, "%.2f:1"));
  row("oversubscription spine (as built)", b.oversub_spine > 0 ? g(b.oversub_spine, "%.2f:1") : "-");
  return s;
}

}  // namespace aidcsim::topology
