#pragma once
// Fabric: the cluster's network as a graph (Boost.Graph): GPUs, NVLink switches, leaf, spine and
// core switches, and the links between them, with ECMP routing over equal-cost shortest paths.
// Contract used by models/network, models/collectives, models/workload and sim/engine; extend it,
// don't break it.
//
// Structure (derived in build_fabric from radix, GPU count and oversubscription; see
// docs in fabric_build.cpp): node ids are GPUs first (node id == GPU rank), then NVLink switches,
// leaves, spines, cores, then (FabricSpec::storage) storage leaves and spines, storage servers.
// Link ids: NVLink links, then access (NIC) links, leaf-spine, spine-core, then the storage
// fabric's links (storage_fabric.cpp), then the storage links outside the fabric's cabling: each
// server's media (write, read) and, with attach: separate, its NICs.
// Link latency = link_latency (cable) + switch_latency (the switch at its upper end), so a path of
// h links costs h x (cable + switch): the one switch latency more than the h-1 switches crossed
// stands for the two NIC ports (NIC-to-NIC latency of RDMA NICs is of the order of a switch hop).
//
// Fabric is a handle: copies share one graph, so a failure applied through one copy is seen by
// all. Not thread-safe: route()/path_count() fill lazy per-leaf distance caches.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "models/topology/fabric_spec.hpp"

