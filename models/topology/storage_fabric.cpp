// wire_storage: storage servers on the fabric (FabricSpec::storage, issue 18). Rules (why each):
// - A storage leaf is a leaf like the GPUs' (same port split: leaf_down server-NIC ports,
//   leaf_up uplinks, leaf_spine_links to each spine it reaches), so storage traffic meets the
//   same oversubscription as GPU traffic. Servers fill the ports in order: NIC j (of the
//   nics_per_node / planes on a plane) of server i takes port i * (nics / planes) + j.
// - own_leaves: 2 tiers: the storage leaves are wired to every spine, like a GPU leaf. 3 tiers
//   (clos3): a storage pod of spines_per_pod spines per plane, storage spine j wired to the cores
//   of Clos plane j as spine j of every GPU pod (Meta's and NVIDIA's reference designs put storage
//   on its own leaves under the spine layer).
//   per_pod: server i belongs to pod i % pods; each pod's storage leaves are wired to its spines.
//   separate: no storage switches: the server's NICs lead to a storage network that is not
//   modelled (non-blocking); GPU flows still cross their GPU's NIC port (shared with training).
// - The spine (or core) tier is not re-sized: when the storage leaves (or the storage pod) need
//   more ports than fabric.switch_radix leaves free, the extra ports are built and a warning says so.
// - Media: each server has a write link and a read link (both ends the server) of its write /
//   read bandwidth: the flows to (from) a server share its media as they share a cable.
#include <algorithm>
#include <string>

#include "models/common/errors.hpp"
#include "models/topology/fabric_impl.hpp"

