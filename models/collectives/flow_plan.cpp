#include "models/collectives/flow_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace aidcsim::collectives::detail {

std::vector<std::vector<int>> by_domain(const std::vector<int>& gpus, const Layout& l) {
  std::map<int, int> index;
  std::vector<std::vector<int>> out;
  int last_domain = 0, last = -1;  // the previous GPU's domain and its group: a group's GPUs come
                                   // in runs of one domain (a DP group of thousands, ~4 look-ups each)
  for (int g : gpus) {
    const int d = l.domain_of(g);
    if (last >= 0 && d == last_domain) {
      out[last].push_back(g);
      continue;
    }
    auto it = index.find(d);
    last_domain = d;
    last = it == index.end() ? static_cast<int>(out.size()) : it->second;
    if (it == index.end()) {
      index[d] = static_cast<int>(out.size());
      out.push_back({g});
    } else {
      out[it->second].push_back(g);
    }
  }
  return out;
}

int dtree_parent(int n, int rank, int tree) {
  // ncclGetBtree: lowest set bit b of rank; parent = (rank ^ b) | (b << 1), or rank ^ b when that
  // is out of range; rank 0 is the root.
  auto btree_parent = [n](int r) {
    if (r == 0) return -1;
    int bit = 1;
    while (bit < n && !(bit & r)) bit <<= 1;
    int up = (r ^ bit) | (bit << 1);
    if (up >= n) up = r ^ bit;
    return up;
  };
  if (tree == 0) return btree_parent(rank);
  if (n % 2 == 1) {  // shift by one
    const int u = btree_parent((rank - 1 + n) % n);
    return u == -1 ? -1 : (u + 1) % n;
  }
  const int u = btree_parent(n - 1 - rank);  // mirror
  return u == -1 ? -1 : n - 1 - u;
}

