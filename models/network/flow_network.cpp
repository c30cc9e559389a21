// FlowNetwork on SimGrid 3.32: platform (one routing zone per fabric structure), the run loop
// (one actor per ready activity chain) and per-flow ECMP routing through the zone.
//
// Why these choices (measured or read in SimGrid 3.32's sources; see DESIGN.md "SimGrid notes"):
// - Custom zone: the built-in fat-tree zone builds in O(N^2), has one rate per tier and cannot
//   express rails, NVLink domains or our ECMP choice. get_local_route() hands SimGrid the exact
//   hops of Fabric::route (split-duplex direction: a->b = the link's UP half, b->a = DOWN half).
// - Zero route latency to SimGrid, latency paid by the actor: CM02 sets each flow's sharing
//   penalty to its route latency (NetworkCm02Model::communicate), i.e. RTT-weighted shares, and
//   with TCP-gamma 0 a positive latency would bound the flow's rate to gamma / (2 latency) = 0.
//   With zero latency every flow gets penalty 1 (plain max-min fairness, SimGrid's exact lmm
//   solver with lazy updates) and no TCP window bound.
// - Comms are mailbox puts from actors to a permanent-receiver daemon of the destination GPU
//   (see simulate()): host-to-host Comm::sendto comms are detached, kept in one list in maestro
//   and searched on every completion (quadratic).
// - Each run is simulated in a forked child process (see simulate_in_child()).
// - Actors are created only when an activity becomes ready, and an actor that finishes an
//   activity goes on with its first newly ready successor (a pipeline chain reuses one actor).
//
// Failures during a run: run_failures.cpp; the link timeline: link_timeline.cpp; the zone:
// platform.cpp; shared internals: flow_network_internal.hpp.
#include "models/network/flow_network.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "models/common/errors.hpp"
#include "models/network/flow_network_internal.hpp"

