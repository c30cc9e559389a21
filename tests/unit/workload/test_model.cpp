#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "models/common/errors.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"
#include "models/workload/placement.hpp"
#include "test_gpu.hpp"

using namespace aidcsim::workload;

namespace {
ModelDims gpt(int l, int h, int a) {
  ModelDims m;
  m.layers = l;
  m.hidden = h;
  m.ffn_hidden = 4 * h;
  m.heads = a;
  m.kv_heads = a;
  m.vocab = 51200;
  m.sequence_length = 2048;
  return m;
}
}  // namespace

TEST_CASE("parameter count is Megatron eq. 2 for GPT models") {
  for (auto m : {gpt(24, 2304, 24), gpt(96, 12288, 96), gpt(128, 25600, 160)}) {
    const double l = m.layers, h = m.hidden, V = m.vocab, s = m.sequence_length;
    CHECK(parameters(m) == Approx(12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h))));
  }
  // Table 1 rows: 1.7B, 175B-class (145.6B row is 80 layers x 12288), 1T
  CHECK(parameters(gpt(80, 12288, 96)) / 1e9 == Approx(145.6).epsilon(0.01));
  CHECK(parameters(gpt(128, 25600, 160)) / 1e9 == Approx(1008.0).epsilon(0.01));
}

TEST_CASE("Llama-3-405B-like model has ~405B parameters (GQA, SwiGLU, untied output)") {
  ModelDims m;
  m.layers = 126;
  m.hidden = 16384;
  m.ffn_hidden = 53248;
  m.heads = 128;
  m.kv_heads = 8;
  m.vocab = 128256;
  m.sequence_length = 8192;
  m.style = "llama";
  CHECK(parameters(m) / 1e9 == Approx(405.8).epsilon(0.01));
}

TEST_CASE("FLOPs per step: Megatron eq. 3 with recompute, 72 instead of 96 without") {
  const auto m = gpt(96, 16384, 128);
  const double B = 2160, s = 2048, l = 96, h = 16384, V = 51200;
  const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  CHECK(hardware_flops(m, B * s, true) == Approx(eq3));
  const double eq3_72 = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  CHECK(model_flops(m, B * s) == Approx(eq3_72));
  CHECK(hardware_flops(m, B * s, false) == Approx(model_flops(m, B * s)));
  // ~6ND for large h
  CHECK(model_flops(m, B * s) / (6 * parameters(m) * B * s) == Approx(1.0).epsilon(0.1));
}

TEST_CASE("MoE: parameters grow with experts, FLOPs with top_k") {
  auto m = gpt(32, 4096, 32);
  const double dense_p = parameters(m), dense_f = layer_forward_flops_per_token(m);
  m.experts = 8;
  m.top_k = 2;
  CHECK(parameters(m) > 7 * dense_p * 0.6);
  CHECK(active_parameters(m) < parameters(m));
  CHECK(layer_forward_flops_per_token(m) > 1.5 * dense_f);
}

TEST_CASE("pipeline order: every (microbatch, chunk) once forward and once backward, forward first") {
  for (int pp : {1, 2, 4, 9}) {
    for (int v : {1, 2, 7}) {
      if (v > 1 && pp == 1) continue;
      for (int m : {pp, 2 * pp, 4 * pp}) {
        CHECK(pipeline_feasible(pp, m, v));
        for (int s = 0; s < pp; ++s) {
          auto ops = pipeline_order(s, pp, m, v);
          REQUIRE(ops.size() == static_cast<std::size_t>(2 * m * v));
          std::set<std::pair<int, int>> f, b;
          for (const auto& o : ops) {
            auto key = std::make_pair(o.microbatch, o.chunk);
            if (o.forward) {
              CHECK(f.insert(key).second);
            } else {
              CHECK(f.count(key) == 1);
              CHECK(b.insert(key).second);
            }
          }
        }
      }
    }
  }
  CHECK(ideal_bubble_fraction(8, 64, 2) == Approx(7.0 / 128));
  // interleaved order, full groups: Megatron's chunk / microbatch sequence
  auto ops = pipeline_order(0, 2, 4, 2);
  CHECK(ops[0].chunk == 0);
  CHECK(ops[2].chunk == 1);
  CHECK(ops[2].microbatch == 0);
}

