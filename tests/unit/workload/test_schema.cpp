#include <catch2/catch.hpp>

#include "models/common/errors.hpp"
#include "models/workload/memory.hpp"
#include "models/workload/workload_schema.hpp"
#include "test_gpu.hpp"

using namespace aidcsim;

namespace {
/// The default scenario's workload (scenarios/stargate-uk-8k.yaml), values in SI.
Params scenario() {
  Params p;
  p.set("cluster.gpus", 8064.0);
  p.set("cluster.gpu", std::string("GB200"));
  p.set("cluster.nvlink_domain", 72.0);
  p.set("workload.model.layers", 126.0);
  p.set("workload.model.hidden", 16384.0);
  p.set("workload.model.ffn_hidden", 53248.0);
  p.set("workload.model.heads", 128.0);
  p.set("workload.model.kv_heads", 8.0);
  p.set("workload.model.vocab", 128256.0);
  p.set("workload.model.sequence_length", 8192.0);
  p.set("workload.parallelism.tp", 8.0);
  p.set("workload.parallelism.pp", 9.0);
  p.set("workload.parallelism.dp", 112.0);
  p.set("workload.parallelism.virtual_stages", 7.0);
  p.set("workload.microbatch_size", 1.0);
  p.set("workload.global_batch", 2016.0);
  p.set("workload.precision", std::string("bf16"));
  p.set("workload.activation_recompute", false);
  return p;
}
/// Key of the first error of spec_from, then of the check against a GPU with GB200's 186 GB of HBM.
std::string key_of(const Params& p) {
  try {
    const auto job = workload::spec_from(p);
    auto gpu = workload::testing::a100_like();
    gpu.hbm_bytes = 186e9;
    workload::check_against_gpu(p, job, gpu);
  } catch (const InvalidParameter& e) {
    return e.key();
  }
  return "";
}
}  // namespace

TEST_CASE("the default scenario's workload is accepted") {
  const auto j = workload::spec_from(scenario());
  CHECK(j.par.tp == 8);
  CHECK(j.model.style == "gpt");
  CHECK(j.par.zero == "none");
}