namespace aidcsim::topology {
namespace {

std::string num(double v) {
  std::string s = std::to_string(v);
  if (v == static_cast<long long>(v)) s = std::to_string(static_cast<long long>(v));
  return s;
}

}  // namespace

// Kept in one piece: each block wires on the ids the one before it created (storage leaves, server
// NICs, uplinks, media links), in the order of Fabric::Impl's id ranges.
void wire_storage(Fabric::Impl& f, double lat) {
  const StorageSpec& st = f.spec.storage;
  f.first_sleaf = f.first_sspine = f.first_storage = f.n_nodes;
  if (st.nodes == 0) return;
  using A = StorageSpec::Attach;
  auto bad = [](const char* key, const std::string& value, const std::string& expected) {
    throw InvalidParameter(key, value, expected);
  };
  if (st.nodes < 0) bad("fabric.storage.nodes", num(st.nodes), "at least 1 storage server");
  if (st.nics_per_node < 1) bad("fabric.storage.nics_per_node", num(st.nics_per_node), "at least 1 NIC");
  if (!(st.nic_rate > 0)) bad("fabric.storage.nic_rate", num(st.nic_rate), "a data rate > 0 such as 400 Gbps");
  if (!(st.write_bandwidth > 0)) bad("fabric.storage.write_bandwidth", num(st.write_bandwidth), "a data rate > 0");
  if (!(st.read_bandwidth > 0)) bad("fabric.storage.read_bandwidth", num(st.read_bandwidth), "a data rate > 0");
  Layout& l = f.layout;
  const int P = f.planes, S = st.nodes, nics = st.nics_per_node;
  const bool separate = st.attach == A::Separate;
  if (!separate && nics % P != 0)
    bad("fabric.storage.nics_per_node", num(nics), "a multiple of fabric.planes (" + num(P) + ")");
  if (!separate && l.spines_per_pod == 0)
    bad("fabric.storage.attach", st.attach == A::PerPod ? "per_pod" : "own_leaves",
        "separate: the fabric is a single leaf, with no spine tier to wire storage leaves to");
  const int npp = separate ? 0 : nics / P;  // NIC ports per server per plane
  const bool three_tiers = l.pods > 1;
  // Pods the storage leaves hang from: own_leaves, one (the storage pod, or the only pod); per_pod, every pod.
  const int groups = st.attach == A::PerPod ? l.pods : 1;
  std::vector<int> servers_in(groups, 0), leaves_in(groups, 0), first_leaf_of(groups + 1, 0);
  for (int i = 0; i < S; ++i) ++servers_in[i % groups];
  for (int p = 0; p < groups; ++p) {
    leaves_in[p] = separate ? 0 : (servers_in[p] * npp + l.leaf_down - 1) / l.leaf_down;
    first_leaf_of[p + 1] = first_leaf_of[p] + leaves_in[p];
  }
  const int SL = first_leaf_of[groups];  // storage leaves per plane
  const bool storage_pod = !separate && st.attach == A::OwnLeaves && three_tiers;
  const int SS = storage_pod ? l.spines_per_pod : 0;  // storage spines per plane
  l.storage_leaves = SL;
  l.storage_spines = SS;

  auto prefix = [](int q) { return q > 0 ? "p" + std::to_string(q) + "." : std::string(); };
  f.first_sleaf = f.n_nodes;
  f.first_sspine = f.first_sleaf + P * SL;
  f.first_storage = f.first_sspine + P * SS;
  f.n_nodes = f.first_storage + S;
  f.nodes.resize(f.n_nodes);
  auto pod_of_group = [&](int p) { return st.attach == A::PerPod ? p : (three_tiers ? l.pods : 0); };
  for (int q = 0; q < P; ++q) {
    for (int p = 0; p < groups; ++p)
      for (int i = first_leaf_of[p]; i < first_leaf_of[p + 1]; ++i)
        f.nodes[f.first_sleaf + q * SL + i] = {NodeKind::Leaf, P * l.leaves + q * SL + i, pod_of_group(p),
                                               prefix(q) + "sleaf" + std::to_string(i)};
    for (int j = 0; j < SS; ++j)
      f.nodes[f.first_sspine + q * SS + j] = {NodeKind::Spine, P * l.pods * l.spines_per_pod + q * SS + j, l.pods,
                                              prefix(q) + "sspine" + std::to_string(j)};
  }
  for (int i = 0; i < S; ++i)
    f.nodes[f.first_storage + i] = {NodeKind::Storage, i, separate ? -1 : pod_of_group(i % groups),
                                    "stor" + std::to_string(i)};

  auto add = [&](std::vector<Link>& into, int a, int b, double rate, double latency, Tier t, std::string name) {
    Link x;
    x.a = a;
    x.b = b;
    x.rate = rate;
    x.latency = latency;
    x.tier = t;
    x.name = std::move(name);
    into.push_back(std::move(x));
    return static_cast<int>(into.size() - 1) + (&into == &f.side_links ? static_cast<int>(f.links.size()) : 0);
  };
  auto cable = [&](int a, int b, double rate, Tier t, int k, int mult) {
    std::string name = f.nodes[a].name + "-" + f.nodes[b].name;
    if (mult > 1) name += "/" + std::to_string(k);
    return add(f.links, a, b, rate, lat, t, std::move(name));
  };
  // Server NICs.
  f.stor_leaf.assign(static_cast<std::size_t>(S) * nics, -1);
  f.stor_access.assign(static_cast<std::size_t>(S) * nics, -1);
  for (int i = 0; i < S; ++i) {
    const int node = f.first_storage + i, p = i % groups, local = i / groups;
    for (int k = 0; k < nics; ++k) {
      const std::size_t at = static_cast<std::size_t>(i) * nics + k;
      if (separate) {
        f.stor_access[at] = add(f.side_links, node, node, st.nic_rate, lat, Tier::Access,
                                f.nodes[node].name + ".nic" + std::to_string(k));
        continue;
      }
      const int q = k % P, j = k / P;
      const int port = local * npp + j, leaf_index = port / l.leaf_down;
      // NICs of this server on the same leaf and plane are parallel links: "/m" among them.
      const int lo = std::max(0, leaf_index * l.leaf_down - local * npp),
                hi = std::min(npp, (leaf_index + 1) * l.leaf_down - local * npp);
      const int leaf = f.first_sleaf + q * SL + first_leaf_of[p] + leaf_index;
      f.stor_leaf[at] = leaf;
      f.stor_access[at] = cable(node, leaf, st.nic_rate / P, Tier::Access, j - lo, hi - lo);
    }
  }
  // Uplinks: storage leaves to spines (per_pod, 2 tiers: the pod's; clos3 own_leaves: the storage pod's).
  if (!separate) {
    const int spines = l.pods * l.spines_per_pod, cores = three_tiers ? l.spines_per_pod * l.cores_per_plane : 0;
    for (int q = 0; q < P; ++q)
      for (int p = 0; p < groups; ++p)
        for (int i = first_leaf_of[p]; i < first_leaf_of[p + 1]; ++i)
          for (int j = 0; j < l.spines_per_pod; ++j) {
            const int spine =
                storage_pod ? f.first_sspine + q * SS + j
                            : f.first_spine + q * spines + (st.attach == A::PerPod ? p : 0) * l.spines_per_pod + j;
            for (int k = 0; k < l.leaf_spine_links; ++k)
              cable(f.first_sleaf + q * SL + i, spine, f.spec.link_rate, Tier::LeafSpine, k, l.leaf_spine_links);
          }
    if (storage_pod)
      for (int q = 0; q < P; ++q)
        for (int j = 0; j < SS; ++j)
          for (int c = 0; c < l.cores_per_plane; ++c)
            for (int k = 0; k < l.spine_core_links; ++k)
              cable(f.first_sspine + q * SS + j, f.first_core + q * cores + j * l.cores_per_plane + c, f.spec.link_rate,
                    Tier::SpineCore, k, l.spine_core_links);
    // Ports beyond the radix, said plainly.
    const int R = f.spec.switch_radix;
    int spine_ports = 0;  // busiest GPU spine's ports with the storage leaves
    for (int p = 0; p < groups; ++p) {
      if (storage_pod) break;
      const int gpu_leaves = three_tiers ? l.leaves_per_pod : l.leaves;
      spine_ports =
          std::max(spine_ports, (gpu_leaves + leaves_in[p]) * l.leaf_spine_links + (three_tiers ? l.spine_up : 0));
    }
    if (spine_ports > R)
      f.warnings.push_back("fabric.storage: the " + num(SL) +
                           " storage leaves per plane take spine ports beyond "
                           "fabric.switch_radix: " +
                           num(spine_ports) + " ports on a spine of radix " + num(R) +
                           " (the spine tier is not re-sized for storage)");
    if (storage_pod && (l.pods + 1) * l.spine_core_links > R)
      f.warnings.push_back("fabric.storage: the storage pod takes core ports beyond fabric.switch_radix: " +
                           num((l.pods + 1) * l.spine_core_links) + " ports on a core of radix " + num(R) +
                           " (the core tier is not re-sized for storage)");
    if (storage_pod && SL * l.leaf_spine_links > R)
      f.warnings.push_back("fabric.storage: the storage pod's " + num(SL) + " leaves need " +
                           num(SL * l.leaf_spine_links) + " ports on each storage spine of radix " + num(R));
  }
  // Media: rates the server's flows share; not cables (side links, no latency).
  f.stor_write.resize(S);
  f.stor_read.resize(S);
  for (int i = 0; i < S; ++i) {
    const int node = f.first_storage + i;
    f.stor_write[i] = add(f.side_links, node, node, st.write_bandwidth, 0, Tier::Access, f.nodes[node].name + ".write");
    f.stor_read[i] = add(f.side_links, node, node, st.read_bandwidth, 0, Tier::Access, f.nodes[node].name + ".read");
  }
}

}  // namespace aidcsim::topology
