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
// Failures during a run (run(schedule, events)):
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
#include "models/network/flow_network.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/log.h>

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
#include <unordered_map>

#include "models/common/errors.hpp"

namespace aidcsim::network {
namespace sg = simgrid::s4u;
using simgrid::kernel::resource::StandardLinkImpl;
using simgrid::kernel::routing::NetPoint;
using topology::Fabric;
using topology::Hop;

namespace {

/// Nominal host speed, FLOP/s. Hosts keep it; an exec of F FLOP on a GPU of speed s is given
/// F x kRefSpeed / s FLOP, which takes F / s seconds (speeds change per run without touching hosts).
constexpr double kRefSpeed = 1e15;

/// One flow handed to SimGrid: a transfer or one of its ECMP / spray sub-flows.
struct SubFlow {
  int activity = 0;
  double bytes = 0;
  double latency = 0;       ///< s, sum of the route's link latencies
  std::vector<Hop> hops;
  int index = 0, of = 1;    ///< sub-flow `index` of the transfer's `of` (to recompute its route)
  int epoch = 0;            ///< RunCtx::epoch when `hops` was last checked against failures
};

/// Routes of the sub-flows of transfer `a` on the fabric's current state: emit(j, m, hops) for
/// sub-flow j of m (each carries amount / m bytes); only sub-flow `only` when only >= 0.
/// Hash ECMP: m = fpp hashed routes, sub-flow 0 keeps flow_hash. Spray: m = m_fixed if > 0 (a
/// recomputation keeps the count) else min(paths, spray_n), evenly spaced over Fabric::routes.
/// Throws SimulationError (Fabric::route) when src and dst are disconnected.
template <class Emit>
void subflow_routes(const Fabric& fab, const Activity& a, bool spray, int fpp, int spray_n, int m_fixed,
                    int only, Emit&& emit) {
  if (spray) {
    auto paths = fab.routes(a.gpu, a.dst_gpu, 4096);
    if (paths.empty()) paths.push_back(fab.route(a.gpu, a.dst_gpu, a.flow_hash));  // NVLink / throws
    const std::size_t np = paths.size();
    const std::size_t m = m_fixed > 0 ? static_cast<std::size_t>(m_fixed)
                                      : std::min<std::size_t>(np, static_cast<std::size_t>(spray_n));
    // m of np paths (routes() lists them first hop slowest): rank j x (np/m + 1) mod np walks the
    // first hops and the later hops together (on a k-ary fat tree 16 of 256 paths use 16
    // distinct aggregation switches AND 16 distinct core positions), all paths when m = np.
    // The start rank comes from the flow's hash so that flows do not all take the same sample.
    // (m > np only after failures removed paths: sub-flows then share paths round robin.)
    const std::size_t stride = m >= np ? 1 : np / m + 1;
    const std::size_t offset = m == np ? 0 : static_cast<std::size_t>(topology::splitmix64(a.flow_hash) % np);
    for (std::size_t j = 0; j < m; ++j)
      if (only < 0 || static_cast<std::size_t>(only) == j)
        emit(static_cast<int>(j), static_cast<int>(m), std::vector<Hop>(paths[(offset + j * stride) % np]));
  } else {
    for (int f = 0; f < fpp; ++f) {
      if (only >= 0 && only != f) continue;
      const std::uint64_t h = f == 0 ? a.flow_hash : topology::splitmix64(a.flow_hash + 0x9e3779b97f4a7c15ull * f);
      emit(f, fpp, fab.route(a.gpu, a.dst_gpu, h));
    }
  }
}

/// Routing zone of one fabric. Hosts are the GPUs (NetPoint id == GPU rank) plus one "sink" host
/// (id == GPU count) where every flow is received (see simulate()); links are the fabric's.
class FabricZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  explicit FabricZone(const std::string& name) : NetZoneImpl(name) {}

  std::vector<StandardLinkImpl*> fwd, rev;   ///< per fabric link: a->b and b->a halves
  const std::vector<SubFlow>* flows = nullptr;
  long misses = 0;                           ///< route queries without a registered flow (bug)