TEST_CASE("bad layouts name the key that is wrong") {
  auto p = scenario();
  p.set("workload.parallelism.dp", 100.0);
  CHECK(key_of(p) == "workload.parallelism");  // 8 x 9 x 100 != 8064: the product, not dp alone
  p = scenario();
  p.set("cluster.nvlink_domain", 4.0);
  CHECK(key_of(p) == "workload.parallelism.tp");  // TP 8 leaves a 4-GPU NVLink domain
  p.set("workload.parallelism.allow_tp_across_domains", true);
  CHECK(key_of(p) == "");
  p = scenario();
  p.set("workload.parallelism.tp", 1.0);
  p.set("workload.parallelism.dp", 896.0);
  p.set("workload.global_batch", 896.0 * 18);
  CHECK(key_of(p) == "workload.parallelism.tp");  // 405B / 9 stages unsharded: > 186 GB of HBM
  try {
    workload::spec_from(p);
  } catch (const InvalidParameter& e) {  // the error prints the breakdown
    for (const char* part : {"weights", "gradients", "optimizer states", "activations", "reserve", "stage"}) {
      INFO(part);
      CHECK_THAT(e.expected(), Catch::Contains(part));
    }
  }
  p = scenario();
  p.set("workload.global_batch", 1000.0);
  CHECK(key_of(p) == "workload.global_batch");
  p = scenario();
  p.set("workload.global_batch", 1792.0);  // 16 microbatches: not a multiple of pp = 9 (interleaved)
  CHECK(key_of(p) == "workload.global_batch");
  p.set("workload.parallelism.microbatch_group_size", 16.0);  // one group of 16: Megatron-core accepts it
  CHECK(key_of(p) == "");
  p.set("workload.parallelism.microbatch_group_size", 12.0);  // last group of 4 < pp
  CHECK(key_of(p) == "workload.parallelism.microbatch_group_size");
  p = scenario();
  p.set("workload.global_batch", 112.0 * 7);  // 7 microbatches, fewer than pp = 9: Megatron-core refuses
  CHECK(key_of(p) == "workload.global_batch");
  p.set("workload.parallelism.interleaved_schedule", std::string("flexible"));  // Llama 3 §3.3.2: N = m = 7
  CHECK(key_of(p) == "");
  p.set("workload.parallelism.overlap_p2p_comm", false);  // blocking exchanges are Megatron-core's
  CHECK(key_of(p) == "workload.parallelism.interleaved_schedule");
  p.set("workload.parallelism.overlap_p2p_comm", true);
  p.set("workload.parallelism.microbatch_group_size", 3.0);  // 7 mod 3 != 0
  CHECK(key_of(p) == "workload.parallelism.microbatch_group_size");
  p.set("workload.global_batch", 112.0 * 9 * 2);  // 18 microbatches in groups of 3 < pp: would deadlock
  CHECK(key_of(p) == "workload.parallelism.microbatch_group_size");
  p = scenario();
  p.set("workload.parallelism.first_stage_layers", 120.0);  // leaves 6 layers for 8 stages
  CHECK(key_of(p) == "workload.parallelism.first_stage_layers");
  p = scenario();  // Llama 3 405B's layout (§3.3.2): 16 x 8 chunks > 126 layers, the embedding and loss take a slot
  p.set("workload.parallelism.pp", 16.0);
  p.set("workload.parallelism.dp", 63.0);
  p.set("workload.global_batch", 63.0 * 16);
  p.set("workload.parallelism.virtual_stages", 8.0);
  CHECK(key_of(p) == "workload.parallelism.virtual_stages");  // even split: 126 layers < 128 chunks
  p.set("workload.parallelism.first_stage_layers", 7.0);
  p.set("workload.parallelism.last_stage_layers", 7.0);
  CHECK(key_of(p) == "");
  p.set("workload.parallelism.first_stage_layers", 6.0);  // stage 0: 6 layers + the embedding < 8 chunks
  p.set("workload.parallelism.last_stage_layers", 6.0);
  CHECK(key_of(p) == "workload.parallelism.virtual_stages");
  p = scenario();
  p.set("workload.parallelism.zero", std::string("zero1"));
  p.set("workload.parallelism.dp_algorithm", std::string("sharp"));  // case step/01: was silently ring
  CHECK(key_of(p) == "workload.parallelism.dp_algorithm");
  p.set("workload.parallelism.dp_algorithm", std::string("ring"));
  CHECK(key_of(p) == "");
  p.set("workload.parallelism.zero", std::string("none"));
  p.set("workload.parallelism.dp_algorithm", std::string("sharp"));
  CHECK(key_of(p) == "workload.parallelism.dp_algorithm");  // in the switches: needs fabric.sharp (was a run error)
  p.set("fabric.sharp", true);
  CHECK(key_of(p) == "");
  p.set("workload.parallelism.dp_algorithm", std::string("halving_doubling"));
  CHECK(key_of(p) == "workload.parallelism.dp_algorithm");  // dp 112: not a power of two (was a run error)
  p.set("workload.parallelism.dp", 128.0);
  p.set("cluster.gpus", 9216.0);
  p.set("workload.global_batch", 2304.0);
  CHECK(key_of(p) == "");
  p = scenario();
  p.set("workload.parallelism.ep", 3.0);
  CHECK(key_of(p) == "workload.parallelism.ep");
}

namespace {
/// The InvalidParameter of spec_from(p) (fails the test if there is none).
InvalidParameter error_of(const Params& p) {
  try {
    workload::spec_from(p);
  } catch (const InvalidParameter& e) {
    return e;
  }
  FAIL("spec_from accepted the workload");
  return InvalidParameter("", "", "");
}
}  // namespace

