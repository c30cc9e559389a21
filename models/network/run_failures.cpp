// Failures during a run (FlowNetwork::run(schedule, events)):
// - The fabric is held by const reference and Fabric copies share one graph, so the events act
//   on a PRIVATE fabric built from the same FabricSpec (without its failures) onto which the
//   caller's up/down state is copied (copy_state); the caller's fabric is never touched.
// - Each failure is a timed event of the run loop (flow_network.cpp), applied before anything
//   else at its time. Degrade: the links' capacities in the solver become built rate x factor.
//   Down: every flow in progress whose route crosses a dead link is stopped with its remaining
//   bytes (exact: the solver's rate since the last change); the bytes already sent are credited
//   to the old route, the rest gets a new route (Fabric::route on the private fabric) and
//   restarts after that route's latency, like a new flow. A flow in its latency phase (or
//   waiting to restart) is checked when it starts.
// - Without events none of this runs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "models/common/errors.hpp"
#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

namespace {

std::string fmt_time(double t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", t);
  return b;
}

/// Whether every link of a route is up on the private fabric.
bool alive(const RunCtx& c, const std::vector<Hop>& hops) {
  for (const Hop& h : hops)
    if (!c.live->link(h.link).up) return false;
  return true;
}

[[noreturn]] void no_route(const RunCtx& c, const Activity& a, const std::string& why) {
  throw SimulationError(why + ": GPU " + std::to_string(a.gpu) + " -> GPU " + std::to_string(a.dst_gpu) +
                        " has no route");
}

/// Flow f's remaining bytes (f.bytes) get a new route on the private fabric and restart after its
/// latency, like a new flow. Throws SimulationError naming `why` when disconnected.
void reroute(RunCtx& c, int f, const std::string& why) {
  SubFlow& s = c.flows[f];
  const Activity& a = c.s->activities[s.activity];
  try {
    subflow_routes(*c.live, a, c.spray, c.fpp, c.spray_n, s.of, s.index,
                   [&](int, int, std::vector<Hop>&& hops) { s.hops = std::move(hops); });
  } catch (const SimulationError&) {
    no_route(c, a, why);
  }
  s.latency = c.live->latency(s.hops);
  s.epoch = c.epoch;
  ++c.reroutes[s.activity];
  c.push_timed(c.now + s.latency, Timed::Restart, f);
}

}  // namespace

void refresh_routes(RunCtx& c, int a) {
  const int f0 = c.first_flow[a], f1 = c.first_flow[a + 1];
  if (f1 == f0 || c.flows[f0].epoch == c.epoch) return;
  const Activity& act = c.s->activities[a];
  int used = 0;
  try {
    subflow_routes(*c.live, act, c.spray, c.fpp, c.spray_n, 0, -1, [&](int j, int m, std::vector<Hop>&& hops) {
      if (f0 + j >= f1) throw SimulationError("internal error: more sub-flows after a failure");
      SubFlow& f = c.flows[f0 + j];
      f.bytes = act.amount / m;
      f.hops = std::move(hops);
      f.latency = c.live->latency(f.hops);
      f.of = m;
      used = m;
    });
  } catch (const SimulationError&) {
    no_route(c, act, c.down_log);
  }
  for (int f = f0; f < f1; ++f) {
    SubFlow& s = c.flows[f];
    if (f - f0 >= used) {
      s.bytes = 0;
      s.hops.clear();
      s.latency = 0;
      s.of = used;
    }
    s.epoch = c.epoch;
  }
}

void restart_flow(RunCtx& c, int f) {
  SubFlow& s = c.flows[f];
  if (s.epoch != c.epoch) {
    if (!alive(c, s.hops)) {
      reroute(c, f, c.down_log);
      return;
    }
    s.epoch = c.epoch;
  }
  start_flow(c, f);
}

