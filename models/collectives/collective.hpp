#pragma once
// Collectives as NCCL runs them, turned into network::Schedule transfers so the flow network shows
// their congestion on the real routes.
//
// Three layers:
// 1. NCCL's tuner (nccl_model.hpp): for a group of GPUs, the communicator NCCL would build
//    (channels, per-algorithm bandwidth and latency tables, from tuning.cc / search.cc) and the
//    algorithm x protocol x channels it picks by least predicted time, restricted by what the GPUs
//    (compute::GpuSpec: NVLink generation, NVLS) and the fabric (FabricSpec::sharp) support.
// 2. The execution model (tuner.cpp, select()): how long the chosen algorithm really takes on an
//    idle fabric. NCCL's model where it is right (large messages), plus what its model leaves out
//    and measurements show: the pipeline fill of NVLS (its first rounds of CTAs x heads x NCCL's
//    chunk, docs/collectives.md "NVLS pipeline fill") and the measured per-hop latency of the LL
//    protocol over NVLink.
// 3. The flows (emit()): the algorithm's real traffic pattern (ring channels on rails, double
//    binary trees between nodes with chains inside them, NVLS through the NVSwitch, SHARP
//    through the NICs, PAT, ...), each transfer carrying its payload scaled by the algorithm's
//    efficiency plus its share of the latency, so that on an idle fabric the collective takes
//    exactly the execution model's time and under load it slows down as its links are shared.
//    Ring, tree and PAT steps can be emitted step by step (true dependencies) or collapsed into
//    one transfer per pair carrying every step (exact on an idle fabric; measured against the
//    step-by-step run under congestion in tests/unit/collectives).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/collectives/closed_form.hpp"
#include "models/collectives/nccl_model.hpp"
#include "models/common/schedule.hpp"

namespace aidcsim::topology {
class Fabric;
struct FabricSpec;
}  // namespace aidcsim::topology
namespace aidcsim::compute {
struct GpuSpec;
}

