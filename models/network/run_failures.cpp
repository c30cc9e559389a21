// Failures during a run (FlowNetwork::run(schedule, events)):
// - The fabric is held by const reference and Fabric copies share one graph, so the events act
//   on a PRIVATE fabric built from the same FabricSpec (without its failures) onto which the
//   caller's up/down state is copied (copy_state). Forked runs (default): the private fabric is
//   built once per FlowNetwork, in the parent, and only the child mutates it (copy-on-write: the
//   parent's stays pristine). In-process runs build a fresh one per run. Either way the caller's
//   fabric is never touched and both modes run the same code on the same state.
// - An actor on the sink host sleeps until each event's time and applies it to the private
//   fabric. Degrade: Link::set_bandwidth on both halves (SimGrid recomputes the shares).
//   Down: every comm in flight whose route crosses a dead link is cancelled after reading its
//   remaining bytes (Comm::get_remaining, exact with lazy updates); the bytes already sent are
//   credited to the old route, the rest gets a new route (Fabric::route on the private fabric)
//   and a restart time (now + the new route's latency). The actor waiting for the comm (batch or
//   chain, blocked in wait_any) gets SimGrid's cancel/link-failure exception, drops the cancelled
//   comms and re-puts them at their restart time (wait_any_for with a timeout), so it still
//   records every other completion at its exact time.
// - Without events none of this runs: run(schedule) takes the code path it always took.
#include <simgrid/Exception.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "models/common/errors.hpp"
#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network::detail {

std::string fmt_time(double t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", t);
  return b;
}

/// Records the run's first error. In event mode every comm in flight is cancelled, and the
/// waiting actors, woken by the cancellation, give up (Waitset::next): a disconnected fabric
/// stops the run at once. (Actor::kill_all aborts SimGrid 3.32 here: freeing killed actors'
/// pending comms.) Computations in progress still run to their end (simulated time only).
void fail(RunCtx& c, const std::string& msg) {
  if (c.error.empty()) c.error = msg;
  if (!c.events) return;
  for (auto& cm : c.comm)
    if (cm) {
      sg::CommPtr k = std::move(cm);
      cm = nullptr;
      k->cancel();
    }
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

/// At a transfer's start: routes computed before a link/switch-down event are recomputed on the
/// fabric as it is now, exactly as run() would with the failure applied from the start (a new
/// flow routes around the failure; not counted as a reroute). Spray: fewer paths may leave
/// fewer sub-flows; the unused slots carry 0 bytes.
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

/// Flow f's remaining bytes (f.bytes) get a new route on the private fabric and restart at
/// now + its latency, like a new flow. Throws SimulationError naming `why` when disconnected.
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
  c.restart_at[f] = sg::Engine::get_clock() + s.latency;
  ++c.reroutes[s.activity];
}

/// Stops flow f's comm (its route crosses a dead link) with `rem` bytes left: the bytes sent so
/// far are credited to the old route, the rest is rerouted; the waiting actor sees cancelled[f].
void cancel_flow(RunCtx& c, int f, double rem, const std::string& why) {
  sg::CommPtr cm = std::move(c.comm[f]);
  c.comm[f] = nullptr;
  cm->cancel();
  SubFlow& s = c.flows[f];
  const double sent = s.bytes - rem;
  for (const Hop& h : s.hops) (h.forward ? c.bytes_fwd : c.bytes_rev)[h.link] += sent;
  s.bytes = rem;
  c.cancelled[f] = 1;
  reroute(c, f, why);
}