TEST_CASE("interleaving follows Megatron-core's rules (schedules.py, NVIDIA/Megatron-LM 00611e6)") {
  // case step/17: m = 6 with pp = 4, v = 2: 6 mod 4 = 2 < pp is refused with the default group N = pp
  CHECK_FALSE(interleaving_error(4, 2, 0, 6).empty());
  CHECK_THROWS_AS(pipeline_order(0, 4, 6, 2), aidcsim::Error);
  CHECK(interleaving_error(4, 2, 0, 8).empty());
  CHECK(interleaving_error(4, 1, 0, 6).empty());        // plain 1F1B takes any m
  CHECK(interleaving_error(4, 2, 6, 6).empty());        // one group of 6 >= pp
  CHECK_FALSE(interleaving_error(4, 2, 3, 6).empty());  // N < pp
  CHECK_FALSE(interleaving_error(4, 2, 7, 6).empty());  // N > m
  CHECK(interleaving_error(4, 2, 6, 10).empty());       // last group of 4 = pp
  CHECK_FALSE(interleaving_error(1, 2, 0, 4).empty());  // interleaving needs pp >= 2
  // fewer microbatches than pp: said so, not "N between pp (9) and the microbatches (4)", an empty range
  CHECK(interleaving_error(9, 2, 0, 4) ==
        "at least pp (9) microbatches per DP replica (the interleaved schedule's "
        "group size N runs from pp to them), got 4");
  CHECK(valid_microbatches(4, 2, 0, 6) == 8);
  CHECK(valid_microbatches(9, 7, 0, 16) == 18);
  CHECK(valid_microbatches(4, 2, 3, 6) == 0);  // N < pp: no count runs (the search ends)
  CHECK_THROWS_AS(nearest_valid_microbatches(4, 2, 3, 6), aidcsim::Error);
  // Megatron's schedule table for PP2 N3 M5 VP2 (schedules.py comment): microbatches 0 1 2 0 1 2 3 4 3 4,
  // chunks 0 0 0 1 1 1 0 0 1 1; stage 1 warms up with (v-1) N = 3 forwards
  const auto ops = pipeline_order(1, 2, 5, 2, 3);
  const int mb[] = {0, 1, 2, 0}, ch[] = {0, 0, 0, 1};
  for (int k = 0; k < 4; ++k) {
    CHECK(ops[k].forward);
    CHECK(ops[k].microbatch == mb[k]);
    CHECK(ops[k].chunk == ch[k]);
  }
  CHECK_FALSE(ops[4].forward);  // after the 3 warm-up forwards: 1F1B (forward 0/1, then backward)
  CHECK(pipeline_feasible(2, 5, 2, 3));
  CHECK(pipeline_feasible(4, 6, 2, 6));
  CHECK(pipeline_feasible(4, 10, 2, 6));
}

TEST_CASE("flexible interleaving: Llama 3's tunable N as PyTorch ScheduleFlexibleInterleaved1F1B runs it") {
  // arXiv:2407.21783 §3.3.2, Fig. 6: pp 4, v 2, m 10 microbatches run in groups of N = 5 (PyTorch's
  // docstring example 1: rounds = max(1, 10 / 4) = 2, N = 10 / 2); Megatron's default N = pp refuses m = 10
  CHECK(microbatch_group(4, 2, 0, 10, true) == 5);
  CHECK(interleaving_error(4, 2, 0, 10, true).empty());
  CHECK_FALSE(interleaving_error(4, 2, 0, 10).empty());
  CHECK(microbatch_group(4, 2, 0, 3, true) == 3);  // example 2: fewer microbatches than stages, N = m < pp
  CHECK(interleaving_error(4, 2, 0, 3, true).empty());
  CHECK_FALSE(interleaving_error(4, 2, 0, 3).empty());
  CHECK_FALSE(interleaving_error(4, 2, 0, 9, true).empty());  // rounds = 2 does not divide 9
  CHECK(valid_microbatches(4, 2, 0, 9, true) == 10);
  CHECK(nearest_valid_microbatches(4, 2, 0, 9, true) == 10);  // 8 and 10 tie: the larger
  CHECK(valid_microbatches(4, 2, 2, 1, true) == 2);           // an explicit N = 2 < pp runs m = 2 only
  CHECK(valid_microbatches(4, 2, 2, 3, true) == 0);
  CHECK(nearest_valid_microbatches(4, 2, 2, 5, true) == 2);
  // Llama 3 405B (Table 4): m = 32 and 16 with pp 16 give N = pp, Megatron's default group
  CHECK(microbatch_group(16, 8, 0, 32, true) == 16);
  CHECK(microbatch_group(16, 8, 0, 16, true) == 16);
  for (int s = 0; s < 16; ++s) {
    const auto a = pipeline_order(s, 16, 32, 8, 0, true), b = pipeline_order(s, 16, 32, 8);
    REQUIRE(a.size() == b.size());
    for (std::size_t k = 0; k < a.size(); ++k)
      CHECK((a[k].forward == b[k].forward && a[k].microbatch == b[k].microbatch && a[k].chunk == b[k].chunk));
  }
  // an explicit N: a divisor of m, >= pp or all m microbatches; several groups of N < pp deadlock
  CHECK(interleaving_error(4, 2, 4, 8, true).empty());
  CHECK(interleaving_error(4, 2, 2, 2, true).empty());
  CHECK_FALSE(interleaving_error(4, 2, 2, 8, true).empty());
  CHECK_FALSE(pipeline_feasible(4, 8, 2, 2));  // (Megatron's rules refuse it too; the order with N = 2 deadlocks)
  CHECK_FALSE(interleaving_error(4, 2, 6, 8, true).empty());  // 8 mod 6 != 0
  CHECK_FALSE(interleaving_error(4, 2, 9, 8, true).empty());  // N > m
  // PyTorch's order: forward k runs chunk (k / N) mod v; warm-up (v - 1) N + 2 (pp - 1 - r), capped at m v;
  // every accepted case runs without deadlock
  for (int pp : {2, 4, 5})
    for (int v : {2, 3})
      for (int m = 1; m <= 3 * pp; ++m)
        for (int group : {0, 1, 2, 4, 5}) {
          if (!interleaving_error(pp, v, group, m, true).empty()) continue;
          INFO("pp " << pp << " v " << v << " m " << m << " group " << group);
          const int n = microbatch_group(pp, v, group, m, true);
          CHECK(pipeline_feasible(pp, m, v, group, true));
          for (int r = 0; r < pp; ++r) {
            const auto ops = pipeline_order(r, pp, m, v, group, true);
            int warmup = 0, k = 0;
            while (warmup < static_cast<int>(ops.size()) && ops[warmup].forward) ++warmup;
            const int expect = std::min((v - 1) * n + 2 * (pp - 1 - r), m * v);
            CHECK(warmup == (expect < m * v ? expect + 1 : expect));  // + the steady state's first forward
            for (const auto& o : ops)
              if (o.forward) CHECK(o.chunk == (k++ / n) % v);
          }
        }
}

