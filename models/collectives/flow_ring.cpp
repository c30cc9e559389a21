// Ring-family traffic: NCCL rings (rail-aligned channels), PAT, pipelined chains (broadcast /
// reduce).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/collectives/flow_plan.hpp"
#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::collectives::detail {

namespace {

/// Ring orders ("channels") of the group, as NCCL builds them (v2.28.3-1; the lines cited are the
/// same in v2.29.7-1):
/// - Each NCCL "node" (the group's GPUs of one host, or with MNNVL of one NVLink clique: the
///   topology of the clique's ranks is fused, src/graph/topo.cc ncclTopoGetSystem) searches its own
///   ring graph over its own k_d GPUs (src/init.cc: ncclTopoCompute(comm->topo, ringGraph), at most
///   ringGraph->maxChannels = MAXCHANNELS/2 = 32 channels); the search does not ask for the same k
///   on every node. Search channel j starts at NIC nets[j mod netCount] (search.cc
///   ncclTopoSearchRecNet; the NICs in GPU order, ncclTopoSelectNets: on MNNVL the NIC of the
///   node's first GPU, then of its second, ...) and at that NIC's local GPU (net.localGpu), crosses
///   all k_d GPUs and leaves through a NIC; a NIC holds one channel at the first speed a 400 Gb/s
///   NIC takes (ncclTopoSearchRecNet: `net.bw -= bw`), so a node finds one channel per NIC. A
///   channel leaves through the NIC it entered by (crossNic 0, from its last GPU over PXN) or,
///   NCCL_CROSS_NIC = 2 being the default, channel 2j through the NIC channel 2j+1 enters by
///   (ncclTopoSearchRecGpu): either way every NIC carries one channel each way. Nothing else ties
///   the NICs of two nodes: channel j of every node starts at its j-th NIC, so a hop between nodes
///   is rail-aligned where the j-th NICs are on one rail (here: the j-th member of each domain).
/// - A node of few channels copies them (search.cc ncclTopoDupChannels: x 2, up to 32, at >= 25
///   GB/s, not on Hopper+ below 50 GB/s with more than 4 channels: channel j >= S is channel
///   j - S); the communicator keeps the fewest channels any rank found (init.cc, after
///   AllGather3: graphs[a]->nChannels = min over ranks) and chains channel c of every node in node
///   order (connect.cc connectRings); odd nodes swap channels c and c^1 (ncclTopoPostset,
///   "Alternate rings to avoid crossing rails"); then ncclTopoPostset copies every channel once
///   (comm->nChannels = min(MAXCHANNELS = 64, 2 nChannels)) and on Hopper+ across nodes above 45
///   GB/s once more (copyChannels: channel c >= n is channel c - n). A collective runs on the
///   first nc of them (enqueue.cc topoGetAlgoInfo: fewer for small messages; Selection::channels).
/// - Every channel has its own connections (src/transport/generic.cc ncclTransportRingConnect: a
///   ncclTransportP2pConnect per channel c < comm->nChannels; src/transport/net.cc: a ring's
///   connections are not shared, `shared = graph || connIndex == 0 ? 0 : ...`, so each opens its
///   own netComm, one QP: NCCL_IB_QPS_PER_CONNECTION = 1, net_ib.cc), so every copy is a flow of
///   its own with its own ECMP hash.
/// Here: one ring when the group is inside one domain (its NVLink hops do not depend on the hash).
/// Else `nc` channels (comm channels used, Emitted::channels); channel k runs search channel
/// s = k mod P (P = `paths`, the graph's channels after AllGather3, <= 32; 0: P = nc), which in a
/// domain of g members is its path j = s mod g (a domain of fewer members than P repeats its own
/// channels: ncclTopoDupChannels). Path j enters an even domain (members L) at L[j] and leaves at
/// L[j+1 mod g], walking L[j], L[j-1], ..., L[j+1]; an odd domain the other way (enter L[j+1],
/// leave L[j]: the odd nodes' swap). With equal shares of g <= P members every NIC sends and
/// receives nc / g channels; with unequal shares the domain of the fewest members sets the
/// busiest NICs (nc / g_min channels each) and a domain of more spreads over min(g, P) NICs.
/// Not modelled: the odd nodes' swap is skipped by NCCL when nChannels is odd (a ring of odd P
/// crosses rails at every odd node there; here it stays aligned), and the wrap of path P - 1 of a
/// domain of P members to its member 0 is aligned only with a domain of as many.
std::vector<std::vector<int>> ring_channels(const std::vector<int>& gpus, const Layout& l, int nc, int paths) {
  auto doms = by_domain(gpus, l);
  if (doms.size() == 1) return {gpus};
  nc = std::max(1, nc);
  const int P = paths > 0 ? paths : nc;
  std::vector<std::vector<int>> ch(nc);
  for (int k = 0; k < nc; ++k) {
    ch[k].reserve(gpus.size());
    const int s = k % P;  // search channel of comm channel k (ncclTopoPostset's copies)
    for (std::size_t d = 0; d < doms.size(); ++d) {
      const auto& L = doms[d];
      const int g = static_cast<int>(L.size()), j = s % g;  // this domain's path (its DupChannels copies)
      // even domain: j, j-1, ..., j+1 (enter j, leave j+1); odd: j+1, j+2, ..., j (enter j+1, leave j)
      // (the index stepped with its wrap, not two divisions per GPU: ~2 M per 31K plan)
      if (d % 2 == 0) {
        for (int i = 0, idx = j; i < g; ++i, idx = idx == 0 ? g - 1 : idx - 1) ch[k].push_back(L[idx]);
      } else {
        for (int i = 0, idx = (j + 1) % g; i < g; ++i, idx = idx + 1 == g ? 0 : idx + 1) ch[k].push_back(L[idx]);
      }
    }
  }
  return ch;
}

/// Chunks of NCCL's PAT loop on one channel: PatAGAlgorithm / PatRSAlgorithm::getNextOp move
/// every distance's part of one chunk (chunkCount elements of each rank's block) and then step
/// `offset += chunkCount` to the next (src/include/collectives.h, v2.23.4-1). The chunk is
/// calcCollChunking's (src/enqueue.cc, v2.23.4-1, unchanged to v2.29.7-1): stepSize =
/// buffSizes[Simple] / NCCL_STEPS = 4 MiB / 8 = 512 KiB (DEFAULT_BUFFSIZE, src/init.cc; NCCL_STEPS,
/// src/include/device.h; PAT runs Simple only, chunkSteps = 1), halved down to 64 KiB while
/// chunkSize x 32 (all-gather) or x 16 (reduce-scatter) exceeds the channel's bytes nRanks x
/// per-rank count (nChannels = 1 and globalBytesPerElement = nRanks x element, the CBD path of
/// addWorkBatchToPlan). `channel_block`: B of one rank's block on one channel.
int pat_chunks(Op op, int n, double channel_block) {
  constexpr double kStepSize = 4.0 * 1024 * 1024 / 8;
  const double factor = op == Op::ReduceScatter ? 16 : 32;
  double chunk = kStepSize;
  while (chunk * factor > n * channel_block && chunk > 65536) chunk /= 2;
  return std::max(1, static_cast<int>(std::ceil(channel_block / chunk - 1e-9)));
}

/// A collapsed ring of C > 1 channels (ring_channels: N domains of k_d >= C GPUs, n = sum k_d),
/// `bytes` per hop. Inside a domain every channel walks the same cyclic GPU order from its entry
/// to its exit, so the domain's k_d NVLink pairs carry its C (k_d - 1) NVLink hops (g - 1 channels
/// each when k_d = C = g): C (n - N) NVLink hops on n pairs, and C N scale-out hops, one per
/// pair. One transfer per hop is C n transfers
/// (the rollout's 31K phase: C = 9, 9x those of one ring); merged, 2 n. The k hops of a pair whose NVLink ports
/// are up have the same route (GPU -> NVSwitch -> GPU, whatever the hash), start, latency and
/// bytes, so under weighted max-min (network::Activity::weight) they share every link exactly as
/// one transfer of weight k carrying their k x bytes: each of them holds the same rate at every
/// instant, the sum is the merged transfer's rate, and all end together. Emitted so; so are the
/// copies of a scale-out hop (ncclTopoPostset's channel copies: ring_channels) on a pair whose
/// route is the same for every hash and link state (Layout::one_route: both GPUs under one leaf
/// of a one-plane fabric). Every other hop (scale-out across leaves, whose copies hash apart, or a
/// pair with an NVLink port down) keeps its own transfer. Each transfer keeps
/// the ECMP hash of the first hop it stands for (its index in channel order), so the scale-out
/// hops hash as in the unmerged plan. materialize() sees the same port totals and longest path (a
/// merged transfer's bytes / rate is its source port's total), so bytes and latency are scaled
/// alike. Checked against the unmerged plan (Collective::merge_channels false):
/// tests/unit/engine/test_step_fidelity.cpp [merge_channels].
/// Open-addressing table from a (src, dst) pair key to an int, for collapsed_channels' per-hop
/// look-ups (a 31K step plans ~2 M hops: std::unordered_map's node per entry and its hashing were
/// most of plan_ring's time). Lookups only, no iteration: the plan does not depend on its layout.
class PairTable {
 public:
  explicit PairTable(std::size_t expected) {
    std::size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    keys_.assign(cap, kEmpty);
    values_.resize(cap);
  }
  /// The value of `key`, inserting `fresh_value` when absent; second = whether it was inserted.
  std::pair<int*, bool> emplace(std::uint64_t key, int fresh_value) {
    if (2 * (used_ + 1) > keys_.size()) grow();
    std::size_t i = slot(key);
    if (keys_[i] == key) return {&values_[i], false};
    keys_[i] = key;
    values_[i] = fresh_value;
    ++used_;
    return {&values_[i], true};
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};  // no pair of GPU ranks (both 2^32 - 1)
  std::size_t slot(std::uint64_t key) const {
    const std::size_t mask = keys_.size() - 1;
    std::size_t i = static_cast<std::size_t>(topology::splitmix64(key)) & mask;
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<std::uint64_t> keys;
    std::vector<int> values;
    keys.swap(keys_);
    values.swap(values_);
    keys_.assign(2 * keys.size(), kEmpty);
    values_.resize(keys_.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty) {
        const std::size_t j = slot(keys[i]);
        keys_[j] = keys[i];
        values_[j] = values[i];
      }
  }
  std::vector<std::uint64_t> keys_;
  std::vector<int> values_;
  std::size_t used_ = 0;
};

FlowPlan collapsed_channels(const EmitContext& ctx, const std::vector<std::vector<int>>& ch, double bytes) {
  const auto& L = ctx.layout;
  std::size_t hops = 0;
  int lo = ch.front().front(), hi = lo;
  for (const auto& ring : ch) {
    hops += ring.size();
    for (int g : ring) {
      lo = std::min(lo, g);
      hi = std::max(hi, g);
    }
  }
  // Each GPU of the group by a local id (its first appearance in channel order), over a dense
  // array of the group's GPU range when that is not much larger than its hops (a DP group strides
  // the fabric: ~10x its members), else a hash map (a small group of a large fabric).
  const bool dense = static_cast<std::size_t>(hi - lo) <= 4 * hops + 64;
  std::vector<int> id_dense(dense ? static_cast<std::size_t>(hi - lo) + 1 : 0, -1);
  std::unordered_map<int, int> id_map;
  // Per local id: the GPU's NVLink domain and port state (asked of the layout once per GPU), and
  // the first two pairs it is the source of: (dst, value) of a merged transfer and of a scale-out
  // pair's Layout::one_route answer. A ring's GPU has one NVLink successor and (rail-aligned) one
  // scale-out successor in every channel, so the per-hop look-ups hit these and not the tables.
  struct Gpu {
    int dom = 0;
    bool up = true;
    int merged_dst[2] = {-1, -1}, merged_flow[2] = {-1, -1};
    int route_dst = -1, route_one = -1;
  };
  std::vector<Gpu> gpu;
  gpu.reserve(ch.front().size());
  auto local = [&](int g) {
    int* slot = nullptr;
    if (dense) {
      slot = &id_dense[static_cast<std::size_t>(g - lo)];
    } else {
      slot = &id_map.try_emplace(g, -1).first->second;
    }
    if (*slot < 0) {
      *slot = static_cast<int>(gpu.size());
      Gpu x;
      x.dom = L.domain_of(g);
      x.up = !L.nvlink_port_up || L.nvlink_port_up(g);
      gpu.push_back(x);
    }
    return *slot;
  };
  std::vector<int> id_of;  // local id per position of each ring, in ring order
  FlowPlan plan;
  // At most one transfer per hop: reserved once (growing moved every planned flow ~log2 times,
  // a third of this function's time on a 31K step)
  plan.flows.reserve(hops);
  plan.done.reserve(hops);
  // Pairs past the first two a GPU is the source of: (src, dst) -> merged transfer / whether its
  // copies merge (-1: not asked yet). Each pair lives in exactly one place (its source's slots or
  // the table), so a pair's first hop makes its transfer and the later ones join it.
  PairTable pair(16), one_route(16);
  // The transfer of a mergeable pair (a, b): `fresh` when its first hop.
  auto merged = [&](Gpu& s, int b, std::uint64_t key, int fresh_value) -> std::pair<int*, bool> {
    for (int k = 0; k < 2; ++k) {
      if (s.merged_dst[k] == b) return {&s.merged_flow[k], false};
      if (s.merged_dst[k] < 0) {
        s.merged_dst[k] = b;
        s.merged_flow[k] = fresh_value;
        return {&s.merged_flow[k], true};
      }
    }
    return pair.emplace(key, fresh_value);
  };
  std::uint32_t index = 0;
  for (const auto& ring : ch) {
    const int n = static_cast<int>(ring.size());
    id_of.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) id_of[i] = local(ring[i]);
    for (int i = 0; i < n; ++i) {
      const int a = ring[i], b = ring[(i + 1) % n];
      Gpu& ga = gpu[id_of[i]];
      const Gpu& gb = gpu[id_of[(i + 1) % n]];
      ++index;
      const std::uint64_t key =
          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
      auto same_route = [&] {
        if (!L.one_route) return false;
        int* v = nullptr;
        if (ga.route_dst == b) {
          v = &ga.route_one;
        } else if (ga.route_dst < 0) {
          ga.route_dst = b;
          v = &ga.route_one;
        } else {
          v = one_route.emplace(key, -1).first;
        }
        if (*v < 0) *v = L.one_route(a, b) ? 1 : 0;
        return *v == 1;
      };
      // NVLink hops of the channels over one pair, and the copies of a scale-out hop whose route
      // does not depend on the hash (Layout::one_route): the same route, start and bytes.
      const bool nvlink = ga.dom == gb.dom;  // EmitContext::nvlink
      if ((nvlink && ga.up && gb.up) || (!nvlink && same_route())) {
        const auto [it, fresh] = merged(ga, b, key, static_cast<int>(plan.flows.size()));
        if (!fresh) {
          plan.flows[*it].payload += bytes;
          plan.flows[*it].weight += 1;
          continue;
        }
      }
      const int f = plan.add(a, b, bytes, 0);
      plan.flows[f].hash_index = index;
      plan.done.push_back(f);
    }
  }
  return plan;
}

}  // namespace