namespace aidcsim::topology {

struct BomSpec;
struct FabricCost;

/// Storage: a storage server (an endpoint like a GPU; FabricSpec::storage).
enum class NodeKind { Gpu, NvSwitch, Leaf, Spine, Core, Storage };
/// Link tiers, bottom up: NVLink (GPU-NVSwitch), Access (GPU NIC-leaf), LeafSpine, SpineCore.
enum class Tier { NvLink, Access, LeafSpine, SpineCore };
const char* tier_name(Tier t);
const char* kind_name(NodeKind k);

struct Node {
  NodeKind kind = NodeKind::Gpu;
  int index = 0;     ///< index within its kind (GPU rank for GPUs)
  int pod = -1;      ///< pod / scalable unit, -1 if none
  std::string name;  ///< unique, e.g. "gpu17", "leaf3", "spine2.5", "core12"
};

/// A full-duplex link: `rate` in each direction.
struct Link {
  int a = 0, b = 0;    ///< node ids; a is the lower tier end
  double rate = 0;     ///< B/s per direction
  double latency = 0;  ///< s (cable + the switch at its upper end)
  Tier tier = Tier::Access;
  std::string name;  ///< e.g. "gpu17-leaf3"; parallel links get "/k" ("leaf0-spine0.1/3")
  bool up = true;    ///< false once failed
};

/// One hop of a route: a link and the direction it is crossed.
struct Hop {
  int link = 0;
  bool forward = true;  ///< true when crossed from Link::a to Link::b
};

/// The sizes build_fabric derived for ONE fabric plane (see build_fabric for the rules); a
/// multi-plane fabric has FabricSpec::planes copies of the leaves, spines and cores.
struct Layout {
  int leaf_down = 0;  ///< leaf ports for GPU NICs (d); rail_optimized: nodes per scalable unit
  int leaf_up = 0;    ///< leaf uplinks (u), d/u = oversub_leaf
  int leaves = 0;
  int pods = 1;              ///< clos3 pods (1 for leaf_spine)
  int leaves_per_pod = 0;    ///< in a full pod
  int spines_per_pod = 0;    ///< leaf_spine: all spines
  int leaf_spine_links = 0;  ///< parallel links between a leaf and each spine of its pod (u / spines)
  int spine_down = 0;        ///< clos3 spine ports towards leaves (sd)
  int spine_up = 0;          ///< clos3 spine ports towards cores (su), sd/su = oversub_spine
  int cores_per_plane = 0;   ///< cores reached by spine j of every pod (Clos "plane" j of spines and
                             ///< cores inside one fabric plane; not FabricSpec::planes)
  int spine_core_links = 0;  ///< parallel links between a spine and each core of its plane (su / C)
  int nvlink_domains = 0;
  int scalable_units = 0;  ///< rail_optimized: groups of leaf_down nodes; rack_local: leaves
  int storage_leaves = 0;  ///< storage leaves per plane (FabricSpec::storage), all pods together
  int storage_spines = 0;  ///< spines of the storage pod per plane (clos3, attach: own_leaves)
};

/// Bill of materials and structure figures of a built fabric.
struct BillOfMaterials {
  int gpus = 0;
  int nvswitches = 0;  ///< logical NVLink switches (one per NVLink domain)
  int leaves = 0, spines = 0, cores = 0;
  int switches = 0;  ///< leaves + spines + cores (scale-out switches)
  int nvlink_links = 0, access_links = 0, leaf_spine_links = 0, spine_core_links = 0;
  /// access + leaf-spine + spine-core links, one cable each; their medium (copper DAC, multimode,
  /// single mode) and pluggable modules are the priced BOM's (bom_price.hpp: by reach and rate).
  int scaleout_cables = 0;
  int copper_cables = 0;           ///< NVLink links (copper inside the NVLink domain, e.g. NVL72 spine)
  double bisection_bandwidth = 0;  ///< B/s, one direction (see Fabric::bom)
  int diameter = 0;                ///< switches crossed on the longest shortest GPU-GPU scale-out path
  int tiers = 0;                   ///< switch tiers as built: 1 (one leaf), 2 (leaf-spine), 3 (with cores)
  double oversub_leaf = 0;         ///< as built: max over leaves of GPU-side / uplink capacity
  double oversub_spine = 0;        ///< as built: max over spines of down / up capacity (0: no core tier)
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
  const Layout& layout() const;
  /// What build_fabric built otherwise than the spec asked, one sentence each naming the key, what
  /// was asked, what was built and why (a ratio whole ports cannot give, a clos3 whose leaves fit in
  /// one pod, a fabric of one leaf). Empty when built as asked. FabricSpec::exact makes these errors.
  const std::vector<std::string>& warnings() const;
  int planes() const;  ///< disjoint fabric planes (FabricSpec::planes)
  /// The plane route(src, dst, flow_hash) takes first (0 with one plane): for two GPUs, or a GPU and
  /// a storage server attached `separate`, splitmix64(flow_hash ^ salt) % planes; else the plane of
  /// the server's NIC, (flow_hash % nics_per_node) % planes.
  int plane_of(int src, int dst, std::uint64_t flow_hash) const;
  /// A hash whose route(src, dst, .) starts on `plane` (in [0, planes)), flow_hash itself when
  /// its route does: hashed planes, the first of splitmix64(flow_hash + k golden), k = 1, 2, ...
  /// that does (about `planes` tries); a storage server's NIC, flow_hash moved to the server's NIC
  /// of the same group of `planes` NICs on that plane. Deterministic. Lets a transfer put one
  /// sub-flow on each plane (network::FlowNetwork).
  std::uint64_t hash_on_plane(int src, int dst, std::uint64_t flow_hash, int plane) const;
  int leaf_of(int gpu, int plane = 0) const;      ///< node id of the leaf a GPU's NIC port is wired to
  int access_link(int gpu, int plane = 0) const;  ///< link id GPU NIC port -> leaf
  int nvlink_link(int gpu) const;                 ///< link id GPU -> NVSwitch, -1 without NVLink
  /// B/s per direction that link `l` offers the flows crossing it when they share bandwidth
  /// (network::FlowNetwork and its fluid estimates): Link::rate as it is now, except a GPU's NIC
  /// port (its access link), bounded by the GPU's PCIe attachment (FabricSpec::nic_pcie_rate)
  /// where that is slower: the port and the PCIe path carry exactly the same flows (a GPU
  /// forwards none), so one constraint at the smaller rate is both. With planes P > 1 each plane's
  /// port is bounded at share / P: FlowNetwork splits every GPU-to-GPU transfer evenly over the
  /// planes, so this is the one constraint shared by the ports while the planes are evenly loaded;
  /// stricter than it when they are not (a plane slowed by ECMP collisions or a failure, storage
  /// flows on one NIC's plane): the PCIe share one plane leaves idle is not given to the others.
  /// Reports of utilisation keep Link::rate (the cable's).
  double sharing_rate(int l) const;

  /// Storage servers (FabricSpec::storage): how many, node id of server i (NodeKind::Storage).
  int storage_count() const;
  int storage_node(int i) const;
  /// Whether `node` is a flow endpoint: a GPU (node id == rank) or a storage server.
  bool is_endpoint(int node) const;
  /// Link of storage server i's media for writes (flows to it cross it a->b) and reads (flows from
  /// it cross it a->b); rate = write / read bandwidth. Both ends are the server itself: a media
  /// link is a rate the server's flows share, not a cable (not in bom(), graphml or dot).
  int storage_write_link(int i) const;
  int storage_read_link(int i) const;
  /// Link of storage server i's NIC k (a = the server, b = its leaf; attach: separate, b = the
  /// server: the storage network beyond its NICs is not modelled).
  int storage_access_link(int i, int nic) const;