namespace aidcsim::network {
using namespace detail;

struct FlowNetwork::Impl {
  const Fabric& fabric;
  ZoneEntry* entry = nullptr;
  double build_s = 0;
  int spray_subflows = 16;
  int timeline_bins = 0;
  double timeline_hint = 0;  ///< s, expected run length (first bin width = hint / bins)
  bool isolated = true;
  /// Forked runs with events: private fabric without failures, mutated only in the child (see
  /// the file comment); built on first use.
  std::unique_ptr<Fabric> pristine;
  explicit Impl(const Fabric& f) : fabric(f) {}
};

FlowNetwork::FlowNetwork(const Fabric& fabric) : impl_(std::make_unique<Impl>(fabric)) {
  init_simgrid();
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t fp = fingerprint(fabric);
  for (auto& e : registry())
    if (!e->in_use && e->fingerprint == fp && e->hosts.size() == static_cast<std::size_t>(fabric.gpu_count()) &&
        e->up.size() == static_cast<std::size_t>(fabric.link_count())) {
      impl_->entry = e.get();
      break;
    }
  if (impl_->entry == nullptr) {
    impl_->entry = build_zone(fabric, fp);
    impl_->build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  impl_->entry->in_use = true;
}

FlowNetwork::~FlowNetwork() {
  if (impl_ && impl_->entry) impl_->entry->in_use = false;
}

void FlowNetwork::set_timeline_bins(int bins, double expected_duration) {
  if (bins < 0) throw InvalidParameter("network.timeline_bins", std::to_string(bins), "an integer >= 0");
  if (!(expected_duration >= 0) || !std::isfinite(expected_duration))
    throw InvalidParameter("network.timeline_expected_duration", std::to_string(expected_duration), "a time >= 0 s");
  impl_->timeline_bins = bins;
  impl_->timeline_hint = expected_duration;
}
int FlowNetwork::timeline_bins() const { return impl_->timeline_bins; }

void FlowNetwork::set_spray_subflows(int n) {
  if (n < 1) throw InvalidParameter("network.spray_subflows", std::to_string(n), "an integer >= 1");
  impl_->spray_subflows = n;
}
int FlowNetwork::spray_subflows() const { return impl_->spray_subflows; }
void FlowNetwork::set_isolated_runs(bool on) { impl_->isolated = on; }
bool FlowNetwork::isolated_runs() const { return impl_->isolated; }
double FlowNetwork::build_seconds() const { return impl_->build_s; }
const Fabric& FlowNetwork::fabric() const { return impl_->fabric; }

namespace detail {

double max_latency(const RunCtx& c, int a) {
  double l = 0;
  for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) l = std::max(l, c.flows[f].latency);
  return l;
}

void sort_by_latency(const RunCtx& c, std::vector<int>& roots) {
  std::stable_sort(roots.begin(), roots.end(), [&](int x, int y) { return max_latency(c, x) < max_latency(c, y); });
}

sg::ExecPtr start_exec(const RunCtx& c, const Activity& act) {
  sg::ExecPtr ex = sg::Exec::init();
  ex->set_host((*c.hosts)[act.gpu]);
  ex->set_flops_amount(act.amount * (kRefSpeed / c.flops[act.gpu]));
  ex->start();
  return ex;
}

void run_one(RunCtx& c, int a) {
  const Activity& act = c.s->activities[a];
  c.start[a] = sg::Engine::get_clock() - c.t0;
  if (act.kind == Activity::Kind::Compute) {
    if (act.amount > 0) {
      sg::ExecPtr ex = start_exec(c, act);
      ex->wait();
    }
  } else if (c.events) {
    transfer_with_failures(c, a);
  } else {
    const int f0 = c.first_flow[a], f1 = c.first_flow[a + 1];
    if (f1 > f0) {
      const double lat = max_latency(c, a);
      if (lat > 0) sg::this_actor::sleep_for(lat);
      sg::Mailbox* mb = (*c.mailboxes)[act.dst_gpu];
      // SimGrid asks the route for (sender actor's host -> sink): the FIFO is keyed by that host.
      const int key = static_cast<int>(sg::this_actor::get_host()->get_netpoint()->id());
      std::vector<sg::CommPtr> comms;
      std::vector<int> ids;
      comms.reserve(f1 - f0);
      for (int f = f0; f < f1; ++f) {
        if (c.flows[f].bytes <= 0) continue;
        c.zone->push(key, f);  // must directly precede the put: see header
        comms.push_back(mb->put_async(&c, static_cast<std::uint64_t>(std::llround(c.flows[f].bytes))));
        tl_start(c, f, comms.back());
        ids.push_back(f);
      }
      if (comms.size() == 1) {
        comms[0]->wait();
        tl_done(c, ids[0]);
      } else {
        // One at a time, so that each sub-flow's last bytes land in the bin it finished in.
        while (!comms.empty()) {
          const ssize_t i = sg::Comm::wait_any(comms);
          tl_done(c, ids[i]);
          comms.erase(comms.begin() + i);
          ids.erase(ids.begin() + i);
        }
      }
    }
  }
  c.finish[a] = sg::Engine::get_clock() - c.t0;
}

void spawn(RunCtx& c, int a);
void release(RunCtx& c, int a);

/// Runs activity `a`, then goes on with its first successor that became ready; the other ready
/// successors get actors of their own.
void chain(RunCtx& c, int a) {
  for (;;) {
    try {
      run_one(c, a);
    } catch (const std::exception& e) {
      fail(c, "activity " + std::to_string(a) + ": " + e.what());
      return;
    }
    if (c.events && !c.error.empty()) return;  // the run is stopping: no successor starts
    int next = -1;
    for (int k = c.succ_off[a]; k < c.succ_off[a + 1]; ++k) {
      const int s = c.succ[k];
      if (--c.pending[s] == 0) {
        if (next < 0)
          next = s;
        else
          spawn(c, s);
      }
    }
    if (next < 0) return;
    a = next;
  }
}

/// Successors of a finished activity: the ready ones get actors of their own.
void release(RunCtx& c, int a) {
  for (int k = c.succ_off[a]; k < c.succ_off[a + 1]; ++k)
    if (--c.pending[c.succ[k]] == 0) spawn(c, c.succ[k]);
}

/// Root activities (no predecessor) in batches: one actor starts up to kBatch computations and
/// transfers at t0 (each transfer's flows after its latency, in increasing latency order) and
/// waits for them with wait_any. Why: one actor per activity makes actor creation (stack
/// allocation, page faults) ~20 % of a 31K-flow phase.
constexpr std::size_t kBatch = 64;

void batch(RunCtx& c, std::vector<int> roots) {
  sort_by_latency(c, roots);
  const int key = static_cast<int>(sg::this_actor::get_host()->get_netpoint()->id());
  std::vector<sg::ActivityPtr> running;
  std::vector<int> left(roots.size(), 0);
  std::vector<int> slot_of;  // running index -> index in roots
  std::vector<int> flow_of;  // running index -> flow, -1 for a computation
  for (std::size_t k = 0; k < roots.size(); ++k) {
    const int a = roots[k];
    const Activity& act = c.s->activities[a];
    c.start[a] = 0.0;
    if (act.kind == Activity::Kind::Compute) {
      sg::ExecPtr ex = start_exec(c, act);
      running.push_back(ex);
      slot_of.push_back(static_cast<int>(k));
      flow_of.push_back(-1);
      left[k] = 1;
      continue;
    }
    const double t = c.t0 + max_latency(c, a);
    if (sg::Engine::get_clock() < t) sg::this_actor::sleep_until(t);
    sg::Mailbox* mb = (*c.mailboxes)[act.dst_gpu];
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) {
      c.zone->push(key, f);
      sg::CommPtr comm = mb->put_async(&c, static_cast<std::uint64_t>(std::llround(c.flows[f].bytes)));
      tl_start(c, f, comm);
      running.push_back(comm);
      slot_of.push_back(static_cast<int>(k));
      flow_of.push_back(f);
      ++left[k];
    }
  }
  while (!running.empty()) {
    const ssize_t i = sg::Activity::wait_any(running);
    const int k = slot_of[i];
    if (flow_of[i] >= 0) tl_done(c, flow_of[i]);
    running[i] = running.back();
    running.pop_back();
    slot_of[i] = slot_of.back();
    slot_of.pop_back();
    flow_of[i] = flow_of.back();
    flow_of.pop_back();
    if (--left[k] == 0) {
      c.finish[roots[k]] = sg::Engine::get_clock() - c.t0;
      release(c, roots[k]);
    }
  }
}

/// Stack of the actors of a run with events, bytes. They compute routes (Fabric::route) and may
/// throw and catch a SimulationError (disconnection): the 16 KiB of contexts/stack-size
/// overflows there (measured: heap corruption). Pages are only touched when used.
constexpr unsigned kEventStack = 256 * 1024;

/// Creates an actor; in event mode with a kEventStack stack.
void start_actor(const RunCtx& c, const char* name, sg::Host* host, std::function<void()> code) {
  if (c.events)
    sg::Actor::init(name, host)->set_stacksize(kEventStack)->start(std::move(code));
  else
    sg::Actor::create(name, host, std::move(code));
}

void spawn(RunCtx& c, int a) {
  const Activity& act = c.s->activities[a];
  if (c.events)
    start_actor(c, "a", (*c.hosts)[act.gpu], [&c, a] { chain(c, a); });
  else
    sg::Actor::create("a", (*c.hosts)[act.gpu], [&c, a] { chain(c, a); });
}

void check_schedule(const Schedule& s, int gpus) {
  const int n = static_cast<int>(s.activities.size());
  for (int i = 0; i < n; ++i) {
    const Activity& a = s.activities[i];
    const std::string key = "schedule.activities[" + std::to_string(i) + "]";
    if (a.gpu < 0 || a.gpu >= gpus)
      throw InvalidParameter(key + ".gpu", std::to_string(a.gpu), "a GPU rank in [0, " + std::to_string(gpus) + ")");
    if (a.kind == Activity::Kind::Transfer && (a.dst_gpu < 0 || a.dst_gpu >= gpus))
      throw InvalidParameter(key + ".dst_gpu", std::to_string(a.dst_gpu),
                             "a GPU rank in [0, " + std::to_string(gpus) + ")");
    if (!(a.amount >= 0) || !std::isfinite(a.amount))
      throw InvalidParameter(key + ".amount", std::to_string(a.amount), "a finite amount >= 0");
    for (int p : a.after)
      if (p < 0 || p >= n || p == i)
        throw InvalidParameter(key + ".after", std::to_string(p), "an index of another activity in [0, " +
                                                                      std::to_string(n) + ")");
  }
  bool any_compute = false;
  for (const auto& a : s.activities) any_compute |= a.kind == Activity::Kind::Compute && a.amount > 0;
  if (!any_compute) return;  // gpu_flops only matter for computations
  if (!(s.gpu_flops.size() == 1 || s.gpu_flops.size() == static_cast<std::size_t>(gpus)))
    throw InvalidParameter("schedule.gpu_flops", std::to_string(s.gpu_flops.size()) + " entries",
                           "1 or " + std::to_string(gpus) + " entries");
  for (double v : s.gpu_flops)
    if (!(v > 0) || !std::isfinite(v))
      throw InvalidParameter("schedule.gpu_flops", std::to_string(v), "a speed > 0 FLOP/s");
}

/// Runs the prepared schedule on SimGrid in this process (the engine clock keeps running, see
/// simulate_in_child). Errors are left in c.error.
void simulate(RunCtx& c) {
  const int n = static_cast<int>(c.s->activities.size());
  c.zone->flows = &c.flows;
  c.zone->misses = 0;
  c.zone->clear_pending();
  c.t0 = sg::Engine::get_clock();
  if (c.events) {
    copy_state(*c.caller, *c.live);
    // Created first, so that it runs first at each time: failures at t = 0 precede every start.
    // A daemon: the run ends with the last activity even if events remain.
    sg::ActorPtr ev = sg::Actor::init("failures", c.sink)->set_stacksize(kEventStack)->start([&c] { apply_failures(c); });
    ev->daemonize();
  }
  // Flows are mailbox puts from the sender actor (on the source GPU's host) to a mailbox of the
  // destination GPU whose permanent receiver is one idle daemon on the sink host: a put starts
  // its flow at once, without a matching receive, and SimGrid asks the zone for the route
  // (source GPU -> sink), which is the registered flow's route to the destination GPU. Why not
  // Comm::sendto: host-to-host comms are detached, kept in one list in maestro and searched on
  // every completion (8K flows 1.2 s, 16K flows 5.9 s measured); mailbox comms belong to their
  // sender. Why not a receiver actor per GPU: actor creation (stack allocation) dominates the
  // cost of a full-scale phase. Per-GPU mailboxes keep each done-queue short.
  // (A suspended receiver would suspend the flows: the daemon blocks on a semaphore instead.)
  sg::ActorPtr sink = sg::Actor::create("sink", c.sink, [] { sg::Semaphore::create(0)->acquire(); });
  sink->daemonize();
  if (c.tl) {
    sg::ActorPtr tl = sg::Actor::init("timeline", c.sink)->set_stacksize(64 * 1024)->start([&c] { tl_sampler(c); });
    tl->daemonize();
  }
  std::vector<char> receives(c.mailboxes->size(), 0);
  for (const auto& a : c.s->activities)
    if (a.kind == Activity::Kind::Transfer && a.gpu != a.dst_gpu) receives[a.dst_gpu] = 1;
  for (std::size_t g = 0; g < receives.size(); ++g)
    if (receives[g]) (*c.mailboxes)[g]->set_receiver(sink);
  // Roots that do work go to batch actors, the others (zero-time) to chains.
  std::vector<int> roots;
  auto flush = [&c, &roots] {
    if (roots.empty()) return;
    const Activity& first = c.s->activities[roots.front()];
    start_actor(c, "batch", (*c.hosts)[first.gpu], [&c, r = roots] {
      try {
        if (c.events)
          batch_with_failures(c, r);
        else
          batch(c, r);
      } catch (const std::exception& e) {
        fail(c, std::string("root batch: ") + e.what());
      }
    });
    roots.clear();
  };
  for (int i = 0; i < n; ++i) {
    if (c.pending[i] != 0) continue;
    const Activity& a = c.s->activities[i];
    bool work = a.kind == Activity::Kind::Compute ? a.amount > 0 : c.first_flow[i + 1] > c.first_flow[i];
    if (a.kind == Activity::Kind::Transfer)
      for (int f = c.first_flow[i]; f < c.first_flow[i + 1]; ++f) work = work && c.flows[f].bytes > 0;
    if (!work) {
      spawn(c, i);
      continue;
    }
    roots.push_back(i);
    if (roots.size() == kBatch) flush();
  }
  flush();
  sg::Engine::get_instance()->run();
  if (c.tl) {  // bins up to the last finish
    double last = 0;
    for (double f : c.finish) last = std::max(last, f);
    Timeline& t = *c.tl;
    t.used = std::min(t.capacity(), tl_bin(t, last) + 1);
    if (last > 0 && last == t.used * t.w) --t.used;  // a finish exactly on a boundary ends the bin before
    std::vector<double> packed(t.links.size() * static_cast<std::size_t>(t.used));
    for (std::size_t r = 0; r < t.links.size(); ++r)
      std::copy_n(t.bytes.begin() + static_cast<long>(r * t.capacity()), t.used, packed.begin() + static_cast<long>(r * t.used));
    t.bytes = std::move(packed);
    t.comm.clear();
  }
  for (std::size_t g = 0; g < receives.size(); ++g)
    if (receives[g]) {
      (*c.mailboxes)[g]->set_receiver(nullptr);
      (*c.mailboxes)[g]->clear();
    }
  c.zone->flows = nullptr;
  if (c.events) {
    // Bytes of the last (or only) route of every flow; the earlier routes' were added at the
    // failures. In flow order, so that without reroutes the sums are run(schedule)'s.
    for (const SubFlow& f : c.flows)
      for (const Hop& h : f.hops) (h.forward ? c.bytes_fwd : c.bytes_rev)[h.link] += f.bytes;
    c.comm.clear();
  }
  if (c.error.empty() && (c.zone->misses != 0 || c.zone->pending_count() != 0))
    c.error = "internal error, " + std::to_string(c.zone->misses) +
              " SimGrid route queries did not match a registered flow";
  c.zone->clear_pending();
}

bool write_all(int fd, const void* p, std::size_t n) {
  const char* b = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t k = ::write(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    b += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

/// Runs simulate() in a forked child and reads start/finish times back through a pipe. Why: the
/// parent's SimGrid clock stays at 0 (results are bit-identical whatever ran before: in-process
/// repeated runs differ by ~1e-17 s from rounding at a later absolute clock), the run's actors,
/// comms and permanent-receiver queues vanish with the child, and a SimGrid abort (xbt_die)
/// becomes a SimulationError instead of killing the caller (e.g. the Python interpreter).
void simulate_in_child(RunCtx& c) {
  const std::size_t n = c.s->activities.size();
  int fds[2];
  if (::pipe(fds) != 0) throw SimulationError(std::string("network: pipe() failed: ") + std::strerror(errno));
  std::fflush(nullptr);  // no buffered output duplicated in the child
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw SimulationError(std::string("network: fork() failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    simulate(c);
    const std::uint64_t elen = c.error.size();
    bool ok = write_all(fds[1], &elen, sizeof elen) && write_all(fds[1], c.error.data(), elen) &&
              write_all(fds[1], c.start.data(), n * sizeof(double)) &&
              write_all(fds[1], c.finish.data(), n * sizeof(double));
    if (c.tl) {
      const std::int64_t used = c.tl->used;
      ok = ok && write_all(fds[1], &used, sizeof used) && write_all(fds[1], &c.tl->w, sizeof(double)) &&
           write_all(fds[1], c.tl->bytes.data(), c.tl->bytes.size() * sizeof(double));
    }
    if (c.events)
      ok = ok && write_all(fds[1], c.reroutes.data(), n * sizeof(int)) &&
           write_all(fds[1], c.bytes_fwd.data(), c.bytes_fwd.size() * sizeof(double)) &&
           write_all(fds[1], c.bytes_rev.data(), c.bytes_rev.size() * sizeof(double));
    ::close(fds[1]);
    ::_exit(ok ? 0 : 3);  // no atexit handlers, no SimGrid teardown in the child
  }
  ::close(fds[1]);
  std::string buf;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t k = ::read(fds[0], chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(k));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::uint64_t elen = 0;
  if (buf.size() >= sizeof elen) std::memcpy(&elen, buf.data(), sizeof elen);
  const std::size_t L = c.bytes_fwd.size();  // 0 without events
  std::size_t tl_size = 0;  // the timeline's bytes, after start/finish (its length comes first)
  std::int64_t used = 0;
  const std::size_t tl_at = sizeof elen + elen + 2 * n * sizeof(double);
  if (c.tl && buf.size() >= tl_at + sizeof used) {
    std::memcpy(&used, buf.data() + tl_at, sizeof used);
    tl_size = sizeof used + sizeof(double) + c.tl->links.size() * static_cast<std::size_t>(std::max<std::int64_t>(used, 0)) * sizeof(double);
  }
  const std::size_t need = sizeof elen + elen + 2 * n * sizeof(double) + tl_size +
                           (c.events ? n * sizeof(int) + 2 * L * sizeof(double) : 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || buf.size() != need) {
    const std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                                : "exit status " + std::to_string(WEXITSTATUS(status));
    throw SimulationError("network: the SimGrid run aborted (" + why + "); SimGrid's message is on stderr");
  }
  c.error.assign(buf.data() + sizeof elen, elen);
  std::memcpy(c.start.data(), buf.data() + sizeof elen + elen, n * sizeof(double));
  std::memcpy(c.finish.data(), buf.data() + sizeof elen + elen + n * sizeof(double), n * sizeof(double));
  if (c.tl) {
    Timeline& t = *c.tl;
    t.used = static_cast<int>(used);
    std::memcpy(&t.w, buf.data() + tl_at + sizeof used, sizeof(double));
    t.bytes.resize(t.links.size() * static_cast<std::size_t>(t.used));
    std::memcpy(t.bytes.data(), buf.data() + tl_at + sizeof used + sizeof(double), t.bytes.size() * sizeof(double));
  }
  if (c.events) {
    const char* p = buf.data() + sizeof elen + elen + 2 * n * sizeof(double) + tl_size;
    std::memcpy(c.reroutes.data(), p, n * sizeof(int));
    std::memcpy(c.bytes_fwd.data(), p + n * sizeof(int), L * sizeof(double));
    std::memcpy(c.bytes_rev.data(), p + n * sizeof(int) + L * sizeof(double), L * sizeof(double));
  }
}

}  // namespace detail

RunResult FlowNetwork::run(const Schedule& schedule) { return run(schedule, {}); }

RunResult FlowNetwork::run(const Schedule& schedule, const std::vector<TimedFailure>& events) {
  const Fabric& fab = impl_->fabric;
  const int G = fab.gpu_count();
  const int n = static_cast<int>(schedule.activities.size());
  check_schedule(schedule, G);
  std::vector<ResolvedFailure> failures = resolve(fab, events);
  RunResult res;
  res.start.assign(n, 0.0);
  res.finish.assign(n, 0.0);
  res.link_bytes_fwd.assign(fab.link_count(), 0.0);
  res.link_bytes_rev.assign(fab.link_count(), 0.0);
  res.reroutes.assign(n, 0);
  if (n == 0) return res;

  auto c = std::make_unique<RunCtx>();
  c->s = &schedule;
  c->zone = impl_->entry->zone;
  c->hosts = &impl_->entry->hosts;
  if (!schedule.gpu_flops.empty())
    c->flops = schedule.gpu_flops.size() == 1 ? std::vector<double>(G, schedule.gpu_flops[0]) : schedule.gpu_flops;

  // Dependencies (CSR) and a cycle check (Kahn) before anything is simulated.
  c->pending.assign(n, 0);
  c->succ_off.assign(n + 1, 0);
  for (int i = 0; i < n; ++i)
    for (int p : schedule.activities[i].after) {
      ++c->succ_off[p + 1];
      ++c->pending[i];
    }
  for (int i = 0; i < n; ++i) c->succ_off[i + 1] += c->succ_off[i];
  c->succ.resize(c->succ_off[n]);
  {
    std::vector<int> fill(c->succ_off.begin(), c->succ_off.end() - 1);
    for (int i = 0; i < n; ++i)
      for (int p : schedule.activities[i].after) c->succ[fill[p]++] = i;
    std::vector<int> deg = c->pending, queue;
    queue.reserve(n);
    for (int i = 0; i < n; ++i)
      if (deg[i] == 0) queue.push_back(i);
    for (std::size_t q = 0; q < queue.size(); ++q)
      for (int k = c->succ_off[queue[q]]; k < c->succ_off[queue[q] + 1]; ++k)
        if (--deg[c->succ[k]] == 0) queue.push_back(c->succ[k]);
    if (static_cast<int>(queue.size()) != n) {
      int bad = 0;
      while (deg[bad] == 0) ++bad;
      throw SimulationError("network: the schedule's dependencies form a cycle (activity " +
                            std::to_string(bad) + " can never start)");
    }
  }

  // Routes of every (sub-)flow, computed up front: unroutable transfers fail before simulating,
  // and bytes per link are exact sums over the routes' hops.
  const auto& spec = fab.spec();
  const bool spray = spec.ecmp == topology::EcmpMode::Spray;
  const int fpp = std::max(1, spec.flows_per_pair);
  c->first_flow.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    const Activity& a = schedule.activities[i];
    c->first_flow[i] = static_cast<int>(c->flows.size());
    if (a.kind != Activity::Kind::Transfer || a.gpu == a.dst_gpu) continue;
    subflow_routes(fab, a, spray, fpp, impl_->spray_subflows, 0, -1, [&](int j, int m, std::vector<Hop>&& hops) {
      SubFlow f;
      f.activity = i;
      f.bytes = a.amount / (spray ? static_cast<double>(m) : m);
      f.latency = fab.latency(hops);
      for (const Hop& h : hops) (h.forward ? res.link_bytes_fwd : res.link_bytes_rev)[h.link] += f.bytes;
      f.hops = std::move(hops);
      f.index = j;
      f.of = m;
      c->flows.push_back(std::move(f));
    });
  }
  c->first_flow[n] = static_cast<int>(c->flows.size());

  // Current link rates (degradations) into SimGrid.
  ZoneEntry& e = *impl_->entry;
  for (int l = 0; l < fab.link_count(); ++l) {
    const double r = fab.link(l).rate;
    if (r != e.applied_rate[l]) {
      if (!(r > 0)) throw SimulationError("network: link " + fab.link(l).name + " has rate " + std::to_string(r));
      e.up[l]->set_bandwidth(r);
      e.down[l]->set_bandwidth(r);
      e.applied_rate[l] = r;
    }
  }

  c->start.assign(n, -1.0);
  c->finish.assign(n, -1.0);
  c->mailboxes = &e.mailboxes;
  c->sink = e.sink;
  std::unique_ptr<Fabric> fresh;  // in-process runs: a private fabric for this run only
  if (!failures.empty()) {
    c->events = true;
    c->failures = std::move(failures);
    c->caller = &fab;
    c->entry = &e;
    c->spray = spray;
    c->fpp = fpp;
    c->spray_n = impl_->spray_subflows;
    if (impl_->isolated) {
      if (!impl_->pristine) impl_->pristine = pristine_copy(fab, e.fingerprint);
      c->live = impl_->pristine.get();  // mutated in the child only
    } else {
      fresh = pristine_copy(fab, e.fingerprint);
      c->live = fresh.get();
    }
    c->comm.assign(c->flows.size(), nullptr);
    c->cancelled.assign(c->flows.size(), 0);
    c->restart_at.assign(c->flows.size(), 0.0);
    c->reroutes.assign(n, 0);
    c->bytes_fwd.assign(fab.link_count(), 0.0);
    c->bytes_rev.assign(fab.link_count(), 0.0);
  }
  if (impl_->timeline_bins > 0 && !c->events) {
    auto t = std::make_unique<Timeline>();
    t->target = impl_->timeline_bins;
    t->w = impl_->timeline_hint > 0 ? impl_->timeline_hint / impl_->timeline_bins : kTimelineFirstBin;
    t->row_of.assign(2 * static_cast<std::size_t>(fab.link_count()), -1);
    for (const SubFlow& f : c->flows)
      for (const Hop& h : f.hops) {
        int& r = t->row_of[2 * static_cast<std::size_t>(h.link) + (h.forward ? 0 : 1)];
        if (r < 0) {
          r = static_cast<int>(t->links.size());
          t->links.push_back(2 * h.link + (h.forward ? 0 : 1));
        }
      }
    t->bytes.assign(t->links.size() * static_cast<std::size_t>(t->capacity()), 0.0);
    t->sent.assign(c->flows.size(), 0.0);
    t->comm.assign(c->flows.size(), nullptr);
    t->pos.assign(c->flows.size(), -1);
    c->tl = std::move(t);
  }
  if (impl_->isolated)
    simulate_in_child(*c);
  else
    simulate(*c);

  if (!c->error.empty()) throw SimulationError("network: " + c->error);
  for (int i = 0; i < n; ++i)
    if (c->finish[i] < 0)
      throw SimulationError("network: activity " + std::to_string(i) + " did not complete (deadlock)");
  res.start = std::move(c->start);
  res.finish = std::move(c->finish);
  if (c->events) {
    res.reroutes = std::move(c->reroutes);
    res.link_bytes_fwd = std::move(c->bytes_fwd);
    res.link_bytes_rev = std::move(c->bytes_rev);
  }
  double first = res.start[0], last = res.finish[0];
  for (int i = 0; i < n; ++i) {
    first = std::min(first, res.start[i]);
    last = std::max(last, res.finish[i]);
  }
  res.makespan = last - first;
  if (c->tl) {
    res.timeline_bins = c->tl->used;
    res.timeline_bin = c->tl->w;
    res.timeline_links = std::move(c->tl->links);
    res.timeline_bytes = std::move(c->tl->bytes);
  }
  return res;
}

}  // namespace aidcsim::network