  /// Registers flow `f` as the next flow put by an actor on host `host` (NetPoint id), right
  /// before the put. The actor's host only tells concurrent actors apart: the route is the flow's.
  void push(int host, int f) { pending_[host].q.push_back(f); }
  std::size_t pending_count() const { return pending_.size(); }
  void clear_pending() { pending_.clear(); }

  void get_local_route(const NetPoint* src, const NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override {
    // Latency is paid by the issuing actor (see the file comment): nothing added to *latency.
    auto it = pending_.find(static_cast<int>(src->id()));
    if (it == pending_.end() || flows == nullptr) {
      // Not one of our flows: give a valid route, the run fails on misses != 0 afterwards.
      ++misses;
      if (!fwd.empty()) into->link_list_.push_back(fwd[0]);
      return;
    }
    Fifo& fifo = it->second;
    const SubFlow& f = (*flows)[fifo.q[fifo.head++]];
    if (fifo.head == fifo.q.size()) pending_.erase(it);
    into->link_list_.reserve(f.hops.size());
    for (const Hop& h : f.hops) into->link_list_.push_back(h.forward ? fwd[h.link] : rev[h.link]);
  }

 private:
  struct Fifo {
    std::vector<int> q;
    std::size_t head = 0;
  };
  std::unordered_map<int, Fifo> pending_;  ///< per issuing host, flows in the order of their puts
};

/// A built zone and what is needed to reuse it for another FlowNetwork of the same structure.
struct ZoneEntry {
  FabricZone* zone = nullptr;
  std::uint64_t fingerprint = 0;
  bool in_use = false;
  std::vector<sg::Host*> hosts;
  std::vector<sg::Link*> up, down;
  std::vector<double> applied_rate;  ///< B/s last given to SimGrid per link
  std::vector<sg::Mailbox*> mailboxes;  ///< per GPU: where transfers to it are put
  sg::Host* sink = nullptr;             ///< receiving end of every flow (see simulate())
};

std::vector<std::unique_ptr<ZoneEntry>>& registry() {
  static std::vector<std::unique_ptr<ZoneEntry>> r;  // zones live as long as the engine (process)
  return r;
}

/// Structure of a fabric (node count, link endpoints and latencies): equal fingerprints can
/// share a SimGrid zone; rates are re-applied per run. FNV-1a over the fields.
std::uint64_t fingerprint(const Fabric& f) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<std::uint64_t>(f.gpu_count()));
  mix(static_cast<std::uint64_t>(f.node_count()));
  mix(static_cast<std::uint64_t>(f.link_count()));
  for (int l = 0; l < f.link_count(); ++l) {
    const auto& k = f.link(l);
    mix(static_cast<std::uint64_t>(k.a));
    mix(static_cast<std::uint64_t>(k.b));
    std::uint64_t bits;
    static_assert(sizeof(bits) == sizeof(k.latency));
    std::memcpy(&bits, &k.latency, sizeof(bits));
    mix(bits);
  }
  return h;
}

ZoneEntry* build_zone(const Fabric& f, std::uint64_t fp) {
  static int counter = 0;
  const int id = counter++;
  const std::string prefix = "f" + std::to_string(id) + ".";
  auto e = std::make_unique<ZoneEntry>();
  e->fingerprint = fp;
  auto* zone = new FabricZone("aidcsim.fabric" + std::to_string(id));
  // Parentless zone (the root is sealed by the first Engine::run, so it cannot take children
  // afterwards); routes never leave the zone, so SimGrid's common-ancestor search stops here.
  auto* root = sg::Engine::get_instance()->get_netzone_root()->get_impl();
  zone->set_network_model(root->get_network_model());
  zone->set_cpu_pm_model(root->get_cpu_pm_model());
  zone->set_cpu_vm_model(root->get_cpu_vm_model());
  zone->set_disk_model(root->get_disk_model());
  zone->set_host_model(root->get_host_model());
  sg::NetZone* iface = zone->get_iface();
  e->hosts.reserve(f.gpu_count());
  for (int g = 0; g < f.gpu_count(); ++g) {
    sg::Host* h = iface->create_host(prefix + "gpu" + std::to_string(g), kRefSpeed);
    h->seal();
    if (h->get_netpoint()->id() != static_cast<unsigned long>(g))
      throw SimulationError("network: SimGrid netpoint ids do not follow GPU ranks");
    e->hosts.push_back(h);
    e->mailboxes.push_back(sg::Mailbox::by_name(prefix + "mb" + std::to_string(g)));
  }
  e->sink = iface->create_host(prefix + "sink", kRefSpeed);
  e->sink->seal();
  const int L = f.link_count();
  e->up.resize(L);
  e->down.resize(L);
  e->applied_rate.resize(L);
  zone->fwd.resize(L);
  zone->rev.resize(L);
  for (int l = 0; l < L; ++l) {
    const auto& k = f.link(l);
    sg::SplitDuplexLink* link = iface->create_split_duplex_link(prefix + "l" + std::to_string(l), k.rate);
    link->set_latency(k.latency);  // informative only: routes carry zero latency (see top)
    link->seal();
    e->up[l] = link->get_link_up();
    e->down[l] = link->get_link_down();
    e->applied_rate[l] = k.rate;
    zone->fwd[l] = e->up[l]->get_impl();
    zone->rev[l] = e->down[l]->get_impl();
  }
  zone->seal();
  e->zone = zone;
  registry().push_back(std::move(e));
  return registry().back().get();
}

}  // namespace

