// Published large runs beyond Megatron-LM Table 1 (issue 11): step time predicted by plan_step +
// FlowNetwork on the fabric each run was published with, with the one set of compute and NCCL
// constants of docs/validation-megatron.md. Figures, sources and results: docs/validation-large-runs.md.
#include <catch2/catch.hpp>

#include <cstdio>

#include "models/network/flow_network.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/step.hpp"
#include "sim/scenario/gpu_catalogue.hpp"

using namespace aidcsim;

namespace {

struct Predicted {
  double step_time = 0, model_tflops = 0;
  workload::StepBreakdown b;
};

Predicted predict(const workload::JobSpec& job, const topology::FabricSpec& fs) {
  const auto fabric = topology::build_fabric(fs);
  network::FlowNetwork net(fabric);
  const auto& h100 = builtin_gpus().find("H100");
  const auto plan = workload::plan_step(job, h100, fabric, {});
  Predicted p;
  p.b = workload::analyse_step(plan, net.run(plan.schedule));
  p.step_time = p.b.step_time;
  p.model_tflops = plan.model_flops_per_step / p.step_time / plan.gpus / 1e12;
  return p;
}

// ---------------------------------------------------------------------------------------------
// Nemotron-4 15B (Parmar et al. 2024, arXiv:2402.16819), Table 2 "Batch size rampup schedule, along
// with time and efficiency metrics for the Nemotron-4 15B parameter model" [read in a transcription].
struct NemotronRow {
  int dp, gpus;
  double iteration_s, mfu;
  int batch;
};
const NemotronRow kNemotron15b[] = {{96, 768, 0.57, 0.343, 384}, {192, 1536, 0.58, 0.333, 768}, {288, 2304, 0.64, 0.305, 1152}};

/// Table 1 of the same paper: 32 layers, hidden 6144, 48 heads, 8 KV heads, sequence 4096, vocabulary
/// 256,000; squared-ReLU MLP (2 matrices, FFN 4h = 24,576 [inferred: 12.5B non-embedding parameters]),
/// no biases, untied embeddings. §2 "Pre-training": TP 8 + DP, distributed optimizer (ZeRO-1).
/// style gpt for the 2-matrix MLP (it also ties the output layer, which Nemotron does not: 0.2B fewer
/// parameters per GPU in the DP collectives). Not in the paper, assumed: microbatch 1, sequence
/// parallelism on, fp32 gradient reduction (Megatron's default for BF16).
workload::JobSpec nemotron15b_job(const NemotronRow& r) {
  workload::JobSpec j;
  j.model.layers = 32;
  j.model.hidden = 6144;
  j.model.ffn_hidden = 4 * 6144;
  j.model.heads = 48;
  j.model.kv_heads = 8;
  j.model.vocab = 256000;
  j.model.sequence_length = 4096;
  j.model.style = "gpt";
  j.par.tp = 8;
  j.par.dp = r.dp;
  j.par.zero = "zero1";
  j.global_batch = r.batch;
  return j;
}

/// 384 DGX H100 nodes, 8 x 400 Gb/s InfiniBand HCAs per node (§2), rail-optimized NDR fat tree of
/// 64-port switches (DGX SuperPOD H100 RA, published-figures.md §4.4).
topology::FabricSpec dgx_h100_superpod(int gpus) {
  topology::FabricSpec fs;
  fs.gpus = gpus;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  fit_fabric_to_gpu(fs, builtin_gpus().find("H100"));
  fs.kind = topology::FabricKind::Clos3;
  fs.switch_radix = 64;
  fs.link_rate = 50e9;
  fs.nic_rate = 50e9;
  return fs;
}

// ---------------------------------------------------------------------------------------------
// Llama 3 405B (Llama Team 2024, arXiv:2407.21783), Table 4 "Scaling configurations and MFU for each
// stage of Llama 3 405B pre-training" [read in transcriptions]. The third row (CP 16, 131,072 tokens)
// is not predicted: CP traffic is analytic in the step model (docs/validation-large-runs.md, Limits).
struct LlamaRow {
  int gpus, tp, cp, pp, dp, seq, batch_per_dp;
  double tflops;
};
const LlamaRow kLlama3[] = {{8192, 8, 1, 16, 64, 8192, 32, 430}, {16384, 8, 1, 16, 128, 8192, 16, 400}};

/// Llama 3 405B (Table 3 of the paper): 126 layers, hidden 16,384, FFN 53,248 (SwiGLU), 128 heads, 8 KV
/// heads, vocabulary 128,256; BF16, no activation checkpointing at 8K (§3.3.2). Interleaved schedule
/// with one layer fewer on the first and last stage (§3.3.2), read as v = 8 chunks of one layer
/// (as in tests/unit/workload/test_memory.cpp). Not in the paper, assumed: microbatch 1, sequence
/// parallelism on (Megatron-style TP), DP gradients reduced in fp32.
workload::JobSpec llama3_job(const LlamaRow& r) {
  workload::JobSpec j;
  j.model.layers = 126;
  j.model.hidden = 16384;
  j.model.ffn_hidden = 53248;
  j.model.heads = 128;
  j.model.kv_heads = 8;
  j.model.vocab = 128256;
  j.model.sequence_length = r.seq;
  j.model.style = "llama";
  j.par.tp = r.tp;
  j.par.cp = r.cp;
  j.par.pp = r.pp;
  j.par.dp = r.dp;
  j.par.virtual_stages = 8;
  j.par.first_stage_layers = 7;
  j.par.last_stage_layers = 7;
  // DP as one gradient reduce-scatter + one parameter all-gather per step (ZeRO-1 traffic). Meta's
  // FSDP (§3.3.2: optimizer states and gradients sharded, parameters not resharded after forward)
  // moves them per microbatch; simulated that way a row takes > 10 min here (see the doc's limits).
  j.par.zero = "zero1";
  j.global_batch = r.dp * r.batch_per_dp;
  return j;
}

/// Meta's 24K RoCE cluster (§3.3.1): 8 H100 per server (NVLink), 400 Gb/s per GPU, 16 GPUs per ToR,
/// pods at full bisection, 1:7 at the aggregation layer, 16 flows between two GPUs spread by E-ECMP.
/// Radix 224 gives pods of 196 ToRs = 3,136 GPUs (Meta: 192 racks = 3,072).
topology::FabricSpec meta_roce(int gpus) {
  topology::FabricSpec fs;
  fs.gpus = gpus;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  fit_fabric_to_gpu(fs, builtin_gpus().find("H100"));
  fs.kind = topology::FabricKind::Clos3;
  fs.wiring = topology::Wiring::RackLocal;
  fs.switch_radix = 224;
  fs.gpus_per_leaf = 16;
  fs.oversub_spine = 7;
  fs.link_rate = 50e9;
  fs.nic_rate = 50e9;
  fs.flows_per_pair = 16;
  return fs;
}

double error(double predicted, double published) { return predicted / published - 1; }

}  // namespace