namespace {

/// Longest dependency paths of a plan (materialize's critical path, even_share's slowest path):
/// a flow's first repetition finishes `cost[i]` after the latest of its deps' last repetitions and
/// its after_same flows' first ones, its last repetition (repeat - 1) x cost[i] later. Ties go to
/// the path of more hops (`unit[i]` per repetition: the slope even_share steps along). With `most`,
/// also the most hops of any path whatever its time (Hf / Hl). after_same may point forward (a
/// tree's children), so the relaxation repeats until stable (at most 64 passes); `p` keeps the
/// previous call's values as its start (the same fixed point). Flows that take turns on one
/// connection (c_1 .. c_k between the same GPUs, c_(m+1) after_same c_m, c_1 after_previous c_k: a
/// grouped tree's lead chunk, rest and tail) run their repetitions in turn: c_k's last one ends
/// repeat x (the turn's summed cost) after c_1's first began, repeat x its hops on from it.
struct LongestPaths {
  std::vector<double> Tf, Tl;  ///< finish of a flow's first / last repetition on its longest path
  std::vector<int> Df, Dl;     ///< hops of that path
  std::vector<int> Hf, Hl;     ///< most hops of any path (with `most`)
};
void longest_paths(const std::vector<PlannedFlow>& fl, const std::vector<double>& cost, const std::vector<int>& unit,
                   bool most, LongestPaths* p) {
  const int F = static_cast<int>(fl.size());
  p->Tf.resize(F, 0.0);
  p->Tl.resize(F, 0.0);
  p->Df.resize(F, 0);
  p->Dl.resize(F, 0);
  if (most) {
    p->Hf.resize(F, 0);
    p->Hl.resize(F, 0);
  }
  auto& Tf = p->Tf;
  auto& Tl = p->Tl;
  auto& Df = p->Df;
  auto& Dl = p->Dl;
  auto& Hf = p->Hf;
  auto& Hl = p->Hl;
  // Turns on one connection: flows c_1 .. c_k between the same two GPUs, c_(m+1) after_same c_m
  // and c_1 after_previous c_k (a grouped tree's lead chunk, rest and tail). lead[c_k] = c_1,
  // turn[c_k] = their summed cost and hops.
  std::vector<int> lead, turn_unit;
  std::vector<double> turn_cost;
  for (int d = 0; d < F; ++d)
    for (int i : fl[d].after_previous) {
      if (fl[i].repeat != fl[d].repeat || fl[i].src != fl[d].src || fl[i].dst != fl[d].dst) continue;
      double c = cost[i];
      int u = unit[i], x = i;
      for (int k = 0; k < 8 && x != d; ++k) {
        int next = -1;
        for (int y : fl[x].after_same)
          if (fl[y].src == fl[x].src && fl[y].dst == fl[x].dst && fl[y].repeat == fl[x].repeat) next = y;
        if (next < 0) break;
        x = next;
        c += cost[x];
        u += unit[x];
      }
      if (x != d) continue;
      if (lead.empty()) {
        lead.assign(F, -1);
        turn_unit.assign(F, 0);
        turn_cost.assign(F, 0.0);
      }
      lead[i] = d;
      turn_cost[i] = c;
      turn_unit[i] = u;
    }
  // No flow waits for another (a collapsed ring's transfers): one pass is the fixed point.
  bool independent = lead.empty();
  for (int i = 0; i < F && independent; ++i) independent = fl[i].deps.empty() && fl[i].after_same.empty();
  for (int pass = 0; pass < (independent ? 1 : 64); ++pass) {
    bool changed = false;
    for (int i = 0; i < F; ++i) {
      double t0 = 0;
      int d0 = 0, h0 = 0;
      auto take = [&](double t, int d) {
        if (t > t0 || (t == t0 && d > d0)) {
          t0 = t;
          d0 = d;
        }
      };
      for (int d : fl[i].deps) {
        take(Tl[d], Dl[d]);
        if (most) h0 = std::max(h0, Hl[d]);
      }
      for (int d : fl[i].after_same) {
        take(Tf[d], Df[d]);
        if (most) h0 = std::max(h0, Hf[d]);
      }
      const double tf = t0 + cost[i];
      const int u = unit[i];
      if (tf != Tf[i] || d0 + u != Df[i] || (most && h0 + u != Hf[i])) changed = true;
      Tf[i] = tf;
      Df[i] = d0 + u;
      Tl[i] = Tf[i] + (fl[i].repeat - 1) * cost[i];
      Dl[i] = Df[i] + (fl[i].repeat - 1) * u;
      if (most) {
        Hf[i] = h0 + u;
        Hl[i] = Hf[i] + (fl[i].repeat - 1) * u;
      }
      if (!lead.empty() && lead[i] >= 0) {
        const int d = lead[i], r = fl[i].repeat;
        Tl[i] = std::max(Tl[i], Tf[d] - cost[d] + r * turn_cost[i]);
        Dl[i] = std::max(Dl[i], Df[d] - unit[d] + r * turn_unit[i]);
        if (most) Hl[i] = std::max(Hl[i], Hf[d] - unit[d] + r * turn_unit[i]);
      }
    }
    if (!changed) break;
  }
}

/// The latency of a stepped ring's hops where the even share L / T is below a hop's route
/// latency (flow_plan.hpp, materialize): hop i gets max(route_i, w_i s), w_i its class's NCCL
/// per-hop latency, s such that the worst window of T consecutive positions (the chain a step's
/// data walks, cyclic; T < 2n) takes bw_time + latency with its bytes. Writes the per-flow latency
/// (s, route included) and marks every flow in flight (s = 0 when the routes and bytes alone
/// exceed the target); false where the even share clamps no hop (it is kept).
bool ring_latency(const FlowPlan& plan, const EmitContext& ctx, const std::vector<char>& nv,
                  const std::vector<double>& bytes_time, double bw_time, double latency, int T,
                  std::vector<double>* lat, std::vector<char>* flight) {
  const auto& L = ctx.layout;
  const int F = static_cast<int>(plan.flows.size());
  const int R = plan.ring_orders;
  if (R < 1 || F % R != 0 || T < 1) return false;
  const int n = F / R;
  if (T >= 2 * n) return false;
  const double share = latency / T;
  std::vector<double> route(F), w(F);
  bool clamps = false;
  double wmin = 1e300;
  const bool weighted = ctx.hop_nvlink > 0 && ctx.hop_net > 0;
  for (int i = 0; i < F; ++i) {
    route[i] = nv[i] ? L.nvlink_latency : L.net_latency;
    w[i] = weighted ? (nv[i] ? ctx.hop_nvlink : ctx.hop_net) : 1.0;
    wmin = std::min(wmin, w[i]);
    if (route[i] > share * (1 + 1e-12)) clamps = true;
  }
  if (!clamps) return false;
  const double target = bw_time + latency;
  std::vector<double> ps(3 * static_cast<std::size_t>(n) + 1);
  // The worst window's time at scale s (monotone in s).
  auto worst = [&](double sc) {
    double m = 0;
    for (int r = 0; r < R; ++r) {
      ps[0] = 0;
      for (int k = 0; k < 3 * n; ++k) {
        const int i = r * n + k % n;
        ps[k + 1] = ps[k] + std::max(route[i], w[i] * sc) + bytes_time[i];
      }
      for (int p = 0; p < n; ++p) m = std::max(m, ps[p + T] - ps[p]);
    }
    return m;
  };
  // Routes and bytes alone above the target (the simulated hops are slower than NCCL's per-step
  // latency: LL at thousands of GPUs): every hop at its route, the least a chain can take.
  double lo = 0, hi = worst(0) > target ? 0 : target / (T * wmin);
  for (int it = 0; it < 100 && hi - lo > 1e-15 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (worst(mid) > target ? hi : lo) = mid;
  }
  lat->resize(F);
  flight->assign(F, 1);
  for (int i = 0; i < F; ++i) (*lat)[i] = std::max(route[i], w[i] * lo);
  return true;
}

/// The even per-hop latency h of materialize when some path has more hops than the critical path
/// of bytes (flow_plan.hpp): the largest h <= h0 with which every dependency path takes at most
/// `target` = bw_time + latency on an idle fabric, a hop at max(h, its class's route latency) +
/// its bytes at line rate x `scale` (the relaxation of materialize's critical path). f(h), the slowest path's time, is convex,
/// piecewise linear and increasing in h; Newton's steps from h0 (where f >= target: the critical
/// path of bytes takes exactly the target) descend to its root in finitely many steps, the slope
/// being the hops of the slowest path that h does not clamp. They stop where that path has no
/// unclamped hop (its routes and bytes alone exceed the target: a smaller h would not speed it up).
double even_share(const FlowPlan& plan, const EmitContext& ctx, const std::vector<char>& nv,
                  const std::vector<double>& line, double scale, double target, double h0) {
  const auto& fl = plan.flows;
  const int F = static_cast<int>(fl.size());
  LongestPaths p;
  std::vector<double> cost(F);
  std::vector<int> unit(F);
  // The slowest path at share h and its unclamped hops (ties: more hops, the right slope).
  auto slowest = [&](double h, int* hops) {
    for (int i = 0; i < F; ++i) {
      const double route = nv[i] ? ctx.layout.nvlink_latency : ctx.layout.net_latency;
      cost[i] = std::max(h, route) + line[i] * scale;
      unit[i] = h > route ? 1 : 0;
    }
    longest_paths(fl, cost, unit, false, &p);
    double m = 0;
    *hops = 0;
    for (int i = 0; i < F; ++i)
      if (p.Tl[i] > m || (p.Tl[i] == m && p.Dl[i] > *hops)) {
        m = p.Tl[i];
        *hops = p.Dl[i];
      }
    return m;
  };
  double h = h0;
  for (int it = 0; it < 64 && h > 0; ++it) {
    int hops = 0;
    const double f = slowest(h, &hops);
    if (f <= target * (1 + 1e-12) || hops == 0) break;
    h = std::max(0.0, h - (f - target) / hops);
  }
  return h;
}

}  // namespace

