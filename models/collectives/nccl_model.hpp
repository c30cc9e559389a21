#pragma once
// NCCL's own cost model and tuner, ported from its source so that aidcsim picks the algorithm,
// protocol and channel count NCCL would pick, and knows what NCCL expects each to cost.
//
// Sources (every constant in nccl_model.cpp is cited next to it), NVIDIA/nccl tag v2.28.3-1, the
// version whose NVLS / NVLSTree rates the execution model uses too:
// - src/graph/tuning.cc: ncclTopoTuneModel (per algorithm x protocol bandwidth and latency tables
//   from ncclTunerConstantsDefaults, nvlsEfficiency, the algorithms enabled), ncclTopoGetAlgoTime
//   (time = latency + bytes / bandwidth, tree correction factors, ring plateau);
// - src/enqueue.cc: updateCollCostTable (which algorithms a call may use), topoGetAlgoInfo (least
//   predicted time, then channels and threads from the thread thresholds), calcCollChunking (NVLS
//   chunk sizes);
// - src/graph/search.cc, connect.cc, init.cc, transport/nvls.cc: ncclTopoCompute /
//   ncclTopoDupChannels (how many channels each pattern gets and at which speed), modelled here
//   in closed form, not by NCCL's search; ncclTopoPostset (comm->nChannels); ncclNvlsInit (NVLS CTAs).
// Up to issue 12's tuner228 change the tuner followed v2.23.4-1 (Blackwell entries v2.27.7-1);
// docs/validation-busbw.md lists what moved.
// NCCL units are kept inside: GB/s (1e9 B/s) and microseconds.
#include <array>
#include <string>
#include <vector>

