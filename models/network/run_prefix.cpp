// Prefix reuse (FlowNetwork::set_prefix_capture): a run of a schedule with one link down is the
// same run as the one on the healthy fabric until the first transfer whose sub-flows that link
// changes begins (its route, latency and merges are the only inputs that differ). The healthy run
// keeps its state at that moment (capture_prefix); the link-down run starts from it
// (restore_prefix) instead of simulating the prefix again.
//
// Bit for bit: the continuation makes the same calls into SimGrid's lmm on a System in the same
// state. The System cannot be copied (simgrid_maxmin.hpp), so it is rebuilt: the items alive at the
// last solve are added in their creation order, which gives every constraint the same element
// list (lmm prepends an element at each expand and unlinks it at each free; nothing else
// reorders them without concurrency limits or penalty updates, which aidcsim never uses), the
// variables the same constraint lists, and every resource its capacity. A solve then clears the
// rebuilt System's marks; its rates are not read (the event loop keeps the snapshot's, which the
// original solve gave). The solver calls made since the last solve are replayed, so the next solve
// re-solves the same components in the same order. A component's solve reads only its items'
// structure (SimGrid's maxmin_solve resets values and usage), never the rates of the others.
// Repetitions (Activity::repeat): their counts, waves, fast-forwarded groups and periodic state
// are kept too (RepetitionState), and the capture ends at the first periodic jump the capturing
// run's timeline cuts short (periodic.cpp). Tests: tests/unit/network/test_run_prefix.cpp
// (continuations equal whole runs bit for bit).
#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "models/common/profile.hpp"
#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

/// What a run with repetitions keeps beside the rest (repetition.cpp, periodic.cpp): per activity
/// of RunCtx::rep_acts (in that order) its counts, wave, sub-flows left and pending Start; the
/// waves, the resources' owners, the fast-forwarded groups, the periodic anchor and snapshots.
struct RepetitionState {
  std::vector<int> done, begun, wave, left;
  std::vector<double> start_at;
  std::vector<RunCtx::Wave> waves;
  std::size_t waves_compact_at = 0;
  std::vector<int> res_count, res_wave, res_group;
  std::vector<RunCtx::Group> groups;
  int active_groups = 0, single_busy = 0, anchor = -1;
  long long skipped_reps = 0, periodic_reps = 0, periodic_jumps = 0;
  double anchor_began = -1;
  std::vector<RunCtx::Snapshot> snaps;
};

namespace {

/// The due heap's entries (std::priority_queue keeps its container protected).
struct DueHeap : std::priority_queue<Due, std::vector<Due>, std::greater<Due>> {
  static const std::vector<Due>& entries(const std::priority_queue<Due, std::vector<Due>, std::greater<Due>>& q) {
    return q.*(&DueHeap::c);
  }
};

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

bool same_flow(const SubFlow& a, const SubFlow& b) {
  if (!same_bits(a.bytes, b.bytes) || !same_bits(a.latency, b.latency) || a.mult != b.mult || a.of != b.of ||
      a.hops.size() != b.hops.size())
    return false;
  if (a.hops.id() == b.hops.id()) return true;
  for (std::size_t k = 0; k < a.hops.size(); ++k)
    if (a.hops[k].link != b.hops[k].link || a.hops[k].forward != b.hops[k].forward) return false;
  return true;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return topology::splitmix64(h ^ v) + 0x9e3779b97f4a7c15ull; }

}  // namespace

std::uint64_t schedule_fingerprint(const Schedule& s) {
  std::uint64_t h = mix(0, s.activities.size());
  for (const Activity& a : s.activities) {
    h = mix(h, std::bit_cast<std::uint64_t>(a.amount));
    h = mix(h, a.flow_hash);
    h = mix(h, a.spread_phase);
    h = mix(h, std::bit_cast<std::uint64_t>(a.delay));
    h = mix(h, std::bit_cast<std::uint64_t>(a.weight));
    h = mix(h, std::bit_cast<std::uint64_t>(a.rate_limit));
    for (const auto* list : {&a.after, &a.after_previous, &a.after_same}) {
      h = mix(h, list->size());
      for (int p : *list) h = mix(h, static_cast<std::uint64_t>(static_cast<std::uint32_t>(p)));
    }
    h = mix(h, (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a.gpu)) << 32) |
                   static_cast<std::uint32_t>(a.dst_gpu));
    h = mix(
        h, (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a.tag)) << 32) | static_cast<std::uint32_t>(a.group));
    h = mix(h, (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a.repeat)) << 16) |
                   (static_cast<std::uint64_t>(a.kind) << 8) | (a.spread ? 1u : 0u));
  }
  h = mix(h, s.gpu_flops.size());
  for (double f : s.gpu_flops) h = mix(h, std::bit_cast<std::uint64_t>(f));
  return h;
}

