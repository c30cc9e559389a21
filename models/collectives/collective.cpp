#include "models/collectives/collective.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"

namespace aidcsim::collectives {

using network::Activity;
using network::Schedule;

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::Auto: return "auto";
    case Algorithm::Ring: return "ring";
    case Algorithm::Tree: return "tree";
    case Algorithm::Hierarchical: return "hierarchical";
    case Algorithm::Nvls: return "nvls";
    case Algorithm::Sharp: return "sharp";
    case Algorithm::HalvingDoubling: return "halving_doubling";
    case Algorithm::Direct: return "direct";
  }
  return "?";
}

Algorithm algorithm_from(const std::string& n) {
  for (Algorithm a : {Algorithm::Auto, Algorithm::Ring, Algorithm::Tree, Algorithm::Hierarchical, Algorithm::Nvls,
                      Algorithm::Sharp, Algorithm::HalvingDoubling, Algorithm::Direct})
    if (n == algorithm_name(a)) return a;
  throw Error("unknown collective algorithm '" + n + "'");
}

Layout Layout::from(const topology::Fabric& fabric) {
  Layout l;
  l.domain_of = [&fabric](int g) { return fabric.nvlink_domain_of(g); };
  l.nvlink_rate = fabric.spec().nvlink_bandwidth;
  l.nic_rate = fabric.spec().nic_rate;
  l.nvls = fabric.spec().nvls;
  auto latency = [&fabric](int a, int b) {
    double s = 0;
    for (const auto& h : fabric.route(a, b, 0)) s += fabric.link(h.link).latency;
    return s;
  };
  const int n = fabric.gpu_count();
  if (n > 1 && fabric.nvlink_domain_of(1) == fabric.nvlink_domain_of(0)) l.nvlink_latency = latency(0, 1);
  // typical scale-out hop of a rail-aligned ring: GPU 0 to the same local GPU of the next domain
  const int next = fabric.spec().nvlink_domain;
  if (next > 0 && next < n && fabric.nvlink_domain_of(next) != fabric.nvlink_domain_of(0)) l.net_latency = latency(0, next);
  else if (n > 1 && fabric.nvlink_domain_of(n - 1) != fabric.nvlink_domain_of(0)) l.net_latency = latency(0, n - 1);
  else l.net_latency = l.nvlink_latency;
  return l;
}

namespace {

struct Emitter {
  Schedule& s;
  const Collective& c;
  const Layout& l;
  const Protocol& p;
  std::uint64_t flow = 0;

  bool nvlink(int a, int b) const { return l.domain_of(a) == l.domain_of(b); }

