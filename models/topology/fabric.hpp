#pragma once
// Fabric: the cluster's network as a graph (Boost.Graph): GPUs, NVLink switches, leaf, spine and
// core switches, and the links between them, with ECMP routing over equal-cost shortest paths.
// Contract used by models/network, models/collectives, models/workload and sim/engine; extend it,
// don't break it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/topology/spec.hpp"

namespace aidcsim::topology {

enum class NodeKind { Gpu, NvSwitch, Leaf, Spine, Core };
/// Link tiers, bottom up: NVLink (GPU-NVSwitch), Access (GPU NIC-leaf), LeafSpine, SpineCore.
enum class Tier { NvLink, Access, LeafSpine, SpineCore };
const char* tier_name(Tier t);

struct Node {
  NodeKind kind = NodeKind::Gpu;
  int index = 0;       ///< index within its kind (GPU rank for GPUs)
  int pod = -1;        ///< pod / scalable unit, -1 if none
  std::string name;    ///< unique, e.g. "gpu17", "leaf3", "spine2.5", "core12"
};

/// A full-duplex link: `rate` in each direction.
struct Link {
  int a = 0, b = 0;          ///< node ids; a is the lower tier end
  double rate = 0;           ///< B/s per direction
  double latency = 0;        ///< s (cable + the switch at its upper end)
  Tier tier = Tier::Access;
  std::string name;          ///< e.g. "gpu17-leaf3"
  bool up = true;            ///< false once failed
};

/// One hop of a route: a link and the direction it is crossed.
struct Hop {
  int link = 0;
  bool forward = true;  ///< true when crossed from Link::a to Link::b
};

class Fabric {
 public:
  int gpu_count() const;
  int node_count() const;
  int link_count() const;
  const Node& node(int id) const;
  const Link& link(int id) const;
  const FabricSpec& spec() const;
  int gpu_node(int gpu) const;          ///< node id of GPU rank `gpu`
  int nvlink_domain_of(int gpu) const;  ///< NVLink domain index of a GPU

  /// Route of one flow from GPU `src` to GPU `dst`: over NVLink when both are in one NVLink
  /// domain, else NIC -> fabric -> NIC along an equal-cost shortest path chosen by hashing
  /// `flow_hash` (ECMP). Throws SimulationError when no path is up.
  std::vector<Hop> route(int src, int dst, std::uint64_t flow_hash) const;
  /// Number of equal-cost shortest scale-out paths between two GPUs.
  std::uint64_t path_count(int src, int dst) const;

  struct Impl;
  explicit Fabric(std::shared_ptr<Impl> impl);
 private:
  std::shared_ptr<Impl> impl_;
};

/// Builds the fabric from its spec. Throws InvalidParameter (with the scenario key) when the
/// topology cannot be built: radix too small for the GPU count, oversubscription < 1, ...
Fabric build_fabric(const FabricSpec& spec);

}  // namespace aidcsim::topology