void capture_prefix(RunCtx& c, const std::vector<int>& batch, std::size_t j, std::uint8_t bits) {
  const profile::Scope scope("network: prefix capture (state kept for link-down runs)");
  PrefixCapture& cap = *c.cap;
  auto p = std::make_shared<PrefixSnapshot>();
  const std::size_t n = c.s->activities.size();
  p->now = c.now;
  p->seq = c.seq;
  p->state.assign(n, 0);
  std::vector<char> check(n, 0);
  for (std::size_t a = 0; a < n; ++a) {
    if (c.finish[a] >= 0) {
      p->state[a] = 2;
    } else if (c.start[a] >= 0) {
      p->state[a] = 1;
      p->busy.push_back({static_cast<int>(a), c.left[a], c.start_at[a]});
      check[a] = 1;
    }
    p->begun += p->state[a] > 0;
  }
  p->ready = c.ready;
  p->tail.assign(batch.begin() + static_cast<std::ptrdiff_t>(j), batch.end());
  p->slots = c.slots;
  p->free_slots = c.free_slots;
  p->born.assign(c.slots.size(), 0);
  for (std::size_t s = 0; s < c.slots.size(); ++s) {
    Slot& x = p->slots[s];
    if (!x.used) continue;
    p->born[s] = cap.born[s];
    if (x.flow >= 0) {
      const int a = c.flows[static_cast<std::size_t>(x.flow)].activity;
      x.flow -= c.first_flow[static_cast<std::size_t>(a)];  // k: its index within the transfer
    }
  }
  for (const Due& d : DueHeap::entries(c.due))
    if (c.slots[d.slot].used && c.slots[d.slot].version == d.version) p->due.push_back(d);
  for (TimedQueue q = c.timed; !q.empty(); q.pop())
    if (q.top().kind != Timed::Bin) p->timed.push_back(q.top());
  p->res.resize(static_cast<std::size_t>(c.sharing.resource_count()));
  for (std::size_t d = 0; d < c.link_res.size(); ++d)
    if (c.link_res[d] >= 0) p->res[static_cast<std::size_t>(c.link_res[d])] = {static_cast<int>(d), c.link_rate[d / 2]};
  for (std::size_t g = 0; g < c.gpu_res.size(); ++g)
    if (c.gpu_res[g] >= 0) p->res[static_cast<std::size_t>(c.gpu_res[g])] = {~static_cast<int>(g), c.flops[g]};
  // The items alive at the last solve: alive now and not added since, plus those removed since.
  std::unordered_map<std::uint64_t, char> since;  // born -> 1 added since the last solve
  for (const PrefixOp& op : cap.ops)
    if (op.add) since[op.item.born] = 1;
  for (std::size_t s = 0; s < c.slots.size(); ++s)
    if (c.slots[s].used && !since.count(cap.born[s])) p->at_solve.push_back(prefix_item(c, static_cast<int>(s)));
  for (const PrefixOp& op : cap.ops)
    if (!op.add && !since.count(op.item.born)) p->at_solve.push_back(op.item);
  std::sort(p->at_solve.begin(), p->at_solve.end(),
            [](const PrefixItem& x, const PrefixItem& y) { return x.born < y.born; });
  p->ops = cap.ops;
  for (const PrefixItem& it : p->at_solve)
    if (it.k >= 0) check[static_cast<std::size_t>(it.activity)] = 1;
  for (const PrefixOp& op : p->ops)
    if (op.item.k >= 0) check[static_cast<std::size_t>(op.item.activity)] = 1;
  if (c.any_repeat) {
    auto r = std::make_shared<RepetitionState>();
    for (int a : c.rep_acts) {
      r->done.push_back(c.rep_done[a]);
      r->begun.push_back(c.rep_begun[a]);
      r->wave.push_back(c.wave[a]);
      r->left.push_back(c.left[a]);
      r->start_at.push_back(c.start_at[a]);
      if (c.rep_begun[a] > 0) check[static_cast<std::size_t>(a)] = 1;  // its sub-flows' done_bytes, last_rate
    }
    r->waves = c.waves;
    r->waves_compact_at = c.waves_compact_at;
    r->res_count = c.res_count;
    r->res_wave = c.res_wave;
    r->res_group = c.res_group;
    r->groups = c.groups;
    r->active_groups = c.active_groups;
    r->single_busy = c.single_busy;
    r->anchor = c.anchor;
    r->skipped_reps = c.skipped_reps;
    r->periodic_reps = c.periodic_reps;
    r->periodic_jumps = c.periodic_jumps;
    r->anchor_began = c.anchor_began;
    r->snaps = c.snaps;
    p->reps = std::move(r);
  }
  for (std::size_t a = 0; a < n; ++a) {
    if (!check[a] || c.first_flow[a + 1] == c.first_flow[a]) continue;
    PrefixSnapshot::Check k;
    k.activity = static_cast<int>(a);
    k.flows.assign(c.flows.begin() + c.first_flow[a], c.flows.begin() + c.first_flow[a + 1]);
    p->checks.push_back(std::move(k));
  }
  for (std::size_t i = 0; i < cap.links.size(); ++i)
    if (bits & (1u << i)) cap.snaps[i] = p;
  cap.pending &= static_cast<std::uint8_t>(~bits);
}