namespace aidcsim::collectives {

/// Algorithms. Ring ... Pat are NCCL's (NCCL_ALGO); Sharp restricts the choice to the in-network
/// ones (CollNet direct / chain, multi-node NVLS); Hierarchical (reduce-scatter in the NVLink
/// domain, all-reduce across, all-gather back) and HalvingDoubling (Rabenseifner) are those of
/// other stacks; Direct is point to point (all-to-all, send/recv).
enum class Algorithm {
  Auto,
  Ring,
  Tree,
  Nvls,
  NvlsTree,
  CollNetDirect,
  CollNetChain,
  Pat,
  Sharp,
  Hierarchical,
  HalvingDoubling,
  Direct
};
const char* algorithm_name(Algorithm a);
/// "auto", "ring", "tree", "nvls", "nvls_tree", "collnet_direct", "collnet_chain", "pat", "sharp",
/// "hierarchical", "halving_doubling", "direct" (also "nvlstree", "collnet" = collnet_direct);
/// throws aidcsim::Error otherwise.
Algorithm algorithm_from(const std::string& name);

/// NCCL protocols (NCCL_PROTO); Auto lets the tuner pick.
enum class Proto { Auto, LL, LL128, Simple };
const char* proto_name(Proto p);  ///< "auto", "LL", "LL128", "Simple"
/// "auto", "ll", "ll128", "simple" (any case); throws aidcsim::Error otherwise.
Proto proto_from(const std::string& name);

/// Element types and reduction operations (NCCL's and nccl-tests' -d / -o). They decide whether
/// NVLS can run a reduction: ncclNvlsSupported (NCCL src/include/device.h v2.23) allows sum, min
/// and max on 16/32/64-bit integers, half and bfloat16, and sum only on float and double.
enum class DataType { Int8, Uint8, Int32, Uint32, Int64, Uint64, Half, Float, Double, Bfloat16, F8e4m3, F8e5m2 };
enum class RedOp { Sum, Prod, Max, Min, Avg };
const char* type_name(DataType t);  ///< nccl-tests names: "int8", ..., "half", "float", "bfloat16", "f8e4m3"
int type_bytes(DataType t);         ///< 1, 2, 4 or 8
/// nccl-tests names and common aliases ("fp32", "bf16", "fp16", "int", "char"); throws Error otherwise.
DataType type_from(const std::string& name);
const char* redop_name(RedOp r);            ///< "sum", "prod", "max", "min", "avg"
RedOp redop_from(const std::string& name);  ///< throws Error for an unknown operation
bool nvls_supported(RedOp r, DataType t);

/// NCCL settings and the measured corrections of the execution model. One set for all jobs.
struct Protocol {
  Proto proto = Proto::Auto;  ///< NCCL_PROTO
  /// NCCL_MAX_NCHANNELS (0: NCCL's own, MAXCHANNELS 64): caps comm->nChannels, so the channels
  /// of ring, tree, PAT, CollNet and NVLS across domains (min(nvlsChannels, nChannels)); not the
  /// NVLS CTAs of one domain or NVLSTree (nccl::System::max_nchannels says where NCCL does it).
  int max_channels = 0;
  /// NCCL_MIN_NCHANNELS (0: unset): raises comm->nChannels to it after the caps, by copies of
  /// the first channels (above max_channels too: NCCL permits it), so ring, tree, PAT, CollNet and
  /// NVLS across domains; not the NVLS CTAs of one domain or NVLSTree. Small messages still shed.
  int min_channels = 0;
  /// NCCL_MAX_CTAS (0: unset): caps comm->nChannels and comm->nvlsChannels alike.
  int max_ctas = 0;
  /// NCCL_MIN_CTAS (0: unset, NCCL's 1): raises comm->nChannels and comm->nvlsChannels alike
  /// (lowered to max_ctas when above it, as NCCL does).
  int min_ctas = 0;
  /// NCCL_NVLS_NCHANNELS (0: NCCL's per architecture: 16 Hopper; Blackwell 24 in one NVLink
  /// domain, 32 across): the CTAs of NVLS and NVLSTree (capped by max_ctas).
  int nvls_channels = 0;
  bool nvls = true;     ///< NCCL_NVLS_ENABLE (effective only where the GPUs support NVLS)
  bool collnet = true;  ///< NCCL_COLLNET_ENABLE (effective only on a fabric with SHARP)
  /// Per-hop latency of the LL protocol over NVLink in a ring (s). NCCL's tuner assumes 0.6 us
  /// (tuning.cc hwLat); measured: DGX-A100 ring all-reduce with one channel takes 10 us on 2 GPUs
  /// and 33.7 us on 8 GPUs (NVIDIA/nccl-tests#123, `-g N`: one thread drives the N GPUs):
  /// (33.7 - 10) / (14 - 2) = 2.0 us per hop. It reproduces the 8xH200 small-message times
  /// (published-figures.md §4.3). It is a floor of the host more than an NVLink hop: in the same
  /// thread NVIDIA puts the `-g` slope on the CPU, and one thread per GPU (`-t N`) gives ~0.75 us
  /// per hop (docs/validation-busbw.md, "The LL hop"). Charged only on rings inside one NVLink
  /// domain (the `-g N` harness it was measured with); multi-node rings and the tree keep
  /// NCCL's hop (measured tree/LL times match it: nccl_model.cpp).
  double nvlink_ll_hop = 2.0e-6;
};

/// Where the GPUs are and what they and the fabric can do.
struct Layout {
  std::function<int(int)> domain_of;  ///< NVLink domain (NCCL "node") of a GPU
  double nvlink_rate = 450e9;         ///< B/s per GPU per direction inside a domain
  double nic_rate = 50e9;             ///< B/s per GPU of scale-out NIC capacity
  /// B/s per GPU per direction of the PCIe path to its NIC as the fabric models it
  /// (topology::FabricSpec::nic_pcie_rate; 0: not modelled): the fabric bounds the GPU's NIC
  /// traffic at it where the NIC is faster (nic_port_rate).
  double nic_pcie_rate = 0;
  double nvlink_latency = 0;  ///< s, route latency GPU -> NVSwitch -> GPU
  double net_latency = 0;     ///< s, route latency of a rail-aligned scale-out hop
  int nvlink_generation = 4;  ///< compute::GpuSpec::nvlink_generation (0: PCIe only)
  /// CUDA compute capability NCCL keys its tuning tables on (nccl::System): the GPU's own
  /// architecture, nccl::compute_capability(compute::GpuSpec::nvlink_generation), also when its
  /// domain has no NVLink (one GPU per domain: nvlink_generation 0 here, still an H100, cc 90);
  /// 0: from nvlink_generation (a Layout built by hand).
  int compute_capability = 0;
  int pcie_generation = 5;  ///< compute::GpuSpec::pcie_generation (GPU -> NIC path)
  bool nvls = true;         ///< compute::GpuSpec::nvls (NVLink SHARP)
  bool sharp = false;       ///< topology::FabricSpec::sharp (in-network reduction)
  int gpus_per_node = 8;    ///< GPUs per NVLink domain
  int nics_per_node = 0;    ///< physical NICs per domain; 0 = one per GPU
  /// The scale-up fabric is AMD Infinity Fabric (xGMI), not NVLink: a GPU with nvlink_generation
  /// 0 and a scale-up bandwidth (compute::GpuSpec::nvlink_bandwidth > 0; MI300X) in a domain of
  /// more than one GPU. RCCL runs it as NVLink (LINK_NVL) links at its own per-link speed.
  bool xgmi = false;
  /// s, latency of the route GPU a -> GPU b (empty: every hop has its class's nominal latency,
  /// nvlink_latency / net_latency); a stepped ring pipelines the excess of slower hops
  /// (cross-leaf, cross-pod: ring_pipeline.cpp).
  std::function<double(int, int)> route_latency;
  /// Whether a GPU's NVLink port is up (empty: every port up). A pair of a domain whose ports are
  /// both up runs over NVLink on a route that does not depend on the flow's hash.
  std::function<bool(int)> nvlink_port_up;
  /// Whether every scale-out flow a -> b takes the same route whatever its ECMP hash, whatever the
  /// fabric's link states: one plane and both GPUs under one leaf (GPU -> leaf -> GPU; a GPU's one
  /// access link is its only way in or out). Empty: never assumed. Copies of a ring channel on
  /// such a pair run as one weighted transfer (flow_ring.cpp collapsed_channels).
  std::function<bool(int, int)> one_route;
  /// From a fabric and its GPU model (rates, domains, latencies, capabilities). The fabric must
  /// outlive the Layout. `nics_per_node` > 0 says the nic_rate of each GPU is a share of fewer,
  /// faster NICs (e.g. 4 x 200G for 8 GPUs: nic_rate 100G per GPU, NCCL sees 4 NICs of 25 GB/s).
  static Layout from(const topology::Fabric& fabric, const compute::GpuSpec& gpu, int nics_per_node = 0);
};

/// One collective on one group of GPUs.
struct Collective {
  Op op = Op::AllReduce;
  Algorithm algorithm = Algorithm::Auto;
  std::vector<int> gpus;  ///< members in rank order (size n >= 1); root = gpus[0]
  double bytes = 0;       ///< nccl-tests size S (see closed_form.hpp), B
  /// true: ring / tree / PAT steps collapsed into one transfer per pair carrying every step
  /// (exact on an idle fabric; see the header comment). false: one transfer per step (ring,
  /// PAT) or per pipeline chunk (tree, chain) with the true dependencies.
  bool collapse = true;
  /// Collapsed ring of several channels: the channels' hops between the same two GPUs of a domain
  /// run as one transfer of weight k carrying the bytes of the k hops (flow_ring.cpp, plan_ring;
  /// exact under weighted max-min). false: one transfer per channel and hop (the reference the
  /// merged form is tested against).
  bool merge_channels = true;
  /// Pipeline chunks of a stepped tree / NVLSTree tree / broadcast-reduce chain, per channel: 0 =
  /// NCCL's for the size, protocol and channels (nccl::pipeline_chunks: one at small messages,
  /// 128 of 512 KiB per channel for 1 GiB over 16 channels); > 0 that many (a test's override).
  int chunks = 0;
  /// CPU budget of a stepped tree / NVLSTree tree in NCCL's chunks (repetitions x edges^2,
  /// flow_plan.hpp kPipelineWork): above it each edge runs the chunks as three transfers (the
  /// plan's note says so). 0: kPipelineWork (2^26); a test sets it to run the same tree exact
  /// (large) and in three transfers (small).
  double pipeline_work = 0;
  std::vector<int> after;              ///< activities every first transfer waits for
  int tag = 0;                         ///< copied to every activity
  std::uint64_t hash = 0;              ///< ECMP hash seed of this collective's flows
  DataType type = DataType::Bfloat16;  ///< element type (NVLS support)
  RedOp redop = RedOp::Sum;            ///< reduction (NVLS support; ignored by non-reductions)
};

/// The algorithm, protocol and channels NCCL picks for a collective, and what it costs.
struct Selection {
  Algorithm algorithm = Algorithm::Ring;
  Proto proto = Proto::Simple;
  int channels = 1;
  /// NCCL's graph->nChannels of the chosen algorithm after AllGather3 (the channels its topology
  /// search found, min over nodes; nccl::Model::graph): `channels` repeats them (ncclTopoPostset,
  /// connect.cc v2.28.3-1). 0: not an NCCL graph (algorithms outside NCCL).
  int graph_channels = 0;
  double nccl_time = 0;  ///< s, NCCL's own prediction (its tuner's model)
  double latency = 0;    ///< s, latency part of the execution model (incl. pipeline fill)
  double bw_time = 0;    ///< s, bandwidth part of the execution model
  /// s, NCCL's latency per hop inside a domain / across the network for the chosen algorithm
  /// and protocol (nccl::Model::hop_latency); a stepped ring whose even per-step latency falls
  /// below its hops' route latency gets per-hop latencies in this ratio (flow_plan.hpp). 0: not
  /// known (equal weights).
  double hop_latency_nvlink = 0, hop_latency_net = 0;
  double time() const { return latency + bw_time; }  ///< s, on an idle fabric
};

/// Indices of what was emitted.
struct Emitted {
  std::vector<int> done;                  ///< activities whose completion means the collective is done
  int first = 0, last = 0;                ///< [first, last) activity index range
  Algorithm algorithm = Algorithm::Ring;  ///< the algorithm used (Auto resolved)
  Proto proto = Proto::Simple;            ///< the protocol used
  int channels = 1;                       ///< NCCL channels
  double time = 0;                        ///< s, the execution model's time on an idle fabric
  /// What was approximated (e.g. sampled all-to-all) or shaped beyond the plain pattern (a
  /// stepped ring's pipelined hops); "" otherwise.
  std::string note;
  /// A stepped ring: its ring orders, each a block of (last - first) / rings activities (n
  /// positions x the same number of activities per position, position-major); 0 otherwise.
  int rings = 0;
};

/// Whether emit() implements `op` with algorithm `a` at all (whatever the GPUs and fabric; Auto:
/// always). All-reduce: every algorithm but Pat and Direct; all-gather and reduce-scatter: Ring,
/// Nvls and Pat (NCCL 2.23 runs them with ring, NVLS, CollNet and PAT, never tree; CollNet's
/// all-gather / reduce-scatter need plugin entry points not modelled here); all-to-all: Direct;
/// broadcast, reduce and send/recv: their one algorithm (a chain, a direct send), named Ring or
/// Direct. select() additionally checks what the GPUs and the fabric support.
bool implements(Algorithm a, Op op);

/// NCCL's choice and the execution model for `c` (c.algorithm Auto: the tuner picks; otherwise the
/// tuner picks the protocol and channels for that algorithm). Throws aidcsim::Error when the
/// requested algorithm cannot run here (NVLS without NVLS-capable GPUs, CollNet/SHARP without
/// fabric.sharp, PAT with more than one GPU per node, NVLSTree on one node, tree for an operation
/// other than all-reduce, halving-doubling with n not a power of two, ...).
Selection select(const Collective& c, const Layout& layout, const Protocol& p = {});

/// select(c).algorithm.
Algorithm choose_algorithm(const Collective& c, const Layout& layout, const Protocol& p = {});

/// Appends the activities of `c` to `schedule`. Throws as select().
Emitted emit(network::Schedule& schedule, const Collective& c, const Layout& layout, const Protocol& p = {});

/// Time (s) of `c` on an idle fabric: select(c).time().
double estimate_time(const Collective& c, const Layout& layout, const Protocol& p = {});

/// B/s per GPU per direction of its share of its NIC's PCIe attachment as NCCL models it:
/// nccl_system's pci_bw (48 GB/s per Gen5 x16 NIC, 24 per Gen4: NCCL_DEBUG topology dumps) x NICs
/// per node / GPUs per node.
double pcie_rate(const Layout& layout);

/// pcie_rate of the Layout that Layout::from(fabric built from `spec`, `gpu`, `nics_per_node`)
/// gives: what sim/scenario writes into topology::FabricSpec::nic_pcie_rate.
double pcie_rate(const topology::FabricSpec& spec, const compute::GpuSpec& gpu, int nics_per_node = 0);

/// B/s per GPU that NCCL's NET transport reaches: min(nic_rate, pcie_rate). NCCL caps a NIC's
/// speed at its PCIe path (topo.cc: the path bandwidth is the slowest link's).
double net_rate(const Layout& layout);

/// B/s per GPU per direction its scale-out traffic reaches on the fabric: nic_rate, bounded by
/// Layout::nic_pcie_rate where the fabric models the PCIe attachment (topology::Fabric::
/// sharing_rate). emit() maps NCCL's bandwidth time onto the ports at this rate: with the
/// attachment in the fabric it is net_rate, and a NIC faster than its PCIe moves no more bytes.
double nic_port_rate(const Layout& layout);

/// NCCL's view of the group `gpus` on `layout` (ranks, nodes, NVLink and NIC bandwidths in its
/// units, capabilities), for nccl::build_model.
nccl::System nccl_system(const std::vector<int>& gpus, const Layout& layout, const Protocol& p = {});

}  // namespace aidcsim::collectives