TEST_CASE("the head dimension hidden / heads is whole, and kv_heads divides heads") {
  auto p = scenario();
  p.set("workload.model.heads", 96.0);  // 16384 / 96 = 170.67 channels a head; tp 8 and kv_heads 8 divide 96
  auto e = error_of(p);
  CHECK(e.key() == "workload.model.heads");
  CHECK_THAT(e.value(), Catch::StartsWith("96"));
  CHECK_THAT(e.expected(), Catch::Contains("a divisor of workload.model.hidden (16384)"));
  CHECK_THAT(e.expected(), Catch::Contains("16384 / 96 = 170.67"));
  p.set("workload.model.hidden", 96.0 * 128);  // head dimension 128
  CHECK(key_of(p) == "");
  p = scenario();
  p.set("workload.model.kv_heads", 7.0);
  CHECK(error_of(p).key() == "workload.model.kv_heads");
  p.set("workload.model.kv_heads", 256.0);  // more KV heads than heads
  CHECK(error_of(p).key() == "workload.model.kv_heads");
}

TEST_CASE("divisor and multiple errors give the value they are checked against") {
  auto p = scenario();
  p.set("workload.model.heads", 100.0);
  p.set("workload.model.hidden", 100.0 * 128);  // a whole head dimension; tp 8 does not divide 100
  p.set("workload.model.kv_heads", 10.0);
  auto e = error_of(p);
  CHECK(e.key() == "workload.parallelism.tp");
  CHECK(e.expected() == "a divisor of workload.model.heads (100)");
  p = scenario();
  p.set("workload.model.kv_heads", 7.0);
  CHECK(error_of(p).expected() == "a divisor of workload.model.heads (128)");
  p = scenario();
  p.set("workload.parallelism.cp", 3.0);
  p.set("workload.parallelism.dp", 112.0 / 4);  // 8 x 3 x 9 x 28 = 6048 GPUs
  p.set("cluster.gpus", 6048.0);
  p.set("workload.global_batch", 28.0 * 63);
  e = error_of(p);
  CHECK(e.key() == "workload.parallelism.cp");
  CHECK(e.expected() == "a divisor of workload.model.sequence_length (8192)");
  p = scenario();
  p.set("workload.parallelism.ep", 3.0);
  CHECK(error_of(p).expected() == "a divisor of workload.parallelism.dp (112)");
  p = scenario();
  p.set("workload.global_batch", 1000.0);
  CHECK(error_of(p).expected() == "a multiple of dp x microbatch_size (112 x 1)");
}

TEST_CASE("schema declares the new keys") {
  bool zero = false, cp = false;
  for (const auto& f : workload::schema()) {
    zero |= f.key == "workload.parallelism.zero";
    cp |= f.key == "workload.parallelism.cp";
  }
  CHECK(zero);
  CHECK(cp);
}

TEST_CASE("zero_reduce_scatter_aggregation: 1 by default, k > 1 only where reduce-scatters run every microbatch") {
  auto p = scenario();
  CHECK(workload::spec_from(p).zero_reduce_scatter_aggregation == 1);  // exact unless asked
  p.set("workload.zero_reduce_scatter_aggregation", 4.0);
  CHECK(key_of(p) == "workload.zero_reduce_scatter_aggregation");  // zero: none
  for (const char* zero : {"zero2", "fsdp"}) {
    p.set("workload.parallelism.zero", std::string(zero));
    CHECK(key_of(p) == "");
    CHECK(workload::spec_from(p).zero_reduce_scatter_aggregation == 4);
  }
}

TEST_CASE("overlap_param_gather needs the distributed optimizer and the overlapped reduction, as Megatron asserts") {
  auto p = scenario();
  p.set("workload.parallelism.overlap_param_gather", true);
  CHECK(key_of(p) == "workload.parallelism.overlap_param_gather");  // zero: none
  p.set("workload.parallelism.zero", std::string("zero1"));
  CHECK(key_of(p) == "");
  CHECK(workload::spec_from(p).par.overlap_param_gather);
  p.set("workload.parallelism.dp_overlap", false);
  CHECK(key_of(p) == "workload.parallelism.overlap_param_gather");
  p = scenario();
  p.set("workload.model.untie_embeddings_and_output_weights", true);
  p.set("workload.parallelism.param_gather_buckets", std::string("layer"));
  p.set("workload.parallelism.ddp_bucket_size", 26214400.0);
  const auto j = workload::spec_from(p);
  CHECK(j.model.untie_embeddings_and_output_weights);
  CHECK(j.par.param_gather_buckets == "layer");
  CHECK(j.par.ddp_bucket_size == 26214400.0);
}