namespace aidcsim::collectives::nccl {

/// The NCCL release the tuner and the execution model follow (NVIDIA/nccl tag), as reports name it.
inline constexpr const char* kModelVersion = "2.28.3-1";

/// NCCL_ALGO_* in NCCL's order (src/include/plugin/nccl_tuner.h, v2.28.3-1).
enum Algo { kTree = 0, kRing, kCollNetDirect, kCollNetChain, kNvls, kNvlsTree, kPat, kNumAlgos };
/// NCCL_PROTO_* (LL: 8 B lines with 4 B flags; LL128: 128 B lines with 8 B of flags; Simple).
enum Proto { kLL = 0, kLL128, kSimple, kNumProtos };
/// ncclFunc_t order of NCCL (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce).
enum Func { kBroadcast = 0, kReduce, kAllGather, kReduceScatter, kAllReduce, kNumFuncs };

const char* algo_name(Algo a);    ///< "tree", "ring", "collnet_direct", ..., "pat"
const char* proto_name(Proto p);  ///< "LL", "LL128", "Simple"

/// One node of a communicator whose nodes hold unequal numbers of its ranks: its GPUs
/// (localRanks) and the scale-out NICs its topology search sees.
struct NodeShape {
  int gpus = 1;
  int nics = 1;
  friend bool operator==(const NodeShape&, const NodeShape&) = default;
};

/// What NCCL's topology detection finds, per node. Units: GB/s, us.
struct System {
  int ranks = 1;  ///< nRanks: the real rank count (ring steps, latencies)
  int nodes = 1;  ///< nNodes (mean ranks per node = ranks / nodes, tuning.cc's ppn)
  /// Empty: every node holds ranks / nodes GPUs with `nics` NICs. Else the distinct node shapes
  /// of a communicator with unequal nodes: each searches its own graphs and AllGather3 takes
  /// the min of nChannels, bwIntra, bwInter over ranks (init.cc v2.28.3-1), so the node with
  /// the fewest GPUs sets channels and speeds; `nics` is then that node's.
  std::vector<NodeShape> shapes;
  int compute_capability = 90;  ///< 70 Volta, 80 Ampere, 90 Hopper, 100 Blackwell
  bool nvlink = true;           ///< GPUs of a node joined by NVLink (else PCIe)
  bool nvswitch = true;         ///< through NVSwitches (an NVS node in NCCL's topology)
  double nvlink_bw = 370.8;     ///< per GPU and direction as NCCL counts it: links x SMxx_NVLINK_BW
  double pci_bw = 48;           ///< GPU <-> NIC PCIe (Gen5 x16: NCCL reports 48)
  int nics = 8;                 ///< scale-out NICs per node
  double nic_bw = 50;           ///< per NIC (NCCL NET bw = port speed: 400 Gb/s -> 50)
  double net_latency = 0;       ///< graph latencyInter: the net plugin's latency (IB reports 0)
  bool nvls = false;            ///< NVLS multicast: GPU and NVSwitch capable, > 2 GPUs per node
  bool collnet = false;         ///< CollNet (SHARP) usable: the fabric reduces in its switches
  /// The CollNet plugin implements iallgather / ireducescatter (ncclCollNet v8+), which NCCL 2.28
  /// needs for NVLS and CollNetDirect all-gather / reduce-scatter across nodes (tuning.cc). No
  /// GPU or fabric datum says so; false keeps them off, as v2.23.4-1 always did.
  bool collnet_allgather = false;
  bool amd_cpu = false;  ///< AMD host: llMaxBws' AMD row, net post overhead 2 us not 1 (tuning.cc)
  /// Per-hop latency of LL over NVLink for a ring inside one node (us); < 0: NCCL's hwLat
  /// (0.6 us). The execution model passes a measured value here
  /// (collectives::Protocol::nvlink_ll_hop); multi-node rings and the tree keep NCCL's hop
  /// (nccl_model.cpp says why).
  double ll_nvlink_hop = -1;
  /// The channel settings of the communicator (0: unset, NCCL's default). NCCL v2.28.3-1:
  /// NCCL_MAX_NCHANNELS caps comm->nChannels after ncclTopoPostset's copies (graph/connect.cc:
  /// nChannels = min(ncclMaxNchannels(), nChannels, config.maxCTAs); ncclMaxNchannels() is
  /// MAXCHANNELS 64 unset, larger values capped to it, values < 1 raised to 1), so it caps ring,
  /// tree, PAT and CollNet channels and NVLS across nodes (min(nvlsChannels, nChannels),
  /// enqueue.cc topoGetAlgoInfo), not the NVLS CTAs of one node or NVLSTree: comm->nvlsChannels =
  /// max(config.minCTAs, min(config.maxCTAs, NCCL_NVLS_NCHANNELS or the architecture's default))
  /// (transport/nvls.cc ncclNvlsInit; init.cc: NCCL_NVLS_NCHANNELS -> config.nvlsCTAs,
  /// NCCL_MAX_CTAS -> config.maxCTAs, at most MAXCHANNELS). NCCL_MAX_CTAS caps both. After the
  /// caps ncclTopoPostset copies channels up to max(NCCL_MIN_NCHANNELS, config.minCTAs), so a
  /// minimum above a maximum wins there (NCCL: "combining max, then min, to only use the first
  /// channels, then duplicate them"), NCCL_MIN_CTAS raises nvlsChannels too (the max(minCTAs, ...)
  /// above), and NCCL_MIN_NCHANNELS reaches NVLS only across nodes. init.cc lowers minCTAs above
  /// maxCTAs to maxCTAs. No minimum stops topoGetAlgoInfo shedding channels for small messages
  /// (enqueue.cc). The tuner's bandwidth tables use the graphs' search channels (tuning.cc), so
  /// none of them changes a table; they change the channels a collective runs on and the ring
  /// plateau test (ncclTopoGetAlgoTime: bytes / (comm->nChannels x ranks) >= 64).
  int max_nchannels = 0;   ///< NCCL_MAX_NCHANNELS
  int min_nchannels = 0;   ///< NCCL_MIN_NCHANNELS (ncclMinNchannels(): within [0, MAXCHANNELS])
  int max_ctas = 0;        ///< NCCL_MAX_CTAS (ncclConfig_t maxCTAs)
  int min_ctas = 0;        ///< NCCL_MIN_CTAS (ncclConfig_t minCTAs; 0: NCCL's 1)
  int nvls_nchannels = 0;  ///< NCCL_NVLS_NCHANNELS (ncclConfig_t nvlsCTAs)
  /// Every field equal (a memo of build_model's results is keyed by the whole System).
  friend bool operator==(const System&, const System&) = default;
};

/// One of NCCL's topology graphs (ring, tree, collnet, nvls) as its search returns it.
struct Graph {
  int channels = 0;     ///< graph->nChannels (0: pattern unavailable)
  double bw_intra = 0;  ///< GB/s per channel inside a node
  double bw_inter = 0;  ///< GB/s per channel across nodes
};

/// The tuner's tables for one communicator (comm->bandwidths / latencies / thresholds).
struct Model {
  System sys;
  std::array<Graph, kNumAlgos> graph{};  ///< graph used by each algorithm (NVLSTree = NVLS's, PAT = tree's)
  double bandwidth[kNumFuncs][kNumAlgos][kNumProtos] = {};  ///< GB/s as algbw; 0 = not available
  double latency[kNumFuncs][kNumAlgos][kNumProtos] = {};    ///< us
  /// Per-hop latency (us) the latency table charges: [0] a hop inside a node (NVLink / PCIe:
  /// hwLat[intra], for a multi-node ring raised to the net overhead), [1] a network hop
  /// (hwLat[NET] + the net plugin's latency; = [0] on one node). A ring's latency is
  /// baseLat + (nsteps - interSteps) x [0] + interSteps x [1] (tuning.cc v2.28.3-1).
  double hop_latency[kNumFuncs][kNumAlgos][kNumProtos][2] = {};
  /// comm->nChannels after ncclTopoPostset doubles them, capped by NCCL_MAX_NCHANNELS and
  /// NCCL_MAX_CTAS, then raised to NCCL_MIN_NCHANNELS and NCCL_MIN_CTAS (System::max_nchannels,
  /// max_ctas, min_nchannels, min_ctas; NVLS runs on its own CTAs)
  int channels = 0;
  /// comm->nvlsChannels: 16 Hopper; Blackwell 24 in one domain, 32 across (nvls.cc), or
  /// NCCL_NVLS_NCHANNELS; within [NCCL_MIN_CTAS, NCCL_MAX_CTAS], not set by NCCL_M*_NCHANNELS
  int nvls_channels = 0;
  int max_threads[kNumAlgos][kNumProtos] = {};  ///< comm->maxThreads (0 for PAT: NCCL sets none)
  long thread_threshold[kNumAlgos][kNumProtos] = {};
};

/// Builds NCCL's tables for `sys` (ncclTopoTuneModel). Throws aidcsim::Error for ranks < 1,
/// nodes < 1, ranks not a multiple of nodes without `shapes`, or shapes whose GPU counts cannot
/// hold `ranks` on `nodes` nodes (min x nodes > ranks or max x nodes < ranks).
Model build_model(const System& sys);

/// comm->minLocalRanks / maxLocalRanks (init.cc v2.28.3-1): the fewest and most GPUs a node of
/// `sys` holds (ranks / nodes for both without shapes).
int min_local_ranks(const System& sys);
int max_local_ranks(const System& sys);

/// NCCL's bandwidth formula for (f, a, p) (GB/s as algbw, ncclTopoTuneModel) evaluated on
/// `channels` channels of the pattern's graph instead of all of them: the per-channel speed and
/// per-channel caps scale with the channels, llMaxBw caps the communicator. 0 when unavailable.
/// Used for the channels NCCL sheds on small messages (topoGetAlgoInfo), whose cost NCCL's own
/// prediction does not include.
double bandwidth_on(const Model& m, Func f, Algo a, Proto p, int channels);

/// NCCL's predicted time (us) of `bytes` (ncclFuncMaxSendRecvCount bytes: the whole buffer for
/// all-reduce/broadcast/reduce, the total gathered for all-gather/reduce-scatter) with one
/// algorithm and protocol, one operation in flight (ncclTopoGetAlgoTime, numPipeOps = 1);
/// -1 when the pair is unavailable.
double predicted_time(const Model& m, Func f, Algo a, Proto p, double bytes);

/// The two parts of predicted_time: latency (us, with the ring plateau factor) and bandwidth
/// (GB/s, with the tree correction factor for the size). Returns false when unavailable.
bool time_parts(const Model& m, Func f, Algo a, Proto p, double bytes, double* latency_us, double* bandwidth);

/// Which algorithms / protocols may be chosen (NCCL_ALGO / NCCL_PROTO).
struct Allowed {
  std::array<bool, kNumAlgos> algo{true, true, true, true, true, true, true};
  std::array<bool, kNumProtos> proto{true, true, true};
};

/// NCCL's choice for one operation (topoGetAlgoInfo): the available pair with the least predicted
/// time, then the channels it runs on (fewer than comm->nChannels for small messages: the
/// channel loop of topoGetAlgoInfo against the thread thresholds; NVLS uses nvlsChannels, NVLS
/// across nodes min(nvlsChannels, nChannels); PAT all of comm->nChannels).
struct Choice {
  Algo algo = kRing;
  Proto proto = kSimple;
  int channels = 1;
  double time = 0;  ///< us, NCCL's predicted time
  bool valid = false;
  /// Not valid because every allowed algorithm/protocol is predicted at NCCL's cap or above
  /// (tuning.cc minTime = 3600000000 us, an hour): NCCL finds no algorithm either.
  bool over_time_cap = false;
};
/// What updateCollCostTable (enqueue.cc v2.28.3-1) looks at in the call besides its function and
/// size: an fp8 datatype (ncclFloat8e4m3 / e5m2: the ring's cost x 1024 above 8 ranks, "Relegate
/// fp8 reduction trees of sufficient depth that they incur precision loss to be least preferred")
/// and a scaling reduction (ncclDevPreMulSum / SumPostDiv, what ncclAvg becomes: no PAT
/// reduce-scatter, "Tree reduceScatter doesn't support scaling yet").
struct Call {
  bool fp8 = false;
  bool scaling_op = false;
};
/// Choice::time is NCCL's predicted time without the fp8 factor.
Choice choose(const Model& m, Func f, double bytes, const Allowed& allowed = {}, const Call& call = {});

/// NVLS chunk size (B) NCCL uses for `bytes` spread over `channels` CTAs (calcCollChunking,
/// enqueue.cc v2.28.3-1: 128 KiB NVLS_CHUNKSIZE, NVLSTree capped at 64 KiB from 4 nodes, halved
/// down to 16 KiB (NVLS) / 32 KiB (NVLSTree) while `bytes` is small against concurrentOps =
/// channels x heads chunks). NCCL calls it with the whole message and nChannels = the CTAs for
/// NVLS across domains (the CollNet branch of scheduleCollTasksToPlan), and per channel with that
/// channel's part and nChannels = 1 otherwise.
double nvls_chunk(const Model& m, double bytes, bool nvls_tree, int channels);

/// Bytes (of the nccl-tests size S) an NVLS / NVLSTree collective `f` of `bytes` on `ctas` CTAs
/// moves in its first round: each CTA loops over its part in rounds (all-reduce:
/// src/device/all_reduce.h v2.28.3-1, RunWorkColl NVLS / NVLS_TREE: loopCount = nHeads x
/// chunkCount, or nChannels x nHeads x chunk across domains; all-gather / reduce-scatter of one
/// node: all_gather.h / reduce_scatter.h RunWorkColl NVLS oneNode, a chunk of the rank's part per
/// loop, bcast + gather / scatter + reduce, so heads x chunk of S), each round through the warp
/// groups one after the other (one slice per chunk: ProtoSimple<1, 1>), so the first round
/// fills the pipeline. Across domains (NVLS with CollNet) the chunk is nvls_chunk of the whole
/// message on `ctas`; otherwise calcCollChunking per channel (nChannels = 1) on the largest
/// channel part (channel_part; all-gather / reduce-scatter: the rank's part x ranks, as NCCL's
/// globalBytesPerElement). min(bytes, ctas x heads x chunk), in B; 0 for bytes <= 0.
double nvls_first_round(const Model& m, Func f, Algo a, double bytes, int ctas);

/// Warp groups a chunk crosses one after the other in NCCL's NVLS kernels (v2.28.3-1): all-reduce
/// on one node 3 (scatter, the heads' multimem ld_reduce + st, gather: all_reduce.h NVLS), across
/// nodes and NVLSTree 4 (scatter, reduce -> NET, NET -> multimem st, gather); all-gather on one
/// node 2 (bcast through multimem st, gather: all_gather.h NVLS oneNode), across nodes 3 (gather,
/// NET send, bcast); reduce-scatter 2 (scatter, multimem ld_reduce: reduce_scatter.h) and 3
/// across nodes (scatter, NET recv, reduce). A pipeline of k groups pays k - 1 rounds beyond its
/// steady state. 0 for other functions.
int nvls_warp_groups(Func f, Algo a, int nodes);

/// NCCL's buffer per connection and protocol (B): DEFAULT_LL_BUFFSIZE = NCCL_LL_LINES_PER_THREAD 8
/// x NCCL_LL_MAX_NTHREADS 512 x NCCL_STEPS 8 x 16 B lines = 512 KiB; DEFAULT_LL128_BUFFSIZE =
/// NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x 8 x 8 B = 4,915,200;
/// DEFAULT_BUFFSIZE 4 MiB for Simple (src/init.cc, src/include/device.h v2.28.3-1; NCCL_LL_BUFFSIZE
/// / NCCL_LL128_BUFFSIZE / NCCL_BUFFSIZE unset). A step is 1 / NCCL_STEPS of it.
long buff_size(Proto p);

/// Bytes of the largest channel part when NCCL spreads one collective of `bytes` over `channels`
/// channels (the continuous-byte distribution of scheduleCollTasksToPlan, enqueue.cc v2.28.3-1,
/// for one task alone in its plan): traffic per byte 2 for all-reduce, ranks for all-gather /
/// reduce-scatter, 1 otherwise, x 4 for LL; cells of 16 KiB of traffic (MinTrafficPerChannel); each
/// channel takes divUp(traffic per channel, traffic per cell) cells, the last the rest. `bytes` is
/// ncclFuncMaxSendRecvCount's (the whole buffer for all-reduce / broadcast / reduce). 0 for bytes <= 0.
double channel_part(Func f, Proto p, int ranks, double bytes, int channels);

/// The chunk (B) calcCollChunking (enqueue.cc v2.28.3-1) gives one channel's part of `part` bytes
/// (it is called per channel, nChannels = 1): a step, buff_size / NCCL_STEPS (Simple 512 KiB; LL
/// half its 64 KiB step, the other half being flags: 32 KiB; LL128 15/16 of its 614,400 B step:
/// 576,000), for the tree and for the ring's pipelines of broadcast / reduce (BROADCAST_ / REDUCE_
/// CHUNKSTEPS 1, collectives.h). The tree with LL128 halves it while the part holds fewer than
/// nsteps x 64 / ppn chunks (down to 131,072) and nsteps x 16 / ppn (down to 32,768), nsteps = 1 +
/// log2i(nodes) + 0.1 ppn. NVLSTree / NVLS: nvls_chunk for the part (concurrentOps = the heads). Aligned
/// down to the protocol's grain (ncclProtoGrainSize, device.h: LL 16 B, LL128 1,920 B, Simple 512 B).
/// Other algorithms: the step (not used).
double coll_chunk(const Model& m, Func f, Algo a, Proto p, double part);

/// Chunks NCCL's pipeline runs one after the other on a channel for `bytes` (the nccl-tests size
/// S) over `channels` channels: ceil(channel_part / (coll_chunk x chunks per loop)), chunks per
/// loop = the NVLS heads for NVLSTree (each head's reduce -> tree up -> tree down -> multicast
/// handles one chunk per loop: src/device/all_reduce.h v2.28.3-1, loopCount = nHeads x
/// chunkCount), 1 for the tree (runTreeUpDown / runTreeSplit: a loop per chunkCount), the
/// broadcast / reduce chain and NVLS all-gather / reduce-scatter on one node (a loop per
/// chunkCount of the rank's part, all_gather.h / reduce_scatter.h; the part is of a rank's
/// S / ranks, the chunk calcCollChunking's on part x ranks). >= 1.
int pipeline_chunks(const Model& m, Func f, Algo a, Proto p, double bytes, int channels);

/// NCCL's NVLS efficiency by architecture (tuning.cc `nvlsEfficiency`, v2.28.3-1 to v2.30.7-1):
/// Hopper (cc 90) 0.85, Blackwell (cc >= 100) 0.74; 0 before Hopper (no NVLS). The tuner rates an
/// NVLS channel at bwIntra x this x (channels - 1) / channels x 2 for all-reduce (x (ppn - 1)/ppn
/// for all-gather / reduce-scatter); v2.23.4-1 had 5/6 for every architecture.
double nvls_efficiency(int compute_capability);

/// NVLS heads of one NVLink domain of `gpus` GPUs: min(gpus, NCCL_MAX_NVLS_ARITY = 32). NCCL's
/// NVLS graph has one channel per head and at most NCCL_MAX_NVLS_ARITY of them (search.cc
/// ncclTopoCompute, v2.26.2-1 to v2.30.7-1: maxChannels = min(NCCL_MAX_NVLS_ARITY, GPUs), and
/// minChannels = maxChannels on one domain; device.h NCCL_MAX_NVLS_ARITY 32). Only the heads run
/// the multimem ld_reduce / st of the NVLS kernel (connect.cc connectNvls: headRank -1 for the
/// others; device/all_reduce.h `nvls->headRank != -1`), each on 1/heads of the buffer, so a
/// 72-GPU NVL72 domain has 32 heads, not 72. Across domains (NVLSTree, NVLS with SHARP) every head
/// is a GPU with its own NIC: the search adds a channel while nChannels < the NICs, one per GPU
/// (search.cc v2.26.2-1 .. v2.30.7-1, "NVLS search only tries to find NIC:GPU combinations to
/// compute the heads"), so `nics` > 0 gives min(nics, gpus, 32). 0 for gpus < 1.
int nvls_heads(int gpus, int nics = 0);

/// NVLS heads of every node of communicator `s`: across nodes NCCL connects minHeadNum heads on
/// each node, the fewest any node's NVLS graph found (connect.cc ncclTopoPostset / connectNvls,
/// v2.28.3-1), so with unequal node shapes the min over the shapes of nvls_heads(gpus, nics);
/// nvls_heads(ranks / nodes, nics) without shapes; nvls_heads(ranks) on one node.
int nvls_heads(const System& s);

/// CollNet heads of every node of communicator `s` (one per NIC-local GPU, search.cc
/// ncclTopoSearchRecNet v2.28.3-1; AllGather3 keeps the fewest graph channels any rank found,
/// init.cc): min over the node shapes of min(gpus, nics); min(ranks / nodes, nics) without shapes.
/// NCCL runs CollNet only with maxLocalRanks <= NCCL_MAX_DIRECT_ARITY + 1 = 8 (enqueue.cc), so no
/// arity cap applies here.
int collnet_heads(const System& s);

/// NCCL 2.28's NVLSTree all-reduce bus bandwidth (GB/s) of the model's NVLS graph (tuning.cc
/// v2.28.3-1 ncclTopoTuneModel): per channel min(bwIntra x nvls_efficiency x (ch - 1)/ch x 2,
/// bwInter x (2 on <= 2 nodes, else 1), perChMaxNVLSTreeBw[arch][nodes 1 / 2 / > 2]), times the
/// channels (heads): the tuner's table (Model::bandwidth[kAllReduce][kNvlsTree]) x 2 (ranks - 1) /
/// ranks (the ring's ratio, which 2.28 uses for NVLS and NVLSTree). v2.23.4-1 had min(bwIntra,
/// bwInter, or bwInter / 2 beyond 2 nodes) x 5/6 algbw per channel. 0 without an NVLS graph of
/// >= 2 channels or on one node.
double nvls_tree_busbw(const Model& m);

/// The NCCL speed of one NVLink link by GPU generation (src/graph/topo.h SMxx_NVLINK_BW, GB/s):
/// generation 2 (V100) 20, 3 (A100) 20, 4 (H100) 20.6, 5 (B200) 40.1 (v2.27.7-1 .. v2.28.3-1).
double nvlink_link_bw(int nvlink_generation);
/// Compute capability NCCL keys its tables on, from the NVLink generation: 2 -> 70, 3 -> 80,
/// 4 -> 90, 5 -> 100; 0 (no NVLink) -> 80.
int compute_capability(int nvlink_generation);

}  // namespace aidcsim::collectives::nccl