  /// One transfer of `data` B of payload standing for `steps` algorithm steps; eff_override > 0
  /// replaces the link's protocol efficiency (NVLS). Returns its index, -1 when src == dst.
  /// `share`: flows leaving `src` at once in the same step; the latency bytes are split among them
  /// so that link sharing does not multiply the per-step latency.
  int transfer(int src, int dst, double data, int steps, std::vector<int> after, double eff_override = 0,
               int share = 1) {
    if (src == dst) return -1;
    const bool nv = nvlink(src, dst);
    const double rate = nv ? l.nvlink_rate : l.nic_rate;
    const double eff = eff_override > 0 ? eff_override : (nv ? p.nvlink : p.nic);
    const double lat = nv ? l.nvlink_latency : l.net_latency;
    Activity a;
    a.kind = Activity::Kind::Transfer;
    a.gpu = src;
    a.dst_gpu = dst;
    // payload at protocol efficiency + every step's software latency + the route latency of the
    // steps the flow network does not see (it charges the route latency once).
    a.amount = data / eff + rate * (steps * p.alpha + std::max(0, steps - 1) * lat) / std::max(1, share);
    a.flow_hash = c.hash * 0x9E3779B97F4A7C15ULL + (++flow);
    a.after = std::move(after);
    a.tag = c.tag;
    s.activities.push_back(std::move(a));
    return static_cast<int>(s.activities.size()) - 1;
  }
};

std::vector<std::vector<int>> by_domain(const std::vector<int>& gpus, const Layout& l) {
  std::map<int, std::vector<int>> m;
  std::vector<int> order;
  for (int g : gpus) {
    int d = l.domain_of(g);
    if (!m.count(d)) order.push_back(d);
    m[d].push_back(g);
  }
  std::vector<std::vector<int>> out;
  for (int d : order) out.push_back(m[d]);
  return out;
}

/// Ring orders ("channels") of the group: one ring when the group is inside one domain or has
/// unequal domain shares; else one channel per local GPU, each entering a domain at one GPU and
/// leaving it through another so that every domain-to-domain hop stays on one rail (alternating
/// entry/exit, NCCL's rail-aligned rings), and every NIC sends one channel and receives one.
std::vector<std::vector<int>> ring_channels(const std::vector<int>& gpus, const Layout& l) {
  auto doms = by_domain(gpus, l);
  const int g = static_cast<int>(doms[0].size());
  bool equal = true;
  for (auto& d : doms) equal = equal && static_cast<int>(d.size()) == g;
  if (doms.size() == 1 || !equal || g == 1) return {gpus};
  std::vector<std::vector<int>> ch(g);
  for (int c = 0; c < g; ++c)
    for (std::size_t d = 0; d < doms.size(); ++d) {
      const auto& L = doms[d];
      for (int k = 0; k < g; ++k) {
        // even domain: c, c-1, ..., c+1 (enter c, leave c+1); odd: c+1, c+2, ..., c (enter c+1, leave c)
        int idx = (d % 2 == 0) ? ((c - k) % g + g) % g : (c + 1 + k) % g;
        ch[c].push_back(L[idx]);
      }
    }
  return ch;
}

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

Emitted emit_ring(Emitter& e, Op op) {
  const int n = static_cast<int>(e.c.gpus.size());
  const int steps = op == Op::AllReduce ? 2 * (n - 1) : n - 1;
  auto ch = ring_channels(e.c.gpus, e.l);
  const double per_step = e.c.bytes / n / ch.size();
  Emitted out;
  out.algorithm = Algorithm::Ring;
  std::map<std::pair<int, bool>, int> share;  // (src, over NVLink) -> flows per step
  for (const auto& ring : ch)
    for (int i = 0; i < n; ++i) ++share[{ring[i], e.nvlink(ring[i], ring[(i + 1) % n])}];
  auto sh = [&](int a, int b) { return share[{a, e.nvlink(a, b)}]; };
  for (const auto& ring : ch) {
    if (e.c.collapse) {
      for (int i = 0; i < n; ++i) {
        int t = e.transfer(ring[i], ring[(i + 1) % n], per_step * steps, steps, e.c.after, 0,
                           sh(ring[i], ring[(i + 1) % n]));
        if (t >= 0) out.done.push_back(t);
      }
      continue;
    }
    std::vector<int> prev(n, -1);  // prev[i]: step k-1 transfer into position i
    for (int k = 0; k < steps; ++k) {
      std::vector<int> cur(n, -1);
      for (int i = 0; i < n; ++i) {
        std::vector<int> after = k == 0 ? e.c.after : std::vector<int>{};
        if (k > 0 && prev[i] >= 0) after.push_back(prev[i]);
        cur[(i + 1) % n] = e.transfer(ring[i], ring[(i + 1) % n], per_step, 1, after, 0, sh(ring[i], ring[(i + 1) % n]));
      }
      prev = cur;
    }
    for (int t : prev)
      if (t >= 0) out.done.push_back(t);
  }
  return out;
}

Emitted emit_tree(Emitter& e) {
  const int n = static_cast<int>(e.c.gpus.size());
  const int chunks = std::max(1, e.c.chunks);
  const double data = e.c.bytes / 2.0 / chunks;
  Emitted out;
  out.algorithm = Algorithm::Tree;
  for (int tree = 0; tree < 2; ++tree) {
    // heap-ordered binary tree over positions; the second tree is shifted by one position so that
    // most leaves of one tree are inner nodes of the other (NCCL's double binary tree).
    auto gpu = [&](int pos) { return e.c.gpus[(pos + tree) % n]; };
    std::vector<std::vector<int>> up(n, std::vector<int>(chunks, -1));    // pos -> parent
    std::vector<std::vector<int>> down(n, std::vector<int>(chunks, -1));  // parent -> pos
    for (int ck = 0; ck < chunks; ++ck)
      for (int pos = n - 1; pos >= 1; --pos) {
        std::vector<int> after = e.c.after;
        for (int child : {2 * pos + 1, 2 * pos + 2})
          if (child < n && up[child][ck] >= 0) after.push_back(up[child][ck]);
        if (ck > 0 && up[pos][ck - 1] >= 0) after.push_back(up[pos][ck - 1]);
        up[pos][ck] = e.transfer(gpu(pos), gpu((pos - 1) / 2), data, 1, after);
      }
    for (int ck = 0; ck < chunks; ++ck)
      for (int pos = 1; pos < n; ++pos) {
        const int parent = (pos - 1) / 2;
        std::vector<int> after = e.c.after;
        if (parent == 0) {
          for (int child : {1, 2})
            if (child < n && up[child][ck] >= 0) after.push_back(up[child][ck]);
        } else if (down[parent][ck] >= 0) {
          after.push_back(down[parent][ck]);
        }
        if (ck > 0 && down[pos][ck - 1] >= 0) after.push_back(down[pos][ck - 1]);
        down[pos][ck] = e.transfer(gpu(parent), gpu(pos), data, 1, after);
      }
    for (int pos = 1; pos < n; ++pos)
      if (down[pos][chunks - 1] >= 0) out.done.push_back(down[pos][chunks - 1]);
  }
  return out;
}

Emitted emit_halving_doubling(Emitter& e) {
  const int n = static_cast<int>(e.c.gpus.size());
  if (!power_of_two(n)) throw Error("halving_doubling needs a power-of-two group, got " + std::to_string(n));
  const int lg = static_cast<int>(std::lround(std::log2(double(n))));
  std::vector<std::vector<int>> into(n);  // transfers into position i of the previous step
  Emitted out;
  out.algorithm = Algorithm::HalvingDoubling;
  auto step = [&](int dist, double data) {
    std::vector<std::vector<int>> cur(n);
    for (int i = 0; i < n; ++i) {
      std::vector<int> after = into[i].empty() ? e.c.after : into[i];
      int j = i ^ dist;
      cur[j].push_back(e.transfer(e.c.gpus[i], e.c.gpus[j], data, 1, after));
    }
    into = cur;
  };
  for (int k = 0; k < lg; ++k) step(n >> (k + 1), e.c.bytes / (2 << k));  // reduce-scatter, halving
  for (int k = lg - 1; k >= 0; --k) step(n >> (k + 1), e.c.bytes / (2 << k));  // all-gather, doubling
  for (auto& v : into) out.done.insert(out.done.end(), v.begin(), v.end());
  return out;
}

Emitted emit_in_network(Emitter& e, bool sharp) {
  auto doms = by_domain(e.c.gpus, e.l);
  Emitted out;
  out.algorithm = sharp && doms.size() > 1 ? Algorithm::Sharp : Algorithm::Nvls;
  const double S = e.c.bytes;
  // Intra-domain in-switch reduction: each GPU pushes S into the NVSwitch and pulls S back
  // (multimem ld_reduce / st), emulated as a shift permutation carrying S at the NVLS efficiency.
  for (const auto& d : doms) {
    const int g = static_cast<int>(d.size());
    for (int i = 0; i < g && g > 1; ++i) {
      int t = e.p.nvls_capable && e.l.nvls ? e.transfer(d[i], d[(i + 1) % g], S, 2, e.c.after, e.p.nvls)
                               : e.transfer(d[i], d[(i + 1) % g], 2.0 * (g - 1) / g * S, 2 * (g - 1), e.c.after);
      out.done.push_back(t);
    }
  }
  // In-fabric reduction (SHARP): each GPU's NIC sends its S/g shard up the tree and receives the
  // result back, concurrently with (pipelined behind) the NVLS part; emulated as a rail-aligned
  // shift between domains carrying S/g per direction.
  if (sharp && doms.size() > 1) {
    const int g = static_cast<int>(doms[0].size());
    for (std::size_t d = 0; d < doms.size(); ++d)
      for (int j = 0; j < g && j < static_cast<int>(doms[(d + 1) % doms.size()].size()); ++j) {
        int t = e.transfer(doms[d][j], doms[(d + 1) % doms.size()][j], S / g, 2, e.c.after);
        if (t >= 0) out.done.push_back(t);
      }
  }
  return out;
}

Emitted emit_hierarchical(Emitter& e) {
  auto doms = by_domain(e.c.gpus, e.l);
  const int g = static_cast<int>(doms[0].size());
  for (auto& d : doms)
    if (static_cast<int>(d.size()) != g || doms.size() == 1) return emit_ring(e, Op::AllReduce);
  Emitted out;
  out.algorithm = Algorithm::Hierarchical;
  auto sub = [&](Op op, const std::vector<int>& gpus, double bytes, std::vector<int> after) {
    Collective c = e.c;
    c.op = op;
    c.algorithm = Algorithm::Ring;
    c.gpus = gpus;
    c.bytes = bytes;
    c.after = std::move(after);
    Emitter e2{e.s, c, e.l, e.p, e.flow};
    auto r = emit_ring(e2, op);
    e.flow = e2.flow;
    return r.done;
  };
  std::vector<int> p1, p2;
  for (auto& d : doms) {
    auto r = sub(Op::ReduceScatter, d, e.c.bytes, e.c.after);
    p1.insert(p1.end(), r.begin(), r.end());
  }
  for (int j = 0; j < g; ++j) {
    std::vector<int> rail;
    for (auto& d : doms) rail.push_back(d[j]);
    auto r = sub(Op::AllReduce, rail, e.c.bytes / g, p1);
    p2.insert(p2.end(), r.begin(), r.end());
  }
  for (auto& d : doms) {
    auto r = sub(Op::AllGather, d, e.c.bytes, p2);
    out.done.insert(out.done.end(), r.begin(), r.end());
  }
  return out;
}

Emitted emit_alltoall(Emitter& e) {
  const int n = static_cast<int>(e.c.gpus.size());
  Emitted out;
  out.algorithm = Algorithm::Direct;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) out.done.push_back(e.transfer(e.c.gpus[i], e.c.gpus[j], e.c.bytes / n, 1, e.c.after));
  return out;
}

