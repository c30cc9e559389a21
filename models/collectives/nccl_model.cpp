#include "models/collectives/nccl_model.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/common/errors.hpp"

// Every constant below is NVIDIA/nccl's, tag v2.28.3-1 unless another tag is named; the file is
// given where it is used. Where 2.28.3-1 changed a value of v2.23.4-1 (the tag the port followed
// before), the old value is named too.
namespace aidcsim::collectives::nccl {

namespace {

// --- src/graph/tuning.cc v2.28.3-1: ncclTunerConstantsDefaults ------------------------------
// baseLatencies (us): Tree { LL, LL128, Simple }, Ring, CollNetDirect, CollNetChain, NVLS,
// NVLSTree, PAT. PAT's 8.0 was written into its latency formula in v2.23.4-1 (same total).
constexpr double kBaseLat[kNumAlgos][kNumProtos] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0},      {0, 0, 0},
                                                    {0, 0, 0},        {0, 0, 0},        {8.0, 8.0, 8.0}};
enum Hw { kHwNvlink = 0, kHwPci = 1, kHwNet = 2 };
// hwLatencies[NVLINK | PCI | NET][algo][proto] (us). PAT's row (Simple 4.0 / 4.0 / 14) is new in
// the tuner constants (v2.23.4-1 had none; its latency formula takes the tree's NET 14 anyway).
constexpr double kHwLat[3][kNumAlgos][kNumProtos] = {
    {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}, {0, 0, 14}}};
