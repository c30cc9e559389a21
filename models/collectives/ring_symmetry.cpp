// A stepped ring run as its channel 0 when the channels are images of each other (ring_symmetry.hpp).
#include "models/collectives/ring_symmetry.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "models/topology/fabric.hpp"

namespace aidcsim::collectives {

namespace {

using network::Activity;

bool same_transfer(const Activity& a, const Activity& b) {
  return a.kind == b.kind && a.amount == b.amount && a.delay == b.delay && a.weight == b.weight &&
         a.rate_limit == b.rate_limit && a.group == b.group && a.repeat == b.repeat && a.tag == b.tag;
}

/// Per link direction (2 l + d) the ring positions of the flows crossing it, sorted.
using Uses = std::unordered_map<std::int64_t, std::vector<int>>;

std::int64_t dir(const topology::Hop& h) { return 2 * static_cast<std::int64_t>(h.link) + (h.forward ? 0 : 1); }

void add_uses(Uses& u, const std::vector<topology::Hop>& route, int pos) {
  for (const auto& h : route) u[dir(h)].push_back(pos);
}

void sort_uses(Uses& u) {
  for (auto& [d, v] : u) std::sort(v.begin(), v.end());
}

}  // namespace

std::optional<network::Schedule> ring_one_channel(const network::Schedule& s, const Emitted& e, int n,
                                                  const topology::Fabric& fab) {
  const int total = e.last - e.first;
  const int C = e.rings;
  if (n < 2 || C < 2 || total % C != 0 || (total / C) % n != 0 || e.first < 0 ||
      e.last > static_cast<int>(s.activities.size()))
    return std::nullopt;
  const auto& spec = fab.spec();
  // A multi-plane fabric splits each transfer over the planes (sub-flows with routes of their own).
  if (spec.ecmp != topology::EcmpMode::Hash || spec.flows_per_pair > 1 || fab.planes() > 1) return std::nullopt;
  const int B = total / C, K = B / n;  // activities per order, per position (pipeline lanes)
  auto act = [&](int c, int i, int j = 0) -> const Activity& { return s.activities[e.first + c * B + i * K + j]; };
  // Every order is channel 0 shifted by c B: the same transfers on its own hops, dependencies
  // inside its own block at the same places.
  auto shifted = [&](const network::DepList& x, const network::DepList& x0, int c) {
    if (x.size() != x0.size()) return false;
    for (std::size_t k = 0; k < x.size(); ++k)
      if (x0[k] < e.first || x0[k] >= e.first + B || x[k] != x0[k] + c * B) return false;
    return true;
  };
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < K; ++j) {
        const Activity& a = act(c, i, j);
        const Activity& a0 = act(0, i, j);
        if (a.kind != Activity::Kind::Transfer || a.gpu == a.dst_gpu || !same_transfer(a, a0) ||
            a.gpu != act(c, i).gpu || a.dst_gpu != act(c, i).dst_gpu || a.flow_hash != act(c, i).flow_hash ||
            !shifted(a.after, a0.after, c) || !shifted(a.after_previous, a0.after_previous, c) ||
            !shifted(a.after_same, a0.after_same, c))
          return std::nullopt;
      }
  // NCCL's copies of its search channels (ncclTopoPostset, flow_ring.cpp ring_channels): order c
  // runs the GPUs of order c mod P. The reduced ring keeps the m = C / P copies of channel 0
  // (orders 0, P, ..., (m - 1) P: their own hashes), and a flow is labelled (copy t = c / P,
  // position i): the cover then maps order c onto copy c / P of the reduced ring.
  int P = C;
  for (int q = 1; q < C && P == C; ++q) {
    if (C % q != 0) continue;
    bool period = true;
    for (int c = q; c < C && period; ++c)
      for (int i = 0; i < n && period; ++i)
        period = act(c, i).gpu == act(c % q, i).gpu && act(c, i).dst_gpu == act(c % q, i).dst_gpu;
    if (period) P = q;
  }
  const int m = C / P;
  if (P < 2) return std::nullopt;  // nothing to reduce: every order a copy of one
  // Routes of the full ring and of the reduced one (NVLink hops of a domain through one pair).
  std::vector<std::vector<std::vector<topology::Hop>>> full(C, std::vector<std::vector<topology::Hop>>(n));
  Uses full_uses, red_uses;
  auto nvlink_only = [&](const std::vector<topology::Hop>& r) {
    for (const auto& h : r)
      if (fab.link(h.link).tier != topology::Tier::NvLink) return false;
    return !r.empty();
  };
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < n; ++i) {
      full[c][i] = fab.route(act(c, i).gpu, act(c, i).dst_gpu, act(c, i).flow_hash);
      add_uses(full_uses, full[c][i], (c / P) * n + i);
    }
  network::Schedule out;
  out.gpu_flops = s.gpu_flops;
  out.activities.reserve(static_cast<std::size_t>(m) * B);
  std::unordered_map<int, std::pair<int, int>> pair_of_domain;  // NVLink domain -> (src, dst)
  std::vector<std::vector<topology::Hop>> red(static_cast<std::size_t>(m) * n);
  for (int t = 0; t < m; ++t) {
    const int c = t * P;  // copy t of channel 0
    auto renumber = [&](network::DepList& x) {
      for (int& d : x) d += t * B - e.first - c * B;
    };
    for (int i = 0; i < n; ++i) {
      int src = act(c, i).gpu, dst = act(c, i).dst_gpu;
      if (nvlink_only(full[c][i])) {
        const auto it = pair_of_domain.emplace(fab.nvlink_domain_of(src), std::make_pair(src, dst)).first;
        src = it->second.first;
        dst = it->second.second;
      }
      auto& r = red[static_cast<std::size_t>(t) * n + i];
      r = fab.route(src, dst, act(c, i).flow_hash);
      add_uses(red_uses, r, t * n + i);
      for (int j = 0; j < K; ++j) {
        Activity a = act(c, i, j);
        a.gpu = src;
        a.dst_gpu = dst;
        renumber(a.after);
        renumber(a.after_previous);
        renumber(a.after_same);
        out.activities.push_back(std::move(a));
      }
    }
  }
  sort_uses(full_uses);
  sort_uses(red_uses);
  // Link by link: the same rates, latencies and positions sharing each link direction.
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < n; ++i) {
      const auto& f = full[c][i];
      const auto& r = red[static_cast<std::size_t>(c / P) * n + i];
      if (f.size() != r.size() || fab.latency(f) != fab.latency(r)) return std::nullopt;
      for (std::size_t h = 0; h < f.size(); ++h) {
        if (fab.sharing_rate(f[h].link) != fab.sharing_rate(r[h].link) ||
            fab.link(f[h].link).tier != fab.link(r[h].link).tier)
          return std::nullopt;
        if (full_uses.at(dir(f[h])) != red_uses.at(dir(r[h]))) return std::nullopt;
      }
    }
  return out;
}

}  // namespace aidcsim::collectives
