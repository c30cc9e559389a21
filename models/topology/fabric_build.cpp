// build_fabric: derives the Clos sizes from radix, GPU count and oversubscription and wires the
// graph. Rules (why each):
// - Leaf ports: u uplinks and d = u * o_leaf GPU ports, the most GPU ports d with d + u <= R for
//   which u * o_leaf is a whole number of ports (R = 64, 1:1 -> 32/32 as the QM9700 leaves of the
//   DGX SuperPOD; 2:1 -> 21/42; 1.5:1 -> 24/36). When no whole-port split gives o_leaf exactly
//   (e.g. 1.37:1), u = floor(R / (1 + o_leaf)), d = floor(u * o_leaf), the nearest ratio below.
//   fabric.gpus_per_leaf overrides d (u = ceil(d / o_leaf)), e.g. 16 GPUs per ToR (Llama 3 §3.3.1).
// - rail_optimized: a scalable unit (SU) is d nodes; NIC k of every node of SU s goes to leaf
//   s*gpus_per_node + k (DGX SuperPOD H100 RA: 32 nodes x 8 rails = 8 leaves per SU).
//   rack_local: consecutive GPUs fill a leaf's d ports (a ToR per rack-ful).
// - Spines of a leaf-spine fabric: the fewest spines S that take all L*u leaf uplinks (S*R >= L*u)
//   AND divide u, so each leaf spreads its uplinks evenly, u/S parallel links per spine. This
//   reproduces DGX SuperPOD H100 RA Table 4: 8/16/24/32 leaves -> 4/8/16/16 spines (3 SU: 768
//   uplinks need 12 spines, 12 does not divide 32, so 16).
// - clos3: a spine's port budget is sd down / su up with sd/su = o_spine (the leaf rule with the
//   spine's ratio). A pod is sd leaves (rounded down to whole SUs) and the fewest spines dividing u
//   that take its uplinks (u spines for a full pod: every leaf meets every spine once). Then each
//   spine's up ports are sized on the leaf links it really has, D: su = D / o_spine, so the pod is
//   built at exactly the asked ratio (2:1 with rail-optimized SUs of 4 leaves: 40 leaves per pod,
//   40 down / 20 up, not 40 / 21 = 1.90:1); when D / o_spine is not whole, su = ceil(D / o_spine),
//   the nearest ratio below. Spine j of every pod is in plane j; a plane has the fewest cores C
//   dividing su with C*R >= pods*su. One pod -> no core tier (built as a leaf-spine). k-ary fat
//   tree (Al-Fares et al., SIGCOMM 2008, §3): R = k, 1:1, k^3/4 GPUs, rack_local -> k pods of
//   k/2 + k/2 switches and (k/2)^2 cores.
// - As built, said plainly: a ratio that whole ports cannot give, and a clos3 whose leaves fit in
//   one pod (2 tiers built) or a fabric of one leaf (1 tier), are warnings (Fabric::warnings());
//   with fabric.exact they are errors naming the key, what was asked and what can be built.
// - fabric.planes = P: P identical, disjoint copies of the switch fabric; every GPU has one NIC
//   port of nic_rate / P on each (multi-plane fabrics, e.g. an 800G NIC as 2 x 400G planes).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "models/common/errors.hpp"
#include "models/topology/fabric_impl.hpp"