TEST_CASE("Nemotron-4 15B Table 2: iteration time per row (H100, TP 8, DP 96-288)", "[validation][large_runs][nemotron]") {
  // Row 3 (2,304 GPUs) within 10 %; rows 1-2 are known misses (+15-17 %, docs/validation-large-runs.md
  // "Why rows miss"): the bounds below hold them where the model is today so a change shows.
  const double lo[] = {0.10, 0.10, -0.10}, hi[] = {0.20, 0.20, 0.10};
  int i = 0;
  for (const auto& r : kNemotron15b) {
    const auto p = predict(nemotron15b_job(r), dgx_h100_superpod(r.gpus));
    std::printf("[nemotron15b] %d GPUs: predicted %.3f s (published %.2f, %+.1f %%), MFU %.3f (published %.3f);"
                " compute %.3f TP %.3f DP %.3f bubble %.3f s\n",
                r.gpus, p.step_time, r.iteration_s, 100 * error(p.step_time, r.iteration_s), p.model_tflops / 989,
                r.mfu, p.b.compute, p.b.exposed_tp, p.b.exposed_dp, p.b.bubble);
    INFO(r.gpus << " GPUs: predicted " << p.step_time << " s, published " << r.iteration_s << " s");
    CHECK(error(p.step_time, r.iteration_s) >= lo[i]);
    CHECK(error(p.step_time, r.iteration_s) <= hi[i]);
    ++i;
  }
}

TEST_CASE("Llama 3 405B Table 4: TFLOP/s per GPU within 10 % at 8K and 16K H100, and the drop between them",
          "[.][validation][large_runs][llama3]") {
  double tflops[2];
  int i = 0;
  for (const auto& r : kLlama3) {
    const auto p = predict(llama3_job(r), meta_roce(r.gpus));
    std::printf("[llama3] %d GPUs: step %.2f s, %.0f TFLOP/s per GPU (published %.0f, %+.1f %%);"
                " compute %.2f TP %.2f PP %.2f DP %.2f bubble %.2f s\n",
                r.gpus, p.step_time, p.model_tflops, r.tflops, 100 * error(p.model_tflops, r.tflops), p.b.compute,
                p.b.exposed_tp, p.b.exposed_pp, p.b.exposed_dp, p.b.bubble);
    INFO(r.gpus << " GPUs: predicted " << p.model_tflops << " TFLOP/s, published " << r.tflops);
    CHECK(p.model_tflops == Approx(r.tflops).epsilon(0.10));
    tflops[i++] = p.model_tflops;
  }
  // The slope: 8K -> 16K GPUs at a constant 16M tokens per step, 430 -> 400 TFLOP/s (-30).
  const double published = kLlama3[1].tflops - kLlama3[0].tflops, predicted = tflops[1] - tflops[0];
  std::printf("[llama3] 8K -> 16K: predicted %+.1f TFLOP/s per GPU, published %+.0f\n", predicted, published);
  CHECK(predicted == Approx(published).epsilon(0.30));
}
