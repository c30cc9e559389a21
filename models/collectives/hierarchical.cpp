// Hierarchical all-reduce of stacks outside NCCL (e.g. Horovod's hierarchical allreduce, and the
// 2D schemes of Mikami et al. 2018 / Jia et al. 2018): ring reduce-scatter inside each NVLink
// domain, ring all-reduce of 1/g of the data across domains per rail, ring all-gather inside each
// domain, as sequential phases. On one domain or unequal domains it is a ring.
#include "models/collectives/estimate.hpp"
#include "models/collectives/flow_plan.hpp"

namespace aidcsim::collectives::detail {

Selection estimate_hierarchical(const EstimateContext& x) {
  const Collective& c = x.c;
  const auto& doms = x.doms;
  const bool one = doms.size() == 1;
  const int g = static_cast<int>(doms[0].size());
  bool equal = true;
  for (auto& d : doms) equal = equal && static_cast<int>(d.size()) == g;
  Collective ring = c;
  ring.algorithm = Algorithm::Ring;
  if (one || !equal || g == 1) {
    Selection r = nccl_selection(ring, x.l, x.p, x.sys, Algorithm::Ring);
    r.algorithm = Algorithm::Hierarchical;
    return r;
  }
  Collective intra = ring, across = ring;
  intra.gpus = doms[0];
  intra.op = Op::ReduceScatter;
  across.gpus.clear();
  for (auto& d : doms) across.gpus.push_back(d[0]);
  across.bytes = c.bytes / g;
  const Selection rs = select(intra, x.l, x.p);
  const Selection ar = select(across, x.l, x.p);
  Selection s;
  s.algorithm = Algorithm::Hierarchical;
  s.proto = Proto::Simple;
  s.latency = 2 * rs.latency + ar.latency;
  s.bw_time = 2 * rs.bw_time + ar.bw_time;
  s.nccl_time = 2 * rs.nccl_time + ar.nccl_time;
  s.channels = rs.channels;
  return s;
}

FlowPlan plan_hierarchical(const EmitContext& ctx, const std::vector<std::vector<int>>&) {
  return plan_ring(ctx, ctx.c.op);
}

bool emit_hierarchical(network::Schedule& s, const EmitContext& ctx, const std::vector<std::vector<int>>& doms,
                       std::vector<int>* done) {
  const int g = static_cast<int>(doms[0].size());
  bool equal = doms.size() > 1 && g > 1;
  for (auto& d : doms) equal = equal && static_cast<int>(d.size()) == g;
  if (!equal) return false;
  const Collective& c = ctx.c;
  auto sub = [&](Op op, const std::vector<int>& gpus, double bytes, std::vector<int> after, int salt) {
    Collective x = c;
    x.op = op;
    x.algorithm = Algorithm::Ring;
    x.gpus = gpus;
    x.bytes = bytes;
    x.after = std::move(after);
    x.hash = c.hash * 31 + salt;
    return emit(s, x, ctx.layout, ctx.protocol).done;
  };
  // A phase waits for the whole previous one through one zero-length Delay (a barrier: it ends
  // when the last of them does, so the times are the same): with every first transfer listing
  // all of the previous phase's activities, 32K GPUs made 2 x 32,768^2 dependencies (8.8 GB, then
  // an overflow of the engine's successor count).
  auto barrier = [&](std::vector<int> after) {
    network::Activity b;
    b.kind = network::Activity::Kind::Delay;
    b.amount = 0;
    b.after = std::move(after);
    b.tag = c.tag;
    s.activities.push_back(std::move(b));
    return std::vector<int>{static_cast<int>(s.activities.size()) - 1};
  };
  std::vector<int> p1, p2, out;
  int salt = 0;
  for (auto& d : doms) {
    auto r = sub(Op::ReduceScatter, d, c.bytes, c.after, ++salt);
    p1.insert(p1.end(), r.begin(), r.end());
  }
  const std::vector<int> b1 = barrier(std::move(p1));
  for (int j = 0; j < g; ++j) {
    std::vector<int> rail;
    for (auto& d : doms) rail.push_back(d[j]);
    auto r = sub(Op::AllReduce, rail, c.bytes / g, b1, ++salt);
    p2.insert(p2.end(), r.begin(), r.end());
  }
  const std::vector<int> b2 = barrier(std::move(p2));
  for (auto& d : doms) {
    auto r = sub(Op::AllGather, d, c.bytes, b2, ++salt);
    out.insert(out.end(), r.begin(), r.end());
  }
  *done = std::move(out);
  return true;
}

}  // namespace aidcsim::collectives::detail