void apply_failure(RunCtx& c, int i) {
  using Type = topology::FailureSpec::Type;
  const ResolvedFailure& ev = c.failures[i];
  if (ev.type == Type::Degrade) {
    for (int l : ev.links) {
      c.live->set_link_rate_factor(l, ev.factor);
      c.link_rate[l] = c.live->sharing_rate(l);
      for (int d = 0; d < 2; ++d)
        if (const int r = c.link_res[2 * static_cast<std::size_t>(l) + d]; r >= 0)
          c.sharing.set_capacity(r, c.link_rate[l]);
    }
    return;
  }
  const std::string what = ev.element + " down at " + fmt_time(ev.time) + " s";
  if (ev.type == Type::SwitchDown)
    c.live->fail_switch(ev.node);
  else
    for (int l : ev.links) c.live->set_link_up(l, false);
  ++c.epoch;
  c.down_log += (c.down_log.empty() ? "" : ", ") + what;
  for (std::size_t f = 0; f < c.flows.size(); ++f) {
    SubFlow& s = c.flows[f];
    if (s.slot < 0 || alive(c, s.hops)) continue;
    if (!(remains_now(c, c.slots[s.slot]) > 0)) continue;  // completing at this very instant: let it
    const double rem = stop_flow(c, static_cast<int>(f));
    const double sent = s.bytes - rem;
    credit_bytes(c, s, sent);
    s.bytes = rem;
    reroute(c, static_cast<int>(f), what);
  }
}

/// Copies the up/down state of `from` onto `to` (same structure, `to` without failures yet).
void copy_state(const Fabric& from, Fabric& to) {
  for (int n = from.gpu_count(); n < from.node_count(); ++n)
    if (!from.node_up(n) && to.node_up(n)) to.fail_switch(n);
  for (int l = 0; l < from.link_count(); ++l)
    if (!from.link(l).up && to.link(l).up) to.set_link_up(l, false);
}

/// Checks the events against the fabric (names, types, factor, time) and sorts them by time
/// (stable). Same checks and messages as Fabric::apply.
std::vector<ResolvedFailure> resolve(const Fabric& fab, const std::vector<TimedFailure>& events) {
  using Type = topology::FailureSpec::Type;
  std::vector<ResolvedFailure> out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& f = events[i].failure;
    const std::string key = f.key.empty() ? "network.failures[" + std::to_string(i) + "]" : f.key;
    if (!(std::isfinite(events[i].time) && events[i].time >= 0))
      throw InvalidParameter(key + ".time", std::to_string(events[i].time), "a time >= 0 s from the run's start");
    ResolvedFailure r;
    r.time = events[i].time;
    r.type = f.type;
    r.factor = f.factor;
    r.element = f.element;
    const int node = fab.find_node(f.element);
    if (node < 0) r.links = fab.find_links(f.element);
    if (node < 0 && r.links.empty())
      throw InvalidParameter(key + ".element", f.element,
                             "a node name (e.g. \"leaf2\", \"spine0.3\", \"core5\") or a link name "
                             "(e.g. \"leaf2-spine0.3\") of the built fabric");
    if (f.type == Type::SwitchDown) {
      if (node < 0 || fab.node(node).kind == topology::NodeKind::Gpu)
        throw InvalidParameter(key + ".element", f.element, "a switch name for switch_down (e.g. \"spine0.3\")");
      r.node = node;
    } else if (node >= 0) {
      throw InvalidParameter(key + ".element", f.element,
                             std::string("a link name for ") + (f.type == Type::Degrade ? "degrade" : "link_down") +
                                 " (e.g. \"leaf2-spine0.3\")");
    }
    if (f.type == Type::Degrade && !(f.factor > 0 && f.factor <= 1))
      throw InvalidParameter(key + ".factor", std::to_string(f.factor), "a fraction in (0, 1]");
    out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.time < y.time; });
  return out;
}

/// A fabric of the same structure as `fab`, without any failure (see the file comment).
std::unique_ptr<Fabric> pristine_copy(const Fabric& fab) {
  topology::FabricSpec spec = fab.spec();
  spec.failures.clear();
  auto p = std::make_unique<Fabric>(topology::build_fabric(spec));
  bool same = p->node_count() == fab.node_count() && p->link_count() == fab.link_count();
  for (int l = 0; same && l < fab.link_count(); ++l)
    same = p->link(l).a == fab.link(l).a && p->link(l).b == fab.link(l).b;
  if (!same) throw SimulationError("network: rebuilding the fabric from its spec gave another structure");
  return p;
}

}  // namespace aidcsim::network::detail