/// The failure actor: applies each event at its time to the private fabric and SimGrid.
void apply_failures(RunCtx& c) {
  using Type = topology::FailureSpec::Type;
  for (const ResolvedFailure& ev : c.failures) {
    sg::this_actor::sleep_until(c.t0 + ev.time);
    const std::string what = ev.element + " down at " + fmt_time(ev.time) + " s";
    try {
      if (ev.type == Type::Degrade) {
        for (int l : ev.links) {
          c.live->set_link_rate_factor(l, ev.factor);
          const double r = c.live->link(l).rate;
          c.entry->up[l]->set_bandwidth(r);
          c.entry->down[l]->set_bandwidth(r);
          c.entry->applied_rate[l] = r;  // in-process: the next run() re-applies the fabric's rate
        }
        continue;
      }
      if (ev.type == Type::SwitchDown)
        c.live->fail_switch(ev.node);
      else
        for (int l : ev.links) c.live->set_link_up(l, false);
      ++c.epoch;
      c.down_log += (c.down_log.empty() ? "" : ", ") + what;
      for (std::size_t f = 0; f < c.flows.size(); ++f) {
        if (!c.comm[f] || alive(c, c.flows[f].hops)) continue;
        const double rem = c.comm[f]->get_remaining();
        if (!(rem > 0)) continue;  // completing at this very instant: let it
        cancel_flow(c, static_cast<int>(f), rem, what);
      }
    } catch (const std::exception& e) {
      fail(c, e.what());
      return;
    }
  }
}

/// Event mode: the activities one actor waits for. Flows cancelled by a failure are dropped and
/// put again on their new route at their restart time; wait_any_for's timeout wakes the actor
/// for restarts, so every other completion is still seen at its exact time.
class Waitset {
 public:
  explicit Waitset(RunCtx& c)
      : c_(c), key_(static_cast<int>(sg::this_actor::get_host()->get_netpoint()->id())) {}

  void add(sg::ActivityPtr a, int owner) {
    running_.push_back(std::move(a));
    flow_.push_back(-1);
    owner_.push_back(owner);
  }

  /// Puts flow f for `owner` at absolute clock t (its start after the route latency), so that
  /// the actor keeps handling completions and restarts meanwhile.
  void put_at(int f, int owner, double t) {
    c_.restart_at[f] = t;
    pending_.emplace_back(f, owner);
  }

  /// Puts flow f for `owner` now, or schedules its restart if its route died meanwhile (during
  /// its latency phase, or while this put was being handled).
  void put(int f, int owner) {
    if (!c_.error.empty()) return;  // the run is stopping
    SubFlow& s = c_.flows[f];
    if (s.epoch != c_.epoch) {
      if (!alive(c_, s.hops)) {
        reroute(c_, f, c_.down_log);
        pending_.emplace_back(f, owner);
        return;
      }
      s.epoch = c_.epoch;
    }
    const int epoch = c_.epoch;
    c_.zone->push(key_, f);  // must directly precede the put: see header
    sg::CommPtr cm = (*c_.mailboxes)[c_.s->activities[s.activity].dst_gpu]->put_async(
        &c_, static_cast<std::uint64_t>(std::llround(s.bytes)));
    c_.comm[f] = cm;
    running_.push_back(cm);
    flow_.push_back(f);
    owner_.push_back(owner);
    if (c_.epoch != epoch) {  // the failure actor ran while the put was handled and missed it
      if (!alive(c_, s.hops)) {
        const double rem = cm->get_remaining();
        if (rem > 0) cancel_flow(c_, f, rem, c_.down_log);
      }
      s.epoch = c_.epoch;
    }
  }