void init_simgrid() {
  if (sg::Engine::has_instance()) return;
  xbt_log_control_set("root.thresh:critical");
  static sg::Engine* engine = new sg::Engine("aidcsim");  // process singleton, never destroyed
  (void)engine;
  sg::Engine::set_config("network/model:CM02");
  sg::Engine::set_config("network/crosstraffic:0");
  sg::Engine::set_config("network/TCP-gamma:0");
  sg::Engine::set_config("contexts/stack-size:16");
  sg::Engine::set_config("contexts/guard-size:0");
  // Extra SimGrid options for experiments, e.g. AIDCSIM_SIMGRID_CFG="network/optim:Full;...".
  if (const char* extra = std::getenv("AIDCSIM_SIMGRID_CFG")) {
    std::string all(extra);
    for (std::size_t p = 0; p <= all.size();) {
      const std::size_t q = std::min(all.find(';', p), all.size());
      if (q > p) sg::Engine::set_config(all.substr(p, q - p));
      p = q + 1;
    }
  }
  // The first zone becomes the root and instantiates the models from the configuration above.
  sg::create_empty_zone("aidcsim")->seal();
}

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

namespace {

/// A TimedFailure checked against the fabric: what it acts on.
struct ResolvedFailure {
  double time = 0;                  ///< s from the run's start
  topology::FailureSpec::Type type = topology::FailureSpec::Type::LinkDown;
  int node = -1;                    ///< SwitchDown
  std::vector<int> links;           ///< LinkDown / Degrade
  double factor = 1;
  std::string element;
};

/// Link timeline of a run (RunResult::timeline_*). Bins of width w from the run's start; when
/// 2B bins are filled, adjacent pairs merge and w doubles, so a run of unknown length ends with
/// B..2B bins. Bytes are credited from SimGrid's remaining bytes at every bin boundary (sampler
/// actor) and at each flow's completion, to the bin they were sent in.
struct Timeline {
  int target = 0;                  ///< B
  double w = 0;                    ///< s, current bin width
  int used = 0;                    ///< bins in the result (after the run)
  std::vector<int> row_of;         ///< per link direction (2 l + d): row, or -1 if no flow uses it
  std::vector<int> links;          ///< per row: link direction
  std::vector<double> bytes;       ///< rows x 2B, bytes per bin
  std::vector<double> sent;        ///< per flow: bytes credited so far
  std::vector<sg::CommPtr> comm;   ///< per flow: its comm while it sends
  std::vector<int> active, pos;    ///< flows sending; per flow its index in `active` or -1
  int capacity() const { return 2 * target; }
};

/// State of one run, shared by its actors (all run in one OS thread: no locking).
struct RunCtx {
  const Schedule* s = nullptr;
  FabricZone* zone = nullptr;
  const std::vector<sg::Host*>* hosts = nullptr;
  const std::vector<sg::Mailbox*>* mailboxes = nullptr;
  sg::Host* sink = nullptr;
  std::vector<double> flops;           ///< per GPU, FLOP/s
  std::vector<SubFlow> flows;
  std::vector<int> first_flow;         ///< per activity, index in flows (transfers), size n+1
  std::vector<int> succ_off, succ;     ///< CSR successor lists
  std::vector<int> pending;            ///< unfinished predecessors per activity
  std::vector<double> start, finish;
  double t0 = 0;
  std::string error;