// Bandwidth caps (GB/s), [Volta, Ampere, Hopper, Blackwell][1 node, 2 nodes, > 2 nodes]; llMaxBws'
// rows are [GPU arch (1 node) or CPU vendor Intel / AMD (multi-node)].
constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
constexpr double kPerChMaxRingLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 2 * 36.7, 2 * 36.7}};
// Blackwell rows of the tree caps: 2.28.3-1's own (v2.27.7-1 had 2 x Hopper: 73.4 / 73.4 / 58.0
// for LL128, 77.4 / 82.8 / 72.0 for the tree).
constexpr double kPerChMaxTreeLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChMaxTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
// perChMaxNVLSTreeBws (new in v2.28.3-1). Later tags raise Blackwell > 2 nodes: 43.8 (v2.28.9-1,
// v2.29.2-1), 80.0 (v2.30.7-1); Hopper unchanged to v2.30.7-1.
constexpr double kPerChMaxNvlsTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.1}};
// nvlsEfficiency[NCCL_NUM_COMPCAPS] (new in v2.28.3-1; v2.23.4-1 converted every NVLS busBw to
// algbw by 5/6 instead).
constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};
// "Trees are not perfectly sticking to the model for medium sizes": per protocol, powers of two
// of nBytes >> 6 from 64 B to 256 MB (ncclTopoGetAlgoTime).
constexpr double kTreeCorrection[kNumProtos][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// Model refinements of ncclTopoTuneModel.
constexpr double kTreePatternFactor = .85;       // tree graph of pattern TREE (1 GPU per node: search.cc)
constexpr double kPatFactor = .75;               // PAT busBw (v2.23.4-1: .85)
constexpr double kCollNetAgRsInterFactor = 0.9;  // CollNetDirect all-gather / reduce-scatter: bwInter x 0.9

// --- src/include/device.h, comm.h, graph/topo.h (v2.28.3-1) -----------------------------------
constexpr int kMaxChannels = 64;             // MAXCHANNELS (32 up to v2.24.3-1; 64 from v2.25.1-1)
constexpr int kMaxNthreads = 640;            // NCCL_MAX_NTHREADS
constexpr int kSimpleMaxNthreads = 512;      // NCCL_SIMPLE_MAX_NTHREADS
constexpr int kLLMaxNthreads = 512;          // NCCL_LL_MAX_NTHREADS
constexpr int kLL128MaxNthreads = 640;       // NCCL_LL128_MAX_NTHREADS
constexpr long kLLThreadThreshold = 8;       // NCCL_LL_THREAD_THRESHOLD
constexpr long kLL128ThreadThreshold = 8;    // NCCL_LL128_THREAD_THRESHOLD
constexpr long kSimpleThreadThreshold = 64;  // NCCL_SIMPLE_THREAD_THRESHOLD
constexpr double kPciBw = 12.0;              // PCI_BW (Gen3 x16), for the default thread count
constexpr int kMaxDirectArity = 7;           // NCCL_MAX_DIRECT_ARITY: CollNet needs <= 8 GPUs a node
// NVLS CTAs (comm->nvlsChannels, transport/nvls.cc ncclNvlsInit, v2.27.3-1 .. v2.30.7-1):
// NVLS_NCHANNELS_SM90 16; Blackwell NVLS_NCHANNELS_SM100 32 across NVLink domains,
// NVLS_NCHANNELS_SM100_NVL 24 inside one ("a reduced number of channels for single node/MNNVL
// domain on Blackwell"). v2.23.4-1 had NVLS_NCHANNELS 16 for all.
constexpr int kNvlsChannelsSm90 = 16, kNvlsChannelsSm100 = 32, kNvlsChannelsSm100Nvl = 24;
constexpr double kNvlsChunkSize = 128 * 1024;  // NCCL_NVLS_CHUNKSIZE default (transport/nvls.cc)
constexpr int kMaxNvlsArity = 32;              // NCCL_MAX_NVLS_ARITY (device.h 2.23 .. 2.30.7)
// Connection buffers and chunks (src/include/device.h, src/init.cc, src/enqueue.cc v2.28.3-1).
constexpr long kNcclSteps = 8;  // NCCL_STEPS: slots of a connection's FIFO
constexpr long kLLBuffSize =
    8L * 512 * kNcclSteps * 16;  // DEFAULT_LL_BUFFSIZE: lines/thread x threads x steps x 16 B line
constexpr long kLL128BuffSize =
    120L * 640 * kNcclSteps * 8;            // DEFAULT_LL128_BUFFSIZE: elems/thread x threads x steps x 8 B
constexpr long kSimpleBuffSize = 1L << 22;  // DEFAULT_BUFFSIZE, 4 MiB
constexpr long kLL128LineElems = 16,
               kLL128DataElems = 15;  // NCCL_LL128_LINEELEMS (128 B / 8 B), _DATAELEMS (one is flags)
// ncclProtoGrainSize: LL 16, LL128 WARP_SIZE 32 x NCCL_LL128_SHMEM_ELEMS_PER_THREAD 8 / 16 x 15 x 8 B, Simple 512
constexpr long kGrain[kNumProtos] = {16, 32 * 8 / kLL128LineElems* kLL128DataElems * 8, 512};
constexpr long kMinTrafficPerChannel = 16 << 10;  // scheduleCollTasksToPlan: "16K traffic as minimal"

// --- src/graph/search.cc v2.28.3-1: speeds tried by the topology search (GB/s per channel) ----
// (speedArrayIntra / Inter and the sm90 arrays as in v2.23.4-1; the sm100 arrays from v2.27)
const std::vector<double> kSpeedIntra = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
const std::vector<double> kSpeedInter = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                         7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
const std::vector<double> kSm90SpeedIntra = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
const std::vector<double> kSm90SpeedInter = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                             15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
const std::vector<double> kSm100SpeedIntra = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
const std::vector<double> kSm100SpeedInter = {96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                              17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

constexpr double kEps = 1e-6;  // NCCL's SUB_ROUND rounds bandwidth bookkeeping; absorb float noise

int arch_index(int cc) { return cc >= 100 ? 3 : cc >= 90 ? 2 : cc >= 80 ? 1 : 0; }

int log2i(long n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

const std::vector<double>& speeds(int cc, bool inter) {
  if (cc >= 100) return inter ? kSm100SpeedInter : kSm100SpeedIntra;
  if (cc >= 90) return inter ? kSm90SpeedInter : kSm90SpeedIntra;
  return inter ? kSpeedInter : kSpeedIntra;
}

/// Closed form of ncclTopoCompute for one pattern: `fits(s)` = channels the pattern can place
/// at speed s per channel (0 = none). Pass 1 walks the speed array down from the first speed
/// <= maxBw (and x minChannels <= totalBw), keeps the best nChannels x speed, stops at a solution
/// covering totalBw, at maxChannels ("perfect"), or when the next speed falls below half of the
/// best found; ncclTopoDupChannels; pass 2 raises the speed while the same channels still fit.
struct SearchResult {
  int channels = 0;
  double bw = 0;
};
template <class Fits>
SearchResult search(const std::vector<double>& sp, double max_bw, double total_bw, int min_ch, int max_ch, Fits fits,
                    bool dup, int cc, bool raise) {
  const int n = static_cast<int>(sp.size());
  int i = 0;
  while ((sp[i] > max_bw + kEps || sp[i] * min_ch > total_bw + kEps) && i < n - 1) ++i;
  SearchResult best;
  for (;;) {
    const int ch = std::min(max_ch, fits(sp[i]));
    if (ch >= min_ch && ch > 0 && ch * sp[i] > best.channels * best.bw + kEps) best = {ch, sp[i]};
    if (best.channels > 0 && (best.channels * best.bw >= total_bw - kEps || best.channels == max_ch)) break;
    if (i < n - 1 && (best.channels == 0 || sp[i + 1] / best.bw > .49)) {
      ++i;
      continue;
    }
    break;
  }
  if (best.channels == 0) return best;
  // ncclTopoDupChannels (search.cc): not for NVLS, not below 25 GB/s, not on Hopper+ below 50 GB/s
  // with more than 4 channels.
  if (dup && best.bw >= 25.0 && !(cc > 80 && best.bw < 50.0 && best.channels > 4)) {
    const int d = std::min(best.channels * 2, max_ch);
    best.bw /= (d + best.channels - 1) / best.channels;
    best.channels = d;
  }
  if (raise) {  // pass 2, ring: a higher speed with the same channels
    int j = 0;
    while (j < n - 1 && sp[j] > best.bw + kEps) ++j;
    while (j > 0 && fits(sp[j - 1]) >= best.channels) best.bw = sp[--j];
  }
  return best;
}

int floor_div(double cap, double s) { return s > 0 ? static_cast<int>(std::floor(cap / s + kEps)) : 0; }

/// Pass 2 of ncclTopoCompute for a graph whose pattern is neither RING nor NVLS (search.cc
/// v2.28.3-1 lines 1132-1163, the third branch at 1155-1158, "increase bwIntra for trees (2 nodes
/// or collnet)"; the same step is v2.18.3-1 lines 936-957 and v2.23.4-1 lines 1084-1115). From
/// the speed at bwInter, bwIntra alone climbs the speed array, one speed per search, while the
/// last climb kept the channels (minChannels = nChannels; tmpGraph.bwIntra == graph->bwIntra) and
/// bwIntra < 2 x bwInter; the NET side stays at bwInter (ncclTopoFollowPath charges bwIntra on
/// GPU / NVSwitch links only). So a tree may end up to one speed above 2 x bwInter. The search does not know the node count:
/// the raised bwIntra is the graph's on any number of nodes; the tuner uses it on <= 2 nodes
/// (and for CollNet), where a tree sends each byte once per direction across the NICs.
/// `fits(intra, inter)` = channels the pattern places at those per-channel speeds.
template <class Fits>
double raise_intra(const std::vector<double>& sp, const Graph& gr, Fits fits) {
  const int n = static_cast<int>(sp.size());
  int j = 0;  // speedIndex: the first speed <= graph->bwInter
  while (sp[j] > gr.bw_inter + kEps && j < n - 1) ++j;
  double tmp_intra = sp[j], tmp_inter = sp[j], best = gr.bw_intra;
  while (j > 0 && std::abs(tmp_intra - best) < kEps && tmp_intra < 2 * tmp_inter - kEps) {
    tmp_intra = sp[--j];
    if (fits(tmp_intra, tmp_inter) >= gr.channels) best = tmp_intra;
  }
  return best;
}

/// Per-channel bus bandwidth (GB/s) of NVLS or NVLSTree for `f` (ncclTopoTuneModel, tuning.cc
/// v2.28.3-1): min(bwIntra x nvlsEfficiency x (ch - 1)/ch x (2 for all-reduce, "AllReduce
/// pipelines two operations", else (ppn - 1)/ppn), bwInter x (2 for NVLSTree on <= 2 nodes,
/// "Handle 2 node case of NVLSTree", else 1), perChMaxNVLSTreeBw for NVLSTree); ch = the NVLS
/// graph's channels (heads). 0 below 2 channels ("NVLS/NVLStree needs at least 2 channels").
/// v2.23.4-1 had min(bwIntra, bwInter, or bwInter / 2 for NVLSTree beyond 2 nodes) and 5/6 to algbw.
double nvls_channel_bw(const Model& m, Func f, Algo a) {
  const System& s = m.sys;
  const Graph& gr = m.graph[a];
  if (gr.channels < 2) return 0;
  const int ai = arch_index(s.compute_capability);
  const double ppn = double(s.ranks) / s.nodes;
  double intra = gr.bw_intra * kNvlsEfficiency[ai] * (gr.channels - 1) / gr.channels;
  intra *= f == kAllReduce ? 2.0 : (ppn - 1) / ppn;
  const double inter = gr.bw_inter * (s.nodes <= 2 && a == kNvlsTree ? 2.0 : 1.0);
  const double cap = a == kNvlsTree ? kPerChMaxNvlsTreeBw[ai][s.nodes <= 2 ? s.nodes - 1 : 2] : 1e30;
  return std::min({intra, inter, cap});
}

/// NCCL's algorithm bandwidth (GB/s) of (f, a, p) on `ch` channels of the pattern's graph
/// (ncclTopoTuneModel, tuning.cc v2.28.3-1): the graph's per-channel speed x ch, then the
/// protocol factors and caps, then bus -> algorithm bandwidth. Per-channel caps (LL128, tree)
/// scale with ch; llMaxBw caps the whole communicator. The table (Model::bandwidth) is this at
/// ch = graph channels.
double algo_bandwidth(const Model& m, Func f, Algo a, Proto p, int ch) {
  const System& s = m.sys;
  const int cc = s.compute_capability;
  const Graph& gr = m.graph[a];
  const int ai = arch_index(cc);
  const int idx2 = s.nodes <= 2 ? s.nodes - 1 : 2;
  const int idx1 = s.nodes == 1 ? ai : (s.amd_cpu ? 1 : 0);
  const double ll_max_bw = kLlMaxBw[idx1][idx2];
  const double tree_max = kPerChMaxTreeBw[ai][idx2];
  const double ring_ll128_max = kPerChMaxRingLL128Bw[ai][idx2];
  const double tree_ll128_max = kPerChMaxTreeLL128Bw[ai][idx2];
  const double ppn = double(s.ranks) / s.nodes;
  const int nsteps = f == kAllReduce                            ? 2 * (s.ranks - 1)
                     : (f == kReduceScatter || f == kAllGather) ? s.ranks - 1
                                                                : s.ranks;
  const bool collnet = a == kCollNetDirect || a == kCollNetChain;
  const bool ag_rs = f == kAllGather || f == kReduceScatter;
  double bw = s.nodes <= 2 || collnet ? gr.bw_intra : gr.bw_inter;
  if (a == kNvls || a == kNvlsTree) bw = nvls_channel_bw(m, f, a);
  double bus = ch * bw;
  if (a == kRing && p == kLL) bus = std::min(ll_max_bw, bus * .5);
  if (a == kRing && p == kLL128) bus = std::min(bus * 0.92, ch * ring_ll128_max);
  if (a == kTree && f == kAllReduce) bus = std::min(bus * .92, ch * tree_max);
  if (a == kTree && p == kLL) bus = std::min(bus * 1.0 / 3.8, ll_max_bw);
  if (a == kTree && p == kLL128) bus = std::min(bus * (s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), ch * tree_ll128_max);
  // comm->maxTreePattern == NCCL_TOPO_PATTERN_TREE: the search makes a node of one GPU's tree
  // graph a TREE (search.cc ncclTopoCompute: "if (ngpus == 1) ... pattern = TREE"), and
  // AllGather3 takes the max pattern over ranks, so one such node suffices (init.cc); the
  // balanced-tree search does not fail on the NVSwitch / rail nodes modelled here otherwise.
  if (a == kTree && min_local_ranks(s) == 1 && s.nodes > 1) bus *= kTreePatternFactor;
  if (a == kPat) bus *= kPatFactor;
  if (collnet && p != kSimple) bus = 0;
  if (a == kCollNetDirect && p == kSimple) {
    if (ag_rs) {
      bus = ppn * std::min(gr.bw_intra, gr.bw_inter * kCollNetAgRsInterFactor);
    } else {
      double factor = ppn / gr.channels;  // GPU/NIC ratio
      factor -= (factor - 1) / 2;
      bus /= factor;
      if (cc >= 90) bus *= .85;
    }
  }
  // NVLS / CollNetDirect all-gather and reduce-scatter across nodes need the CollNet plugin's
  // iallgather / ireducescatter, CollNet enabled and 1:1 GPU:NIC (localRanks <= collNetHeadsNum,
  // the NVLS heads when NVLS is up: coll_net.cc).
  if ((a == kNvls || a == kCollNetDirect) && p == kSimple && ag_rs && s.nodes > 1) {
    const int heads = m.graph[kNvls].channels > 0 ? m.graph[kNvls].channels : m.graph[kCollNetDirect].channels;
    // tuning.cc: off when any node's localRanks exceeds the heads
    if (!s.collnet || !s.collnet_allgather || max_local_ranks(s) > heads) bus = 0;
  }
  // bus bandwidth -> algorithm bandwidth (NVLS / NVLSTree by the ring's ratio from v2.28.3-1;
  // v2.23.4-1: 5/6)
  if (!(a != kRing && ag_rs)) {
    double ratio = 1.0;
    if (a == kRing || a == kNvls || a == kNvlsTree)
      ratio *= double(s.ranks) / nsteps;
    else
      ratio *= .5;
    bus *= ratio;
  }
  return bus;
}

}  // namespace

const char* algo_name(Algo a) {
  switch (a) {
    case kTree:
      return "tree";
    case kRing:
      return "ring";
    case kCollNetDirect:
      return "collnet_direct";
    case kCollNetChain:
      return "collnet_chain";
    case kNvls:
      return "nvls";
    case kNvlsTree:
      return "nvls_tree";
    case kPat:
      return "pat";
    default:
      return "?";
  }
}

const char* proto_name(Proto p) {
  switch (p) {
    case kLL:
      return "LL";
    case kLL128:
      return "LL128";
    case kSimple:
      return "Simple";
    default:
      return "?";
  }
}

double nvlink_link_bw(int gen) {
  // src/graph/topo.h v2.28.3-1: SM60 18.0, SM70/SM80_NVLINK_BW 20.0, SM90 20.6, SM100 40.1.
  switch (gen) {
    case 0:
      return 0;
    case 1:
      return 18.0;  // SM60_NVLINK_BW
    case 2:
    case 3:
      return 20.0;
    case 4:
      return 20.6;
    default:
      return 40.1;
  }
}

double nvls_efficiency(int cc) { return kNvlsEfficiency[arch_index(cc)]; }

int nvls_heads(int gpus, int nics) {
  const int h = std::max(0, std::min(gpus, kMaxNvlsArity));
  return nics > 0 ? std::min(h, nics) : h;
}

int nvls_heads(const System& s) {
  const int nics = s.nodes > 1 ? s.nics : 0;
  if (s.shapes.empty()) return nvls_heads(s.ranks / std::max(1, s.nodes), nics);
  int h = kMaxNvlsArity;
  for (const auto& n : s.shapes) h = std::min(h, nvls_heads(n.gpus, s.nodes > 1 ? n.nics : 0));
  return h;
}

int collnet_heads(const System& s) {
  if (s.shapes.empty()) return std::max(1, std::min(s.ranks / std::max(1, s.nodes), s.nics));
  int h = s.shapes.front().gpus;
  for (const auto& n : s.shapes) h = std::min({h, n.gpus, n.nics});
  return std::max(1, h);
}

double nvls_tree_busbw(const Model& m) {
  if (m.sys.nodes < 2) return 0;
  return m.graph[kNvlsTree].channels * nvls_channel_bw(m, kAllReduce, kNvlsTree);
}

int compute_capability(int gen) {
  switch (gen) {
    case 2:
      return 70;
    case 3:
      return 80;
    case 4:
      return 90;
    case 5:
      return 100;
    default:
      return gen > 5 ? 100 : 80;
  }
}

int min_local_ranks(const System& s) {
  if (s.shapes.empty()) return s.ranks / std::max(1, s.nodes);
  int g = s.shapes.front().gpus;
  for (const auto& n : s.shapes) g = std::min(g, n.gpus);
  return g;
}

int max_local_ranks(const System& s) {
  if (s.shapes.empty()) return s.ranks / std::max(1, s.nodes);
  int g = s.shapes.front().gpus;
  for (const auto& n : s.shapes) g = std::max(g, n.gpus);
  return g;
}

namespace {

/// The graphs one node of `g` GPUs and `nics` NICs finds (ncclTopoCompute for the ring, tree,
/// CollNet and NVLS patterns: search.cc v2.28.3-1), before AllGather3 aligns the ranks.
std::array<Graph, kNumAlgos> node_graphs(const System& s, int g, int nics) {
  std::array<Graph, kNumAlgos> graph{};
  const int cc = s.compute_capability;
  const bool multi = s.nodes > 1;
  const double intra_cap = s.nvlink ? s.nvlink_bw : s.pci_bw;  // per GPU and direction
  // ncclTopoSearchInit: maxBw = best GPU->NET (or GPU->GPU) path, totalBw = a GPU's NVLink (or
  // PCIe) total.
  const double max_bw = g == 1 && !multi ? 5000.0 : multi ? std::min(s.pci_bw, s.nic_bw) : intra_cap;
  const double total_bw = g == 1 && !multi ? 5000.0 : std::max(s.nvlink ? s.nvlink_bw : 0.0, s.pci_bw);
  const auto& sp = speeds(cc, multi);

  // Ring (and, modelled alike, the balanced tree and CollNet chain): one channel crosses every GPU
  // of the node once (NVLink out/in), and across nodes leaves and enters through one NIC.
  // NVLink (or PCIe between GPUs) at bwIntra, the NIC and its PCIe path at bwInter
  // (ncclTopoFollowPath: GPU / NVSwitch to GPU / NVSwitch is intra, anything with a NET inter).
  auto tree_fits = [&](double intra_v, double inter_v) {
    int ch = kMaxChannels / 2;  // ringGraph->maxChannels = MAXCHANNELS/2 (init.cc)
    if (g > 1) ch = std::min(ch, multi ? floor_div(intra_cap * g / (g - 1.0), intra_v) : floor_div(intra_cap, intra_v));
    if (multi) {
      const int per_nic =
          std::min(floor_div(s.nic_bw, inter_v), floor_div(s.pci_bw * std::max(1.0, double(g) / nics), inter_v));
      ch = std::min(ch, nics * per_nic);
    }
    return ch;
  };
  auto ring_fits = [&](double v) { return tree_fits(v, v); };
  SearchResult ring;
  if (s.ranks > 1) ring = search(sp, max_bw, total_bw, 1, kMaxChannels / 2, ring_fits, true, cc, true);
  Graph rg{ring.channels, ring.bw, ring.bw};
  graph[kRing] = rg;
  // treeGraph: min = max = ring channels (init.cc); same paths on NVSwitch, so pass 1 ends at the
  // ring's speed; pass 2 then raises the tree's bwIntra (raise_intra). NVLS's pass 2 is below; the
  // CollNet graphs' (the same branch as the tree's) is not ported: they keep bwIntra = bwInter.
  graph[kTree] = rg;
  if (rg.channels > 0) graph[kTree].bw_intra = raise_intra(sp, rg, tree_fits);
  graph[kPat] = graph[kTree];  // PAT uses the tree graph (init.cc graphs[] table)

  // NVLS: one channel per head GPU; the head pulls 2 x bw from the NVSwitch, every other GPU bw
  // (ncclTopoSearchTryNvls). Single node: heads = all GPUs; multi-node: one head per NIC. A node
  // of <= 2 GPUs has no NVLS (ncclNvlsInit: gpuCount <= 2), so its NVLS graph has no channels.
  const bool nvls_ok = s.nvls && s.nvlink && s.nvswitch && cc >= 90 && g > 2;
  if (nvls_ok) {
    const int heads = nvls_heads(g, multi ? nics : 0);
    auto intra_fits = [&](double v) { return (heads + 1) * v <= intra_cap + kEps ? heads : 0; };
    const double tot = total_bw * g / (g - 1.0);
    if (!multi) {
      auto r = search(speeds(cc, false), intra_cap, tot, heads, heads, intra_fits, false, cc, false);
      // pass 2 (NVLS): bwInter rises while below 2 x bwIntra; a single node has no inter limit
      double inter = r.bw;
      for (double v : speeds(cc, false))
        if (v > inter && inter < 2 * r.bw) inter = std::min(v, std::max(inter, v));
      graph[kNvls] = {r.channels, r.bw, std::max(inter, r.bw)};
    } else {
      auto both = [&](double v) { return v <= std::min(s.nic_bw, s.pci_bw) + kEps ? intra_fits(v) : 0; };
      auto r = search(sp, max_bw, tot, 1, heads, both, false, cc, false);
      double inter = r.bw;
      for (auto it = sp.rbegin(); it != sp.rend(); ++it)  // raise bwInter one speed at a time
        if (*it > inter + kEps && inter < 2 * r.bw && *it <= std::min(s.nic_bw, s.pci_bw) + kEps) inter = *it;
      graph[kNvls] = {r.channels, r.bw, inter};
    }
    graph[kNvlsTree] = graph[kNvls];
  }
  // CollNet (SHARP): Direct has one head per NIC (like NVLS), at most NCCL_MAX_DIRECT_ARITY + 1
  // (search.cc ncclTopoCompute); Chain follows the ring's channels.
  if (s.collnet && multi) {
    const int heads = std::min({nics, g, kMaxDirectArity + 1});
    double v = 0;
    for (double x : sp)
      if (x <= std::min(s.nic_bw, s.pci_bw) + kEps) {
        v = x;
        break;
      }
    graph[kCollNetDirect] = {heads, v, v};
    graph[kCollNetChain] = rg;
  }
  return graph;
}

}  // namespace

// Kept in one piece (about 150 lines) because it follows NCCL's ncclTopoTuneModel (tuning.cc)
// block by block, so that it can be read against that source side by side.
Model build_model(const System& s) {
  if (s.ranks < 1 || s.nodes < 1 || (s.shapes.empty() && s.ranks % s.nodes != 0))
    throw Error("NCCL model: " + std::to_string(s.ranks) + " ranks on " + std::to_string(s.nodes) +
                " nodes (ranks must be a positive multiple of nodes)");
  const int g_min = min_local_ranks(s), g_max = max_local_ranks(s);
  if (!s.shapes.empty() && (g_min < 1 || g_min * s.nodes > s.ranks || g_max * s.nodes < s.ranks))
    throw Error("NCCL model: nodes of " + std::to_string(g_min) + " to " + std::to_string(g_max) +
                " GPUs cannot hold " + std::to_string(s.ranks) + " ranks on " + std::to_string(s.nodes) + " nodes");
  Model m;
  m.sys = s;
  const int cc = s.compute_capability;
  const bool multi = s.nodes > 1;

  // Every node searches its own graphs; AllGather3 aligns the ranks (init.cc v2.28.3-1):
  // nChannels, bwIntra and bwInter take the minimum over ranks (typeIntra / typeInter the max:
  // the same link types here), and a graph some node could not build (0 channels: e.g. NVLS on
  // a node of <= 2 GPUs) turns its algorithm off for all (nvlsSupport = 0, collnetEnable = 0).
  const std::vector<NodeShape> shapes = s.shapes.empty() ? std::vector<NodeShape>{{g_min, s.nics}} : s.shapes;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto gr = node_graphs(s, shapes[i].gpus, shapes[i].nics);
    for (int a = 0; a < kNumAlgos; ++a) {
      if (i == 0) {
        m.graph[a] = gr[a];
        continue;
      }
      m.graph[a].channels = std::min(m.graph[a].channels, gr[a].channels);
      m.graph[a].bw_intra = std::min(m.graph[a].bw_intra, gr[a].bw_intra);
      m.graph[a].bw_inter = std::min(m.graph[a].bw_inter, gr[a].bw_inter);
    }
  }
  for (auto& gr : m.graph)
    if (gr.channels == 0) gr = Graph{};
  // comm->nChannels = min(tree, ring) after the reduction; the tree has the ring's channels here.
  const Graph rg = m.graph[kRing];
  // NCCL_MAX_CTAS / NCCL_MIN_CTAS (config.maxCTAs / minCTAs, init.cc v2.28.3-1 envConfigOverride:
  // <= 0 ignored, defaults MAXCHANNELS / 1, each at most MAXCHANNELS, and minCTAs above maxCTAs
  // lowered to it, "set both to maxCTAs").
  const int max_ctas = s.max_ctas > 0 ? std::min(s.max_ctas, kMaxChannels) : kMaxChannels;
  const int min_ctas = std::min(max_ctas, s.min_ctas > 0 ? std::min(s.min_ctas, kMaxChannels) : 1);
  if (m.graph[kNvls].channels > 0) {
    // ncclNvlsInit (transport/nvls.cc v2.28.3-1): the architecture's CTAs or NCCL_NVLS_NCHANNELS
    // (config.nvlsCTAs), then max(minCTAs, min(maxCTAs, channels)).
    const int arch = cc >= 100 ? (multi ? kNvlsChannelsSm100 : kNvlsChannelsSm100Nvl) : kNvlsChannelsSm90;
    m.nvls_channels = std::max(min_ctas, std::min(max_ctas, s.nvls_nchannels > 0 ? s.nvls_nchannels : arch));
  }

  // ncclTopoPostset (connect.cc v2.28.3-1): channels doubled, then 4 per search channel on
  // Hopper and later (minCompCap >= 90; v2.23.4-1: == 90) across nodes above 45 GB/s. v2.28.3-1
  // no longer raises nChannels to nvlsChannels (v2.23.4-1 did): NVLS runs on its own CTAs.
  m.channels = std::min(kMaxChannels, 2 * std::max(1, rg.channels));
  if (cc >= 90 && multi && rg.bw_intra > 45.0 && m.channels < 16) m.channels = std::min(kMaxChannels, 2 * m.channels);
  // "Honor NCCL_MIN_NRINGS/NCCL_MAX_NRINGS" (ncclTopoPostset): nChannels = min(ncclMaxNchannels(),
  // nChannels, config.maxCTAs); ncclMaxNchannels() is NCCL_MAX_NCHANNELS within [1, MAXCHANNELS].
  // Then copyChannels up to max(ncclMinNchannels(), config.minCTAs) ("combining max, then min, to
  // only use the first channels, then duplicate them"): ncclMinNchannels() is NCCL_MIN_NCHANNELS
  // within [0, MAXCHANNELS], and the copies are not capped again, by maxCTAs either.
  const int max_nch = s.max_nchannels > 0 ? std::min(s.max_nchannels, kMaxChannels) : kMaxChannels;
  const int min_nch = std::clamp(s.min_nchannels, 0, kMaxChannels);
  m.channels = std::min({m.channels, max_nch, max_ctas});
  m.channels = std::max({m.channels, min_nch, min_ctas});

  // Threads and thread thresholds (tuning.cc ncclTopoTuneModel tail).
  const int simple_def = rg.bw_intra * rg.channels <= kPciBw ? 256 : kSimpleMaxNthreads;
  for (int a = 0; a < kNumAlgos; ++a) {
    m.max_threads[a][kLL] = kLLMaxNthreads;
    m.max_threads[a][kLL128] = kLL128MaxNthreads;
    m.max_threads[a][kSimple] = a == kRing ? simple_def : a == kTree ? kSimpleMaxNthreads : kMaxNthreads;
    m.thread_threshold[a][kLL] = kLLThreadThreshold;
    m.thread_threshold[a][kLL128] = kLL128ThreadThreshold;
    m.thread_threshold[a][kSimple] = kSimpleThreadThreshold;
  }
  // PAT has no maxThreads entry (tuning.cc sets none; comm is zeroed), so topoGetAlgoInfo's channel
  // loop (nBytes < nc x nt x threshold) never sheds a PAT channel: it runs on comm->nChannels.
  for (int p = 0; p < kNumProtos; ++p) m.max_threads[kPat][p] = 0;
  m.thread_threshold[kRing][kLL] *= s.ranks;
  m.thread_threshold[kCollNetDirect][kSimple] = m.thread_threshold[kCollNetChain][kSimple] = 512;

  if (s.ranks <= 1) return m;

  // --- ncclTopoTuneModel (tuning.cc v2.28.3-1) ---
  const double ppn = double(s.ranks) / s.nodes;
  const int intra_hw = s.nvlink ? kHwNvlink : kHwPci;
  const int hw = s.nodes == 1 ? intra_hw : kHwNet;
  const double net_overhead = s.amd_cpu ? 2.0 : 1.0;  // getNetOverhead (us)

  for (int f = 0; f < kNumFuncs; ++f) {
    const int nsteps = f == kAllReduce                            ? 2 * (s.ranks - 1)
                       : (f == kReduceScatter || f == kAllGather) ? s.ranks - 1
                                                                  : s.ranks;
    for (int a = 0; a < kNumAlgos; ++a) {
      if ((f == kBroadcast || f == kReduce) && a != kRing) continue;
      if ((f == kReduceScatter || f == kAllGather) && a != kPat && a != kRing && a != kNvls && a != kCollNetDirect)
        continue;
      if (f == kAllReduce && a == kPat) continue;
      const Graph& gr = m.graph[a];
      for (int p = 0; p < kNumProtos; ++p) {
        if ((a == kNvls || a == kNvlsTree) && p != kSimple) continue;
        // ncclPatEnable: SM60 or later (CUDA atomics), one GPU per node
        if (a == kPat && (p != kSimple || cc < 60 || s.nodes != s.ranks)) continue;
        if ((a == kNvls || a == kNvlsTree) && m.graph[a].channels < 2) continue;  // "needs at least 2 channels"
        m.bandwidth[f][a][p] = algo_bandwidth(m, Func(f), Algo(a), Proto(p), gr.channels);

        double lat = kBaseLat[a][p];
        double intra_lat = kHwLat[intra_hw][a][p];
        // The measured LL hop is a ring's inside one NVLink domain (nccl-tests#123: one thread
        // drives the node's GPUs with `-g N`, its launches are the slope; docs/validation-busbw.md
        // "The LL hop"). Across nodes every GPU has its own process and thread, so a multi-node
        // ring keeps NCCL's hop. The tree's intra-node chain keeps NCCL's 0.6 us too, which gives
        // 8 x H100 tree/LL over 2 and 4 nodes 25.2 and 35.2 us against 24.9 and 34.6 measured
        // (nccl-tests#309, NCCL 2.26.2); 2.0 us would give 44.8 and 54.8.
        if (s.ll_nvlink_hop >= 0 && p == kLL && intra_hw == kHwNvlink && a == kRing && s.nodes == 1)
          intra_lat = s.ll_nvlink_hop;
        // with 1 GPU per node latencies are fully exposed: the tree's network latency
        double inter_lat = (ppn == 1 ? kHwLat[kHwNet][kTree][p] : kHwLat[kHwNet][a][p]) + s.net_latency;
        if (p == kSimple) inter_lat += s.net_latency;  // flush
        if (a == kRing) {
          double l = hw == kHwNvlink ? intra_lat : kHwLat[hw][a][p];
          if (f == kReduce || f == kBroadcast) {
            lat += l;  // sameChannels graphs (NVSwitch / rail rings)
          } else {
            double ovh = 0;  // inter-node rings launch nsteps x net overhead
            if (s.nodes > 1) ovh = net_overhead * (p == kSimple ? 3 : 1);
            intra_lat = std::max(intra_lat, ovh);
            const int inter_steps = s.nodes == 1 ? 0 : f == kAllReduce ? 2 * (s.nodes - 1) : s.nodes - 1;
            lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
          }
          if (s.nodes == 1) inter_lat = intra_lat;  // no network hop
        } else if (a == kTree) {
          if (f == kAllReduce) lat += 2 * ((s.ranks / s.nodes - 1) * intra_lat + log2i(s.nodes) * inter_lat);
        } else if (a == kCollNetDirect) {
          lat += 2 * (std::min(1, s.ranks / s.nodes - 1) * intra_lat + (s.ranks / s.nodes - 1) * 0.4) + inter_lat;
        } else if (a == kCollNetChain) {
          lat += 2 * (s.ranks / s.nodes - 1) * intra_lat + inter_lat;
        } else if (a == kNvls) {
          lat = intra_lat;
          if (s.nodes > 1) lat += inter_lat;
        } else if (a == kNvlsTree) {
          lat += intra_lat + 2 * log2i(s.nodes) * inter_lat;
        } else if (a == kPat) {
          lat += log2i(s.nodes) * (inter_lat / 3.5) + s.ranks * 2.8;
        }
        m.latency[f][a][p] = lat;
        m.hop_latency[f][a][p][0] = intra_lat;
        m.hop_latency[f][a][p][1] = inter_lat;
      }
    }
  }

  // Enable / disable (tuning.cc v2.28.3-1): LL128 on NVLink-connected GPUs from Volta on (the
  // typeIntra <= PATH_NVB and typeInter <= PATH_PXN conditions, "minCompCap < 70" off; v2.23.4-1
  // listed 70 / 80 / 90 only, so Blackwell had no LL128); NVLSTree only across nodes; CollNet and
  // multi-node NVLS only with CollNet enabled; CollNetDirect only on an NVSwitch system (nvsCount).
  // Then enqueue.cc updateCollCostTable (v2.28.3-1): CollNetDirect and (new) CollNetChain only
  // up to NCCL_MAX_DIRECT_ARITY + 1 = 8 GPUs a node; NVLS / NVLSTree for functions other than
  // all-reduce only up to NCCL_MAX_NVLS_ARITY = 32 GPUs a node (new). Multi-node NVLS all-gather /
  // reduce-scatter moved from an enqueue.cc "single-node only" rule (v2.23.4-1) to the CollNet
  // plugin condition in algo_bandwidth.
  const bool ll128 = cc >= 70 && s.nvlink;
  for (int f = 0; f < kNumFuncs; ++f)
    for (int a = 0; a < kNumAlgos; ++a)
      for (int p = 0; p < kNumProtos; ++p) {
        bool off = (p == kLL128 && !ll128) || (a == kNvlsTree && s.nodes == 1) ||
                   (!s.collnet && (a == kCollNetDirect || a == kCollNetChain || (a == kNvls && s.nodes > 1))) ||
                   (a == kCollNetDirect && !s.nvswitch) || m.graph[a].channels == 0;
        // comm->maxLocalRanks for CollNet; NVLS tests the calling rank's own localRanks, so on
        // unequal nodes the largest node's ranks leave it (taken for all here).
        if ((a == kCollNetDirect || a == kCollNetChain) && g_max > kMaxDirectArity + 1) off = true;
        if ((a == kNvls || a == kNvlsTree) && f != kAllReduce && g_max > kMaxNvlsArity) off = true;
        if (off) m.bandwidth[f][a][p] = 0;
      }
  return m;
}

double bandwidth_on(const Model& m, Func f, Algo a, Proto p, int channels) {
  if (m.sys.ranks <= 1 || m.bandwidth[f][a][p] <= 0) return 0;
  return algo_bandwidth(m, f, a, p, std::max(1, channels));
}

bool time_parts(const Model& m, Func f, Algo a, Proto p, double bytes, double* latency_us, double* bandwidth) {
  double bw = m.bandwidth[f][a][p];
  double lat = m.latency[f][a][p];
  if (bw <= 0) return false;
  const long n64 = static_cast<long>(bytes) >> 6;
  const int log_size = n64 > 0 ? log2i(n64) : -1;
  if (a == kTree && f == kAllReduce && log_size >= 0 && log_size < 23) bw *= kTreeCorrection[p][log_size];
  // "Plateau effect of ring" (tuning.cc ncclTopoGetAlgoTime)
  if (a == kRing && p == kSimple && m.sys.nodes > 1 && f == kAllReduce &&
      bytes / (m.channels * double(m.sys.ranks)) >= 64)
    lat *= m.sys.compute_capability < 80 ? 1.9 : 1.4;
  *latency_us = lat;
  *bandwidth = bw;
  return true;
}

double predicted_time(const Model& m, Func f, Algo a, Proto p, double bytes) {
  if (m.sys.ranks <= 1) return 0;
  double lat = 0, bw = 0;
  if (!time_parts(m, f, a, p, bytes, &lat, &bw)) return -1;
  return lat + bytes / (1000 * bw);
}

Choice choose(const Model& m, Func f, double bytes, const Allowed& allowed, const Call& call) {
  Choice c;
  if (m.sys.ranks <= 1) {
    c.valid = true;
    return c;
  }
  constexpr double kFp8RingFactor = 1024.0;  // enqueue.cc v2.28.3-1 updateCollCostTable
  double best = 3.6e9, best_time = 0;
  for (int a = 0; a < kNumAlgos; ++a)
    for (int p = 0; p < kNumProtos; ++p) {
      if (!allowed.algo[a] || !allowed.proto[p]) continue;
      if (a == kPat && f == kReduceScatter && call.scaling_op) continue;
      const double t = predicted_time(m, f, Algo(a), Proto(p), bytes);
      const double cost = t * (call.fp8 && a == kRing && m.sys.ranks > 8 ? kFp8RingFactor : 1.0);
      if (t >= 0 && cost < best) {
        best = cost;
        best_time = t;
        c.algo = Algo(a);
        c.proto = Proto(p);
        c.valid = true;
      } else if (t >= 0) {
        c.over_time_cap = true;  // runnable, but at the cap or above: stays so only if none is below
      }
    }
  if (!c.valid) return c;
  c.over_time_cap = false;
  c.time = best_time;
  // Channels (enqueue.cc topoGetAlgoInfo v2.28.3-1): NVLS uses nvlsChannels; ring / tree shed
  // channels while the message is below channels x threads x thread threshold (PAT never: no
  // maxThreads entry).
  int nc = m.channels;
  const long nt = m.max_threads[c.algo][c.proto];
  long threshold = m.thread_threshold[c.algo][c.proto];
  if (c.algo == kNvls || c.algo == kNvlsTree) {
    // v2.28.3-1: NVLS across nodes (with CollNet) on min(nvlsChannels, nChannels)
    nc = c.algo == kNvls && m.sys.nodes > 1 ? std::min(m.nvls_channels, m.channels) : m.nvls_channels;
  } else if (c.algo == kCollNetDirect) {
    const int heads = std::max(1, m.graph[kCollNetDirect].channels);
    int sw = 16;
    bool flag = true;
    while (sw >= 1 && flag) {
      while ((flag = bytes < double(nc) * nt * heads * threshold) && nc > sw) {
        if (nc == sw + sw / 2) threshold /= 2;
        --nc;
      }
      sw /= 2;
    }
  } else {
    while (bytes < double(nc) * nt * threshold && nc >= 2) --nc;
  }
  c.channels = std::max(1, nc);
  return c;
}

long buff_size(Proto p) { return p == kLL ? kLLBuffSize : p == kLL128 ? kLL128BuffSize : kSimpleBuffSize; }

double channel_part(Func f, Proto p, int ranks, double bytes, int channels) {
  // scheduleCollTasksToPlan (enqueue.cc v2.28.3-1), the non-CollNet branch, for one task starting
  // at channel 0 with no traffic before it (channelId 0, currentTraffic 0).
  if (bytes <= 0) return 0;
  auto div_up = [](long a, long b) { return (a + b - 1) / b; };
  long per_byte = f == kAllReduce ? 2 : (f == kAllGather || f == kReduceScatter) ? std::max(1, ranks) : 1;
  if (p == kLL) per_byte *= 4;  // ncclPrepareTasks: trafficBytes x 4 for LL; the cell loop likewise
  const long n = static_cast<long>(std::ceil(bytes));
  const long nch = std::max(1, channels);
  const long traffic = std::max(kMinTrafficPerChannel, n * per_byte);
  const long per_channel = std::max(kMinTrafficPerChannel, traffic / nch);
  const long cell = div_up(div_up(kMinTrafficPerChannel, per_byte), 16) * 16;
  const long cells = div_up(n, cell);
  long cells_per_channel = std::min(cells, div_up(per_channel, cell * per_byte));
  const long lo = nch == 1 ? cells : std::min(cells, div_up(per_channel, cell * per_byte));
  long mid_channels = (cells - lo) / cells_per_channel;
  long hi = (cells - lo) % cells_per_channel;
  if (nch < 1 + mid_channels + (hi != 0 ? 1 : 0)) {  // overflowed the channels: the rest spread evenly
    mid_channels = nch - 2;
    cells_per_channel = (cells - lo) / (mid_channels + 1);
    hi = cells_per_channel + (cells - lo) % (mid_channels + 1);
  }
  const long most = std::max({lo, hi, mid_channels > 0 ? cells_per_channel : 0L});
  return std::min(bytes, double(most * cell));
}

double coll_chunk(const Model& m, Func, Algo a, Proto p, double part) {
  // calcCollChunking (enqueue.cc v2.28.3-1) with nChannels = 1: chunkSteps 1 outside the Simple ring.
  const long step = buff_size(p) / kNcclSteps;
  double chunk = p == kLL ? step / 2 : p == kLL128 ? step / kLL128LineElems * kLL128DataElems : step;
  if (a == kNvlsTree || a == kNvls) {
    chunk = nvls_chunk(m, part, a == kNvlsTree, 1);  // called per channel, nChannels = 1
  } else if (a == kTree && p == kLL128) {
    // NCCL's float arithmetic, its integer division of the part by the chunk
    const float ppn = m.sys.ranks / static_cast<float>(m.sys.nodes);
    const float nsteps = static_cast<float>(1 + log2i(m.sys.nodes) + 0.1 * ppn);
    const auto ratio = [&] { return static_cast<float>(std::floor(part / chunk)); };
    while (ratio() < nsteps * 64 / ppn && chunk > 131072) chunk = std::floor(chunk / 2);
    while (ratio() < nsteps * 16 / ppn && chunk > 32768) chunk = std::floor(chunk / 2);
  }
  const double grain = double(kGrain[p]);
  return std::max(grain, std::floor(chunk / grain) * grain);
}

namespace {
bool per_rank_count(Func f) { return f == kAllGather || f == kReduceScatter; }
}  // namespace

int pipeline_chunks(const Model& m, Func f, Algo a, Proto p, double bytes, int channels) {
  // All-gather / reduce-scatter: NCCL's count is a rank's (task->count: S / ranks), and
  // calcCollChunking sees the channel's part x ncclFuncMaxSendRecvCount = x ranks (enqueue.cc
  // v2.28.3-1, globalBytesPerElement; include/enqueue.h).
  const int ranks = std::max(1, m.sys.ranks);
  const double count = per_rank_count(f) ? bytes / ranks : bytes;
  const double part = channel_part(f, p, ranks, count, channels);
  if (part <= 0) return 1;
  const double global = per_rank_count(f) ? part * ranks : part;
  // NVLSTree all-reduce loops over nHeads x chunkCount (all_reduce.h); NVLS all-gather /
  // reduce-scatter of one node over the rank's part in chunkCount (all_gather.h / reduce_scatter.h
  // v2.28.3-1, RunWorkColl NVLS oneNode: elemOffset += chunkCount).
  const double per_loop = a == kNvlsTree ? std::max(1, m.graph[kNvls].channels) : 1;
  const double chunks = std::ceil(part / (coll_chunk(m, f, a, p, global) * per_loop));
  return static_cast<int>(std::clamp(chunks, 1.0, 1e9));
}

double nvls_chunk(const Model& m, double bytes, bool tree, int channels) {
  // calcCollChunking (enqueue.cc v2.23.4-1 .. v2.28.3-1, unchanged), concurrentOps = channels x heads.
  const double ops = double(std::max(1, channels)) * std::max(1, m.graph[kNvls].channels);
  double c = kNvlsChunkSize;
  if (!tree) {
    if (m.sys.nodes > 1 && m.bandwidth[kAllReduce][kNvls][kSimple] < 150) c = std::min(c, 32768.0);
    if (bytes < 64 * ops * c && c > 65536) c = 65536;
    if (bytes < 8 * ops * c && c > 32768) c = 32768;
    if (bytes < 2 * ops * c && c > 16384) c = 16384;
  } else {
    if (m.sys.nodes >= 4) c = std::min(c, 65536.0);  // NCCL_NVLSTREE_MAX_CHUNKSIZE default
    if (bytes < 32 * ops * c && c > 262144) c = 262144;
    if (bytes < 16 * ops * c && c > 131072) c = 131072;
    if (bytes < 4 * ops * c && c > 65536) c = 65536;
    if (bytes < 1 * ops * c && c > 32768) c = 32768;
  }
  return c;
}

double nvls_first_round(const Model& m, Func f, Algo a, double bytes, int ctas) {
  if (bytes <= 0) return 0;
  const int nch = std::max(1, ctas);
  const double heads = std::max(1, m.graph[kNvls].channels);
  double chunk;
  if (a == kNvls && m.sys.nodes > 1) {
    // scheduleCollTasksToPlan (enqueue.cc v2.28.3-1), task->isCollnet: calcCollChunking(nChannels
    // = nMaxChannels, the whole message); the kernel's loopSize is nChannels x nHeads x chunk.
    chunk = nvls_chunk(m, bytes, false, nch);
  } else if (per_rank_count(f)) {
    // One node: calcCollChunking(nChannels = 1) per channel on the rank's part x ranks; each
    // loop moves a chunk of every rank's part (heads = ranks on one node): heads x chunk of S.
    const int ranks = std::max(1, m.sys.ranks);
    chunk = coll_chunk(m, f, kNvls, kSimple, ranks * channel_part(f, kSimple, ranks, bytes / ranks, nch));
  } else {
    // The continuous-byte distribution: calcCollChunking(nChannels = 1, the channel's part) per
    // channel; the kernel loops over its part in nHeads x chunk.
    chunk = nvls_chunk(m, channel_part(kAllReduce, kSimple, m.sys.ranks, bytes, nch), a == kNvlsTree, 1);
  }
  return std::min(bytes, nch * heads * chunk);
}

int nvls_warp_groups(Func f, Algo a, int nodes) {
  if (f == kAllReduce) return nodes > 1 || a == kNvlsTree ? 4 : 3;
  if (f == kAllGather || f == kReduceScatter) return nodes > 1 ? 3 : 2;
  return 0;
}

}  // namespace aidcsim::collectives::nccl