TEST_CASE("layers per virtual stage: even split, remainder first, first/last stage override") {
  CHECK(virtual_stage_layers(126, 9, 7) == std::vector<int>(63, 2));
  auto l = virtual_stage_layers(10, 4, 1);
  CHECK(l == std::vector<int>{3, 3, 2, 2});
  // 126 layers over 16 stages with lighter ends (Llama-3-405B-style balancing): 6 + 14 x 8 + 8
  l = virtual_stage_layers(126, 16, 1, 6, 8);
  CHECK(l.front() == 6);
  CHECK(l.back() == 8);
  CHECK(l[1] == 8);
  int sum = 0;
  for (int x : l) sum += x;
  CHECK(sum == 126);
  // interleaved: a stage's layers over its chunks, virtual stage j = chunk x pp + stage
  l = virtual_stage_layers(16, 2, 2, 6, 0);
  CHECK(l == std::vector<int>{3, 5, 3, 5});
  CHECK_THROWS_AS(virtual_stage_layers(16, 4, 2, 12, 0), aidcsim::InvalidParameter);
  // Llama 3 405B (§3.3.2): one layer fewer on the first and last stage, so the first chunk of the
  // first stage holds only the embedding and the last chunk of the last stage only the output + loss
  l = virtual_stage_layers(126, 16, 8, 7, 7);
  CHECK(l.front() == 0);
  CHECK(l.back() == 0);
  CHECK(std::count(l.begin(), l.end(), 1) == 126);
  CHECK_THROWS_AS(virtual_stage_layers(16, 1, 1, 4, 0), aidcsim::InvalidParameter);
}