  // Failures during the run (see the file comment); unused when `events` is false.
  bool events = false;
  std::vector<ResolvedFailure> failures;  ///< in time order
  Fabric* live = nullptr;              ///< private fabric, as the failures so far leave it
  const Fabric* caller = nullptr;      ///< the FlowNetwork's fabric: state copied onto `live` first
  ZoneEntry* entry = nullptr;          ///< SimGrid links (Degrade)
  bool spray = false;
  int fpp = 1, spray_n = 16;
  int epoch = 0;                       ///< link/switch-down events applied so far
  std::string down_log;                ///< "leaf3 down at 0.01 s, ..." for error messages
  std::vector<sg::CommPtr> comm;       ///< per flow: its comm in flight, null otherwise
  std::vector<char> cancelled;         ///< per flow: cancelled by a failure, restart pending
  std::vector<double> restart_at;      ///< per flow: absolute clock of the restart
  std::vector<int> reroutes;           ///< per activity
  std::vector<double> bytes_fwd, bytes_rev;  ///< per link: bytes sent
  std::unique_ptr<Timeline> tl;        ///< null unless FlowNetwork::set_timeline_bins > 0 (no events)
};

// ---- Link timeline (see Timeline) ----

/// First bin width without a duration hint: the bins double until the run fits (log2 of the
/// run length over this many compactions of the whole table).
constexpr double kTimelineFirstBin = 1e-6;  // s

/// Merges adjacent bin pairs: w doubles, the filled bins halve.
void tl_compact(Timeline& t) {
  const int cap = t.capacity();
  for (std::size_t r = 0; r < t.links.size(); ++r) {
    double* row = t.bytes.data() + r * cap;
    for (int j = 0; j < t.target; ++j) row[j] = row[2 * j] + row[2 * j + 1];
    std::fill(row + t.target, row + cap, 0.0);
  }
  t.w *= 2;
}

/// Bin of time `rel` (s from the run's start), compacting until it fits.
int tl_bin(Timeline& t, double rel) {
  for (;;) {
    const double k = std::floor(std::max(rel, 0.0) / t.w);
    if (k < t.capacity()) return static_cast<int>(k);
    tl_compact(t);
  }
}

/// Credits flow f's bytes sent up to `upto` (of its total) to bin k on every hop.
void tl_credit(const RunCtx& c, Timeline& t, int f, double upto, int k) {
  const double delta = upto - t.sent[f];
  if (!(delta > 0)) return;
  t.sent[f] = upto;
  for (const Hop& h : c.flows[f].hops) {
    const int r = t.row_of[2 * static_cast<std::size_t>(h.link) + (h.forward ? 0 : 1)];
    t.bytes[static_cast<std::size_t>(r) * t.capacity() + k] += delta;
  }
}

/// Flow f started sending on `comm`.
void tl_start(RunCtx& c, int f, const sg::CommPtr& comm) {
  if (!c.tl) return;
  Timeline& t = *c.tl;
  t.comm[f] = comm;
  t.pos[f] = static_cast<int>(t.active.size());
  t.active.push_back(f);
}

/// Flow f completed: its last bytes go to the bin of now.
void tl_done(RunCtx& c, int f) {
  if (!c.tl || c.tl->pos[f] < 0) return;
  Timeline& t = *c.tl;
  tl_credit(c, t, f, std::llround(c.flows[f].bytes), tl_bin(t, sg::Engine::get_clock() - c.t0));
  const int i = t.pos[f], last = t.active.back();
  t.active[i] = last;
  t.pos[last] = i;
  t.active.pop_back();
  t.pos[f] = -1;
  t.comm[f] = nullptr;
}

/// Sampler daemon: at every bin boundary, credits each sending flow's progress to the bin that
/// just ended.
void tl_sampler(RunCtx& c) {
  Timeline& t = *c.tl;
  for (;;) {
    const double rel = sg::Engine::get_clock() - c.t0;
    // The next boundary after now (now may sit on a boundary, up to rounding).
    const double next = (std::floor(rel / t.w + 1e-9) + 1) * t.w;
    sg::this_actor::sleep_until(c.t0 + next);
    const double now = sg::Engine::get_clock() - c.t0;
    const int k = tl_bin(t, now - 0.5 * t.w);  // the bin that just ended
    for (int f : t.active) {
      const double total = std::llround(c.flows[f].bytes);
      tl_credit(c, t, f, total - t.comm[f]->get_remaining(), k);
    }
  }
}


// ---- Failures during a run (event mode only; see the file comment) ----

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
  double lat = 0;
  for (int f = f0; f < f1; ++f) lat = std::max(lat, c.flows[f].latency);
  if (lat > 0) sg::this_actor::sleep_for(lat);
  Waitset w(c);
  for (int f = f0; f < f1; ++f)
    if (c.flows[f].bytes > 0) w.put(f, 0);
  while (w.next() >= 0) {
  }
}