Emitted emit_chain(Emitter& e, bool reduce) {
  // Pipelined chain broadcast (reduce: the same chain reversed), `chunks` chunks.
  const int n = static_cast<int>(e.c.gpus.size());
  const int chunks = std::max(1, e.c.chunks);
  std::vector<int> prev_chunk(n, -1);
  Emitted out;
  out.algorithm = Algorithm::Ring;
  auto at = [&](int i) { return reduce ? e.c.gpus[n - 1 - i] : e.c.gpus[i]; };
  for (int ck = 0; ck < chunks; ++ck) {
    int prev_hop = -1;
    for (int i = 0; i + 1 < n; ++i) {
      std::vector<int> after = e.c.after;
      if (prev_hop >= 0) after.push_back(prev_hop);
      if (prev_chunk[i] >= 0) after.push_back(prev_chunk[i]);
      prev_hop = e.transfer(at(i), at(i + 1), e.c.bytes / chunks, 1, after);
      prev_chunk[i] = prev_hop;
    }
    if (prev_hop >= 0 && ck == chunks - 1) out.done.push_back(prev_hop);
  }
  return out;
}

double bottleneck_bw(const Collective& c, const Layout& l, const Protocol& p) {
  auto doms = by_domain(c.gpus, l);
  const double nv = p.nvlink * l.nvlink_rate;
  if (doms.size() == 1) return nv;
  const double g = static_cast<double>(doms[0].size());
  const double nic = p.nic * l.nic_rate * g;
  return g > 1 ? std::min(nic, nv * g / (g - 1)) : nic;
}

}  // namespace