TEST_CASE("placement: default rank order tp,cp,dp,pp (Megatron Core's, DeepSpeed's) and groups") {
  // TP 8, PP 4, DP 4 on 128 GPUs: Megatron Core's initialize_model_parallel (order tp-cp-ep-dp-pp)
  // puts stage 0's DP group for TP rank 0 at ranks 0, 8, 16, 24 (range(start + j, end, tp) in the
  // stage's block of tp x dp = 32 ranks); its pipeline at 0, 32, 64, 96.
  Parallelism p;
  p.tp = 8;
  p.pp = 4;
  p.dp = 4;
  Placement pl(p);
  CHECK(pl.dp_group({0, 0, 0, 0}) == std::vector<int>{0, 8, 16, 24});
  CHECK(pl.dp_group({1, 0, 2, 0}) == std::vector<int>{65, 73, 81, 89});
  CHECK(pl.gpu({3, 0, 2, 1}) == 3 + 8 * (1 + 4 * 2));
  for (int s = 0; s < 4; ++s) CHECK(pl.gpu({0, 0, s, 0}) == 32 * s);
  const auto c = pl.coord(77);
  CHECK(pl.gpu(c) == 77);
  CHECK(pl.tp_group({0, 0, 0, 1}) == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
}

TEST_CASE("placement: rank order tp,cp,pp,dp (Megatron-LM --use-tp-pp-dp-mapping, Llama 3) and groups") {
  Parallelism p;
  p.tp = 8;
  p.pp = 4;
  p.dp = 4;
  p.order = "tp,cp,pp,dp";
  Placement pl(p);
  CHECK(pl.gpu({3, 0, 2, 1}) == 3 + 8 * (2 + 4 * 1));
  const auto c = pl.coord(77);
  CHECK(pl.gpu(c) == 77);
  CHECK(pl.tp_group({0, 0, 1, 0}) == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(pl.dp_group({1, 0, 0, 0}) == std::vector<int>{1, 33, 65, 97});
}

TEST_CASE("layer time: flash attention costed on the causal half, fused softmax on the full scores") {
  // FlashAttention-2 (Dao 2023) §4 / its benchmark's flops(): causal = half of 4 b s^2 h, backward
  // 2.5 x forward; the catalogue rate counts forward + backward as 3 x the causal half. Model FLOPs
  // keep counting attention full (Megatron eq. 3, PaLM MFU).
  JobSpec j;
  j.model = gpt(32, 4096, 32);
  j.model.sequence_length = 8192;
  j.par.tp = 8;
  j.microbatch_size = 2;
  const auto gpu = aidcsim::workload::testing::h100_like();
  const aidcsim::compute::Efficiency e;
  j.attention = "flash";
  const LayerTime flash = layer_time(j, gpu, e);
  const double full = 4.0 * 2 * 8192.0 * 8192 * 4096 / 8;
  CHECK(flash.attention + flash.attention_backward == Approx(3 * full / 2 / 447e12));
  CHECK(flash.attention_backward == Approx(2.5 * flash.attention));
  CHECK(flash.backward() - flash.attention_backward == Approx(2 * (flash.gemm + flash.memory)));
  CHECK(layer_time(j, gpu, e, 0.5).attention == Approx(2 * flash.attention));
  // CP 2: each rank holds half the queries, against all keys, half of them masked
  j.par.cp = 2;
  CHECK(layer_time(j, gpu, e).attention == Approx(flash.attention / 2));
  j.par.cp = 1;
  j.attention = "fused_softmax";
  const LayerTime fused = layer_time(j, gpu, e);
  CHECK(fused.attention_backward == Approx(2 * fused.attention));
  CHECK(fused.attention > flash.attention);  // full scores through HBM
  // the model-FLOP convention is unchanged: 4 s h per token per layer
  CHECK(layer_forward_flops_per_token(j.model) - 2 * layer_parameters(j.model) ==
        Approx(4.0 * 8192 * 4096).epsilon(0.01));
}

TEST_CASE("tp_comm_overlap_time: TE userbuffers pipelining of TP collectives with their GEMMs, closed form",
          "[tp_comm_overlap]") {
  LayerTime lt;
  lt.qkv = 1;  // GEMM seconds (any unit): QKV and projection shorter than a collective chunk, MLP longer
  lt.proj = 1;
  lt.fc1 = 4;
  lt.fc2 = 4;
  auto gpu = testing::h100_like();
  gpu.sms = 132;
  const double C = 2;  // one all-gather or reduce-scatter
  const auto t = tp_comm_overlap_time(lt, C, 8, gpu);
  const double slow = 132.0 / 116;
  // ring exchange, 8 chunks: 7 x max(0, 2/7 - G/8) -> QKV 1.125, fc1 0
  const double ring_qkv = 7 * (2.0 / 7 - 1.0 / 8);
  // pipeline, 4 splits on 116 of 132 SMs: g + 3 max(g, c) + c - G
  const double pipe_proj = slow / 4 + 3 * 0.5 + 0.5 - 1;
  const double pipe_fc2 = slow + 3 * slow + 0.5 - 4;
  CHECK(t.forward == Approx(ring_qkv + pipe_proj + 0.0 + pipe_fc2));
  CHECK(t.forward == Approx(3.4612069).epsilon(1e-6));
  // backward: fc2 dgrad ring (0), fc1 bulk x2 (max(2, 4 slow) - 4), proj dgrad ring, QKV bulk x2 (max(2, slow) - 1)
  CHECK(t.backward == Approx(0.0 + 2 * (4 * slow - 4) + ring_qkv + 2 * (2.0 - 1)));
  CHECK(t.forward < 4 * C);  // hides part of the 4 collectives of the forward
  CHECK(t.backward < 4 * C);
  // SMs not given: no GEMM slowdown
  gpu.sms = 0;
  const auto u = tp_comm_overlap_time(lt, C, 8, gpu);
  CHECK(u.forward == Approx(ring_qkv + (0.25 + 1.5 + 0.5 - 1) + (1 + 3 + 0.5 - 4)));
  // collectives much shorter than the GEMMs: only the last reduce-scatter split of each pipeline
  const auto v = tp_comm_overlap_time(lt, 0.01, 8, gpu);
  CHECK(v.forward == Approx(2 * 0.01 / 4));
}