void run_one(RunCtx& c, int a) {
  const Activity& act = c.s->activities[a];
  c.start[a] = sg::Engine::get_clock() - c.t0;
  if (act.kind == Activity::Kind::Compute) {
    if (act.amount > 0) {
      sg::ExecPtr ex = sg::Exec::init();
      ex->set_host((*c.hosts)[act.gpu]);
      ex->set_flops_amount(act.amount * (kRefSpeed / c.flops[act.gpu]));
      ex->start();
      ex->wait();
    }
  } else if (c.events) {
    transfer_with_failures(c, a);
  } else {
    const int f0 = c.first_flow[a], f1 = c.first_flow[a + 1];
    if (f1 > f0) {
      double lat = 0;
      for (int f = f0; f < f1; ++f) lat = std::max(lat, c.flows[f].latency);
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
  auto lat = [&c](int a) {
    double l = 0;
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) l = std::max(l, c.flows[f].latency);
    return l;
  };
  std::stable_sort(roots.begin(), roots.end(), [&](int x, int y) { return lat(x) < lat(y); });
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
      sg::ExecPtr ex = sg::Exec::init();
      ex->set_host((*c.hosts)[act.gpu]);
      ex->set_flops_amount(act.amount * (kRefSpeed / c.flops[act.gpu]));
      ex->start();
      running.push_back(ex);
      slot_of.push_back(static_cast<int>(k));
      flow_of.push_back(-1);
      left[k] = 1;
      continue;
    }
    const double t = c.t0 + lat(a);
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

/// batch() in event mode: the same issue times and order, but the puts are scheduled in the
/// Waitset instead of slept for, so a flow cancelled while later roots wait for their latency
/// restarts on time.
void batch_with_failures(RunCtx& c, std::vector<int> roots) {
  for (int a : roots) refresh_routes(c, a);  // a failure at t = 0 is already applied
  auto lat = [&c](int a) {
    double l = 0;
    for (int f = c.first_flow[a]; f < c.first_flow[a + 1]; ++f) l = std::max(l, c.flows[f].latency);
    return l;
  };
  std::stable_sort(roots.begin(), roots.end(), [&](int x, int y) { return lat(x) < lat(y); });
  Waitset w(c);
  std::vector<int> left(roots.size(), 0);
  for (std::size_t k = 0; k < roots.size(); ++k) {
    const int a = roots[k];
    const Activity& act = c.s->activities[a];
    c.start[a] = 0.0;
    if (act.kind == Activity::Kind::Compute) {
      sg::ExecPtr ex = sg::Exec::init();
      ex->set_host((*c.hosts)[act.gpu]);
      ex->set_flops_amount(act.amount * (kRefSpeed / c.flops[act.gpu]));
      ex->start();
      w.add(ex, static_cast<int>(k));
      left[k] = 1;
      continue;
    }
    const double t = c.t0 + lat(a);
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

/// Copies the up/down state of `from` onto `to` (same structure, `to` without failures yet).
void copy_state(const Fabric& from, Fabric& to) {
  for (int n = from.gpu_count(); n < from.node_count(); ++n)
    if (!from.node_up(n) && to.node_up(n)) to.fail_switch(n);
  for (int l = 0; l < from.link_count(); ++l)
    if (!from.link(l).up && to.link(l).up) to.set_link_up(l, false);
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

}  // namespace

namespace {

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

}  // namespace

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
