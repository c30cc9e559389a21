// A stepped ring pipelined as NCCL runs it (flow_plan.hpp, pipeline_ring).
//
// NCCL (v2.23.4-1) sends a ring step through a connection FIFO of NCCL_STEPS = 8 slots
// (src/include/device.h): the sender waits only while it is NCCL_STEPS slots ahead of what the
// receiver has consumed (src/device/prims_simple.h waitPeer, `connStepCache + NCCL_STEPS < step +
// StepPerSlice`; prims_ll.h / prims_ll128.h waitSend, `sendConnHeadCache + NCCL_STEPS <
// sendConnHead + 1`). A ring step of the Simple protocol takes StepPerSlice = ALLREDUCE_SLICESTEPS
// = NCCL_STEPS / 4 slots per slice (src/include/collectives.h; all-gather and reduce-scatter
// alike), LL and LL128 one slot (src/enqueue.cc: chunkSteps = sliceSteps = 1 but for Simple
// ring); a slot holds buffSize / NCCL_STEPS bytes (src/init.cc DEFAULT_BUFFSIZE 4 MiB,
// DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE). So a rank posts step k + 1 as soon as it has the
// data of step k from its predecessor, while up to that many of its earlier steps are still
// travelling: propagation is overlapped, and NCCL's cost model (tuning.cc) charges each step one
// hop latency whatever the route. The step transfers of the flow network carry a latency phase
// then their bytes, one repetition after the other; a hop whose route is longer than the nominal
// one would then hold every step of the ring back by its excess latency (the clos3 ring at 4,096
// GPUs ran at 1.9x NCCL's time). Here such a hop keeps the per-step cost in series at the other
// ranks and lets its own steps overlap in D lanes.
#include <algorithm>
#include <cmath>

#include "models/collectives/flow_plan.hpp"

