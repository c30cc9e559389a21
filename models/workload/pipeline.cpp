#include "models/workload/pipeline.hpp"

#include <algorithm>
#include <string>

#include "models/common/errors.hpp"

namespace aidcsim::workload {

std::vector<PipelineOp> pipeline_order(int stage, int pp, int m, int v, int extra_warmup) {
  if (pp < 1 || m < 1 || v < 1 || stage < 0 || stage >= pp) throw Error("pipeline_order: bad sizes");
  const int total = m * v;
  // Forward and backward sequences: groups of pp microbatches through chunk 0..v-1 (backward:
  // v-1..0); with v == 1 this is plain 1F1B order.
  std::vector<PipelineOp> fwd, bwd;
  for (int g0 = 0; g0 < m; g0 += pp) {
    const int g1 = std::min(m, g0 + pp);
    for (int c = 0; c < v; ++c)
      for (int mb = g0; mb < g1; ++mb) {
        fwd.push_back({true, mb, c});
        bwd.push_back({false, mb, v - 1 - c});
      }
  }
  int warmup = v == 1 ? pp - stage - 1 : (pp - stage - 1) * 2 + (v - 1) * pp;
  warmup = std::min(warmup + extra_warmup, total);
  std::vector<PipelineOp> out;
  out.reserve(2 * total);
  for (int k = 0; k < warmup; ++k) out.push_back(fwd[k]);
  for (int i = 0; i < total - warmup; ++i) {
    out.push_back(fwd[warmup + i]);
    out.push_back(bwd[i]);
  }
  for (int k = total - warmup; k < total; ++k) out.push_back(bwd[k]);
  return out;
}

bool pipeline_feasible(int pp, int m, int v, int extra_warmup) {
  const int VS = pp * v;
  // node id: ((j * m + mb) * 2 + backward)
  auto id = [&](int j, int mb, bool b) { return (j * m + mb) * 2 + (b ? 1 : 0); };
  const int n = VS * m * 2;
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indeg(n, 0);
  auto edge = [&](int a, int b) {
    succ[a].push_back(b);
    ++indeg[b];
  };
  for (int s = 0; s < pp; ++s) {
    int prev = -1;
    for (const auto& o : pipeline_order(s, pp, m, v, extra_warmup)) {
      const int x = id(o.chunk * pp + s, o.microbatch, !o.forward);
      if (prev >= 0) edge(prev, x);
      prev = x;
    }
  }
  for (int j = 0; j < VS; ++j)
    for (int mb = 0; mb < m; ++mb) {
      if (j > 0) edge(id(j - 1, mb, false), id(j, mb, false));
      if (j < VS - 1) edge(id(j + 1, mb, true), id(j, mb, true));
      edge(id(j, mb, false), id(j, mb, true));
    }
  std::vector<int> ready;
  for (int i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push_back(i);
  int done = 0;
  while (!ready.empty()) {
    const int x = ready.back();
    ready.pop_back();
    ++done;
    for (int y : succ[x])
      if (--indeg[y] == 0) ready.push_back(y);
  }
  return done == n;
}

double ideal_bubble_fraction(int pp, int m, int v) { return double(pp - 1) / (double(v) * m); }

}  // namespace aidcsim::workload