std::vector<int> materialize(network::Schedule& s, const FlowPlan& plan, const EmitContext& ctx, double bw_time,
                             double latency, double nvlink_eff, double nic_eff, std::vector<char>* in_flight) {
  const auto& fl = plan.flows;
  const int F = static_cast<int>(fl.size());
  std::vector<int> ids(F, -1);
  if (in_flight) in_flight->assign(F, 0);
  if (F == 0) return {};
  // What each GPU port (gpu, class, direction) must carry over all waves, summed in flow order:
  // in a dense array over the group's GPU range when that is not much larger than the plan (a
  // 32K-GPU halving / doubling: 2M additions), else in a hash map (a small group of a large fabric).
  std::vector<char> nv(F);
  int lo = fl[0].src, hi = fl[0].src;
  for (int i = 0; i < F; ++i) {
    nv[i] = ctx.nvlink(fl[i].src, fl[i].dst);
    lo = std::min({lo, fl[i].src, fl[i].dst});
    hi = std::max({hi, fl[i].src, fl[i].dst});
  }
  auto port = [lo](int gpu, bool nv, bool out) {
    return 4 * static_cast<std::size_t>(gpu - lo) + (nv ? 2u : 0u) + (out ? 1u : 0u);
  };
  const bool dense = static_cast<std::size_t>(hi - lo) <= 4 * static_cast<std::size_t>(F) + 64;
  // The dense array is this thread's scratch, kept all zero between calls (its ports are reset
  // when this call ends): a DP group of a 31K-GPU step spans the fabric, and a fresh array zeroed
  // and scanned per collective (1 MB each, hundreds of collectives per step) was most of
  // materialize's time.
  thread_local std::vector<double> port_scratch;
  const std::size_t span = dense ? 4 * (static_cast<std::size_t>(hi - lo) + 1) : 0;
  if (port_scratch.size() < span) port_scratch.resize(span, 0.0);
  double* const port_dense = port_scratch.data();
  struct ResetPorts {
    const std::vector<PlannedFlow>& fl;
    const std::vector<char>& nv;
    double* ports;
    int lo;
    bool dense;
    ~ResetPorts() {
      if (!dense) return;
      for (std::size_t i = 0; i < fl.size(); ++i) {
        const std::size_t k = 4 * static_cast<std::size_t>(fl[i].src - lo) + (nv[i] ? 2u : 0u) + 1u;
        const std::size_t m = 4 * static_cast<std::size_t>(fl[i].dst - lo) + (nv[i] ? 2u : 0u);
        ports[k] = 0;
        ports[m] = 0;
      }
    }
  } reset_ports{fl, nv, port_dense, lo, dense};
  std::unordered_map<std::size_t, double> port_map;
  for (int i = 0; i < F; ++i) {
    const double bytes = fl[i].payload * fl[i].repeat;
    const std::size_t a = port(fl[i].src, nv[i], true), b = port(fl[i].dst, nv[i], false);
    if (dense) {
      port_dense[a] += bytes;
      port_dense[b] += bytes;
    } else {
      port_map[a] += bytes;
      port_map[b] += bytes;
    }
  }
  // NIC ports at the rate the fabric lets a GPU's scale-out traffic reach (nic_port_rate: the NIC,
  // bounded by its PCIe attachment where the fabric models it, as a constraint of the sharing:
  // topology::Fabric::sharing_rate): the byte scale maps NCCL's bandwidth time onto those rates,
  // so a NIC faster than its PCIe moves the bytes of one at the PCIe rate (an 800 Gb/s NIC carried
  // 2x the bytes of a 400 Gb/s one on PCIe Gen5, which queued on 400 Gb/s switch links: bundled
  // 8K step 6.46 -> 9.50 s), work-conserving whatever the plan's overlap.
  const double nic_line = nic_port_rate(ctx.layout);
  std::vector<double> rate(F), line(F);
  // Longest path at line rate (F / L: finish of a flow's first / last repetition; D: its hops;
  // H: the most hops of any path into it, whatever its bytes).
  std::vector<int> unit(F, 1);
  if (plan.pipelines)
    for (int i = 0; i < F; ++i) unit[i] = fl[i].hops;
  double tmax = 0;
  int dmax = 1, hmax = 1;
  for (int i = 0; i < F; ++i) {
    rate[i] = nv[i] ? ctx.layout.nvlink_rate : nic_line;
    // Dependency chains at line rate (a port's concurrent share is bounded by its total below).
    line[i] = fl[i].payload / rate[i];
  }
  LongestPaths lp;
  longest_paths(fl, line, unit, true, &lp);
  for (int i = 0; i < F; ++i) {
    if (lp.Tl[i] > tmax || (lp.Tl[i] == tmax && lp.Dl[i] > dmax)) {
      tmax = lp.Tl[i];
      dmax = lp.Dl[i];
    }
    hmax = std::max(hmax, lp.Hl[i]);
  }
  // A port carries its waves one after the other: the critical time is at least its total.
  auto port_time = [&](std::size_t k, double bytes) {
    tmax = std::max(tmax, bytes / ((k & 2u) ? ctx.layout.nvlink_rate : nic_line));
  };
  if (dense)  // the ports of the plan's flows (each at most once would change no maximum)
    for (int i = 0; i < F; ++i)
      for (const std::size_t k : {port(fl[i].src, nv[i], true), port(fl[i].dst, nv[i], false)})
        if (port_dense[k] != 0) port_time(k, port_dense[k]);
  for (const auto& [k, bytes] : port_map) port_time(k, bytes);
  const double scale = tmax > 0 ? bw_time / tmax : 1.0;
  double lat_per_hop = latency / std::max(1, dmax);
  // A stepped ring whose even share falls below a class's route latency: per-hop latencies.
  std::vector<double> ring_lat;
  bool ring_split = false;
  if (plan.ring_orders > 0 && !plan.per_port_efficiency) {
    // A step's bytes share its ports with the other orders' steps, which run in lockstep with
    // it on an idle fabric: its time is its busier port's bytes per step (port total / repeat).
    auto port_bytes = [&](std::size_t k) {
      if (dense) return port_dense[k];
      const auto it = port_map.find(k);
      return it == port_map.end() ? 0.0 : it->second;
    };
    std::vector<double> bt(F);
    for (int i = 0; i < F; ++i)
      bt[i] = std::max(port_bytes(port(fl[i].src, nv[i], true)), port_bytes(port(fl[i].dst, nv[i], false))) * scale /
              (fl[i].repeat * rate[i]);
    std::vector<char> flight;
    ring_split = ring_latency(plan, ctx, nv, bt, bw_time, latency, dmax, &ring_lat, &flight);
    if (ring_split && in_flight) *in_flight = flight;
  }
  // A path with more hops than the critical one (a stepped ring's steps are all alike; PAT's,
  // halving / doubling's): the even share made it take up to hmax / dmax x the latency. The share
  // is then the one that makes the slowest path take bw_time + latency.
  if (!ring_split && !plan.pipelines && !plan.chain && hmax > dmax && latency > 0)
    lat_per_hop = even_share(plan, ctx, nv, line, scale, bw_time + latency, lat_per_hop);
  // A stepped chain (FlowPlan::chain): hop i at max(route_i, w_i s), s by bisection such that the
  // critical path (its hops in series, then the slowest hop's further chunks) takes the target; s
  // = 0 where the routes and bytes alone exceed it.
  std::vector<double> chain_hop;
  if (plan.chain && !ring_split && latency > 0) {
    std::vector<double> route(F), w(F), cost(F);
    const bool weighted = ctx.hop_nvlink > 0 && ctx.hop_net > 0;
    double wmin = 1e300;
    for (int i = 0; i < F; ++i) {
      route[i] = hop_route(ctx.layout, fl[i].src, fl[i].dst);
      w[i] = weighted ? (nv[i] ? ctx.hop_nvlink : ctx.hop_net) : 1.0;
      wmin = std::min(wmin, w[i]);
    }
    const double target = bw_time + latency;
    LongestPaths cp;
    auto slowest = [&](double sc) {
      for (int i = 0; i < F; ++i) cost[i] = std::max(route[i], w[i] * sc) + line[i] * scale;
      longest_paths(fl, cost, unit, false, &cp);
      return *std::max_element(cp.Tl.begin(), cp.Tl.end());
    };
    double lo = 0, hi = slowest(0) > target ? 0 : target / wmin;
    for (int it = 0; it < 100 && hi - lo > 1e-15 * hi; ++it) {
      const double mid = 0.5 * (lo + hi);
      (slowest(mid) > target ? hi : lo) = mid;
    }
    chain_hop.resize(F);
    for (int i = 0; i < F; ++i) chain_hop[i] = std::max(route[i], w[i] * lo);
  }
  // Pipelines (a stepped tree's edges, beside its NVLink chains): each flow's hop takes latency /
  // the most hops of a path in its pipeline (its connected part of the plan), so that the path of
  // most hops pays NCCL's latency once, in series with its bytes, as NCCL's time charges it.
  std::vector<double> part_hop;
  if (plan.pipelines && !ring_split && latency > 0) {
    std::vector<int> root(F);
    for (int i = 0; i < F; ++i) root[i] = i;
    auto find = [&](int x) {
      while (root[x] != x) x = root[x] = root[root[x]];
      return x;
    };
    for (int i = 0; i < F; ++i) {
      for (int d : fl[i].deps) root[find(d)] = find(i);
      for (int d : fl[i].after_same) root[find(d)] = find(i);
      for (int d : fl[i].after_previous) root[find(d)] = find(i);
    }
    std::vector<int> most(F, 0);
    for (int i = 0; i < F; ++i) most[find(i)] = std::max(most[find(i)], lp.Hl[i]);
    part_hop.resize(F);
    for (int i = 0; i < F; ++i) part_hop[i] = latency / std::max(1, most[find(i)]);
  }
  // Per port: NCCL's NET efficiency (nic_eff = net_rate / nic_rate) relative to the port's rate
  // on the fabric (1 where the fabric bounds the NIC at its PCIe attachment).
  const double nic_port_eff = nic_line == ctx.layout.nic_rate ? nic_eff : nic_eff * ctx.layout.nic_rate / nic_line;
  const int base = static_cast<int>(s.activities.size());
  // Geometric growth: an exact reserve per collective re-allocated (and moved) the whole schedule
  // for every one of a step's thousands of collectives (19 % of a 31K run's CPU, perf).
  if (s.activities.capacity() < s.activities.size() + F)
    s.activities.reserve(std::max(s.activities.size() + F, 2 * s.activities.capacity()));
  std::uint64_t counter = 0;
  for (int i = 0; i < F; ++i) {
    network::Activity a;
    a.kind = network::Activity::Kind::Transfer;
    a.gpu = fl[i].src;
    a.dst_gpu = fl[i].dst;
    // A pipeline's chunks pay their hop's own route (a cross-leaf or cross-pod hop's longer one
    // included) within their latency share: deducting only the nominal route made each of them
    // pay the excess again (64-256 nodes at 8 B: +20-38 % over NCCL's latency).
    const double route = !chain_hop.empty() ? hop_route(ctx.layout, fl[i].src, fl[i].dst)
                         : plan.pipelines && !nv[i] && ctx.layout.route_latency
                             ? ctx.layout.route_latency(fl[i].src, fl[i].dst)
                         : nv[i] ? ctx.layout.nvlink_latency
                                 : ctx.layout.net_latency;
    a.amount = plan.per_port_efficiency ? fl[i].payload / (nv[i] ? nvlink_eff : nic_port_eff) : fl[i].payload * scale;
    const double hop = ring_split           ? ring_lat[i]
                       : !chain_hop.empty() ? chain_hop[i]
                       : !part_hop.empty()  ? part_hop[i] * fl[i].hops
                                            : lat_per_hop;
    a.delay = std::max(0.0, hop - route);
    ++counter;
    a.flow_hash = ctx.c.hash * 0x9E3779B97F4A7C15ULL + (fl[i].hash_index > 0 ? fl[i].hash_index : counter);
    a.spread = fl[i].spread;
    a.spread_phase = fl[i].spread_phase;
    a.weight = fl[i].weight;
    if (fl[i].deps.empty()) {
      a.after = ctx.c.after;
    } else {
      a.after.reserve(fl[i].deps.size());
      for (int d : fl[i].deps) a.after.push_back(base + d);
    }
    a.repeat = fl[i].repeat;
    if (a.repeat > 1) {
      for (int d : fl[i].after_previous) a.after_previous.push_back(base + d);
      for (int d : fl[i].after_same) a.after_same.push_back(base + d);
    } else {
      // One repetition (a one-chunk pipeline): its repetition 0 waits for repetition 0 of its
      // after_same transfers, i.e. for them; after_previous binds no repetition.
      for (int d : fl[i].after_same) a.after.push_back(base + d);
    }
    a.tag = ctx.c.tag;
    s.activities.push_back(std::move(a));
    ids[i] = base + i;
  }
  std::vector<int> done;
  done.reserve(plan.done.size());
  for (int d : plan.done) done.push_back(ids[d]);
  return done;
}

}  // namespace aidcsim::collectives::detail