namespace aidcsim::collectives::detail {

namespace {

/// NCCL_STEPS (src/include/device.h, v2.23.4-1): FIFO slots per connection.
constexpr int kNcclSteps = 8;

/// Ring steps of `proto` a connection's FIFO holds in flight when a step carries `step_bytes` per
/// NCCL channel: slots / slots per slice, and no more than the FIFO's bytes hold (>= 1).
int fifo_steps(Proto proto, double step_bytes) {
  // Slots per slice: ALLREDUCE_SLICESTEPS = NCCL_STEPS / 4 for Simple, 1 for LL / LL128.
  const int slice_slots = proto == Proto::Simple ? kNcclSteps / 4 : 1;
  // Data bytes of the FIFO (src/init.cc v2.23.4-1): Simple DEFAULT_BUFFSIZE 4 MiB; LL
  // DEFAULT_LL_BUFFSIZE = 8 lines x 512 threads x 8 steps x 16 B lines, half of them data;
  // LL128 DEFAULT_LL128_BUFFSIZE = 120 elements x 640 threads x 8 steps x 8 B, 15 of 16 data
  // (NCCL_LL128_DATAELEMS / NCCL_LL128_LINEELEMS).
  const double fifo_bytes = proto == Proto::Simple ? 4.0 * 1024 * 1024
                            : proto == Proto::LL   ? 8.0 * 512 * kNcclSteps * 16 / 2
                                                   : 120.0 * 640 * kNcclSteps * 8 * 15 / 16;
  int d = kNcclSteps / slice_slots;
  if (step_bytes > 0) d = static_cast<int>(std::min<double>(d, std::floor(fifo_bytes / step_bytes)));
  return std::max(1, d);
}

}  // namespace

RingPipeline pipeline_ring(network::Schedule& s, int first, int rings, const EmitContext& ctx, Proto proto,
                           int nccl_channels, std::vector<int>* done, const std::vector<char>* in_flight) {
  const auto& L = ctx.layout;
  const int total = static_cast<int>(s.activities.size()) - first;
  if (rings < 1 || total % rings != 0) return {};
  const int n = total / rings;
  const bool flight = in_flight && static_cast<int>(in_flight->size()) == total &&
                      std::find(in_flight->begin(), in_flight->end(), 1) != in_flight->end();
  if ((!L.route_latency && !flight) || n < 2) return {};
  const int T = s.activities[first].repeat;
  auto route_of = [&](int a, int b, bool nv) {
    return L.route_latency ? L.route_latency(a, b) : nv ? L.nvlink_latency : L.net_latency;
  };
  // Excess latency per position (positions of all orders alike: they are images of each other or
  // checked one by one), and the per-step cost in series at the ranks that keep it. Where
  // materialize() put the ring's hops in flight, the cheapest step is the pace kept in series and
  // a position is slow by its step over it.
  std::vector<char> slow(total, 0);
  std::vector<double> step(total, 0), over(total, 0);
  double pace = 1e300;
  for (int x = 0; x < total; ++x) {
    const network::Activity& a = s.activities[first + x];
    const bool nv = ctx.nvlink(a.gpu, a.dst_gpu);
    const double route = route_of(a.gpu, a.dst_gpu, nv);
    over[x] = route - (nv ? L.nvlink_latency : L.net_latency);
    // at materialize's line rate (the NIC bounded by its PCIe attachment where the fabric models it)
    step[x] = a.delay + route + a.amount / (nv ? L.nvlink_rate : nic_port_rate(L));
    if (flight && (*in_flight)[x] && over[x] <= 1e-12) pace = std::min(pace, step[x]);
  }
  double excess = 0, serial = 0;
  int slow_hops = 0;
  bool slow_nv = false, slow_net = false, serial_nv = false, serial_net = false;
  for (int x = 0; x < total; ++x) {
    const network::Activity& a = s.activities[first + x];
    const bool nv = ctx.nvlink(a.gpu, a.dst_gpu);
    const bool fl = flight && (*in_flight)[x] && step[x] > pace * (1 + 1e-9);
    if (over[x] > 1e-12 || fl) {
      slow[x] = 1;
      ++slow_hops;
      excess = std::max(excess, fl ? step[x] - pace : over[x]);
      (nv ? slow_nv : slow_net) = true;
    } else {
      serial = std::max(serial, step[x]);
      (nv ? serial_nv : serial_net) = true;
    }
  }
  // Nothing slower than nominal; or a class of hops all slow by their route (no rank left to
  // carry its per-step cost in series; not so when materialize() put the hops in flight, the
  // cheapest carrying the pace): as emitted, every step in series.
  if (excess <= 0 || serial <= 0 || (!flight && ((slow_nv && !serial_nv) || (slow_net && !serial_net)))) return {};
  // Lanes: enough that a slow hop's step is never held by its own earlier steps once the ring
  // runs at its serial pace (D - 1 steps of at least `serial` cover the excess), no more than
  // NCCL's FIFO holds (the FIFO then paces that hop, as it does NCCL's), at least 2 repetitions.
  const double step_bytes = ctx.c.bytes / n / std::max(1, nccl_channels);
  int D = serial > 0 ? 1 + static_cast<int>(std::ceil(excess / serial)) : kNcclSteps;
  D = std::min({D, fifo_steps(proto, step_bytes), T / 2});
  if (D < 2) return {};
  const int R = T / D, Q = T - R * D, K = D + Q;
  // New block: order r, position i, slot j < D lane j (steps j, j + D, ...), slot D + m the
  // single step R D + m.
  std::vector<network::Activity> old(s.activities.begin() + first, s.activities.end());
  s.activities.resize(first);
  s.activities.reserve(first + static_cast<std::size_t>(rings) * n * K);
  auto id = [&](int r, int i, int j) { return first + (r * n + (i + n) % n) * K + j; };
  done->clear();
  for (int r = 0; r < rings; ++r)
    for (int i = 0; i < n; ++i) {
      const network::Activity& o = old[r * n + i];
      const bool sl = slow[r * n + i];
      const int p = i - 1;  // previous position: step k + 1 here takes its step k
      for (int j = 0; j < D; ++j) {
        network::Activity a = o;
        a.repeat = R;
        a.after_previous.clear();
        a.after_same.clear();
        if (j > 0) {
          a.after_same.push_back(id(r, p, j - 1));
          if (!sl) a.after_same.push_back(id(r, i, j - 1));
        } else {
          a.after_previous.push_back(id(r, p, D - 1));
          if (!sl) a.after_previous.push_back(id(r, i, D - 1));
        }
        s.activities.push_back(std::move(a));
        if (sl || (Q == 0 && j == D - 1)) done->push_back(id(r, i, j));
      }
      for (int m = 0; m < Q; ++m) {  // steps R D + m: after whole lanes (their last repetition)
        network::Activity a = o;
        a.repeat = 1;
        a.after_previous.clear();
        a.after_same.clear();
        a.after.push_back(m > 0 ? id(r, p, D + m - 1) : id(r, p, D - 1));
        if (!sl)
          a.after.push_back(m > 0 ? id(r, i, D + m - 1) : id(r, i, D - 1));
        else
          a.after.push_back(id(r, i, m));  // step R D + m - D: lane m's last
        s.activities.push_back(std::move(a));
        if (sl || m == Q - 1) done->push_back(id(r, i, D + m));
      }
    }
  return {D, slow_hops};
}

}  // namespace aidcsim::collectives::detail