bool implements(Algorithm a, Op op) {
  if (a == Algorithm::Auto) return true;
  switch (op) {
    case Op::AllReduce: return a != Algorithm::Direct;
    case Op::AllGather:
    case Op::ReduceScatter: return a == Algorithm::Ring;
    case Op::AllToAll: return a == Algorithm::Direct;
    case Op::Broadcast:
    case Op::Reduce:
    case Op::SendRecv: return a == Algorithm::Ring || a == Algorithm::Direct;  // one algorithm each
  }
  return false;
}

Algorithm choose_algorithm(const Collective& c, const Layout& l, const Protocol& p) {
  if (c.algorithm != Algorithm::Auto) return c.algorithm;
  if (c.op == Op::AllToAll) return Algorithm::Direct;
  if (c.op != Op::AllReduce) return Algorithm::Ring;
  const bool one_domain = by_domain(c.gpus, l).size() == 1;
  if (one_domain && p.nvls_capable && l.nvls && c.gpus.size() > 2) return Algorithm::Nvls;
  Collective r = c, t = c;
  r.algorithm = Algorithm::Ring;
  t.algorithm = Algorithm::Tree;
  return estimate_time(t, l, p) < estimate_time(r, l, p) ? Algorithm::Tree : Algorithm::Ring;
}

