#include "models/workload/pipeline.hpp"

#include <algorithm>
#include <string>

#include "models/common/errors.hpp"

namespace aidcsim::workload {

int microbatch_group(int pp, int v, int group, int m, bool flexible) {
  if (v <= 1) return m;
  if (group > 0) return group;
  return flexible ? m / std::max(1, m / pp) : pp;
}

std::string interleaving_error(int pp, int v, int group, int m, bool flexible) {
  if (v <= 1) return "";
  const int n = microbatch_group(pp, v, group, m, flexible);
  const std::string N = std::to_string(n), P = std::to_string(pp), M = std::to_string(m);
  if (pp < 2) return "pipeline parallelism (pp >= 2) for the interleaved schedule";
  if (flexible) {
    // PyTorch ScheduleFlexibleInterleaved1F1B: whole rounds of N (m mod rounds = 0)
    if (group > m)
      return "a microbatch group size N of at most the microbatches per DP replica (" + M + "), got N = " + N;
    if (group == 0 && m % std::max(1, m / pp) != 0)
      return "microbatches per DP replica (" + M +
             ") a multiple of the flexible schedule's rounds max(1, m / pp) = " + std::to_string(std::max(1, m / pp)) +
             " (PyTorch ScheduleFlexibleInterleaved1F1B)";
    if (m % n != 0)
      return "microbatches per DP replica (" + M + ") a multiple of the microbatch group size N = " + N +
             " (the flexible schedule runs whole groups)";
    if (n < pp && n != m)
      return "a microbatch group size N of at least pp (" + P + ") or of all " + M +
             " microbatches: several groups of N < pp deadlock in this order (pipeline_feasible), got N = " + N;
    return "";
  }
  if (m < pp)  // no group size N fits between pp and m
    return "at least pp (" + P +
           ") microbatches per DP replica (the interleaved schedule's group size N runs from "
           "pp to them), got " +
           M;
  if (n < pp || n > m)
    return "a microbatch group size N between pp (" + P + ") and the microbatches per DP replica (" + M +
           "), got N = " + N;
  const int rest = m % n;
  if (rest > 0 && rest < pp)
    return "microbatches per DP replica (" + M + ") a multiple of the microbatch group size N = " + N +
           (group > 0 ? "" : " (= pp)") + ", or leaving a last group of at least pp (" + P +
           ") microbatches (Megatron-core refuses the dependency bubbles of a smaller one)";
  return "";
}

int valid_microbatches(int pp, int v, int group, int m, bool flexible) {
  // Every multiple of max(pp, N) is accepted when any count above m is (N >= pp, or the default N),
  // so the search ends within one such step; none is with an explicit N < pp (0).
  const int first = std::max(1, m), last = first + 2 * std::max(pp, std::max(group, 1));
  for (int k = first; k <= last; ++k)
    if (interleaving_error(pp, v, group, k, flexible).empty()) return k;
  return 0;
}

int nearest_valid_microbatches(int pp, int v, int group, int m, bool flexible) {
  const int up = valid_microbatches(pp, v, group, m, flexible);
  for (int k = std::max(1, m); k >= 1 && (up == 0 || m - k < up - m); --k)
    if (interleaving_error(pp, v, group, k, flexible).empty()) return k;
  if (up == 0)
    throw Error("interleaved pipeline schedule: no microbatch count near " + std::to_string(m) +
                " runs with microbatch group size " + std::to_string(group));
  return up;
}

namespace {

/// The order of pipeline_order with group size n, unchecked.
std::vector<PipelineOp> order_of(int stage, int pp, int m, int v, int n) {
  const int total = m * v;
  // Megatron-core's schedule table: groups of n microbatches through chunk 0..v-1 (backward:
  // v-1..0), the last group holding the rest; with v == 1 this is plain 1F1B order.
  std::vector<PipelineOp> fwd, bwd;
  for (int g0 = 0; g0 < m; g0 += n) {
    const int g1 = g0 + n >= m ? m : g0 + n;
    for (int c = 0; c < v; ++c)
      for (int mb = g0; mb < g1; ++mb) {
        fwd.push_back({true, mb, c});
        bwd.push_back({false, mb, v - 1 - c});
      }
    if (g1 == m) break;
  }
  int warmup = v == 1 ? pp - stage - 1 : (pp - stage - 1) * 2 + (v - 1) * n;
  warmup = std::min(warmup, total);
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

}  // namespace

std::vector<PipelineOp> pipeline_order(int stage, int pp, int m, int v, int group, bool flexible) {
  if (pp < 1 || m < 1 || v < 1 || stage < 0 || stage >= pp) throw Error("pipeline_order: bad sizes");
  const std::string why = interleaving_error(pp, v, group, m, flexible);
  if (!why.empty()) throw Error("interleaved pipeline schedule: expected " + why);
  return order_of(stage, pp, m, v, microbatch_group(pp, v, group, m, flexible));
}

bool pipeline_feasible(int pp, int m, int v, int group, bool flexible) {
  if (pp < 1 || m < 1 || v < 1) throw Error("pipeline_feasible: bad sizes");
  const int group_size = microbatch_group(pp, v, group, m, flexible);
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
    for (const auto& o : order_of(s, pp, m, v, group_size)) {
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

std::vector<int> virtual_stage_layers(int layers, int pp, int v, int first, int last) {
  const std::string key = "workload.parallelism.";
  if (pp == 1 && (first > 0 || last > 0))
    throw InvalidParameter(key + (first > 0 ? "first_stage_layers" : "last_stage_layers"),
                           std::to_string(first > 0 ? first : last), "unset with pp = 1 (one stage holds every layer)");
  std::vector<int> stage(pp, 0);
  int rest = layers, free_stages = pp;
  if (first > 0) {
    stage[0] = first;
    rest -= first;
    --free_stages;
  }
  if (last > 0) {
    stage[pp - 1] = last;
    rest -= last;
    --free_stages;
  }
  if (rest < 0 || (free_stages == 0 && rest != 0) || (free_stages > 0 && rest < free_stages * v)) {
    if (first == 0 && last == 0)
      throw InvalidParameter(key + "virtual_stages", std::to_string(v),
                             "at most the layers per pipeline stage (" + std::to_string(layers) + " layers over pp " +
                                 std::to_string(pp) + " stages)");
    throw InvalidParameter(key + (last > 0 ? "last_stage_layers" : "first_stage_layers"),
                           std::to_string(last > 0 ? last : first),
                           "first_stage_layers + last_stage_layers leaving at least virtual_stages layers for each "
                           "other stage (" +
                               std::to_string(layers) + " layers, pp " + std::to_string(pp) + ")");
  }
  int k = 0;
  for (int s = 0; s < pp; ++s)
    if (!((s == 0 && first > 0) || (s == pp - 1 && last > 0)))
      stage[s] = rest / free_stages + (k++ < rest % free_stages);
  std::vector<int> out(pp * v, 0);
  for (int s = 0; s < pp; ++s) {
    // A first / last stage set explicitly counts the embedding / the output layer + loss as one
    // more slot of its first / last chunk (Megatron-LM --account-for-embedding-in-pipeline-split,
    // --account-for-loss-in-pipeline-split), which may leave that chunk with the embedding or the
    // loss alone (Llama 3 §3.3.2).
    const bool emb = s == 0 && first > 0, loss = s == pp - 1 && last > 0;
    const int slots = stage[s] + emb + loss;
    if (slots < v)
      throw InvalidParameter(key + "virtual_stages", std::to_string(v),
                             "at most the layers of each pipeline stage (stage " + std::to_string(s) + " has " +
                                 std::to_string(stage[s]) + ")");
    for (int c = 0; c < v; ++c) out[c * pp + s] = slots / v + (c < slots % v);
    if (emb) --out[s];                  // chunk 0 of stage 0
    if (loss) --out[(v - 1) * pp + s];  // chunk v-1 of the last stage
  }
  return out;
}

}  // namespace aidcsim::workload
