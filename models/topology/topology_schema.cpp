#include "models/topology/topology_schema.hpp"

#include "models/topology/bom_schema.hpp"

namespace aidcsim::topology {

// One table of the area's keys (long by nature: one entry per key, in the order the reference
// page lists them).
Schema schema() {
  using Q = Quantity;
  Schema s = {
      {"cluster", Q::Map, "", false, {}, {}, false, {}, "The GPUs: how many, which model, how they are grouped."},
      {"cluster.gpus", Q::Integer, "", true, 1, 1e7, false, {}, "Total GPUs in the cluster."},
      {"cluster.gpus_per_node",
       Q::Integer,
       "4",
       false,
       1,
       64,
       false,
       {},
       "GPUs (and scale-out NICs, i.e. rails) per server or compute tray. GB200 compute tray: 4 (DGX GB200 user "
       "guide)."},
      {"cluster.nvlink_domain",
       Q::Integer,
       "72",
       false,
       1,
       576,
       false,
       {},
       "GPUs per NVLink domain: 8 for HGX, 72 for GB200 NVL72."},
      {"fabric", Q::Map, "", false, {}, {}, false, {}, "The scale-out (back-end) fabric between NVLink domains."},
      {"fabric.topology",
       Q::String,
       "clos3",
       false,
       {},
       {},
       false,
       {"leaf_spine", "clos3"},
       "leaf_spine: 2-tier Clos; clos3: 3-tier Clos / fat tree with pods."},
      {"fabric.wiring",
       Q::String,
       "rail_optimized",
       false,
       {},
       {},
       false,
       {"rail_optimized", "rack_local"},
       "rail_optimized: NIC k of every node in a scalable unit goes to rail leaf k (DGX SuperPOD RA); rack_local: ToR "
       "per rack."},
      {"fabric.switch_radix", Q::Integer, "64", false, 4, 1024, false, {}, "Ports per switch (QM9700: 64 x 400 Gb/s)."},
      {"fabric.gpus_per_leaf",
       Q::Integer,
       "0",
       false,
       0,
       1024,
       false,
       {},
       "Leaf ports for GPU NICs; 0 = derived from switch_radix and oversubscription.leaf (64 ports 1:1 -> 32). "
       "E.g. 16 for one Minipack2 ToR per 16-GPU rack (Llama 3 §3.3.1). With rail_optimized wiring also the nodes per "
       "scalable unit."},
      {"fabric.link_rate", Q::DataRate, "400 Gbps", false, 1e6, 1e12, false, {}, "Rate of one switch port."},
      {"fabric.nic_rate", Q::DataRate, "400 Gbps", false, 1e6, 1e12, false, {}, "Scale-out NIC rate per GPU."},
      {"fabric.planes",
       Q::Integer,
       "1",
       false,
       1,
       16,
       false,
       {},
       "Disjoint, identical fabric planes; each GPU's nic_rate is split evenly over one port per plane "
       "(multi-plane fabric, e.g. an 800 Gb/s NIC as 2 x 400 Gb/s ports on 2 planes). A transfer over the NICs (GPU "
       "to GPU or storage) is split evenly over the planes (NCCL spreads a GPU's channels over its NICs), "
       "ECMP-hashed within each; the ports share the GPU's PCIe attachment evenly."},
      {"fabric.sharp",
       Q::Bool,
       "false",
       false,
       {},
       {},
       false,
       {},
       "The switches reduce in the network (NVIDIA SHARP, e.g. Quantum-2 InfiniBand): NCCL's CollNet "
       "algorithms and multi-node NVLS become available to collectives."},
      {"fabric.oversubscription", Q::Map, "", false, {}, {}, false, {}, "Downlink:uplink capacity per tier."},
      {"fabric.oversubscription.leaf", Q::Ratio, "1", false, 1, 64, false, {}, "Leaf tier, e.g. \"1:1\" or \"2:1\"."},
      {"fabric.oversubscription.spine",
       Q::Ratio,
       "1",
       false,
       1,
       64,
       false,
       {},
       "Spine/aggregation tier (uplinks to the core: clos3 only), e.g. \"7:1\" (Meta 24K cluster, Llama 3 "
       "§3.3.1)."},
      {"fabric.exact",
       Q::Bool,
       "false",
       false,
       {},
       {},
       false,
       {},
       "true: build the fabric exactly as asked or stop with an error naming what can be built; false: when whole "
       "ports cannot give an oversubscription, a clos3's leaves fit in one pod (2 tiers built), or a leaf_spine "
       "is given a spine oversubscription (no uplinks above its spines), build the "
       "nearest fabric and say what was built and why (a warning on the console and in the results)."},
      {"fabric.switch_latency", Q::Time, "600 ns", false, 0, 1e-3, false, {}, "Port-to-port latency of one switch."},
      {"fabric.link_latency",
       Q::Time,
       "100 ns",
       false,
       0,
       1e-3,
       false,
       {},
       "Propagation delay of one cable (~5 ns/m)."},
      {"fabric.ecmp", Q::Map, "", false, {}, {}, false, {}, "Equal-cost multi-path load balancing."},
      {"fabric.ecmp.mode",
       Q::String,
       "hash",
       false,
       {},
       {},
       false,
       {"hash", "spray"},
       "hash: seeded per-flow hash over equal-cost paths; spray: ideal per-packet spraying."},
      {"fabric.ecmp.flows_per_pair",
       Q::Integer,
       "1",
       false,
       1,
       64,
       false,
       {},
       "Flows opened per GPU pair (Llama 3's collective library opens 16, §3.3.1)."},
      {"fabric.failures",
       Q::List,
       "",
       false,
       {},
       {},
       false,
       {},
       "Failed or degraded fabric elements, from the start (at: 0 s) or at a time of the run."},
      {"fabric.failures[].type",
       Q::String,
       "",
       true,
       {},
       {},
       false,
       {"link_down", "switch_down", "degrade"},
       "link_down: a link (all parallel links of a pair unless \"/k\" is given); switch_down: a switch and its links; "
       "degrade: link rate x factor."},
      {"fabric.failures[].element",
       Q::String,
       "",
       true,
       {},
       {},
       false,
       {},
       "Node name (\"leaf2\", \"spine0.3\" = pod 0 spine 3, \"core5\", \"nvs1\") or link name (\"leaf2-spine0.3\", "
       "\"gpu17-leaf2\")."},
      {"fabric.failures[].factor",
       Q::Fraction,
       "50 %",
       false,
       0.01,
       1,
       false,
       {},
       "degrade only (an error on link_down/switch_down): remaining fraction of the link rate (e.g. 50 % for a 400G "
       "link trained down to 200G)."},
      {"fabric.failures[].at",
       Q::Time,
       "0 s",
       false,
       0,
       1e9,
       false,
       {},
       "When the failure happens, from the training start (with rollout phases: the first phase's start). "
       "0: built into the fabric. Later: the step is re-simulated on the fabric after it and time-to-train "
       "slows from that time on (failures are cumulative and not repaired)."},
      {"fabric.storage",
       Q::Map,
       "",
       false,
       {},
       {},
       false,
       {},
       "Storage servers on the fabric: checkpoint writes become flows that share links with training. "
       "Absent: no storage nodes; a checkpoint takes its bytes / reliability.storage_bandwidth (a scalar)."},
      {"fabric.storage.nodes",
       Q::Integer,
       "",
       false,
       1,
       1e6,
       false,
       {},
       "Storage servers (required when fabric.storage is written). Llama 3's Tectonic: 7,500 SSD servers (§3.3.1)."},
      {"fabric.storage.nics_per_node",
       Q::Integer,
       "1",
       false,
       1,
       64,
       false,
       {},
       "NICs per storage server; with fabric.planes > 1 NIC k is on plane k % planes (a multiple of planes)."},
      {"fabric.storage.nic_rate", Q::DataRate, "400 Gbps", false, 1e6, 1e12, false, {}, "Rate of one storage NIC."},
      {"fabric.storage.attach",
       Q::String,
       "own_leaves",
       false,
       {},
       {},
       false,
       {"own_leaves", "per_pod", "separate"},
       "own_leaves: storage leaves wired into the spine tier like a pod (clos3: a storage pod with its own spines "
       "on the cores); per_pod: storage servers spread over the pods, on leaves under each pod's spines; separate: "
       "a storage network of its own, modelled as non-blocking (only the GPUs' NICs are shared with training)."},
      {"fabric.storage.write_bandwidth",
       Q::DataRate,
       "",
       false,
       1e6,
       1e13,
       false,
       {},
       "Write bandwidth of one storage server's media (required with fabric.storage), e.g. \"267 MB/s\" = "
       "Tectonic's 2 TB/s sustained over 7,500 servers (Llama 3 §3.3.1)."},
      {"fabric.storage.read_bandwidth",
       Q::DataRate,
       "",
       false,
       1e6,
       1e13,
       false,
       {},
       "Read bandwidth of one storage server's media (required with fabric.storage)."},
  };
  const Schema bom = bom_schema();  // the priced bill of materials (bom_schema.cpp)
  s.insert(s.end(), bom.begin(), bom.end());
  return s;
}

FabricSpec spec_from(const Params& root) {
  FabricSpec s;
  s.gpus = static_cast<int>(root.integer("cluster.gpus"));
  s.gpus_per_node = static_cast<int>(root.integer("cluster.gpus_per_node"));
  s.nvlink_domain = static_cast<int>(root.integer("cluster.nvlink_domain"));
  s.kind = root.text("fabric.topology") == "leaf_spine" ? FabricKind::LeafSpine : FabricKind::Clos3;
  s.wiring = root.text("fabric.wiring") == "rack_local" ? Wiring::RackLocal : Wiring::RailOptimized;
  s.switch_radix = static_cast<int>(root.integer("fabric.switch_radix"));
  s.link_rate = root.number("fabric.link_rate");
  s.nic_rate = root.number("fabric.nic_rate");
  s.oversub_leaf = root.number("fabric.oversubscription.leaf");
  s.oversub_spine = root.number("fabric.oversubscription.spine");
  s.switch_latency = root.number("fabric.switch_latency");
  s.link_latency = root.number("fabric.link_latency");
  s.ecmp = root.text("fabric.ecmp.mode") == "spray" ? EcmpMode::Spray : EcmpMode::Hash;
  s.flows_per_pair = static_cast<int>(root.integer("fabric.ecmp.flows_per_pair"));
  if (root.has("fabric.exact")) s.exact = root.flag("fabric.exact");
  if (root.has("fabric.sharp")) s.sharp = root.flag("fabric.sharp");
  if (root.has("fabric.planes")) s.planes = static_cast<int>(root.integer("fabric.planes"));
  if (root.has("fabric.gpus_per_leaf")) s.gpus_per_leaf = static_cast<int>(root.integer("fabric.gpus_per_leaf"));
  for (const Params& item : root.list("fabric.failures")) {
    FailureSpec f;
    const std::string& type = item.text("type");
    f.type = type == "switch_down" ? FailureSpec::Type::SwitchDown
             : type == "degrade"   ? FailureSpec::Type::Degrade
                                   : FailureSpec::Type::LinkDown;
    if (type != "link_down" && type != "switch_down" && type != "degrade")
      item.invalid("type", "one of link_down, switch_down, degrade");
    f.element = item.text("element");
    // A factor on link_down/switch_down would be dropped without a word; the user meant degrade.
    if (item.given("factor") && f.type != FailureSpec::Type::Degrade)
      item.invalid("factor", "no factor on type: " + type + " (factor only applies to type: degrade)");
    if (item.has("factor")) f.factor = item.number("factor");
    if (item.has("at")) f.at = item.number("at");
    if (f.type == FailureSpec::Type::Degrade && !(f.factor > 0 && f.factor <= 1))
      item.invalid("factor", "a fraction in (0, 1]");
    f.key = item.path();
    s.failures.push_back(std::move(f));
  }
  if (root.given("fabric.storage.nodes") || root.given("fabric.storage.write_bandwidth") ||
      root.given("fabric.storage.read_bandwidth") || root.given("fabric.storage.nics_per_node") ||
      root.given("fabric.storage.nic_rate") || root.given("fabric.storage.attach")) {
    for (const char* k : {"fabric.storage.nodes", "fabric.storage.write_bandwidth", "fabric.storage.read_bandwidth"})
      if (!root.has(k)) root.invalid(k, "a value: fabric.storage needs nodes, write_bandwidth and read_bandwidth");
    StorageSpec& st = s.storage;
    st.nodes = static_cast<int>(root.integer("fabric.storage.nodes"));
    st.nics_per_node = static_cast<int>(root.integer("fabric.storage.nics_per_node"));
    st.nic_rate = root.number("fabric.storage.nic_rate");
    const std::string& attach = root.text("fabric.storage.attach");
    st.attach = attach == "per_pod"    ? StorageSpec::Attach::PerPod
                : attach == "separate" ? StorageSpec::Attach::Separate
                                       : StorageSpec::Attach::OwnLeaves;
    st.write_bandwidth = root.number("fabric.storage.write_bandwidth");
    st.read_bandwidth = root.number("fabric.storage.read_bandwidth");
    if (st.attach != StorageSpec::Attach::Separate && st.nics_per_node % s.planes != 0)
      root.invalid("fabric.storage.nics_per_node", "a multiple of fabric.planes (" + std::to_string(s.planes) +
                                                       "): NIC k of a storage server is on plane k % planes");
  }
  if (s.gpus % s.gpus_per_node != 0) root.invalid("cluster.gpus", "a multiple of cluster.gpus_per_node");
  if (s.nvlink_domain % s.gpus_per_node != 0)
    root.invalid("cluster.nvlink_domain", "a multiple of cluster.gpus_per_node");
  return s;
}

}  // namespace aidcsim::topology
