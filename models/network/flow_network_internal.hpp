#pragma once
// Internals of FlowNetwork shared by its implementation files (not part of the public API):
// the SimGrid zone of a fabric (platform.cpp), the state of one run (flow_network.cpp), the link
// timeline (link_timeline.cpp) and failures during a run (run_failures.cpp). Include only from
// models/network/*.cpp.
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/network/flow_network.hpp"

namespace aidcsim::network::detail {
namespace sg = simgrid::s4u;
using simgrid::kernel::resource::StandardLinkImpl;
using simgrid::kernel::routing::NetPoint;
using topology::Fabric;
using topology::Hop;

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

/// Every zone built in this process (zones live as long as the SimGrid engine).
std::vector<std::unique_ptr<ZoneEntry>>& registry();
/// Structure of a fabric (node count, link endpoints and latencies): equal fingerprints can
/// share a SimGrid zone; rates are re-applied per run. FNV-1a over the fields.
std::uint64_t fingerprint(const Fabric& f);
/// Builds the SimGrid zone of `f` (hosts = GPUs + sink, split-duplex links) and registers it.
ZoneEntry* build_zone(const Fabric& f, std::uint64_t fp);

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

/// First bin width of the link timeline without a duration hint, s: the bins double until the
/// run fits (log2 of the run length over this many compactions of the whole table).
constexpr double kTimelineFirstBin = 1e-6;

// link_timeline.cpp
/// Bin of time `rel` (s from the run's start), merging bin pairs until it fits.
int tl_bin(Timeline& t, double rel);
/// Flow f started sending on `comm`; no-op without a timeline.
void tl_start(RunCtx& c, int f, const sg::CommPtr& comm);
/// Flow f completed: its last bytes go to the bin of now; no-op without a timeline.
void tl_done(RunCtx& c, int f);
/// Body of the sampler daemon actor (see Timeline).
void tl_sampler(RunCtx& c);

// run_failures.cpp
/// Records the run's first error; in event mode cancels every comm in flight (see there).
void fail(RunCtx& c, const std::string& msg);
/// Event mode: one transfer issued by a chain actor.
void transfer_with_failures(RunCtx& c, int a);
/// Event mode: the root activities of one batch actor.
void batch_with_failures(RunCtx& c, std::vector<int> roots);
/// Body of the actor that applies the failures at their times.
void apply_failures(RunCtx& c);
/// Copies the up/down state of `from` onto `to` (same structure, `to` without failures yet).
void copy_state(const Fabric& from, Fabric& to);
/// Checks the events against the fabric and sorts them by time (stable).
std::vector<ResolvedFailure> resolve(const Fabric& fab, const std::vector<TimedFailure>& events);
/// A fabric of the same structure as `fab`, without any failure.
std::unique_ptr<Fabric> pristine_copy(const Fabric& fab, std::uint64_t fp);

// flow_network.cpp
/// Successors of a finished activity: the ready ones get actors of their own.
void release(RunCtx& c, int a);
/// Longest route latency of activity a's flows, s (0 for a computation).
double max_latency(const RunCtx& c, int a);
/// Root activities in increasing max_latency order (stable): their flows start in that order.
void sort_by_latency(const RunCtx& c, std::vector<int>& roots);
/// Starts computation `act` on its GPU's host at its GPU's speed (see kRefSpeed).
sg::ExecPtr start_exec(const RunCtx& c, const Activity& act);

}  // namespace aidcsim::network::detail