FlowPlan plan_ring(const EmitContext& ctx, Op op) {
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  const int steps = op == Op::AllReduce ? 2 * (n - 1) : n - 1;
  const auto ch = ring_channels(c.gpus, ctx.layout, ctx.channels, ctx.ring_paths);
  const double per_step = c.bytes / n / ch.size();
  FlowPlan plan;
  if (c.collapse && ch.size() > 1 && c.merge_channels) return collapsed_channels(ctx, ch, per_step * steps);
  for (const auto& ring : ch) {
    if (c.collapse) {
      for (int i = 0; i < n; ++i) plan.done.push_back(plan.add(ring[i], ring[(i + 1) % n], per_step * steps, 0));
      continue;
    }
    // Step by step: each position's transfer repeated once per step (network::Activity::repeat);
    // step k+1 leaves a GPU once its own step k has left and step k of the previous position has
    // come in (after_previous).
    std::vector<int> pos(n);
    for (int i = 0; i < n; ++i) pos[i] = plan.add_repeated(ring[i], ring[(i + 1) % n], per_step, steps, {});
    for (int i = 0; i < n; ++i) plan.flows[pos[i]].after_previous = {pos[(i + n - 1) % n]};
    plan.done.insert(plan.done.end(), pos.begin(), pos.end());
  }
  if (!c.collapse) plan.ring_orders = static_cast<int>(ch.size());
  return plan;
}