  /// Route of one flow from GPU `src` to GPU `dst`: over NVLink when both are in one NVLink
  /// domain, else NIC -> fabric -> NIC along an equal-cost shortest path chosen by hashing
  /// `flow_hash` (ECMP). Throws SimulationError when no path is up.
  /// Multi-plane: the plane is splitmix64(flow_hash ^ salt) % planes, or the next plane that
  /// connects both GPUs when that one does not.
  /// ECMP: at hop h the next link is candidates[splitmix64(flow_hash ^ splitmix64(h)) % n] among
  /// the n links that bring the flow one switch hop closer to the destination leaf in the fabric
  /// as built (parallel links count as distinct paths), i.e. a deterministic per-flow hash (RFC
  /// 2992 hash-threshold in spirit). Resilient hashing: when that link is down (or no longer on a
  /// shortest path), the flow re-hashes (salted) among the up links one hop closer, so a failure
  /// moves only the flows that crossed the failed element. Empty for src == dst.
  /// Routes are cached per (src, dst, flow_hash) until the next failure.
  /// Storage: `src` or `dst` may be a storage server's node id (not both): the flow uses the
  /// server's NIC k = flow_hash % nics_per_node (callers spread flows over NICs; NIC k is on plane
  /// k % planes, and so is the GPU's port), the GPU's NIC port on that plane, ECMP between the two
  /// leaves as above (attach: separate: no fabric between them), and the server's media link
  /// (storage_write_link last for writes, storage_read_link first for reads).
  std::vector<Hop> route(int src, int dst, std::uint64_t flow_hash) const;
  /// route()'s hops bit for bit, written into `out` (cleared first; its capacity is reused),
  /// without looking up or filling the route cache: for callers that ask for each route once
  /// (network::fluid_bound_waves at 32K GPUs asks for ~1M routes, which cached would hold most
  /// of its memory). Same throws as route().
  void route_uncached(int src, int dst, std::uint64_t flow_hash, std::vector<Hop>& out) const;
  /// Hops held by route()'s caches (the current state's and the fabric-as-built's): memory
  /// accounting, and tests of callers that must not fill them (network::FlowNetwork's route phase).
  std::size_t cached_route_hops() const;
  /// Whether route(src, dst, .) takes NVLink on the current state (any hash): two GPU ranks of one
  /// NVLink domain whose NVLink ports are both up. Computes no route (network::FlowNetwork asks it
  /// of every transfer to split the others over the planes).
  bool takes_nvlink(int src, int dst) const;
  /// Whether route(src, dst, hash) on the current state returns `built`, the GPU-to-GPU route it
  /// returned for them while nothing was down: true exactly when every hop of `built` is up (and
  /// its destination leaf): an NVLink route then stays on NVLink, and ECMP's resilient hashing
  /// walks the same hops over the leaves (every switch on them kept its distance). false means
  /// "ask route()". For callers that keep routes of the healthy fabric (network::FlowNetwork's
  /// route table across runs: the link-down samples of degrade mode recompute only the transfers
  /// that crossed the failed link).
  bool built_route_holds(const std::vector<Hop>& built) const;
  /// GPUs among the first `count` that cannot reach the job's other GPUs through the scale-out
  /// fabric on any plane: their leaf or NIC link is down, or their leaf is cut off from the leaves
  /// of most of the job's GPUs. Increasing GPU ranks; empty when all are connected.
  std::vector<int> disconnected_gpus(int count) const;
  /// Number of equal-cost shortest scale-out paths between two GPUs, summed over the planes
  /// (0 when disconnected); 1 for a pair joined by an up NVLink (its traffic takes NVLink).
  std::uint64_t path_count(int src, int dst) const;
  /// Equal-cost scale-out paths for ideal spraying: all of them when there are at most `limit`,
  /// else `limit` of them spread evenly over the path ranks (so every spine/core keeps its share).
  /// Deterministic order. A pair joined by an up NVLink: its one NVLink path (route()'s), as its
  /// traffic never takes the scale-out fabric. Empty for src == dst and for a storage end (flows to
  /// storage are hashed, not sprayed: callers use route()); throws SimulationError when disconnected.
  std::vector<std::vector<Hop>> routes(int src, int dst, std::size_t limit = 1024) const;
  /// `m` equal-cost scale-out paths for spreading one transfer (all of them, in rank order, when
  /// total <= m), without listing the others (routes() lists up to `limit`). Ranks run first hop
  /// slowest. Default: ranks (offset + j x stride) mod total, stride = total / m + 1, offset =
  /// floor(seed x total / 2^64); the stride walks the first and the later hops together (a 3-tier
  /// Clos with 32 spines x 32 cores: 16 paths on 16 spines AND 16 core positions). `seed_is_phase`:
  /// rank floor((j + frac(u + rev(j))) x total / m) for path j, u = seed / 2^64 and rev(j) j's bits
  /// reversed as a fraction: one path in each m-th of the ranks, rank r taken iff u falls in an
  /// interval of length m / total, so a set of evenly spread phases loads every rank (and link)
  /// evenly (the sampled all-to-all's spread transfers, network::Activity::spread_phase); two
  /// adjacent slices may give the same rank when total / m is not whole. Same NVLink / empty /
  /// throw cases as routes().
  std::vector<std::vector<Hop>> routes_strided(int src, int dst, std::size_t m, std::uint64_t seed,
                                               bool seed_is_phase = false) const;
  /// Sum of the latencies of a route's links, s.
  double latency(const std::vector<Hop>& hops) const;