bool restore_prefix(RunCtx& c, const PrefixSnapshot& p, const std::vector<double>& start,
                    const std::vector<double>& finish, std::vector<int>& tail) {
  const std::size_t n = c.s->activities.size();
  if (p.state.size() != n || start.size() != n || finish.size() != n) return false;
  // Checks first: `c` stays as it is when the prefix does not apply.
  for (const PrefixSnapshot::Check& k : p.checks) {
    const auto a = static_cast<std::size_t>(k.activity);
    const int f0 = c.first_flow[a], f1 = c.first_flow[a + 1];
    if (static_cast<std::size_t>(f1 - f0) != k.flows.size()) return false;
    for (int f = f0; f < f1; ++f)
      if (!same_flow(c.flows[static_cast<std::size_t>(f)], k.flows[static_cast<std::size_t>(f - f0)])) return false;
  }
  if (p.reps && p.reps->done.size() != c.rep_acts.size()) return false;
  for (const PrefixSnapshot::Res& r : p.res) {
    const double cap =
        r.what >= 0 ? c.link_rate[static_cast<std::size_t>(r.what / 2)] : c.flops[static_cast<std::size_t>(~r.what)];
    if (!same_bits(cap, r.capacity)) return false;
  }

  const profile::Scope scope("network: prefix restore (solver rebuilt, state set)");
  // The solver: resources in their order, the items of the last solve, that solve, the calls since.
  for (std::size_t i = 0; i < p.res.size(); ++i) {
    const PrefixSnapshot::Res& r = p.res[i];
    (r.what >= 0 ? c.link_res[static_cast<std::size_t>(r.what)] : c.gpu_res[static_cast<std::size_t>(~r.what)]) =
        c.sharing.add_resource(r.capacity);
  }
  std::unordered_map<std::uint64_t, int> slot_of;  // born -> slot, the items alive now
  for (std::size_t s = 0; s < p.slots.size(); ++s)
    if (p.slots[s].used) slot_of[p.born[s]] = static_cast<int>(s);
  std::unordered_map<std::uint64_t, std::uint32_t> handle;  // born -> MaxMinSharing handle
  auto add = [&](const PrefixItem& it) {
    const auto found = slot_of.find(it.born);
    const int tag = found == slot_of.end() ? -1 : found->second;
    const Activity& act = c.s->activities[static_cast<std::size_t>(it.activity)];
    if (it.k < 0) {
      handle[it.born] = c.sharing.add_item(&c.gpu_res[static_cast<std::size_t>(act.gpu)], 1, tag);
      return;
    }
    const int f = c.first_flow[static_cast<std::size_t>(it.activity)] + it.k;
    const SubFlow& sf = c.flows[static_cast<std::size_t>(f)];
    int nr = 0;
    const int* res = route_resources(c, f, nr);  // every resource exists: none is created here
    const double bound = act.rate_limit > 0 ? act.rate_limit / sf.of * sf.mult : -1.0;  // as start_flow
    handle[it.born] = c.sharing.add_item(res, nr, tag, act.weight * sf.mult, bound);
  };
  for (const PrefixItem& it : p.at_solve) add(it);
  c.sharing.solve([](int, double) {});  // the rates are the snapshot's; this clears the marks
  for (const PrefixOp& op : p.ops) {
    if (op.add)
      add(op.item);
    else
      c.sharing.remove_item(handle.at(op.item.born));
  }

  // The event loop's state.
  c.now = p.now;
  c.seq = p.seq;
  c.slots = p.slots;
  for (std::size_t s = 0; s < c.slots.size(); ++s) {
    Slot& x = c.slots[s];
    if (!x.used) continue;
    x.item = handle.at(p.born[s]);
  }
  // Sub-flow indices: a used slot's k within its transfer, the transfer from the items' records.
  for (const PrefixItem& it : p.at_solve)
    if (const auto found = slot_of.find(it.born); found != slot_of.end() && it.k >= 0) {
      Slot& x = c.slots[static_cast<std::size_t>(found->second)];
      x.flow = c.first_flow[static_cast<std::size_t>(it.activity)] + it.k;
      c.flows[static_cast<std::size_t>(x.flow)].slot = found->second;
    }
  for (const PrefixOp& op : p.ops)
    if (const auto found = slot_of.find(op.item.born); op.add && found != slot_of.end() && op.item.k >= 0) {
      Slot& x = c.slots[static_cast<std::size_t>(found->second)];
      x.flow = c.first_flow[static_cast<std::size_t>(op.item.activity)] + op.item.k;
      c.flows[static_cast<std::size_t>(x.flow)].slot = found->second;
    }
  c.free_slots = p.free_slots;
  c.due = decltype(c.due)(std::greater<Due>(), std::vector<Due>(p.due));
  c.timed.assign(p.timed);
  c.daemon_events = 0;

  c.single_busy = 0;
  for (std::size_t a = 0; a < n; ++a) {
    const std::uint8_t st = p.state[a];
    if (st == 0) continue;
    c.rep_begun[a] = 1;
    c.start[a] = start[a];
    if (st == 2) {
      c.rep_done[a] = 1;
      c.finish[a] = finish[a];
      for (int k = c.succ_off[a]; k < c.succ_off[a + 1]; ++k) --c.pending[static_cast<std::size_t>(c.succ[k])];
    }
  }
  for (const PrefixSnapshot::Busy& b : p.busy) {
    c.left[static_cast<std::size_t>(b.activity)] = b.left;
    c.start_at[static_cast<std::size_t>(b.activity)] = b.start_at;
    ++c.single_busy;
  }
  c.ready = p.ready;
  for (int a : c.ready) c.queued[static_cast<std::size_t>(a)] = 1;
  if (p.reps) {
    const RepetitionState& r = *p.reps;
    for (std::size_t i = 0; i < c.rep_acts.size(); ++i) {
      const auto a = static_cast<std::size_t>(c.rep_acts[i]);
      c.rep_done[a] = r.done[i];
      c.rep_begun[a] = r.begun[i];
      c.wave[a] = r.wave[i];
      c.left[a] = r.left[i];
      c.start_at[a] = r.start_at[i];
    }
    c.waves = r.waves;
    c.waves_compact_at = r.waves_compact_at;
    c.res_count = r.res_count;
    c.res_wave = r.res_wave;
    c.res_group = r.res_group;
    c.groups = r.groups;
    c.active_groups = r.active_groups;
    c.single_busy = r.single_busy;
    c.anchor = r.anchor;
    c.skipped_reps = r.skipped_reps;
    c.periodic_reps = r.periodic_reps;
    c.periodic_jumps = r.periodic_jumps;
    c.anchor_began = r.anchor_began;
    c.snaps = r.snaps;
    for (const PrefixSnapshot::Check& k : p.checks) {
      if (c.repeat[static_cast<std::size_t>(k.activity)] < 2) continue;
      const int f0 = c.first_flow[static_cast<std::size_t>(k.activity)];
      for (std::size_t j = 0; j < k.flows.size(); ++j) {
        SubFlow& sf = c.flows[static_cast<std::size_t>(f0) + j];
        sf.done_bytes = k.flows[j].done_bytes;
        sf.last_rate = k.flows[j].last_rate;
      }
    }
  }
  tail = p.tail;
  return true;
}

}  // namespace aidcsim::network::detail