namespace aidcsim::topology {
namespace {

std::string num(double v) {
  if (std::floor(v) == v && std::abs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// Smallest divisor of n that is >= lo, 0 if none.
int divisor_at_least(int n, int lo) {
  for (int s = std::max(1, lo); s <= n; ++s)
    if (n % s == 0) return s;
  return 0;
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// Ratio as people write it: "2:1", "1.9:1", "2.86:1".
std::string ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g:1", v);
  return buf;
}

bool whole(double v) { return std::abs(v - std::round(v)) <= 1e-9 * std::max(1.0, std::abs(v)); }

/// R ports split into u up and d = u * o down: the most down ports with u * o whole and d + u <= R
/// (`exact`), else u = floor(R / (1 + o)), d = floor(u * o), the nearest ratio below o.
struct Split {
  int up = 0, down = 0;
  bool exact = false;
};

Split split_ports(int R, double o) {
  Split best;
  for (int u = 1; u <= R; ++u) {
    const double d = u * o;
    if (u + d > R + 1e-9) break;  // d grows with u
    if (whole(d)) best = {u, static_cast<int>(std::lround(d)), true};
  }
  if (best.exact) return best;
  best.up = static_cast<int>(std::floor(R / (1.0 + o) + 1e-9));
  best.down = static_cast<int>(std::floor(best.up * o + 1e-9));
  return best;
}

/// A fabric built otherwise than asked: the warning, and the error fabric.exact turns it into.
struct Deviation {
  std::string key, value, expected, message;
};

/// Layout for radix R; `ok` false (with `why`) when the GPUs do not fit. `deviations`: what is
/// built otherwise than asked (ratios whole ports cannot give, tiers that collapse).
struct Derived {
  Layout l;
  bool ok = true;
  std::string bad_key, why;
  std::vector<Deviation> deviations;
};

// Marks `r` as failed on `key` (the scenario key to change) with what it should be; returns false.
bool fail(Derived& r, std::string key, std::string why) {
  r.ok = false;
  r.bad_key = std::move(key);
  r.why = std::move(why);
  return false;
}

// A NIC port (nic_rate / planes) faster than the switch port it plugs into (link_rate) is built as
// written, a NIC-leaf link at the NIC's rate on one leaf port, so each leaf's GPU side carries
// (nic port / link_rate) x its uplinks' share: a deviation from the leaf ratio asked. A real port
// runs at the slower end's rate; 800 Gb/s per GPU on 400G switches is two planes.
void derive_nic_port(const FabricSpec& s, Derived& r) {
  const double port = s.nic_rate / s.planes;
  if (port <= s.link_rate * (1 + 1e-9)) return;
  const auto gbps = [](double bytes_per_s) { return num(bytes_per_s * 8 / 1e9) + " Gb/s"; };
  const double need = std::ceil(s.nic_rate / s.link_rate - 1e-9);
  const std::string fix = "fabric.planes: " + num(need) + " (" + num(need) + " x " + gbps(s.nic_rate / need) +
                          " ports) or fabric.link_rate: " + num(port * 8 / 1e9) + " Gbps";
  r.deviations.push_back({"fabric.nic_rate", num(s.nic_rate * 8 / 1e9) + " Gbps",
                          "a NIC port (fabric.nic_rate / fabric.planes) no faster than the " + gbps(s.link_rate) +
                              " switch ports (fabric.link_rate): " + fix + ", or fabric.exact: false",
                          "fabric.nic_rate: " + gbps(port) + " NIC port (nic_rate / planes) on " + gbps(s.link_rate) +
                              " switch ports (fabric.link_rate): the NIC-leaf links are built at " + gbps(port) +
                              ", leaf " + ratio(s.oversub_leaf * port / s.link_rate) + " as built (asked " +
                              ratio(s.oversub_leaf) + "); a real port runs at the slower end's rate: for " +
                              gbps(s.nic_rate) + " per GPU write " + fix});
}

// Leaf ports: GPU ports (down) and uplinks (up) at the leaf's oversubscription, from
// fabric.gpus_per_leaf when given, else from the radix; a ratio whole ports cannot give is a
// deviation (the nearest below is built).
bool derive_leaf_ports(const FabricSpec& s, int R, Derived& r) {
  Layout& l = r.l;
  if (s.gpus_per_leaf > 0) {
    l.leaf_down = s.gpus_per_leaf;
    l.leaf_up = static_cast<int>(std::ceil(s.gpus_per_leaf / s.oversub_leaf - 1e-9));
    if (l.leaf_up >= 1 && !whole(s.gpus_per_leaf / s.oversub_leaf)) {
      const double built = static_cast<double>(l.leaf_down) / l.leaf_up;
      r.deviations.push_back({"fabric.oversubscription.leaf", ratio(s.oversub_leaf),
                              "a ratio that divides fabric.gpus_per_leaf (" + num(s.gpus_per_leaf) +
                                  ") into whole uplinks (nearest: " + ratio(built) + "), or fabric.exact: false",
                              "fabric.oversubscription.leaf: asked " + ratio(s.oversub_leaf) + ", built " +
                                  ratio(built) + ": " + num(s.gpus_per_leaf) + " GPU ports (fabric.gpus_per_leaf) / " +
                                  ratio(s.oversub_leaf) + " is not a whole number of uplinks, so " + num(l.leaf_up)});
    }
  } else {
    const Split leaf = split_ports(R, s.oversub_leaf);
    l.leaf_up = leaf.up;
    l.leaf_down = leaf.down;
    if (!leaf.exact && leaf.up >= 1 && leaf.down >= 1) {
      const double built = static_cast<double>(leaf.down) / leaf.up;
      r.deviations.push_back(
          {"fabric.oversubscription.leaf", ratio(s.oversub_leaf),
           "a ratio whole ports of a radix-" + num(R) + " leaf can give (nearest below: " + ratio(built) + " with " +
               num(leaf.up) + " up / " + num(leaf.down) + " down), or fabric.exact: false",
           "fabric.oversubscription.leaf: asked " + ratio(s.oversub_leaf) + ", built " + ratio(built) +
               ": no split of a radix-" + num(R) + " leaf into whole up and down ports gives " + ratio(s.oversub_leaf) +
               ", so " + num(leaf.up) + " uplinks and " + num(leaf.down) + " GPU ports"});
    }
  }
  if (l.leaf_up < 1 || l.leaf_down < 1)
    return fail(r, "fabric.oversubscription.leaf",
                "an oversubscription leaving a radix-" + num(R) + " leaf at least one uplink and one GPU port");
  if (l.leaf_down + l.leaf_up > R)
    return fail(
        r, "fabric.gpus_per_leaf",
        "at most " + num(R) + " leaf ports: gpus_per_leaf + " + "gpus_per_leaf/oversubscription.leaf <= switch_radix");
  derive_nic_port(s, r);
  return true;
}

// One pod of `leaves_per_pod` leaves under spines that take every leaf uplink (a single leaf: no
// spine tier, a deviation from the topology asked). False when radix-R spines cannot reach them.
bool derive_leaf_spine(const FabricSpec& s, int R, int leaves_per_pod, Derived& r) {
  Layout& l = r.l;
  l.pods = 1;
  l.leaves_per_pod = leaves_per_pod;
  if (leaves_per_pod == 1) {  // a single switch: nothing above it
    const char* asked = s.kind == FabricKind::LeafSpine ? "leaf_spine" : "clos3";
    l.spines_per_pod = 0;
    l.leaf_spine_links = 0;
    r.deviations.push_back({"fabric.topology", asked,
                            "more than one leaf (" + num(s.gpus) + " GPUs fit on one leaf of " + num(l.leaf_down) +
                                " GPU ports), or fabric.exact: false",
                            std::string("fabric.topology: ") + asked + " asked, built a single leaf switch: all " +
                                num(s.gpus) + " GPUs fit on one leaf of " + num(l.leaf_down) +
                                " GPU ports, so there is no spine tier"});
    return true;
  }
  const int u = l.leaf_up;
  l.spines_per_pod = divisor_at_least(u, static_cast<int>(ceil_div(1LL * leaves_per_pod * u, R)));
  if (l.spines_per_pod == 0) return false;
  l.leaf_spine_links = u / l.spines_per_pod;
  return true;
}

// The 3-tier part of a Clos whose leaves fill more than one pod of `lp` leaves: spines per pod,
// the spine's uplinks at its oversubscription (a ratio whole ports cannot give is a deviation),
// cores per plane.
bool derive_core_tier(const FabricSpec& s, int R, int lp, Derived& r) {
  Layout& l = r.l;
  const int L = l.leaves, u = l.leaf_up;
  l.pods = static_cast<int>(ceil_div(L, lp));
  l.leaves_per_pod = lp;
  l.spines_per_pod = divisor_at_least(u, static_cast<int>(ceil_div(1LL * lp * u, l.spine_down)));
  l.leaf_spine_links = u / l.spines_per_pod;
  // Up ports on the leaf links a spine of a full pod really has (D <= sd, so su stays in budget).
  const int D = lp * l.leaf_spine_links;
  l.spine_down = D;
  if (whole(D / s.oversub_spine)) {
    l.spine_up = static_cast<int>(std::lround(D / s.oversub_spine));
  } else {
    l.spine_up = static_cast<int>(std::ceil(D / s.oversub_spine - 1e-9));
    const double built = static_cast<double>(D) / l.spine_up;
    r.deviations.push_back({"fabric.oversubscription.spine", ratio(s.oversub_spine),
                            "a ratio that divides the " + num(D) +
                                " leaf links of a spine into whole uplinks (nearest: " + ratio(built) +
                                "), or fabric.exact: false",
                            "fabric.oversubscription.spine: asked " + ratio(s.oversub_spine) + ", built " +
                                ratio(built) + ": a spine has " + num(D) + " leaf links (" + num(lp) +
                                " leaves per pod x " + num(l.leaf_spine_links) + "), and " + num(D) + " / " +
                                ratio(s.oversub_spine) + " is not a whole number of uplinks, so " + num(l.spine_up)});
  }
  const int su = l.spine_up;
  l.cores_per_plane = divisor_at_least(su, static_cast<int>(ceil_div(1LL * l.pods * su, R)));
  if (l.cores_per_plane == 0)
    return fail(r, "fabric.switch_radix",
                "radix-" + num(R) + " cores reach at most " + num(R) + " pods, " + num(l.pods) + " needed");
  l.spine_core_links = su / l.cores_per_plane;
  return true;
}

Derived derive(const FabricSpec& s, int R) {
  Derived r;
  Layout& l = r.l;
  if (!derive_leaf_ports(s, R, r)) return r;
  const int gpn = s.gpus_per_node;
  if (s.wiring == Wiring::RailOptimized) {
    const long long nodes = ceil_div(s.gpus, gpn);
    l.scalable_units = static_cast<int>(ceil_div(nodes, l.leaf_down));
    l.leaves = l.scalable_units * gpn;
  } else {
    l.leaves = static_cast<int>(ceil_div(s.gpus, l.leaf_down));
    l.scalable_units = l.leaves;
  }
  l.nvlink_domains = s.nvlink_domain > 1 ? static_cast<int>(ceil_div(s.gpus, s.nvlink_domain)) : 0;
  const int L = l.leaves;
  if (s.kind == FabricKind::LeafSpine) {
    if (!derive_leaf_spine(s, R, L, r))
      fail(r, "fabric.switch_radix",
           "radix-" + num(R) + " spines reach at most " + num(R) + " leaves, " + num(L) + " needed");
    else if (s.oversub_spine != 1.0)  // nothing above the spines: the ratio has no uplinks to act on
      r.deviations.push_back({"fabric.oversubscription.spine", ratio(s.oversub_spine),
                              "1:1 on a leaf_spine fabric (its spines have no uplinks), topology: clos3, or "
                              "fabric.exact: false",
                              "fabric.oversubscription.spine: asked " + ratio(s.oversub_spine) +
                                  ", not applied: a leaf_spine fabric has no tier above its spines, so they have "
                                  "no uplinks to oversubscribe (topology: clos3 for a core tier)"});
    return r;
  }
  // clos3: the spine's port budget at its ratio sizes the pod.
  const Split spine = split_ports(R, s.oversub_spine);
  l.spine_up = spine.up;
  l.spine_down = spine.down;
  if (l.spine_up < 1 || l.spine_down < 1) {
    fail(r, "fabric.oversubscription.spine",
         "an oversubscription leaving a radix-" + num(R) + " spine at least one uplink");
    return r;
  }
  int lp = l.spine_down;
  if (s.wiring == Wiring::RailOptimized && lp >= gpn) lp -= lp % gpn;  // whole SUs per pod
  // A pod's spines must take its leaves' uplinks: Sp*sd >= lp*u with Sp <= u -> lp <= sd.
  if (L > lp) {
    derive_core_tier(s, R, lp, r);
    return r;
  }
  if (!derive_leaf_spine(s, R, L, r)) {
    fail(r, "fabric.switch_radix", "a larger radix");
    return r;
  }
  if (L > 1) {
    const std::string spine_note =
        s.oversub_spine != 1.0 ? " and fabric.oversubscription.spine (" + ratio(s.oversub_spine) + ") has no effect"
                               : "";
    r.deviations.push_back({"fabric.topology", "clos3",
                            "more than " + num(lp) + " leaves for 3 tiers (a pod holds " + num(lp) +
                                " leaves with radix-" + num(R) + " spines at " + ratio(s.oversub_spine) + "; here " +
                                num(L) + "), topology: leaf_spine, or fabric.exact: false",
                            "fabric.topology: clos3 asked, built a 2-tier leaf-spine: the " + num(L) +
                                " leaves fit in one pod (up to " + num(lp) + " leaves with radix-" + num(R) +
                                " spines at " + ratio(s.oversub_spine) + "), so there is no core tier" + spine_note});
  }
  return r;
}

void check(bool ok, const char* key, double value, const std::string& expected) {
  if (!ok) throw InvalidParameter(key, num(value), expected);
}

// The spec's ranges, each error naming its scenario key.
void check_spec(const FabricSpec& s) {
  check(s.gpus >= 1, "cluster.gpus", s.gpus, "at least 1 GPU");
  check(s.gpus_per_node >= 1, "cluster.gpus_per_node", s.gpus_per_node, "at least 1");
  check(s.gpus % s.gpus_per_node == 0, "cluster.gpus", s.gpus, "a multiple of cluster.gpus_per_node");
  check(s.nvlink_domain >= 1, "cluster.nvlink_domain", s.nvlink_domain, "at least 1 (1 = no NVLink)");
  check(s.nvlink_domain % s.gpus_per_node == 0, "cluster.nvlink_domain", s.nvlink_domain,
        "a multiple of cluster.gpus_per_node");
  check(s.switch_radix >= 2, "fabric.switch_radix", s.switch_radix, "at least 2 ports");
  check(s.oversub_leaf >= 1, "fabric.oversubscription.leaf", s.oversub_leaf,
        "an oversubscription >= 1 (downlink:uplink, e.g. \"1:1\" or \"2:1\")");
  check(s.oversub_spine >= 1, "fabric.oversubscription.spine", s.oversub_spine,
        "an oversubscription >= 1 (downlink:uplink, e.g. \"1:1\" or \"7:1\")");
  check(s.link_rate > 0, "fabric.link_rate", s.link_rate, "a data rate > 0 such as 400 Gbps");
  check(s.nic_rate > 0, "fabric.nic_rate", s.nic_rate, "a data rate > 0 such as 400 Gbps");
  check(s.nvlink_domain == 1 || s.nvlink_bandwidth > 0, "cluster.nvlink_domain", s.nvlink_domain,
        "1 (no NVLink) for a GPU without NVLink bandwidth");
  check(s.switch_latency >= 0, "fabric.switch_latency", s.switch_latency, "a time >= 0");
  check(s.link_latency >= 0, "fabric.link_latency", s.link_latency, "a time >= 0");
  check(s.gpus_per_leaf >= 0, "fabric.gpus_per_leaf", s.gpus_per_leaf, "0 (derived) or a port count");
  check(s.flows_per_pair >= 1, "fabric.ecmp.flows_per_pair", s.flows_per_pair, "at least 1");
  check(s.planes >= 1, "fabric.planes", s.planes, "at least 1 plane");
}

// The layout for the spec's radix, or an error naming the key to change (with the smallest radix
// that would build the fabric when the radix is what falls short). Deviations from the spec are
// errors under fabric.exact, warnings otherwise.
Derived derive_or_throw(const FabricSpec& s) {
  Derived d = derive(s, s.switch_radix);
  if (!d.ok) {
    if (d.bad_key != "fabric.switch_radix")
      throw InvalidParameter(d.bad_key,
                             d.bad_key == "fabric.gpus_per_leaf"           ? num(s.gpus_per_leaf)
                             : d.bad_key == "fabric.oversubscription.leaf" ? num(s.oversub_leaf)
                                                                           : num(s.oversub_spine),
                             d.why);
    int need = 0;
    for (int r = s.switch_radix + 1; r <= 65536 && need == 0; ++r)
      if (derive(s, r).ok) need = r;
    const char* tiers = s.kind == FabricKind::LeafSpine ? "2-tier" : "3-tier";
    throw InvalidParameter("fabric.switch_radix", num(s.switch_radix),
                           (need ? "a radix of at least " + num(need) : std::string("a larger radix")) + " for " +
                               num(s.gpus) + " GPUs in a " + tiers + " Clos (" + d.why + "), or fewer GPUs");
  }

  if (s.exact && !d.deviations.empty()) {
    const Deviation& x = d.deviations.front();
    throw InvalidParameter(x.key, x.value, x.expected + " (fabric.exact: true asks for the fabric exactly as written)");
  }
  return d;
}

// Node ids and names: GPUs, NVSwitches, then leaves, spines, cores of every plane (kind-major,
// plane-major within a kind, so [first_leaf, first_spine) are all the leaves); the GPUs' leaves.
void add_nodes(Fabric::Impl& f) {
  const FabricSpec& s = f.spec;
  const Layout& l = f.layout;
  const int G = s.gpus, gpn = s.gpus_per_node;
  const int spines = l.pods * l.spines_per_pod;
  const int cores = l.pods > 1 ? l.spines_per_pod * l.cores_per_plane : 0;
  const int P = s.planes;
  const int L = l.leaves;
  f.planes = P;
  f.first_nvs = G;
  f.first_leaf = f.first_nvs + l.nvlink_domains;
  f.first_spine = f.first_leaf + P * L;
  f.first_core = f.first_spine + P * spines;
  f.n_nodes = f.first_core + P * cores;

  f.nodes.resize(f.n_nodes);
  auto leaf_pod = [&](int leaf) { return l.pods > 1 ? leaf / l.leaves_per_pod : 0; };
  // Plane 0 keeps the plain names ("leaf3"); plane q > 0 prefixes "p<q>." ("p1.leaf3").
  auto prefix = [](int q) {
    std::string p;
    if (q > 0) p.append(1, 'p').append(std::to_string(q)).append(1, '.');
    return p;
  };
  f.gpu_leaf.resize(static_cast<std::size_t>(G) * P);
  for (int g = 0; g < G; ++g) {
    int leaf = s.wiring == Wiring::RailOptimized ? (g / gpn / l.leaf_down) * gpn + g % gpn : g / l.leaf_down;
    for (int q = 0; q < P; ++q) f.gpu_leaf[static_cast<std::size_t>(g) * P + q] = f.first_leaf + q * L + leaf;
    f.nodes[g] = {NodeKind::Gpu, g, leaf_pod(leaf), "gpu" + std::to_string(g)};
  }
  for (int i = 0; i < l.nvlink_domains; ++i)
    f.nodes[f.first_nvs + i] = {NodeKind::NvSwitch, i, -1, "nvs" + std::to_string(i)};
  for (int q = 0; q < P; ++q) {
    for (int i = 0; i < L; ++i)
      f.nodes[f.first_leaf + q * L + i] = {NodeKind::Leaf, q * L + i, leaf_pod(i),
                                           prefix(q) + "leaf" + std::to_string(i)};
    for (int p = 0; p < l.pods; ++p)
      for (int j = 0; j < l.spines_per_pod; ++j) {
        int i = q * spines + p * l.spines_per_pod + j;
        f.nodes[f.first_spine + i] = {NodeKind::Spine, i, p,
                                      prefix(q) + "spine" + std::to_string(p) + "." + std::to_string(j)};
      }
    for (int i = 0; i < cores; ++i)
      f.nodes[f.first_core + q * cores + i] = {NodeKind::Core, q * cores + i, -1,
                                               prefix(q) + "core" + std::to_string(i)};
  }
  f.node_ok.assign(f.n_nodes, 1);
}

// The links in id order: NVLink, access (one per GPU and plane), leaf-spine, spine-core, then the
// storage servers' (wire_storage). Returns nothing; f.links and the GPUs' link ids are filled.
void add_links(Fabric::Impl& f) {
  const FabricSpec& s = f.spec;
  const Layout& l = f.layout;
  const int G = s.gpus, P = s.planes, L = l.leaves;
  const int spines = l.pods * l.spines_per_pod;
  const int cores = l.pods > 1 ? l.spines_per_pod * l.cores_per_plane : 0;
  auto leaf_pod = [&](int leaf) { return l.pods > 1 ? leaf / l.leaves_per_pod : 0; };
  const double lat = s.link_latency + s.switch_latency;
  auto add = [&](int a, int b, double rate, Tier t, int k, int mult) {
    Link x;
    x.a = a;
    x.b = b;
    x.rate = rate;
    x.latency = lat;
    x.tier = t;
    x.name.reserve(f.nodes[a].name.size() + f.nodes[b].name.size() + 4);
    x.name.append(f.nodes[a].name).append(1, '-').append(f.nodes[b].name);
    if (mult > 1) x.name.append(1, '/').append(std::to_string(k));
    f.links.push_back(std::move(x));
    return static_cast<int>(f.links.size()) - 1;
  };
  f.links.reserve((l.nvlink_domains > 0 ? 1 : 0) * static_cast<std::size_t>(G) +
                  static_cast<std::size_t>(P) * (static_cast<std::size_t>(G) + static_cast<std::size_t>(L) * l.leaf_up +
                                                 (cores > 0 ? static_cast<std::size_t>(spines) * l.spine_up : 0)));
  f.gpu_nvlink.assign(G, -1);
  if (l.nvlink_domains > 0)
    for (int g = 0; g < G; ++g)
      f.gpu_nvlink[g] = add(g, f.first_nvs + g / s.nvlink_domain, s.nvlink_bandwidth, Tier::NvLink, 0, 1);
  // The NIC's rate is split evenly over the planes (one port per plane).
  f.gpu_access.resize(static_cast<std::size_t>(G) * P);
  for (int g = 0; g < G; ++g)
    for (int q = 0; q < P; ++q) {
      const std::size_t i = static_cast<std::size_t>(g) * P + q;
      f.gpu_access[i] = add(g, f.gpu_leaf[i], s.nic_rate / P, Tier::Access, 0, 1);
    }
  for (int q = 0; q < P; ++q) {
    const int leaf0 = f.first_leaf + q * L, spine0 = f.first_spine + q * spines, core0 = f.first_core + q * cores;
    for (int i = 0; i < L; ++i) {
      const int p = leaf_pod(i);
      for (int j = 0; j < l.spines_per_pod; ++j)
        for (int k = 0; k < l.leaf_spine_links; ++k)
          add(leaf0 + i, spine0 + p * l.spines_per_pod + j, s.link_rate, Tier::LeafSpine, k, l.leaf_spine_links);
    }
    if (cores > 0)
      for (int p = 0; p < l.pods; ++p)
        for (int j = 0; j < l.spines_per_pod; ++j)
          for (int c = 0; c < l.cores_per_plane; ++c)
            for (int k = 0; k < l.spine_core_links; ++k)
              add(spine0 + p * l.spines_per_pod + j, core0 + j * l.cores_per_plane + c, s.link_rate, Tier::SpineCore, k,
                  l.spine_core_links);
  }
  wire_storage(f, lat);  // after the GPU fabric: its node and link ids are unchanged by storage
  f.node_ok.assign(f.n_nodes, 1);
  f.built_rate.reserve(f.links.size());
  for (const Link& x : f.links) f.built_rate.push_back(x.rate);
}

// The Boost graphs (every link; switches only, for routing) and the per-node and per-link state.
void build_graphs(Fabric::Impl& f) {
  f.g = Graph(f.n_nodes);
  std::vector<std::pair<int, int>> sw_edges;
  std::vector<EdgeProp> sw_props;
  for (int id = 0; id < static_cast<int>(f.links.size()); ++id) {
    const Link& x = f.links[id];
    boost::add_edge(x.a, x.b, EdgeProp{id}, f.g);
    if (x.tier == Tier::LeafSpine || x.tier == Tier::SpineCore) {
      const int a = x.a - f.first_leaf, b = x.b - f.first_leaf;
      sw_edges.emplace_back(a, b);
      sw_props.push_back({id});
      sw_edges.emplace_back(b, a);
      sw_props.push_back({id});
    }
  }
  f.sw = SwitchGraph(boost::edges_are_unsorted_multi_pass, sw_edges.begin(), sw_edges.end(), sw_props.begin(),
                     f.switch_count());
  f.link_up.assign(f.links.size(), 1);
  for (int id = 0; id < f.n_nodes; ++id) f.by_name.emplace(f.nodes[id].name, id);
  f.dist.resize(static_cast<std::size_t>(f.switch_count()));  // any leaf (GPU or storage) may be a destination
  f.built_dist.resize(static_cast<std::size_t>(f.switch_count()));
}

}  // namespace

Fabric build_fabric(const FabricSpec& s) {
  check_spec(s);
  Derived d = derive_or_throw(s);
  auto impl = std::make_shared<Fabric::Impl>();
  Fabric::Impl& f = *impl;
  f.spec = s;
  f.layout = d.l;
  for (Deviation& x : d.deviations) f.warnings.push_back(std::move(x.message));
  add_nodes(f);
  add_links(f);
  build_graphs(f);

  Fabric fabric(impl);
  for (const FailureSpec& x : s.failures) {
    if (x.at > 0) {  // timed: only check the name now; the engine applies it at its time
      if (fabric.find_node(x.element) < 0 && fabric.find_links(x.element).empty()) fabric.apply(x);
      continue;
    }
    fabric.apply(x);
  }
  return fabric;
}

}  // namespace aidcsim::topology