  /// Waits for the next completion and returns its owner; -1 when nothing is left.
  int next() {
    double due = -std::numeric_limits<double>::infinity();
    for (;;) {
      if (!c_.error.empty()) return -1;  // the run is stopping (fail())
      for (std::size_t i = running_.size(); i-- > 0;) {
        const int f = flow_[i];
        if (f >= 0 && c_.cancelled[f]) {
          c_.cancelled[f] = 0;
          pending_.emplace_back(f, owner_[i]);
          remove(i);
        }
      }
      double next_t = std::numeric_limits<double>::infinity();
      if (!pending_.empty()) {
        const double now = std::max(sg::Engine::get_clock(), due);
        auto todo = std::move(pending_);
        pending_.clear();
        for (const auto& [f, o] : todo)
          if (c_.restart_at[f] <= now)
            put(f, o);
          else
            pending_.emplace_back(f, o);
        for (const auto& p : pending_) next_t = std::min(next_t, c_.restart_at[p.first]);
      }
      if (running_.empty()) {
        if (pending_.empty()) return -1;
        sg::this_actor::sleep_until(next_t);
        due = next_t;
        continue;
      }
      ssize_t i = -1;
      try {
        i = sg::Activity::wait_any_for(running_, pending_.empty() ? -1.0 : next_t - sg::Engine::get_clock());
      } catch (const simgrid::Exception&) {
        // a comm of ours was cancelled by the failure actor: handled at the loop's top
        if (!c_.error.empty()) return -1;
        bool ours = false;
        for (int f : flow_) ours = ours || (f >= 0 && c_.cancelled[f]);
        if (!ours) throw;
        continue;
      }
      if (i < 0) {  // timeout: restarts are due
        due = next_t;
        continue;
      }
      const int o = owner_[i], f = flow_[i];
      if (f >= 0) c_.comm[f] = nullptr;
      remove(static_cast<std::size_t>(i));
      return o;
    }
  }

 private:
  void remove(std::size_t i) {
    running_[i] = std::move(running_.back());
    running_.pop_back();
    flow_[i] = flow_.back();
    flow_.pop_back();
    owner_[i] = owner_.back();
    owner_.pop_back();
  }

  RunCtx& c_;
  int key_;
  std::vector<sg::ActivityPtr> running_;
  std::vector<int> flow_, owner_;              ///< per running entry: flow (-1: exec), owner
  std::vector<std::pair<int, int>> pending_;   ///< (flow, owner) waiting for restart_at
};

/// Event mode: one transfer issued by a chain actor.
void transfer_with_failures(RunCtx& c, int a) {
  refresh_routes(c, a);
  const int f0 = c.first_flow[a], f1 = c.first_flow[a + 1];
  const double lat = max_latency(c, a);  // of the refreshed routes
  if (lat > 0) sg::this_actor::sleep_for(lat);
  Waitset w(c);
  for (int f = f0; f < f1; ++f)
    if (c.flows[f].bytes > 0) w.put(f, 0);
  while (w.next() >= 0) {
  }
}

/// batch() in event mode: the same issue times and order, but the puts are scheduled in the
/// Waitset instead of slept for, so a flow cancelled while later roots wait for their latency
/// restarts on time.
void batch_with_failures(RunCtx& c, std::vector<int> roots) {
  for (int a : roots) refresh_routes(c, a);  // a failure at t = 0 is already applied
  sort_by_latency(c, roots);
  Waitset w(c);
  std::vector<int> left(roots.size(), 0);
  for (std::size_t k = 0; k < roots.size(); ++k) {
    const int a = roots[k];
    const Activity& act = c.s->activities[a];
    c.start[a] = 0.0;
    if (act.kind == Activity::Kind::Compute) {
      sg::ExecPtr ex = start_exec(c, act);
      w.add(ex, static_cast<int>(k));
      left[k] = 1;
      continue;
    }
    const double t = c.t0 + max_latency(c, a);
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f)
      if (c.flows[f].bytes > 0) {
        w.put_at(f, static_cast<int>(k), t);
        ++left[k];
      }
  }
  for (int k; (k = w.next()) >= 0;)
    if (--left[k] == 0) {
      c.finish[roots[k]] = sg::Engine::get_clock() - c.t0;
      release(c, roots[k]);
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
std::unique_ptr<Fabric> pristine_copy(const Fabric& fab, std::uint64_t fp) {
  topology::FabricSpec spec = fab.spec();
  spec.failures.clear();
  auto p = std::make_unique<Fabric>(topology::build_fabric(spec));
  if (fingerprint(*p) != fp)
    throw SimulationError("network: rebuilding the fabric from its spec gave another structure");
  return p;
}

}  // namespace aidcsim::network::detail
