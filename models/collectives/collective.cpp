#include "models/collectives/collective.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "models/collectives/algorithm_registry.hpp"
#include "models/collectives/estimate.hpp"
#include "models/collectives/flow_plan.hpp"
#include "models/common/errors.hpp"
#include "models/compute/gpu_spec.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::collectives {

using detail::by_domain;

const char* algorithm_name(Algorithm a) { return detail::algorithm_entry(a).name; }

namespace {

std::string squash(const std::string& s) {
  std::string out;
  for (char ch : s)
    if (ch != '_' && ch != '-' && ch != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

Algorithm algorithm_from(const std::string& name) {
  const std::string n = squash(name);
  for (const auto& e : detail::algorithm_registry()) {
    if (n == squash(e.name)) return e.id;
    for (const char* alias : e.aliases)
      if (n == squash(alias)) return e.id;
  }
  throw Error("unknown collective algorithm '" + name + "' (one of: " + detail::algorithm_names() + ")");
}

const char* type_name(DataType t) {
  switch (t) {
    case DataType::Int8:
      return "int8";
    case DataType::Uint8:
      return "uint8";
    case DataType::Int32:
      return "int32";
    case DataType::Uint32:
      return "uint32";
    case DataType::Int64:
      return "int64";
    case DataType::Uint64:
      return "uint64";
    case DataType::Half:
      return "half";
    case DataType::Float:
      return "float";
    case DataType::Double:
      return "double";
    case DataType::Bfloat16:
      return "bfloat16";
    case DataType::F8e4m3:
      return "f8e4m3";
    case DataType::F8e5m2:
      return "f8e5m2";
  }
  return "?";
}

int type_bytes(DataType t) {
  switch (t) {
    case DataType::Int8:
    case DataType::Uint8:
    case DataType::F8e4m3:
    case DataType::F8e5m2:
      return 1;
    case DataType::Half:
    case DataType::Bfloat16:
      return 2;
    case DataType::Int64:
    case DataType::Uint64:
    case DataType::Double:
      return 8;
    default:
      return 4;
  }
}

DataType type_from(const std::string& name) {
  const std::string n = squash(name);
  for (DataType t :
       {DataType::Int8, DataType::Uint8, DataType::Int32, DataType::Uint32, DataType::Int64, DataType::Uint64,
        DataType::Half, DataType::Float, DataType::Double, DataType::Bfloat16, DataType::F8e4m3, DataType::F8e5m2})
    if (n == type_name(t)) return t;
  if (n == "char") return DataType::Int8;
  if (n == "int") return DataType::Int32;
  if (n == "fp16" || n == "float16") return DataType::Half;
  if (n == "fp32" || n == "float32") return DataType::Float;
  if (n == "fp64" || n == "float64") return DataType::Double;
  if (n == "bf16") return DataType::Bfloat16;
  throw Error("unknown data type '" + name +
              "' (one of: int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2)");
}

const char* redop_name(RedOp r) {
  switch (r) {
    case RedOp::Sum:
      return "sum";
    case RedOp::Prod:
      return "prod";
    case RedOp::Max:
      return "max";
    case RedOp::Min:
      return "min";
    case RedOp::Avg:
      return "avg";
  }
  return "?";
}

RedOp redop_from(const std::string& name) {
  const std::string n = squash(name);
  for (RedOp r : {RedOp::Sum, RedOp::Prod, RedOp::Max, RedOp::Min, RedOp::Avg})
    if (n == redop_name(r)) return r;
  throw Error("unknown reduction operation '" + name + "' (one of: sum, prod, max, min, avg)");
}

bool nvls_supported(RedOp r, DataType t) {
  switch (t) {  // ncclNvlsSupported (device.h v2.23); avg is ncclDevSumPostDiv / PreMulSum: no
    case DataType::Int32:
    case DataType::Uint32:
    case DataType::Int64:
    case DataType::Uint64:
    case DataType::Half:
    case DataType::Bfloat16:
      return r == RedOp::Sum || r == RedOp::Max || r == RedOp::Min;
    case DataType::Float:
    case DataType::Double:
      return r == RedOp::Sum;
    default:
      return false;
  }
}

const char* proto_name(Proto p) {
  switch (p) {
    case Proto::Auto:
      return "auto";
    case Proto::LL:
      return "LL";
    case Proto::LL128:
      return "LL128";
    case Proto::Simple:
      return "Simple";
  }
  return "?";
}

Proto proto_from(const std::string& name) {
  const std::string n = squash(name);
  for (Proto p : {Proto::Auto, Proto::LL, Proto::LL128, Proto::Simple})
    if (n == squash(proto_name(p))) return p;
  throw Error("unknown NCCL protocol '" + name + "' (one of: auto, LL, LL128, Simple)");
}

namespace {

/// The fields of Layout::from that come from the fabric's spec and the GPU alone (rates,
/// generation, node shape): shared with pcie_rate(spec, gpu, nics).
Layout layout_of(const topology::FabricSpec& spec, const compute::GpuSpec& gpu, int nics_per_node) {
  Layout l;
  l.nvlink_rate = spec.nvlink_bandwidth;
  l.nic_rate = spec.nic_rate;
  l.nic_pcie_rate = spec.nic_pcie_rate;
  l.nvlink_generation = spec.nvlink_domain > 1 ? gpu.nvlink_generation : 0;
  l.compute_capability = nccl::compute_capability(gpu.nvlink_generation);  // the GPU's, with or without NVLink
  l.pcie_generation = gpu.pcie_generation;
  l.xgmi = spec.nvlink_domain > 1 && gpu.nvlink_generation == 0 && gpu.nvlink_bandwidth > 0;
  l.nvls = gpu.nvls && l.nvlink_generation >= 4;
  l.sharp = spec.sharp;
  l.gpus_per_node = std::max(1, spec.nvlink_domain);
  l.nics_per_node = nics_per_node;
  return l;
}

}  // namespace

Layout Layout::from(const topology::Fabric& fabric, const compute::GpuSpec& gpu, int nics_per_node) {
  Layout l = layout_of(fabric.spec(), gpu, nics_per_node);
  l.domain_of = [&fabric](int g) { return fabric.nvlink_domain_of(g); };
  auto latency = [&fabric](int a, int b) { return fabric.latency(fabric.route(a, b, 0)); };
  l.route_latency = latency;  // equal-cost routes have equal latencies: hash 0 stands for any
  l.nvlink_port_up = [&fabric](int g) {
    const int k = fabric.nvlink_link(g);
    return k >= 0 && fabric.link(k).up;
  };
  if (fabric.planes() == 1)
    l.one_route = [&fabric](int a, int b) {
      return fabric.nvlink_domain_of(a) != fabric.nvlink_domain_of(b) && fabric.route(a, b, 0).size() == 2;
    };
  const int n = fabric.gpu_count();
  if (n > 1 && fabric.nvlink_domain_of(1) == fabric.nvlink_domain_of(0)) l.nvlink_latency = latency(0, 1);
  // typical scale-out hop of a rail-aligned ring: GPU 0 to the same local GPU of the next domain
  const int next = fabric.spec().nvlink_domain;
  if (next > 0 && next < n && fabric.nvlink_domain_of(next) != fabric.nvlink_domain_of(0))
    l.net_latency = latency(0, next);
  else if (n > 1 && fabric.nvlink_domain_of(n - 1) != fabric.nvlink_domain_of(0))
    l.net_latency = latency(0, n - 1);
  else
    l.net_latency = l.nvlink_latency;
  return l;
}

namespace {

/// NCCL's PCI link bandwidth (GB/s) of the GPU -> NIC path, x16 at the GPU's PCIe generation
/// (compute::GpuSpec::pcie_generation): width x speed / 80 with speed 60 / 120 / 240 / 480 for
/// 8 / 16 / 32 / 64 GT/s (NCCL src/graph/topo.cc v2.23.4-1, kvDictPciGen, ncclTopoConnectNodes):
/// 12 / 24 / 48 / 96 GB/s for Gen3 / 4 / 5 / 6. From the GPU's data, not its NVLink: a node with
/// one GPU per NVLink domain (nvlink_generation 0 here) keeps its Gen5 NIC path.
double pci_gbs(const Layout& l) { return 12.0 * std::ldexp(1.0, std::clamp(l.pcie_generation, 3, 6) - 3); }

/// RCCL's speed of one xGMI link on gfx942 (MI300X), GB/s: GFX94X_XGMI_WIDTH 48.0 (ROCm/rccl
/// src/graph/topo.h, ncclTopoXGMISpeed), of a 64 GB/s per-direction link (AMD datasheet: 7 links
/// x 64 GB/s = the catalogue's 448 GB/s).
constexpr double kXgmiLinkModel = 48.0, kXgmiLinkLine = 64e9;

}  // namespace

double pcie_rate(const Layout& l) {
  const int nics_node = l.nics_per_node > 0 ? l.nics_per_node : l.gpus_per_node;
  return pci_gbs(l) * 1e9 * nics_node / std::max(1, l.gpus_per_node);
}

double pcie_rate(const topology::FabricSpec& spec, const compute::GpuSpec& gpu, int nics_per_node) {
  return pcie_rate(layout_of(spec, gpu, nics_per_node));
}

double net_rate(const Layout& l) { return std::min(l.nic_rate, pcie_rate(l)); }

double nic_port_rate(const Layout& l) {
  return l.nic_pcie_rate > 0 ? std::min(l.nic_rate, l.nic_pcie_rate) : l.nic_rate;
}

nccl::System nccl_system(const std::vector<int>& gpus, const Layout& l, const Protocol& p) {
  nccl::System s;
  s.max_nchannels = p.max_channels;
  s.min_nchannels = p.min_channels;
  s.max_ctas = p.max_ctas;
  s.min_ctas = p.min_ctas;
  s.nvls_nchannels = p.nvls_channels;
  const auto doms = by_domain(gpus, l);
  s.nodes = std::max<int>(1, doms.size());
  s.ranks = std::max<int>(1, gpus.size());
  const int gen = l.nvlink_generation;
  s.compute_capability = l.compute_capability > 0 ? l.compute_capability : nccl::compute_capability(gen);
  s.nvlink = gen > 0 || l.xgmi;  // RCCL: xGMI links are LINK_NVL
  s.nvswitch = gen >= 3;         // HGX / DGX A100 and later: GPUs meet in NVSwitches
  // NCCL counts links x SMxx_NVLINK_BW; a link carries 25 GB/s per direction up to NVLink4 and
  // 50 GB/s on NVLink5 (H100: 18 x 25 = 450 GB/s, B200: 18 x 50 = 900 GB/s).
  const double line_per_link = gen >= 5 ? 50e9 : 25e9;
  s.nvlink_bw = l.xgmi     ? l.nvlink_rate / kXgmiLinkLine * kXgmiLinkModel
                : s.nvlink ? l.nvlink_rate / line_per_link * nccl::nvlink_link_bw(gen)
                           : 0;
  s.pci_bw = pci_gbs(l);  // NCCL's PCI link bw of the GPU -> NIC path
  const int nics_node = l.nics_per_node > 0 ? l.nics_per_node : l.gpus_per_node;
  s.nic_bw = l.nic_rate * l.gpus_per_node / nics_node / 1e9;
  // A domain's share of the group sees the NICs of its share of the domain's GPUs.
  auto nics_of = [&](int share) {
    return std::max(1, static_cast<int>(std::lround(double(nics_node) * share / std::max(1, l.gpus_per_node))));
  };
  // Unequal shares: each domain is a node of its own shape (nccl::System::shapes); NCCL's graphs
  // then run at the smallest share's channels and speeds, and `nics` is that share's.
  int lo = s.ranks / s.nodes, hi = lo;
  if (!doms.empty()) {
    lo = hi = static_cast<int>(doms.front().size());
    for (const auto& d : doms) {
      lo = std::min<int>(lo, d.size());
      hi = std::max<int>(hi, d.size());
    }
  }
  if (lo != hi)
    for (const auto& d : doms) {
      const int share = static_cast<int>(d.size());
      const bool seen = std::any_of(s.shapes.begin(), s.shapes.end(), [&](const auto& x) { return x.gpus == share; });
      if (!seen) s.shapes.push_back({share, nics_of(share)});
    }
  s.nics = nics_of(lo);
  s.nvls = l.nvls && p.nvls && gen >= 4;
  s.collnet = l.sharp && p.collnet;
  return s;
}

bool implements(Algorithm a, Op op) {
  const auto& ops = detail::algorithm_entry(a).ops;
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

namespace {

nccl::Func func_of(Op op) {
  switch (op) {
    case Op::AllReduce:
      return nccl::kAllReduce;
    case Op::AllGather:
      return nccl::kAllGather;
    case Op::ReduceScatter:
      return nccl::kReduceScatter;
    case Op::Broadcast:
      return nccl::kBroadcast;
    case Op::Reduce:
      return nccl::kReduce;
    default:
      return nccl::kAllReduce;
  }
}

// The algorithm registered for exactly this NCCL algorithm.
Algorithm from_nccl(nccl::Algo a) {
  for (const auto& e : detail::algorithm_registry())
    if (e.nccl.size() == 1 && e.nccl[0] == a) return e.id;
  return Algorithm::Ring;
}

Proto from_nccl(nccl::Proto p) { return p == nccl::kLL ? Proto::LL : p == nccl::kLL128 ? Proto::LL128 : Proto::Simple; }

/// Why `a` cannot run for `c` here ("" when nothing obvious forbids it).
std::string why_not(Algorithm a, const Collective& c, const Layout& l, const Protocol& p, const nccl::System& s) {
  const std::string name = algorithm_name(a);
  const bool multi = s.nodes > 1;
  if ((c.op == Op::AllToAll || c.op == Op::SendRecv) && !implements(a, c.op))
    return std::string(op_name(c.op)) + " is point to point: algorithm 'direct' (or auto), not " + name;
  if (!implements(a, c.op)) {
    if (a == Algorithm::Pat)
      return "pat implements all-gather and reduce-scatter only (NCCL 2.28), not " + std::string(op_name(c.op));
    if (a == Algorithm::Direct) return "direct is for all-to-all and send/recv, not " + std::string(op_name(c.op));
    if (c.op == Op::AllReduce) return name + " does not implement all_reduce";
    return name + (c.op == Op::AllGather || c.op == Op::ReduceScatter
                       ? " does not implement " + std::string(op_name(c.op)) +
                             " (NCCL runs it with ring, nvls, pat or CollNet, not tree; CollNet's is not modelled)"
                       : " does not implement " + std::string(op_name(c.op)) + " (its one algorithm is ring / direct)");
  }
  if (a == Algorithm::Pat && s.ranks != s.nodes)
    return "pat needs one GPU per NVLink domain (NCCL ncclPatEnable); this group has up to " +
           std::to_string(nccl::max_local_ranks(s)) + " per domain";
  if (a == Algorithm::Nvls || a == Algorithm::NvlsTree) {
    if (!l.nvls) return name + " needs GPUs with NVLink SHARP (nvls: true in the GPU data; NVLink4+ NVSwitch)";
    if (!p.nvls) return name + " is disabled (NCCL_NVLS_ENABLE=0)";
    if (nccl::min_local_ranks(s) <= 2)
      return name + " needs more than 2 GPUs in every NVLink domain of the group (NCCL transport/nvls.cc)";
  }
  if (a == Algorithm::NvlsTree && !multi)
    return "nvls_tree needs more than one NVLink domain (NCCL disables it on one node)";
  if (a == Algorithm::Nvls && multi && !s.collnet)
    return "nvls across NVLink domains needs in-network reduction in the fabric (fabric.sharp: true)";
  if (a == Algorithm::CollNetDirect || a == Algorithm::CollNetChain || a == Algorithm::Sharp) {
    if (!multi) return name + " reduces in the fabric switches: it needs more than one NVLink domain";
    if (!l.sharp) return name + " needs in-network reduction in the fabric (fabric.sharp: true)";
    if (!p.collnet) return name + " is disabled (NCCL_COLLNET_ENABLE=0)";
  }
  if (a == Algorithm::HalvingDoubling) {
    const int n = static_cast<int>(c.gpus.size());
    if ((n & (n - 1)) != 0) return "halving_doubling needs a power-of-two group, got " + std::to_string(n);
  }
  return "";
}

nccl::Allowed allowed_for(Algorithm a, const Protocol& p) {
  nccl::Allowed al;
  al.algo.fill(false);
  for (nccl::Algo x : detail::algorithm_entry(a).nccl) al.algo[x] = true;
  if (p.proto != Proto::Auto) {
    al.proto.fill(false);
    al.proto[p.proto == Proto::LL ? nccl::kLL : p.proto == Proto::LL128 ? nccl::kLL128 : nccl::kSimple] = true;
  }
  return al;
}

/// Ring broadcast / reduce as NCCL runs them: a pipelined chain in ring order (root first; reduce
/// backwards, plan_chain), whose first chunk crosses all n - 1 hops in series. NCCL's tuner
/// charges such a chain one hop (tuning.cc v2.28.3-1 ncclTopoTuneModel: `latencies += lat` for
/// sameChannels graphs, nsteps x lat otherwise "waiting for proper chunk modeling"), which the
/// flows cannot reach once the chain is stepped (8 B over 64 x 8 H100: 804 us stepped against
/// 10.7 collapsed). The execution model charges the chain's hops once, each at NCCL's per-step
/// latency of a ring over the same connections (the all-gather ring's: baseLat + intraLat per
/// hop inside a domain, interLat per network hop, Model::hop_latency) and at least its route
/// latency on the fabric (hop_route: a chunk cannot cross a hop faster). Writes latency and the
/// per-hop weights (hop_latency_*) of the stepped chain (materialize, FlowPlan::chain).
void chain_latency(const Collective& c, const Layout& l, const nccl::Model& exec, nccl::Proto p, Selection* s) {
  const int n = static_cast<int>(c.gpus.size());
  if (n < 2) return;
  const auto& ag = exec.hop_latency[nccl::kAllGather][nccl::kRing][p];
  const int inter = exec.sys.nodes - 1;  // the all-gather ring's network steps (tuning.cc nInterSteps)
  const double base =
      exec.latency[nccl::kAllGather][nccl::kRing][p] - (exec.sys.ranks - 1 - inter) * ag[0] - inter * ag[1];
  const bool reduce = c.op == Op::Reduce;
  double lat = base * 1e-6;
  for (int i = 0; i + 1 < n; ++i) {
    const int a = reduce ? c.gpus[n - 1 - i] : c.gpus[i], b = reduce ? c.gpus[n - 2 - i] : c.gpus[i + 1];
    const bool nv = l.domain_of(a) == l.domain_of(b);
    lat += std::max((nv ? ag[0] : ag[1]) * 1e-6, detail::hop_route(l, a, b));
  }
  s->latency = lat;
  s->hop_latency_nvlink = ag[0] * 1e-6;
  s->hop_latency_net = ag[1] * 1e-6;
}

}  // namespace

namespace detail {

/// Execution model of an NCCL algorithm chosen by the tuner (see collective.hpp).
Selection nccl_selection(const Collective& c, const Layout& l, const Protocol& p, const nccl::System& sys,
                         Algorithm requested) {
  const nccl::Func f = func_of(c.op);
  const nccl::Model tuner = nccl::build_model(sys);
  nccl::Call call;
  call.fp8 = c.type == DataType::F8e4m3 || c.type == DataType::F8e5m2;
  call.scaling_op = c.redop == RedOp::Avg;  // ncclAvg: ncclDevPreMulSum (floats) / SumPostDiv (integers)
  nccl::Choice ch = nccl::choose(tuner, f, c.bytes, allowed_for(requested, p), call);
  if (!ch.valid) {
    std::string why = why_not(requested, c, l, p, sys);
    if (why.empty() && ch.over_time_cap) {  // a 1 PB all-reduce: "not available" hid the reason
      char size[64];
      std::snprintf(size, sizeof size, "%.4g B", c.bytes);
      why = std::string(op_name(c.op)) + " of " + size + " on " + std::to_string(sys.ranks) +
            " GPUs: every algorithm and protocol allowed is predicted at an hour or more, NCCL's limit "
            "(tuning.cc minTime 3600000000 us): NCCL finds no algorithm for it either";
    }
    if (why.empty())
      why = std::string(algorithm_name(requested)) + " with protocol " + proto_name(p.proto) +
            " is not available for " + op_name(c.op) + " on " + std::to_string(sys.ranks) + " GPUs in " +
            std::to_string(sys.nodes) + " NVLink domain(s), " + std::to_string(nccl::min_local_ranks(sys)) + " to " +
            std::to_string(nccl::max_local_ranks(sys)) + " GPUs of the group per domain (NCCL tuning.cc" +
            (requested == Algorithm::Sharp
                 ? "; CollNet takes at most 8 GPUs per domain, NCCL_MAX_DIRECT_ARITY + 1 in enqueue.cc, and NVLS "
                   "more than 2 in every domain, transport/nvls.cc)"
                 : ")");
    throw Error(why);
  }
  nccl::System xs = sys;
  xs.ll_nvlink_hop = p.nvlink_ll_hop * 1e6;
  const nccl::Model exec = nccl::build_model(xs);
  double lat_us = 0, bw = 0;
  nccl::time_parts(exec, f, ch.algo, ch.proto, c.bytes, &lat_us, &bw);
  // Fewer channels than the graph's for small messages: NCCL's bandwidth formula on those
  // channels (per-channel speed and caps scale, the communicator's llMaxBw cap does not: 64 MiB
  // ring/LL on 4 of 8 channels at 4,096 GPUs keeps the 20.4 GB/s cap, 4 x 48 x 0.5 is above it).
  const int graph_ch = tuner.graph[ch.algo].channels;
  if (ch.algo != nccl::kNvls && ch.algo != nccl::kNvlsTree && graph_ch > 0 && ch.channels < graph_ch)
    bw *= nccl::bandwidth_on(exec, f, ch.algo, ch.proto, ch.channels) / exec.bandwidth[f][ch.algo][ch.proto];
  Selection s;
  s.algorithm = from_nccl(ch.algo);
  s.proto = from_nccl(ch.proto);
  s.channels = ch.channels;
  s.graph_channels = tuner.graph[ch.algo].channels;
  s.nccl_time = ch.time * 1e-6;
  s.latency = lat_us * 1e-6;
  s.hop_latency_nvlink = exec.hop_latency[f][ch.algo][ch.proto][0] * 1e-6;
  s.hop_latency_net = exec.hop_latency[f][ch.algo][ch.proto][1] * 1e-6;
  if (ch.algo == nccl::kRing && (f == nccl::kBroadcast || f == nccl::kReduce)) chain_latency(c, l, exec, ch.proto, &s);
  if (ch.algo == nccl::kNvlsTree) {
    // NCCL 2.28's NVLSTree rate (nccl::nvls_tree_busbw, tuning.cc v2.28.3-1): per head channel
    // the slowest of the NVLS part at the architecture's NVLS efficiency (0.85 Hopper, 0.74
    // Blackwell, as NVLS on one domain), the heads' NICs (x 2 on 2 nodes: one peer, no tree
    // relay) and perChMaxNVLSTreeBw. The tuner (v2.23) keeps 5/6 for every architecture and
    // halves bwInter beyond 2 nodes; it still picks, this sets the time. 8 x H100 over 2 nodes:
    // 8 x min(40 x 0.85 x 7/8 x 2, 2 x 48, 57.7) = 461.6 GB/s busbw (v2.23: 500, nccl-tests#309
    // measured 469); beyond 2 nodes 8 x 45.5 = 364 (v2.23 tuner halved, the flows' tree load
    // gave 384; NVIDIA's NVLS + tree figure 370-380, GTC24 S62129 via nccl#1649).
    bw = nccl::nvls_tree_busbw(exec) * sys.ranks / (2.0 * (sys.ranks - 1));
  }
  if (ch.algo == nccl::kNvls && sys.nodes == 1 && f == nccl::kAllReduce) {
    // NCCL's NVLS graph quantizes the per-head speed to its search array (search.cc: (heads + 1)
    // x speed <= a GPU's NVLink), which makes 5, 6 and 7 GPUs slower than 8: a tuner artifact.
    // The kernel's traffic (src/device/all_reduce.h NVLS: multimem ld_reduce of S/g, multimem st
    // of S/g multicast to all) moves (1 + 1/g) x S through each GPU's NVLink per direction, at
    // NCCL's NVLink speed (links x SMxx_NVLINK_BW) and NCCL's NVLS efficiency of the
    // architecture (tuning.cc v2.28.3-1 on: 0.85 Hopper, 0.74 Blackwell). That is NCCL 2.28's own
    // NVLS formula (bwIntra x eff x (ch - 1)/ch x 2 per channel, g channels, algbw = busBw x g /
    // (2 (g - 1))) with bwIntra = NVLink / (g + 1) before the search rounds it to its speed array.
    // H100, g = 4..8: busbw 378 / 420 / 450 / 473 / 490 GB/s; measured 370 / 420 / 440 / 460 /
    // 480 (NVIDIA/nccl#1455, 8 x H100 SXM, NCCL_ALGO=NVLS, 2-4 GiB). 8 x B200: 831, measured
    // 850 (GTC25 S72583) and 838 (ml-engineering). Not fitted to them.
    // Only NCCL's NVLS heads reduce and multicast, at most NCCL_MAX_NVLS_ARITY = 32 of them
    // (nccl::nvls_heads): a head moves (1 + 1/h) S per direction, every other GPU S, so above
    // 32 GPUs (a 72-GPU NVL72 domain) the busiest port carries (1 + 1/32) S, not (1 + 1/g) S.
    const int h = nccl::nvls_heads(sys.ranks);
    bw = sys.nvlink_bw * nccl::nvls_efficiency(sys.compute_capability) * h / (h + 1.0);
  }
  if (ch.algo == nccl::kNvls && sys.nodes > 1 && f == nccl::kAllReduce) {
    // NVLS across domains (with SHARP): the NVLS busbw of the h heads' domain kernel (the
    // one-domain rate above on h = min(NICs, GPUs, 32) heads, nccl::nvls_heads, x 2 (h - 1)/h),
    // held across domains and turned into algbw at the n ranks by the ring's ratio n / (2 (n -
    // 1)): NCCL 2.28's NVLS rate is a busBw per head channel with no node term, converted so on
    // any node count (tuning.cc v2.28.3-1 ncclTopoTuneModel). So algbw is the domain's x (h -
    // 1)/h x n/(n - 1): 4 x DGX H100 0.903 of one node's, busbw 490 (GTC24 S62129 / GTC25 S72583:
    // 480 on 8 GPUs and on 32). NVLSTree on 2 nodes (the same warp groups with one NET exchange
    // of S/h per head) runs at 0.91 of one node's algbw (nccl-tests#309: 469 against 482 busbw);
    // the domain's algbw unchanged, taken before, gave 539. The heads' NICs bound algbw at h x NET
    // speed: the kernel sends each head's S/h slice to the switches once and receives it once
    // (all_reduce.h NVLS `hasOut`), where NCCL's NIC term, bwInter per channel as busBw (384 on
    // 4 x DGX H100, under the published 480), counts a ring's traffic. Unequal domain shares:
    // every domain runs the fewest heads any found (nccl::nvls_heads(sys), connect.cc minHeadNum).
    const int h = nccl::nvls_heads(sys);
    const double domain = sys.nvlink_bw * nccl::nvls_efficiency(sys.compute_capability) * h / (h + 1.0);
    const double n = sys.ranks;
    const double held = h > 1 ? (h - 1.0) / h * n / (n - 1.0) : 1.0;  // NCCL runs NVLS on >= 2 heads only
    bw = std::min(domain * held, h * std::min(sys.nic_bw, sys.pci_bw));
  }
  if (ch.algo == nccl::kCollNetDirect || ch.algo == nccl::kCollNetChain) {
    // NCCL's tuner rates CollNet at half its bus bandwidth (the 0.5 of non-ring algorithms in
    // tuning.cc), the same as a tree. In the switches each head NIC sends its S/h slice once and
    // receives the result once, and inside the domain the data is reduce-scattered and gathered
    // over NVLink; the execution model takes the slower of these two, at NCCL's NET and NVLink
    // speeds (and the 0.85 Hopper correction of CollNet direct). Unequal domain shares: every
    // domain runs the fewest heads any found (nccl::collnet_heads), and the largest share's
    // reduce-scatter + all-gather (2 (g - 1)/g S through each GPU) is the slowest in a domain.
    const int g = nccl::max_local_ranks(sys);
    const auto& rg = exec.graph[nccl::kRing];
    const double net = nccl::collnet_heads(sys) * std::min(sys.nic_bw, sys.pci_bw);
    const double intra = g > 1 ? rg.channels * rg.bw_intra * g / (2.0 * (g - 1)) : net;
    bw = std::min(net, intra) * (ch.algo == nccl::kCollNetDirect && sys.compute_capability >= 90 ? 0.85 : 1.0);
  }
  s.bw_time = c.bytes / (bw * 1e9);
  if (ch.algo == nccl::kNvls || ch.algo == nccl::kNvlsTree) {
    // Pipeline fill: the first round of chunks (CTAs x heads x NCCL's chunk) passes every stage
    // before the pipeline is full; NCCL's tuner has no such term (tuning.cc v2.28.3-1
    // ncclTopoGetAlgoTime: latency + bytes / bw, NVLS latency hwLat 25 us). The round is on the
    // CTAs NCCL runs (enqueue.cc topoGetAlgoInfo v2.28.3-1, nccl::choose): nvlsChannels, which
    // NCCL_MAX_NCHANNELS does not cap (transport/nvls.cc caps it by NCCL_MAX_CTAS only); NVLS
    // across domains min(nvlsChannels, comm->nChannels), which it does (graph/connect.cc).
    const int ctas = ch.channels;
    const double first = nccl::nvls_first_round(tuner, f, ch.algo, c.bytes, ctas);
    if (f != nccl::kAllReduce) {
      // All-gather / reduce-scatter (all_gather.h / reduce_scatter.h v2.28.3-1, RunWorkColl
      // NVLS): each CTA loops over its channel part in NCCL's chunks (calcCollChunking per
      // channel), every loop through the kernel's warp groups one after the other (one node:
      // bcast via multimem st -> gather, scatter -> multimem ld_reduce; across nodes a NET group
      // between), so the first round pays groups - 1 more passes (nccl::nvls_warp_groups: 1 on
      // one node). No measured NVLS all-gather / reduce-scatter sweep is known to add the extra
      // round the all-reduce sweeps need (below), so none is added.
      s.latency += (nccl::nvls_warp_groups(f, ch.algo, sys.nodes) - 1) * first / (bw * 1e9);
    } else if (sys.nodes > 1) {
      // Across domains the kernel has four warp groups (src/device/all_reduce.h v2.28.3-1, NVLS
      // and NVLS_TREE): scatter, the heads' reduce -> NET (tree up), NET (tree down) -> multimem
      // st, gather; the first round passes three besides the steady state's. Scatter and gather
      // copy between the user buffer and the GPU's own NVLS buffer (the `up` peers are ucBuff,
      // src/transport/nvls.cc), so they run at the domain's NVLS rate, not the NIC-bound one;
      // the second NET group at the collective's rate. The tree's depth adds no chunk rounds
      // here: NCCL's interLat per hop stands for it (a round per hop gave 248 x 8 H200 280 GB/s
      // at 512 MiB against ~350 measured, nccl-tests#283).
      const int h = nccl::nvls_heads(sys);
      const double domain = sys.nvlink_bw * nccl::nvls_efficiency(sys.compute_capability) * h / (h + 1.0);
      s.latency += 2 * first / (std::max(domain, bw) * 1e9) + first / (bw * 1e9);
    } else {
      // All-reduce on one domain: 3 rounds at the NVLS rate, as the measured sweeps need (8 x H200 2 MiB - 1
      // GiB, nccl-tests#290: 3.0-3.6 rounds beyond NCCL's 25 us). The kernel's warp groups
      // explain 2 of them (scatter, multimem ld_reduce + st, gather); the third is measured,
      // not from NCCL's source (docs/validation-busbw.md "NVLS pipeline fill").
      s.latency += 3 * first / (bw * 1e9);
    }
  }
  return s;
}

namespace {

/// nccl::build_model(one).graph[kRing], remembered per distinct `one`: a plan asks it for every
/// pipeline send / receive (estimate and emit) with one or a few distinct systems, and a model
/// costs ~9,600 instructions (site-31k: 4,464 calls, 43 M of them; callgrind). Exact: build_model
/// is a function of the System alone. Per thread (runs may go on in several threads of one
/// process); bounded.
nccl::Graph one_node_ring(const nccl::System& one) {
  thread_local std::vector<std::pair<nccl::System, nccl::Graph>> memo;
  for (const auto& [key, graph] : memo)
    if (key == one) return graph;
  if (memo.size() >= 16) memo.clear();  // more systems than a plan has: start over
  memo.emplace_back(one, nccl::build_model(one).graph[nccl::kRing]);
  return memo.back().second;
}

}  // namespace

/// Point to point at NCCL's efficiency per port: NVLink = the single-domain ring graph's bandwidth
/// over the NVLink line rate; NIC = the NET speed NCCL reaches (min(NIC, PCIe)) over the NIC rate.
void p2p_efficiency(const Layout& l, const nccl::System& sys, double* nv, double* nic) {
  nccl::System one = sys;
  one.nodes = 1;
  one.ranks = std::max(2, nccl::min_local_ranks(sys));  // the smallest share's graph sets the speed
  one.shapes.clear();
  const nccl::Graph g = one_node_ring(one);
  *nv = sys.nvlink && g.channels > 0 ? std::min(1.0, g.channels * g.bw_intra * 1e9 / l.nvlink_rate) : 0.8;
  *nic = std::min(1.0, std::min(sys.nic_bw, sys.pci_bw) / sys.nic_bw);
}

}  // namespace detail

Selection select(const Collective& c, const Layout& l, const Protocol& p) {
  Selection s;
  const int n = static_cast<int>(c.gpus.size());
  if (n <= 1 || c.bytes <= 0) return s;
  nccl::System sys = nccl_system(c.gpus, l, p);
  const bool reduction = c.op == Op::AllReduce || c.op == Op::ReduceScatter || c.op == Op::Reduce;
  if (reduction && !nvls_supported(c.redop, c.type)) {
    if ((c.algorithm == Algorithm::Nvls || c.algorithm == Algorithm::NvlsTree) && l.nvls)
      throw Error(std::string(algorithm_name(c.algorithm)) + " does not reduce " + type_name(c.type) + " with " +
                  redop_name(c.redop) +
                  " (NCCL ncclNvlsSupported: sum/min/max of 16-64-bit integers, half, "
                  "bfloat16; sum of float, double)");
    sys.nvls = false;
  }
  Algorithm a = c.algorithm;
  if (c.op == Op::AllToAll || c.op == Op::SendRecv) {
    if (a == Algorithm::Auto || (c.op == Op::SendRecv && a == Algorithm::Ring)) a = Algorithm::Direct;
  } else if ((c.op == Op::Broadcast || c.op == Op::Reduce) && a == Algorithm::Direct) {
    a = Algorithm::Ring;
  }
  const std::string why = a == Algorithm::Auto ? "" : why_not(a, c, l, p, sys);
  if (!why.empty()) throw Error(why);
  const auto& entry = detail::algorithm_entry(a);
  if (!entry.estimate) return detail::nccl_selection(c, l, p, sys, a);
  const auto doms = by_domain(c.gpus, l);
  return entry.estimate(detail::EstimateContext{c, l, p, sys, doms});
}

Algorithm choose_algorithm(const Collective& c, const Layout& l, const Protocol& p) {
  return select(c, l, p).algorithm;
}

double estimate_time(const Collective& c, const Layout& l, const Protocol& p) { return select(c, l, p).time(); }

namespace {

/// Chunks per channel of a stepped pipeline: Collective::chunks, else NCCL's for the selection
/// (nccl::pipeline_chunks): the tree, NVLSTree's tree and the broadcast / reduce chain; 1 otherwise.
int pipeline_chunks(const Collective& c, const Layout& l, const Protocol& p, const Selection& sel) {
  if (c.chunks > 0) return c.chunks;
  if (c.collapse) return 1;
  nccl::Algo a = nccl::kRing;
  if (sel.algorithm == Algorithm::Tree)
    a = nccl::kTree;
  else if (sel.algorithm == Algorithm::NvlsTree)
    a = nccl::kNvlsTree;
  else if (!(sel.algorithm == Algorithm::Ring && (c.op == Op::Broadcast || c.op == Op::Reduce)))
    return 1;
  const nccl::Proto proto = sel.proto == Proto::LL      ? nccl::kLL
                            : sel.proto == Proto::LL128 ? nccl::kLL128
                                                        : nccl::kSimple;
  const nccl::Model m = nccl::build_model(nccl_system(c.gpus, l, p));
  return nccl::pipeline_chunks(m, func_of(c.op), a, proto, c.bytes, std::max(1, sel.channels));
}

}  // namespace

Emitted emit(network::Schedule& s, const Collective& c, const Layout& l, const Protocol& p) {
  Emitted out;
  out.first = static_cast<int>(s.activities.size());
  out.last = out.first;
  const int n = static_cast<int>(c.gpus.size());
  if (n <= 1 || c.bytes <= 0) return out;
  const Selection sel = select(c, l, p);
  out.algorithm = sel.algorithm;
  out.proto = sel.proto;
  out.channels = sel.channels;
  out.time = sel.time();
  const detail::EmitContext ctx{c,
                                l,
                                p,
                                std::max(1, sel.channels),
                                sel.hop_latency_nvlink,
                                sel.hop_latency_net,
                                pipeline_chunks(c, l, p, sel),
                                sel.graph_channels};
  const auto doms = by_domain(c.gpus, l);
  const auto& entry = detail::algorithm_entry(sel.algorithm);
  if (entry.emit_phases && entry.emit_phases(s, ctx, doms, &out.done)) {  // e.g. hierarchical's ring phases
    out.last = static_cast<int>(s.activities.size());
    return out;
  }
  const detail::FlowPlan plan = entry.plan ? entry.plan(ctx, doms) : detail::plan_ring(ctx, c.op);
  double nv = 1, nic = 1;
  if (plan.per_port_efficiency) detail::p2p_efficiency(l, nccl_system(c.gpus, l, p), &nv, &nic);
  std::vector<char> in_flight;
  out.done = detail::materialize(s, plan, ctx, sel.bw_time, sel.latency, nv, nic, &in_flight);
  if (plan.ring_orders > 0) {
    out.rings = plan.ring_orders;
    const auto pipe =
        detail::pipeline_ring(s, out.first, plan.ring_orders, ctx, sel.proto, sel.channels, &out.done, &in_flight);
    const bool flight = std::find(in_flight.begin(), in_flight.end(), 1) != in_flight.end();
    if (flight)
      out.note =
          "NCCL's per-step latency below a hop's route latency: each hop at max(route, its class's NCCL hop "
          "latency x a common scale), in flight";
    if (pipe.lanes > 1)
      out.note = (flight ? out.note + "; " : "") + std::to_string(pipe.slow_hops) +
                 (flight ? " ring hops slower than the ring's pace"
                         : " ring hops with a longer route than the nominal hop's") +
                 " pipelined: their steps in " + std::to_string(pipe.lanes) +
                 " lanes (NCCL's connection FIFO), the excess latency in flight";
  }
  if (!plan.note.empty()) out.note = out.note.empty() ? plan.note : plan.note + "; " + out.note;
  out.last = static_cast<int>(s.activities.size());
  return out;
}

}  // namespace aidcsim::collectives