  /// Node id by name ("leaf3", "spine0.2", "gpu17"), -1 if none.
  int find_node(const std::string& name) const;
  /// Link ids by name: "a-b" (all parallel links between nodes a and b) or "a-b/k"; empty if none.
  std::vector<int> find_links(const std::string& name) const;

  // Failures (applied now; the engine applies timed ones at their time). Routes are recomputed.
  void set_link_up(int link, bool up);
  /// Link rate = built rate x factor (factor in (0, 1]; does not change routes: ECMP is unweighted).
  void set_link_rate_factor(int link, double factor);
  /// Takes a switch (leaf, spine, core, NVSwitch) down with all its links.
  void fail_switch(int node);
  bool node_up(int node) const;
  /// Applies one FailureSpec; throws InvalidParameter(key + ".element") for an unknown element.
  void apply(const FailureSpec& f);

  /// Bill of materials. Bisection bandwidth = 1/2 x min over tiers (access, leaf-spine,
  /// spine-core) of the tier's aggregate up-capacity: exact for a Clos whose halves are whole
  /// pods/leaves (the cut crosses half of the narrowest tier), one direction, B/s.
  BillOfMaterials bom() const;

  struct Impl;
  explicit Fabric(std::shared_ptr<Impl> impl);

 private:
  friend FabricCost price_fabric(const Fabric& fabric, const BomSpec& spec);  // bom_price.cpp: built rates
  /// Throws unless src and dst are GPU ranks or storage node ids; true when one is storage.
  bool check_route_ends(int src, int dst) const;
  /// Appends the route of a flow between two GPUs (route() without its cache) to `hops`.
  void compute_route(int src, int dst, std::uint64_t flow_hash, std::vector<Hop>& hops) const;
  std::vector<Hop> storage_route(int src, int dst, std::uint64_t flow_hash) const;
  std::shared_ptr<Impl> impl_;
};

/// Builds the fabric from its spec. Throws InvalidParameter (with the scenario key) when the
/// topology cannot be built: radix too small for the GPU count, oversubscription < 1, ...
/// Failures with at == 0 are applied; all failure element names are checked.
Fabric build_fabric(const FabricSpec& spec);

/// splitmix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014; constants of Vigna's reference implementation).
std::uint64_t splitmix64(std::uint64_t x);
/// Per-flow ECMP hash of (seed, src GPU, dst GPU, flow index) for route().
std::uint64_t ecmp_hash(std::uint64_t seed, int src, int dst, int flow);

/// GraphML (boost::write_graphml): node attributes name, kind, pod; edge attributes name, tier,
/// rate (B/s), latency (s), up.
void write_graphml(const Fabric& f, std::ostream& os);
/// Graphviz DOT (boost::write_graphviz), node label = name, edge label = tier.
void write_dot(const Fabric& f, std::ostream& os);

}  // namespace aidcsim::topology