TEST_CASE("tp_comm_overlap needs sequence parallelism") {
  auto p = scenario();
  p.set("workload.parallelism.tp_comm_overlap", true);
  CHECK(key_of(p) == "");
  CHECK(workload::spec_from(p).par.tp_comm_overlap);
  p.set("workload.parallelism.sequence_parallel", false);
  CHECK(key_of(p) == "workload.parallelism.tp_comm_overlap");
}

TEST_CASE("overlap_p2p_comm: overlapped by default, blocking when false") {
  auto p = scenario();
  CHECK(workload::spec_from(p).par.overlap_p2p_comm);
  p.set("workload.parallelism.overlap_p2p_comm", false);
  CHECK(key_of(p) == "");
  CHECK_FALSE(workload::spec_from(p).par.overlap_p2p_comm);
}

TEST_CASE("hidden_dropout / attention_dropout: the style's default unless given, and the memory they cost") {
  auto p = scenario();
  auto j = workload::spec_from(p);
  CHECK(j.model.hidden_dropout < 0);  // unset: gpt's 0.1 (Megatron-LM), llama's 0
  CHECK(j.model.attention_dropout < 0);
  const double with_masks = workload::layer_activation_bytes(j);
  p.set("workload.model.hidden_dropout", 0.0);
  p.set("workload.model.attention_dropout", 0.0);
  j = workload::spec_from(p);
  CHECK(j.model.hidden_dropout == 0);
  CHECK(j.model.attention_dropout == 0);
  // no dropout masks: 2 s b h / t less per layer (flash attention: the attention dropout costs nothing)
  CHECK(with_masks - workload::layer_activation_bytes(j) == Approx(2.0 * 8192 * 16384 / 8));
}

TEST_CASE("pipeline_engine: megatron by default; deepspeed is 1F1B with blocking exchanges") {
  auto p = scenario();  // interleaved: virtual_stages 7
  CHECK(workload::spec_from(p).par.pipeline_engine == "megatron");
  p.set("workload.parallelism.pipeline_engine", std::string("deepspeed"));
  CHECK(key_of(p) == "workload.parallelism.pipeline_engine");  // TrainSchedule is not interleaved
  p.set("workload.parallelism.virtual_stages", 1.0);
  CHECK(key_of(p) == "");
  CHECK(workload::spec_from(p).par.deepspeed_pipeline());
}

TEST_CASE("workload.optimizer: megatron by default, apex_distributed_fused_adam only with zero1") {
  auto p = scenario();
  CHECK(workload::spec_from(p).optimizer == "megatron");
  p.set("workload.optimizer", std::string("apex_distributed_fused_adam"));
  CHECK(key_of(p) == "workload.optimizer");  // zero: none (the default)
  p.set("workload.parallelism.zero", std::string("zero1"));
  CHECK(workload::spec_from(p).optimizer == "apex_distributed_fused_adam");
}

TEST_CASE("parallelism.order: tp,cp,dp,pp (Megatron Core's and DeepSpeed's) when unset; tp,cp,pp,dp when asked") {
  auto p = scenario();
  CHECK(workload::spec_from(p).par.order == "tp,cp,dp,pp");
  for (const auto& f : workload::schema())
    if (f.key == "workload.parallelism.order") CHECK(f.default_value == "tp,cp,dp,pp");  // the documented default
  p.set("workload.parallelism.order", std::string("tp,cp,pp,dp"));
  CHECK(workload::spec_from(p).par.order == "tp,cp,pp,dp");
}