FlowPlan plan_pat(const EmitContext& ctx) {
  // PAT (NCCL 2.23, all-gather / reduce-scatter with one GPU per node): log2(n) exchanges at
  // distances 2^k, each rank with its peers rank +- 2^k (src/transport/generic.cc
  // ncclTransportPatConnect). PAT is Bruck's algorithm with its dimensions reversed (Jeaugey, "PAT:
  // a new algorithm for all-gather and reduce-scatter operations at scale", arXiv:2506.20252):
  // the block of the rank at distance s travels the set bits of s from the highest down and
  // arrives over its lowest set bit (src/include/collectives.h PatAGAlgorithm, v2.23.4-1:
  // sendDim = firstBitSet(s)), so distance 2^k carries the blocks whose s in [1, n) has lowest set
  // bit k: ((n-1) >> k + 1) / 2 blocks of S/n (n/2 at distance 1 ... 1 at n/2 for n a power of
  // two; n - 1 in all). Counted by running PatAGAlgorithm::getNextOp on the host for n = 12, 16,
  // 1000, 1024 (sends per sendDim). Reduce-scatter (PatRSAlgorithm) runs the same trees reversed:
  // the same bytes per distance. The long distances carry little; the standard Bruck order
  // (distance 2^k carrying 2^k blocks, S/2 at n/2) was what this emitter did before.
  // Channels: NCCL connects every rank to its peer at each distance once per channel
  // (ncclTransportPatConnect, v2.23.4-1 to v2.29.7-1: a ncclTransportP2pConnect per channel
  // c < comm->nChannels), runs PAT on the collective's nc channels (src/enqueue.cc
  // topoGetAlgoInfo: comm->nChannels, fewer for small messages) and each channel moves its own
  // part of every block (src/device/all_gather.h, reduce_scatter.h: ncclCollCbdPart per
  // channelId). A channel's connection is its own network connection (one QP:
  // NCCL_IB_QPS_PER_CONNECTION = 1, src/transport/net_ib.cc), so its own ECMP hash: one transfer
  // per channel, pair and distance with 1/C of the data and its own flow hash (materialize), as
  // the ring's channels.
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  const int C = std::max(1, ctx.channels);
  const double block = c.bytes / n;
  const int K = c.collapse ? 1 : pat_chunks(c.op, n, block / C);
  FlowPlan plan;
  // into[ch * n + r]: channel ch's transfer into rank r at the previous distance
  std::vector<int> into(static_cast<std::size_t>(C) * n, -1);
  int wave = 0;
  // Stepped: the distances in PAT's order. All-gather broadcasts down the trees, longest
  // distance first (a block's first hop is its highest bit); reduce-scatter reduces up them,
  // distance 1 first. Pipelined per chunk of NCCL's PAT loop (pat_chunks): each transfer is
  // repeated once per chunk (network::Activity::repeat), chunk i of a distance after chunk i of
  // the previous distance into its source (after_same: what it forwards has come in) and after its
  // own chunk i - 1 (one connection), so chunks of all distances are in flight at once as NCCL's
  // connection FIFOs let them (NCCL_STEPS slots of one chunk each). Whole-distance waves (each
  // rank's next distance after all of its previous one) added up every wave's ECMP collisions:
  // 1.21x NCCL's time at 64 and 256 GPUs, 1 GiB, where a spray fabric gave 1.04x (docs/
  // benchmarks.md). Not modelled: the overlap inside one chunk (NCCL interleaves the distances
  // block by block within a chunk), which matters where a channel's block is one chunk or less.
  // Reduce-scatter's pipelined transfers share a rank's NIC in proportion to their blocks
  // (weighted max-min, network::Activity::weight = blocks): PatRSAlgorithm::getNextOp issues a
  // rank's sends of one chunk one block at a time in its loop's order, n/2 of them at distance 1
  // ... 1 at the longest (counted above), so over a chunk each distance has that share of the
  // rank's sends. Distance 1 is reduce-scatter's first distance (nothing to wait for) and carries
  // half the bytes; with equal shares it got 1/6 of the NIC while the light distances ran up to
  // its progress and waited, and the pairs it feeds late (d = 1 finishing 53.1-59.7 ms on 64 GPUs,
  // 2 leaves, 1 GiB) paced their subtrees: 61,543.0 us vs NCCL's 52,845.6; weighted 53,158.1
  // (docs/benchmarks.md). All-gather keeps equal shares: its free first distance is the lightest
  // (1 block), the weights starve it (53,979.3 vs 52,969.0 us equal). The weight also acts on the
  // switch links the transfer crosses, where real switches do not weight flows (not modelled).
  int top = 1;
  while (2 * top < n) top *= 2;
  const bool down = c.op != Op::ReduceScatter;
  for (int d = down ? top : 1; d >= 1 && d <= top; d = down ? d / 2 : 2 * d, ++wave) {
    int k = 0;
    while ((1 << k) < d) ++k;
    const int blocks = (((n - 1) >> k) + 1) / 2;  // s in [1, n) with lowest set bit k
    const double payload = block * blocks / C;
    std::vector<int> cur(into.size(), -1);
    for (int ch = 0; ch < C; ++ch)
      for (int r = 0; r < n; ++r) {
        const std::size_t at = static_cast<std::size_t>(ch) * n;
        const int to = (r + d) % n;
        if (c.collapse) {
          cur[at + to] = plan.add(c.gpus[r], c.gpus[to], payload, 0);
          plan.done.push_back(cur[at + to]);
          continue;
        }
        std::vector<int> prev;
        if (into[at + r] >= 0) prev.push_back(into[at + r]);
        if (K == 1) {
          cur[at + to] = plan.add(c.gpus[r], c.gpus[to], payload, wave, std::move(prev));
        } else {
          cur[at + to] = plan.add_repeated(c.gpus[r], c.gpus[to], payload / K, K, {}, std::move(prev));
          plan.flows[cur[at + to]].wave = wave;
          // Reduce-scatter: a rank's distances share its NIC in proportion to their blocks.
          if (!down) plan.flows[cur[at + to]].weight = blocks;
        }
      }
    into = std::move(cur);
  }
  if (!c.collapse) plan.done = into;
  plan.note =
      "PAT as NCCL's reversed Bruck trees (distance 2^k carries the blocks whose rank offset has lowest "
      "set bit k: n/2 at distance 1, 1 at the longest), each distance's data split over the " +
      std::to_string(C) + " channels, one hashed transfer per channel and pair" +
      (c.collapse ? ", all distances at once"
       : K == 1
           ? ", distances in PAT's order, one chunk of NCCL's PAT loop (a distance after the previous one "
             "into its source; the overlap inside a chunk is not modelled)"
           : ", distances in PAT's order pipelined in " + std::to_string(K) +
                 " chunks (NCCL's PAT chunk loop), chunk i of a distance after chunk i of the previous one" +
                 (down ? ""
                       : ", a rank's distances sharing its NIC in proportion to their blocks (NCCL's loop order)"));
  return plan;
}

FlowPlan plan_chain(const EmitContext& ctx, bool reduce) {
  // NCCL broadcast / reduce: a pipelined chain (ring order, root first; reduce runs it backwards).
  const auto& c = ctx.c;
  const int n = static_cast<int>(c.gpus.size());
  auto at = [&](int i) { return reduce ? c.gpus[n - 1 - i] : c.gpus[i]; };
  FlowPlan plan;
  plan.chain = true;  // each hop at max(its route, NCCL's hop latency x a scale): materialize
  if (c.collapse) {
    for (int i = 0; i + 1 < n; ++i) plan.done.push_back(plan.add(at(i), at(i + 1), c.bytes, 0));
    return plan;
  }
  // Step by step: each hop repeated once per pipeline chunk (NCCL's: ctx.chunks), chunk k after
  // chunk k of the hop before
  const int chunks = std::max(1, ctx.chunks);
  int prev = -1;
  for (int i = 0; i + 1 < n; ++i) {
    prev = plan.add_repeated(at(i), at(i + 1), c.bytes / chunks, chunks, {},
                             prev >= 0 ? std::vector<int>{prev} : std::vector<int>{});
    plan.done.push_back(prev);
  }
  return plan;
}

}  // namespace aidcsim::collectives::detail
