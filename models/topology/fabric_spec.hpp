#pragma once
// FabricSpec: what the scenario says about the cluster's GPUs and its scale-out fabric (SI units).
// Owner: models/topology. Extend freely; sim/scenario fills it through topology::spec_from().
#include <string>
#include <vector>

namespace aidcsim::topology {

enum class FabricKind { LeafSpine, Clos3 };
enum class Wiring { RailOptimized, RackLocal };
enum class EcmpMode { Hash, Spray };

/// One failure or degradation of a fabric element (scenario list fabric.failures).
struct FailureSpec {
  enum class Type { LinkDown, SwitchDown, Degrade };
  Type type = Type::LinkDown;
  /// Node name ("spine0.3", "leaf2", "core5") or link name ("leaf2-spine0.3"; a link name without
  /// the "/k" suffix of parallel links names all of them).
  std::string element;
  double factor = 0.5;  ///< Degrade only: remaining fraction of the link rate, in (0, 1]
  double at = 0;        ///< s since the training start; 0 = applied when the fabric is built, else by the engine
  std::string key;      ///< dotted scenario key of the item ("fabric.failures[2]") for errors
};

/// Storage nodes on the fabric (scenario fabric.storage; nodes == 0: none, checkpoints then use the
/// scalar reliability.storage_bandwidth). Per-node figures.
struct StorageSpec {
  /// own_leaves: storage leaves wired into the spine tier like a pod's leaves (2 tiers: to every
  /// spine; clos3: a storage pod of its own spines, wired to the cores like a GPU pod).
  /// per_pod: the storage nodes spread over the pods (node i in pod i % pods), each pod's storage
  /// leaves wired to that pod's spines. separate: a storage network of its own, not modelled beyond
  /// the NICs (non-blocking): the storage flows share only the GPUs' NICs with training traffic.
  enum class Attach { OwnLeaves, PerPod, Separate };
  int nodes = 0;           ///< storage servers; 0 = no storage on the fabric
  int nics_per_node = 1;   ///< NICs per storage server (spread over the planes: NIC k on plane k % planes)
  double nic_rate = 50e9;  ///< B/s per storage NIC per direction
  Attach attach = Attach::OwnLeaves;
  double write_bandwidth = 0;  ///< B/s a storage server's media absorbs (writes)
  double read_bandwidth = 0;   ///< B/s a storage server's media delivers (reads)
};

struct FabricSpec {
  int gpus = 0;            ///< total GPUs
  int gpus_per_node = 4;   ///< GPUs (and NICs, rails) per server / compute tray
  int nvlink_domain = 72;  ///< GPUs per NVLink domain (8 HGX, 72 NVL72); 1 = no NVLink
  /// B/s per GPU per direction inside the domain. Not a topology key: sim/scenario copies it from
  /// the GPU model (compute::GpuSpec::nvlink_bandwidth, aidcsim::fit_fabric_to_gpu); default
  /// GB200/B200 NVLink5 1.8 TB/s bidirectional = 900 GB/s per direction (published-figures.md §5.1).
  double nvlink_bandwidth = 900e9;
  /// The domain's switches reduce in the switch (NVLink SHARP, NCCL's NVLS). Not a topology key:
  /// copied from compute::GpuSpec::nvls with nvlink_bandwidth (false for A100 and MI300X).
  bool nvls = true;
  FabricKind kind = FabricKind::Clos3;
  Wiring wiring = Wiring::RailOptimized;
  int switch_radix = 64;
  /// Leaf down ports used for GPU NICs; 0 = derived from radix and oversub_leaf
  /// (d = floor(u * oversub_leaf), u = floor(radix / (1 + oversub_leaf))). With rail_optimized
  /// wiring it is also the number of nodes in a scalable unit.
  int gpus_per_leaf = 0;
  double link_rate = 50e9;  ///< B/s per switch port (400 Gb/s = 50e9 B/s)
  double nic_rate = 50e9;   ///< B/s per GPU NIC (all planes together)
  /// B/s per GPU per direction of the PCIe path between the GPU and its NIC: the GPU's share of its
  /// NIC's PCIe attachment as NCCL models it (collectives::pcie_rate: 48 GB/s per Gen5 x16 NIC,
  /// 24 per Gen4, times NICs / GPUs per node). 0 = not modelled. Where it is below the NIC's rate
  /// the flows sharing bandwidth see it as a constraint (Fabric::sharing_rate). Not a topology key:
  /// sim/scenario sets it from the GPU model with nvlink_bandwidth (aidcsim::fit_fabric_to_gpu).
  double nic_pcie_rate = 0;
  /// Disjoint, identical fabric planes; each GPU has one NIC port of nic_rate / planes per plane.
  int planes = 1;
  double oversub_leaf = 1.0;       ///< leaf downlink : uplink capacity
  double oversub_spine = 1.0;      ///< spine (aggregation) downlink : uplink capacity
  double switch_latency = 600e-9;  ///< s per switch traversal
  double link_latency = 100e-9;    ///< s per cable
  /// In-network reduction in the scale-out switches (NVIDIA SHARP, e.g. Quantum-2 SHARPv3): the
  /// collectives may use NCCL's CollNet algorithms and multi-node NVLS.
  bool sharp = false;
  EcmpMode ecmp = EcmpMode::Hash;
  int flows_per_pair = 1;
  /// true: build exactly the asked oversubscription per tier and tier count or throw
  /// InvalidParameter; false: the nearest buildable fabric, with Fabric::warnings() saying how.
  bool exact = false;
  std::vector<FailureSpec> failures;  ///< link/switch failures and degradations
  StorageSpec storage;                ///< storage nodes on the fabric (none by default)
};

}  // namespace aidcsim::topology