Emitted emit(Schedule& s, const Collective& c, const Layout& l, const Protocol& p) {
  Emitted out;
  const int first = static_cast<int>(s.activities.size());
  out.first = first;
  const int n = static_cast<int>(c.gpus.size());
  if (n <= 1 || c.bytes <= 0) {
    out.last = out.first;
    return out;
  }
  Emitter e{s, c, l, p};
  const Algorithm a = choose_algorithm(c, l, p);
  if (!implements(a, c.op))
    throw Error(std::string("collective algorithm ") + algorithm_name(a) + " does not implement " + op_name(c.op));
  switch (c.op) {
    case Op::AllReduce:
      if (a == Algorithm::Tree) out = emit_tree(e);
      else if (a == Algorithm::HalvingDoubling) out = emit_halving_doubling(e);
      else if (a == Algorithm::Nvls) out = emit_in_network(e, false);
      else if (a == Algorithm::Sharp) out = emit_in_network(e, true);
      else if (a == Algorithm::Hierarchical) out = emit_hierarchical(e);
      else out = emit_ring(e, c.op);
      break;
    case Op::AllGather:
    case Op::ReduceScatter: out = emit_ring(e, c.op); break;
    case Op::AllToAll: out = emit_alltoall(e); break;
    case Op::Broadcast: out = emit_chain(e, false); break;
    case Op::Reduce: out = emit_chain(e, true); break;
    case Op::SendRecv: {
      int t = e.transfer(c.gpus[0], c.gpus[1], c.bytes, 1, c.after);
      if (t >= 0) out.done.push_back(t);
      out.algorithm = Algorithm::Direct;
      break;
    }
  }
  out.first = first;
  out.last = static_cast<int>(s.activities.size());
  return out;
}

double estimate_time(const Collective& c, const Layout& l, const Protocol& p) {
  const int n = static_cast<int>(c.gpus.size());
  if (n <= 1) return 0;
  auto doms = by_domain(c.gpus, l);
  const bool one = doms.size() == 1;
  const double alpha = p.alpha + (one ? l.nvlink_latency : l.net_latency);
  const double B = bottleneck_bw(c, l, p);
  Algorithm a = choose_algorithm(c, l, p);
  switch (c.op) {
    case Op::AllReduce:
      switch (a) {
        case Algorithm::Tree: {
          const int chunks = std::max(1, c.chunks);
          const double depth = std::ceil(std::log2(double(n)));
          const double per = c.bytes / 2.0 / chunks / (one ? p.nvlink * l.nvlink_rate : p.nic * l.nic_rate);
          // each inner node forwards two children's chunks (both trees share its links)
          return 2.0 * (depth + chunks - 1) * (2.0 * per + alpha);
        }
        case Algorithm::HalvingDoubling: return halving_doubling_allreduce_time(n, c.bytes, B, alpha);
        case Algorithm::Nvls:
        case Algorithm::Sharp: {
          double t = in_network_allreduce_time(n, c.bytes, p.nvls * l.nvlink_rate, p.alpha + l.nvlink_latency);
          if (!one) {
            const double g = static_cast<double>(doms[0].size());
            t = std::max(t, c.bytes / g / (p.nic * l.nic_rate) + 2 * (p.alpha + l.net_latency));
          }
          return t;
        }
        case Algorithm::Hierarchical: {
          const double g = static_cast<double>(doms[0].size());
          const double nv = p.nvlink * l.nvlink_rate, nva = p.alpha + l.nvlink_latency;
          return 2 * ring_reduce_scatter_time(static_cast<int>(g), c.bytes, nv, nva) +
                 ring_allreduce_time(static_cast<int>(doms.size()), c.bytes / g, p.nic * l.nic_rate,
                                     p.alpha + l.net_latency);
        }
        default: return ring_allreduce_time(n, c.bytes, B, alpha);
      }
    case Op::AllGather: return ring_allgather_time(n, c.bytes, B, alpha);
    case Op::ReduceScatter: return ring_reduce_scatter_time(n, c.bytes, B, alpha);
    case Op::AllToAll:
      return alltoall_time(n, c.bytes, one ? p.nvlink * l.nvlink_rate : p.nic * l.nic_rate, p.alpha);
    case Op::Broadcast:
    case Op::Reduce: {
      const int chunks = std::max(1, c.chunks);
      return (n - 1 + chunks - 1) * (c.bytes / chunks / B + alpha);
    }
    case Op::SendRecv: return c.bytes / B + alpha;
  }
  return 0;
}

}  // namespace aidcsim::collectives
