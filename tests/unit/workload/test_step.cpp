#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <iomanip>
#include <map>
#include <numeric>

#include "models/collectives/collective.hpp"
#include "models/common/errors.hpp"
#include "models/topology/fabric.hpp"
#include "models/workload/dp_collective.hpp"
#include "models/workload/model.hpp"
#include "models/workload/pipeline.hpp"
#include "models/workload/step.hpp"
#include "test_gpu.hpp"

using namespace aidcsim;
using namespace aidcsim::workload;

namespace {

/// Contention-free list schedule of a plan (no SimGrid): compute = amount / flops, transfer =
/// amount / line rate of its tier; throws if the dependency graph has a cycle.
network::RunResult evaluate(const network::Schedule& s, const topology::Fabric& f) {
  const int n = static_cast<int>(s.activities.size());
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indeg(n, 0);
  for (int i = 0; i < n; ++i)
    for (int d : s.activities[i].after) {
      succ[d].push_back(i);
      ++indeg[i];
    }
  network::RunResult r;
  r.start.assign(n, 0);
  r.finish.assign(n, 0);
  std::vector<double> gpu_free(f.gpu_count(), 0);
  std::deque<int> ready;
  for (int i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push_back(i);
  int done = 0;
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    ++done;
    const auto& a = s.activities[i];
    double t0 = r.start[i];
    if (a.kind == network::Activity::Kind::Compute) {
      t0 = std::max(t0, gpu_free[a.gpu]);
      r.finish[i] = t0 + a.amount / s.gpu_flops[0];
      gpu_free[a.gpu] = r.finish[i];
    } else {
      const bool nv = f.nvlink_domain_of(a.gpu) == f.nvlink_domain_of(a.dst_gpu);
      const double rate = nv ? f.spec().nvlink_bandwidth : f.spec().nic_rate;
      r.finish[i] = t0 + a.amount / (a.rate_limit > 0 ? std::min(rate, a.rate_limit) : rate);
    }
    r.start[i] = t0;
    r.makespan = std::max(r.makespan, r.finish[i]);
    for (int j : succ[i]) {
      r.start[j] = std::max(r.start[j], r.finish[i]);
      if (--indeg[j] == 0) ready.push_back(j);
    }
  }
  if (done != n) throw std::runtime_error("cycle in the schedule");
  return r;
}

topology::FabricSpec small_fabric(int gpus) {
  topology::FabricSpec fs;
  fs.gpus = gpus;
  fs.gpus_per_node = 8;
  fs.nvlink_domain = 8;
  fs.nvlink_bandwidth = 300e9;
  fs.kind = topology::FabricKind::LeafSpine;
  fs.switch_radix = 64;
  fs.link_rate = 25e9;
  fs.nic_rate = 25e9;
  return fs;
}

JobSpec gpt_job(int tp, int pp, int dp, int v, int batch) {
  JobSpec j;
  j.model.layers = 24;
  j.model.hidden = 4096;
  j.model.ffn_hidden = 4 * 4096;
  j.model.heads = 32;
  j.model.kv_heads = 32;
  j.model.vocab = 51200;
  j.model.sequence_length = 2048;
  j.par.tp = tp;
  j.par.pp = pp;
  j.par.dp = dp;
  j.par.virtual_stages = v;
  j.global_batch = batch;
  j.activation_recompute = true;
  return j;
}

/// The step of `j` on the 16-GPU test fabric with A100-like GPUs: its plan and its run
/// (`evaluate` throws on a deadlock, i.e. a cycle in the schedule).
std::pair<StepPlan, network::RunResult> plan_and_run(const JobSpec& j) {
  static const auto fabric = topology::build_fabric(small_fabric(16));
  StepPlan p = plan_step(j, testing::a100_like(), fabric, {});
  auto r = evaluate(p.schedule, fabric);
  return {std::move(p), std::move(r)};
}

}  // namespace

TEST_CASE("plan_step: acyclic schedule, breakdown sums to the step time, bubble from the schedule") {
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto a100 = testing::a100_like();
  for (int v : {1, 2}) {
    JobSpec j = gpt_job(4, 4, 4, v, 64);  // 16 microbatches per replica
    j.model.vocab = 1024;                 // balanced stages: the output layer is negligible
    const StepPlan plan = plan_step(j, a100, fabric, {});
    CHECK(plan.microbatches == 16);
    CHECK(plan.hardware_flops_per_step == Approx(hardware_flops(j.model, 64.0 * 2048, true)));
    const auto run = evaluate(plan.schedule, fabric);
    const StepBreakdown b = analyse_step(plan, run);
    CHECK(b.step_time == Approx(run.makespan));
    CHECK(b.compute + b.exposed_tp + b.exposed_pp + b.exposed_dp + b.exposed_cp + b.exposed_ep + b.bubble ==
          Approx(b.step_time));
    CHECK(b.bubble > 0);
    CHECK(b.exposed_tp > 0);
    CHECK(b.exposed_dp > 0);
    CHECK(b.gpu_busy_compute_fraction > 0.5);
    CHECK(b.gpu_busy_compute_fraction < 1.0);
    // fill and drain cost (pp-1)/(v m) of the ops' time (SC21 §2.2), drain included (not booked as DP)
    const double ideal = ideal_bubble_fraction(4, 16, v);
    CHECK(b.bubble / (b.compute + b.exposed_tp) == Approx(ideal).epsilon(0.1));
  }
}

TEST_CASE("plan_step: a lighter last stage balances a large output layer (stage balancing)") {
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto a100 = testing::a100_like();
  JobSpec j = gpt_job(4, 4, 4, 1, 64);
  j.model.vocab = 256000;  // the logit GEMM + loss cost ~1 layer on the last stage
  j.model.style = "llama";
  auto step = [&](const JobSpec& k) {
    const StepPlan p = plan_step(k, a100, fabric, {});
    return analyse_step(p, evaluate(p.schedule, fabric));
  };
  const auto even = step(j);  // 6 layers per stage
  j.par.first_stage_layers = 7;
  j.par.last_stage_layers = 5;  // 7 + 6 + 6 + 5
  const auto balanced = step(j);
  CHECK(balanced.step_time < even.step_time);
  CHECK(balanced.bubble < even.bubble);
  CHECK(balanced.compute == Approx(even.compute).epsilon(0.01));  // same work, placed better
}

TEST_CASE("plan_step: interleaving shrinks the bubble; clock factor slows compute; extension is linear") {
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto a100 = testing::a100_like();
  auto step = [&](const JobSpec& j, StepOptions o = {}) {
    const StepPlan p = plan_step(j, a100, fabric, o);
    return analyse_step(p, evaluate(p.schedule, fabric));
  };
  const auto b1 = step(gpt_job(4, 4, 4, 1, 64));
  const auto b2 = step(gpt_job(4, 4, 4, 2, 64));
  CHECK(b2.bubble < 0.7 * b1.bubble);
  StepOptions slow;
  slow.clock_factor.assign(64, 1.0);
  slow.clock_factor[63] = 0.8;  // one GPU of the last stage throttles: its whole stage waits
  CHECK(step(gpt_job(4, 4, 4, 1, 64), slow).step_time > 1.05 * b1.step_time);
  // simulating 8 of 16 microbatches + steady-state extension ~ simulating all 16
  StepOptions cap;
  cap.max_simulated_microbatches = 8;
  CHECK(step(gpt_job(4, 4, 4, 1, 64), cap).step_time == Approx(b1.step_time).epsilon(0.03));
}

TEST_CASE("plan_step: a reserved schedule capacity changes nothing and is the only allocation", "[schedule_capacity]") {
  // The engine re-plans a step at other clocks with the earlier plan's size reserved: the schedule
  // must be the same activity for activity, written without growing (capacity = size).
  const auto fabric = topology::build_fabric(small_fabric(64));
  const JobSpec j = gpt_job(4, 4, 4, 2, 64);
  const StepPlan free_growth = plan_step(j, testing::a100_like(), fabric, {});
  const auto& a = free_growth.schedule.activities;
  REQUIRE(a.size() > 100);
  StepOptions o;
  o.schedule_capacity = a.size();
  const StepPlan reserved = plan_step(j, testing::a100_like(), fabric, o);
  const auto& b = reserved.schedule.activities;
  CHECK(b.capacity() == b.size());
  REQUIRE(b.size() == a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("activity " << i);
    REQUIRE(a[i].kind == b[i].kind);
    REQUIRE(a[i].gpu == b[i].gpu);
    REQUIRE(a[i].dst_gpu == b[i].dst_gpu);
    REQUIRE(a[i].amount == b[i].amount);
    REQUIRE(a[i].flow_hash == b[i].flow_hash);
    REQUIRE(a[i].delay == b[i].delay);
    REQUIRE(a[i].after == b[i].after);
    REQUIRE(a[i].after_previous == b[i].after_previous);
    REQUIRE(a[i].after_same == b[i].after_same);
    REQUIRE(a[i].repeat == b[i].repeat);
    REQUIRE(a[i].tag == b[i].tag);
    REQUIRE(a[i].weight == b[i].weight);
  }
  CHECK(analyse_step(reserved, evaluate(reserved.schedule, fabric)).step_time ==
        analyse_step(free_growth, evaluate(free_growth.schedule, fabric)).step_time);
}

TEST_CASE("plan_step: ZeRO-1 and FSDP add parameter all-gathers; DP overlap helps") {
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto a100 = testing::a100_like();
  JobSpec j = gpt_job(2, 2, 16, 1, 64);
  j.par.dp_overlap = false;
  const auto p0 = plan_step(j, a100, fabric, {});
  j.par.dp_overlap = true;
  const auto p1 = plan_step(j, a100, fabric, {});
  CHECK(analyse_step(p1, evaluate(p1.schedule, fabric)).exposed_dp <
        analyse_step(p0, evaluate(p0.schedule, fabric)).exposed_dp);
  j.par.zero = "zero1";
  const auto z = plan_step(j, a100, fabric, {});
  const auto count = [](const StepPlan& p, int tag) {
    return std::count_if(p.schedule.activities.begin(), p.schedule.activities.end(),
                         [tag](const network::Activity& a) { return a.tag == tag; });
  };
  CHECK(count(z, kTagDpGather) > 0);
  CHECK(count(p1, kTagDpGather) == 0);
  j.par.zero = "fsdp";
  const auto f = plan_step(j, a100, fabric, {});
  CHECK(count(f, kTagDpGather) > count(z, kTagDpGather));
  evaluate(f.schedule, fabric);
}

TEST_CASE("ZeRO-2 / FSDP traffic per unit and microbatch, as PyTorch FSDP and DeepSpeed run it") {
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto h100 = testing::h100_like();
  JobSpec j = gpt_job(1, 1, 8, 1, 32);  // 4 microbatches per replica, 24 layers + the embedding
  j.model.layers = 4;
  auto count = [&](const StepPlan& p, int tag) {  // collectives = flows GPU 0 sends (collapsed rings)
    return std::count_if(p.schedule.activities.begin(), p.schedule.activities.end(), [tag](const network::Activity& a) {
      return a.tag == tag && a.kind == network::Activity::Kind::Transfer && a.gpu == 0;
    });
  };
  const int units = 5;  // embedding + 4 layers (gpt's tied output layer holds no parameters of its own)
  j.par.zero = "fsdp";  // PyTorch FSDP: gather before forward and again before backward
  auto p = plan_step(j, h100, fabric, {});
  CHECK(count(p, kTagDpGather) == 4 * 2 * units);
  CHECK(count(p, kTagDp) == 4 * units);  // a reduce-scatter per unit every microbatch
  evaluate(p.schedule, fabric);          // acyclic
  j.par.reshard_after_forward = false;   // kept from forward to backward: one gather per microbatch
  CHECK(count(plan_step(j, h100, fabric, {}), kTagDpGather) == 4 * units);
  j.par.fsdp_style = "deepspeed";  // ZeRO-3 re-gathers for every use
  CHECK(count(plan_step(j, h100, fabric, {}), kTagDpGather) == 4 * 2 * units);
  j.par.zero = "zero2";  // gradients per unit every microbatch; parameters gathered once after the optimizer
  p = plan_step(j, h100, fabric, {});
  CHECK(count(p, kTagDp) == 4 * units);
  CHECK(count(p, kTagDpGather) == 1);
  j.par.zero = "zero1";  // one reduce-scatter per bucket at the end, one all-gather
  p = plan_step(j, h100, fabric, {});
  CHECK(count(p, kTagDp) == 4);  // ~4 buckets of the last backward
  CHECK(count(p, kTagDpGather) == 1);
  // FSDP's breakdown: the gathers the compute waited for are exposed DP; the step sums up
  j.par.zero = "fsdp";
  j.par.fsdp_style = "pytorch";
  p = plan_step(j, h100, fabric, {});
  const auto b = analyse_step(p, evaluate(p.schedule, fabric));
  CHECK(b.exposed_dp > 0);
  CHECK(b.compute + b.exposed_tp + b.exposed_pp + b.exposed_dp + b.bubble == Approx(b.step_time));
}

TEST_CASE("FSDP: microbatches beyond the simulated ones add the measured steady-state period") {
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto h100 = testing::h100_like();
  JobSpec j = gpt_job(1, 1, 8, 1, 128);  // 16 microbatches per replica
  j.model.layers = 4;
  j.par.zero = "fsdp";
  const auto all = plan_step(j, h100, fabric, {});
  StepOptions cap;
  cap.max_simulated_microbatches = 6;
  const auto part = plan_step(j, h100, fabric, cap);
  CHECK(part.simulated_microbatches == 6);
  CHECK(part.measured_extension);
  const auto b_all = analyse_step(all, evaluate(all.schedule, fabric));
  const auto b_part = analyse_step(part, evaluate(part.schedule, fabric));
  CHECK(b_part.step_time == Approx(b_all.step_time).epsilon(0.02));
  CHECK(b_part.exposed_dp == Approx(b_all.exposed_dp).epsilon(0.1));
}

namespace {

/// Seconds of the activities of `plan` tagged `tag` on `gpu`, in schedule order.
std::vector<double> durations(const StepPlan& plan, const network::RunResult& run, int tag, int gpu) {
  std::vector<double> d;
  for (std::size_t i = 0; i < plan.schedule.activities.size(); ++i) {
    const auto& a = plan.schedule.activities[i];
    if (a.tag == tag && a.gpu == gpu && a.kind == network::Activity::Kind::Compute)
      d.push_back(run.finish[i] - run.start[i]);
  }
  return d;
}

}  // namespace

TEST_CASE("overlap_param_gather: the ZeRO-1 parameter all-gather moves under the first forward, bucket by bucket",
          "[overlap_param_gather]") {
  const auto a100 = testing::a100_like();
  SECTION("gathers faster than the forward: only the first bucket is exposed") {
    // tp 1, dp 2 on one node: each layer's gather (201M parameters, NVLink) is shorter than its forward
    const auto fabric = topology::build_fabric(small_fabric(8));
    JobSpec j = gpt_job(1, 1, 2, 1, 4);
    j.par.zero = "zero1";
    const auto p0 = plan_step(j, a100, fabric, {});
    const auto r0 = evaluate(p0.schedule, fabric);
    // the all-gather after the optimizer: the end of the step
    const double g_all = r0.makespan - r0.finish[p0.stage_optimizer[0]];
    REQUIRE(g_all > 0);
    j.par.overlap_param_gather = true;
    j.par.param_gather_buckets = "layer";
    const auto p1 = plan_step(j, a100, fabric, {});
    const auto r1 = evaluate(p1.schedule, fabric);
    CHECK(p1.param_gather_buckets == j.model.layers);
    CHECK(p1.stage_after_optimizer[0].empty());
    // bucket 0 (NeMo): the first layer's parameters and everything outside the layers (embedding)
    const double all = chunk_parameters(j, j.model.layers, true, true, false);
    const double first = all - (j.model.layers - 1) * chunk_parameters(j, 1, false, false, false);
    // closed form: the step loses the whole gather and waits for the first bucket only (transfer
    // time proportional to bytes in this contention-free schedule)
    CHECK(r1.makespan == Approx(r0.makespan - g_all + g_all * first / all).epsilon(1e-9));
    const auto b1 = analyse_step(p1, r1);
    CHECK(b1.exposed_dp < analyse_step(p0, r0).exposed_dp);
    CHECK(b1.compute + b1.exposed_dp + b1.exposed_tp + b1.exposed_pp + b1.bubble == Approx(b1.step_time).epsilon(1e-9));
    // one bucket of every parameter: the whole gather is exposed again, at the start of the step
    j.par.param_gather_buckets = "size";
    j.par.ddp_bucket_size = 1e12;
    const auto p2 = plan_step(j, a100, fabric, {});
    CHECK(p2.param_gather_buckets == 1);
    CHECK(evaluate(p2.schedule, fabric).makespan == Approx(r0.makespan).epsilon(1e-9));
  }
  SECTION("gathers slower than the forward: the first microbatch's forward hides all but its last bucket's units") {
    // tp 8, dp 2 across two nodes at 25 Gb/s per NIC: each layer's gather outlasts its forward
    const auto fabric = topology::build_fabric(small_fabric(16));
    JobSpec j = gpt_job(8, 1, 2, 1, 4);
    j.par.zero = "zero1";
    const auto p0 = plan_step(j, a100, fabric, {});
    const auto r0 = evaluate(p0.schedule, fabric);
    j.par.overlap_param_gather = true;
    j.par.param_gather_buckets = "layer";
    const auto p1 = plan_step(j, a100, fabric, {});
    const auto r1 = evaluate(p1.schedule, fabric);
    // microbatch 0's forward as pieces: the embedding (bucket 0), layer 0 (bucket 0), layer k
    // (bucket k), the output layer (tied, pp 1: no parameters of its own; bucket 0)
    const int L = j.model.layers;
    const auto f = durations(p1, r1, kTagForward, p1.stage_gpu[0]);
    REQUIRE(f.size() >= static_cast<std::size_t>(L + 2));
    std::vector<int> bucket(L + 2, 0);
    for (int k = 1; k < L; ++k) bucket[k + 1] = k;
    // each bucket's time on the wire, from the run (transfers of a bucket start together)
    std::map<double, double> on_wire;  // start -> finish
    for (std::size_t i = 0; i < p1.schedule.activities.size(); ++i) {
      const auto& a = p1.schedule.activities[i];
      if (a.tag == kTagDpGather && (a.gpu == p1.stage_gpu[0] || a.dst_gpu == p1.stage_gpu[0]))
        on_wire[r1.start[i]] = std::max(on_wire[r1.start[i]], r1.finish[i]);
    }
    REQUIRE(static_cast<int>(on_wire.size()) == L);
    std::vector<double> g;
    for (const auto& [t0, t1] : on_wire) g.push_back(t1 - t0);
    // the mechanism, replayed: bucket k + 1 issued when bucket k has arrived and the forward reaches
    // the first unit of bucket k; a unit starts when the one before ends and its bucket has arrived
    std::vector<double> done(L, 0), reach(L, 0);
    done[0] = g[0];
    double t = 0, forward = 0;
    int issued = 1;
    for (int u = 0; u < L + 2; ++u) {
      const int k = bucket[u];
      if (k == issued) {  // first unit of bucket k: reach[k] = the end of the unit before
        done[k] = std::max(done[k - 1], reach[k - 1]) + g[k];
        ++issued;
      }
      if (u == 0 || bucket[u - 1] != k) reach[k] = t;
      t = std::max(t, done[k]) + f[u];
      forward += f[u];
    }
    const double g_all = r0.makespan - r0.finish[p0.stage_optimizer[0]];
    REQUIRE(t - forward > 0);
    REQUIRE(t - forward < g_all);
    CHECK(r1.makespan == Approx(r0.makespan - g_all + (t - forward)).epsilon(1e-9));
  }
}

TEST_CASE(
    "untie_embeddings_and_output_weights: one more V x h matrix of parameters, same FLOPs, no embedding all-reduce",
    "[untie]") {
  JobSpec j = gpt_job(2, 2, 2, 1, 8);
  const double V = j.model.vocab, h = j.model.hidden;
  const double tied = parameters(j.model), flops = model_flops(j.model, 1e6);
  const double last_pp1 = chunk_parameters(j, 2, false, true, false);
  j.model.untie_embeddings_and_output_weights = true;
  CHECK(parameters(j.model) - tied == Approx(V * h));
  CHECK(model_flops(j.model, 1e6) == flops);
  CHECK(chunk_parameters(j, 2, false, true, false) - last_pp1 == Approx(V * h / 2));
  // pipelined: the last stage holds an output layer of its own either way, but no tied copy to all-reduce
  CHECK(chunk_parameters(j, 2, false, true, true) == Approx(chunk_parameters(j, 2, false, true, false)));
  const auto fabric = topology::build_fabric(small_fabric(8));
  const auto a100 = testing::a100_like();
  CHECK(plan_step(j, a100, fabric, {}).embedding_transfers.empty());
  j.model.untie_embeddings_and_output_weights = false;
  CHECK_FALSE(plan_step(j, a100, fabric, {}).embedding_transfers.empty());
}

TEST_CASE("overlap_p2p_comm false: blocking pipeline exchanges as Megatron-core runs them", "[overlap_p2p_comm]") {
  const auto fabric = topology::build_fabric(small_fabric(16));
  const auto run = plan_and_run;
  // 1F1B, PP 2 (one stage per node: every send crosses the NIC), 2 microbatches. Stage 0 runs F0 F1
  // B0 B1, stage 1 F0 B0 F1 B1. With f, b the forward / backward of a stage and x one transfer,
  // overlapped sends give 3f + 2x + 3b; blocking ones (an exchange after every op) delay stage 0's F1
  // until its F0 output has arrived, which moves stage 1's F1 input and every later op by x:
  // 3f + 3x + 3b.
  JobSpec j = gpt_job(8, 2, 1, 1, 2);
  j.model.vocab = 128;  // stages balanced up to the embedding and the loss
  j.activation_recompute = false;
  const auto [pa, ra] = run(j);
  j.par.overlap_p2p_comm = false;
  const auto [pb, rb] = run(j);
  // x: one send as emitted (the activation b s h / t at 2 B, with NCCL's protocol overhead)
  double x = 0;
  for (std::size_t i = 0; i < pb.schedule.activities.size(); ++i)
    if (pb.schedule.activities[i].tag == kTagPp) x = rb.finish[i] - rb.start[i];
  CHECK(x > j.model.sequence_length * double(j.model.hidden) * 2.0 / j.par.tp / fabric.spec().nic_rate);
  CHECK(rb.makespan - ra.makespan == Approx(x).epsilon(0.01));
  CHECK(analyse_step(pb, rb).exposed_pp > analyse_step(pa, ra).exposed_pp);
  // interleaved (exchanges after warm-up forwards, forward + backward pairs, cool-down backwards):
  // the schedule stays acyclic, and blocking never makes it faster
  for (int v : {2, 3}) {
    JobSpec k = gpt_job(8, 2, 1, v, 4);
    k.model.layers = 12;
    const auto [qa, sa] = run(k);
    k.par.overlap_p2p_comm = false;
    const auto [qb, sb] = run(k);
    CHECK(sb.makespan > sa.makespan);
    CHECK(analyse_step(qb, sb).exposed_pp > analyse_step(qa, sa).exposed_pp);
  }
  // no pipeline: nothing to block
  JobSpec n = gpt_job(8, 1, 2, 1, 4);
  const auto [na, ta] = run(n);
  n.par.overlap_p2p_comm = false;
  const auto [nb, tb] = run(n);
  CHECK(tb.makespan == ta.makespan);
}

TEST_CASE("pipeline_engine deepspeed: TrainSchedule's serialized blocking p2p and TP all-gathers", "[deepspeed_pipe]") {
  const auto fabric = topology::build_fabric(small_fabric(16));
  const auto a100 = testing::a100_like();
  const auto run = plan_and_run;
  // 1F1B, PP 2 (one stage per node), 2 microbatches, as the overlap_p2p_comm test: Megatron's
  // blocking exchanges give 3f + 3x + 3b. DeepSpeed (schedule.py v0.5.4): stage 0 runs F0@0 F1@2
  // B0@3 B1@5, stage 1 F0@1 B0@2 F1@3 B1@4. Between B0 and F1 stage 1 receives act1 and then sends
  // grad0 (one dist.recv, then one dist.send): the exchange Megatron runs as one batched pair takes
  // 2x. Each forward off the first stage all-gathers its input over the TP group (g), each backward
  // off the last its output and its gradient (2g). Critical path: stage 0 F0, act0, stage 1 F0
  // (+g) B0, act1, grad0, stage 1 F1 (+g) B1, grad1, stage 0 B1 (+2g): 3f + 4x + 3b + 4g.
  JobSpec j = gpt_job(8, 2, 1, 1, 2);
  j.model.vocab = 128;
  j.activation_recompute = false;
  j.par.overlap_p2p_comm = false;
  const auto [pm, rm] = run(j);
  j.par.pipeline_engine = "deepspeed";
  const auto [pd, rd] = run(j);
  double x = 0;
  for (std::size_t i = 0; i < pd.schedule.activities.size(); ++i)
    if (pd.schedule.activities[i].tag == kTagPp) x = rd.finish[i] - rd.start[i];
  CHECK(x > j.model.sequence_length * double(j.model.hidden) * 2.0 / j.par.tp / fabric.spec().nic_rate);
  // g: the TP all-gather of the whole b s h activation (nccl-tests size), as the collectives model times it
  collectives::Collective c;
  c.op = collectives::Op::AllGather;
  for (int r = 0; r < 8; ++r) c.gpus.push_back(r);
  c.bytes = j.model.sequence_length * double(j.model.hidden) * 2.0;
  const double g = collectives::estimate_time(c, collectives::Layout::from(fabric, a100), {});
  CHECK(g > 0);
  // where the gathers run: 2 forwards of stage 1, 2 backwards (2 each) of stage 0
  CHECK(pd.tp[1] - pm.tp[1] == Approx(2 * g).epsilon(1e-9));
  CHECK(pd.tp[0] - pm.tp[0] == Approx(4 * g).epsilon(1e-9));
  CHECK(rd.makespan - rm.makespan == Approx(x + 4 * g).epsilon(0.01));
  // a deeper pipeline stays acyclic, and the serialized exchanges never make it faster
  JobSpec k = gpt_job(8, 2, 1, 1, 8);
  k.model.layers = 12;
  k.par.overlap_p2p_comm = false;
  const auto [qa, sa] = run(k);
  k.par.pipeline_engine = "deepspeed";
  const auto [qb, sb] = run(k);
  CHECK(sb.makespan > sa.makespan);
}

TEST_CASE(
    "blocking exchanges (deepspeed, megatron overlap_p2p_comm false): microbatches beyond the simulated "
    "ones add the measured steady-state period",
    "[deepspeed_pipe]") {
  const auto fabric = topology::build_fabric(small_fabric(16));
  const auto a100 = testing::a100_like();
  // a small model: a transfer (b s h / t at 2 B over 25 GB/s) as long as a layer's compute
  JobSpec j = gpt_job(8, 2, 1, 1, 24);
  j.model.vocab = 128;
  j.model.layers = 2;
  j.model.hidden = 512;
  j.model.ffn_hidden = 2048;
  j.model.heads = j.model.kv_heads = 8;
  const auto engine = GENERATE(std::string("deepspeed"), std::string("megatron"));
  INFO(engine);
  j.par.pipeline_engine = engine;
  j.par.overlap_p2p_comm = false;  // Megatron-core's blocking exchanges; DeepSpeed's are always blocking
  auto step = [&](int cap, bool measured) {
    StepOptions o;
    o.max_simulated_microbatches = cap;
    StepPlan p = plan_step(j, a100, fabric, o);
    const auto run = evaluate(p.schedule, fabric);
    p.measured_steady_pipeline = p.measured_steady_pipeline && measured;
    return analyse_step(p, run);
  };
  const StepBreakdown exact = step(0, true);  // all 24 microbatches op by op
  const StepBreakdown cut = step(8, true);    // 8 simulated, 16 added at the measured period
  const StepBreakdown analytic = step(8, false);
  INFO("exact " << exact.step_time << " cut " << cut.step_time << " analytic " << analytic.step_time);
  CHECK(cut.step_time == Approx(exact.step_time).epsilon(0.005));
  // the analytic extension (compute only) misses the serialized exchanges of 16 microbatches
  CHECK(analytic.step_time < exact.step_time * (1 - 0.005));
  CHECK(cut.exposed_pp > analytic.exposed_pp);
}

TEST_CASE("flexible interleaving: fewer microbatches than stages run, with the dependency stalls of N < pp",
          "[flexible_pp]") {
  // Llama 3 §3.3.2 (arXiv:2407.21783): the flexible schedule runs fewer microbatches than stages; its
  // bubble ratio (pp - 1) / (v m) holds for N >= pp only. pp 4, v 2, 3 layers per chunk, balanced stages.
  const auto fabric = topology::build_fabric(small_fabric(16));
  const auto a100 = testing::a100_like();
  auto step = [&](const JobSpec& j) {
    const StepPlan p = plan_step(j, a100, fabric, {});
    return std::pair{p, analyse_step(p, evaluate(p.schedule, fabric))};
  };
  for (int m : {1, 2, 3, 4, 8}) {
    INFO("m = " << m);
    JobSpec j = gpt_job(4, 4, 1, 2, m);
    j.model.vocab = 1024;
    if (m < 4)
      CHECK_THROWS_AS(plan_step(j, a100, fabric, {}), aidcsim::InvalidParameter);  // Megatron: m a multiple of pp
    const auto megatron = m < 4 ? StepBreakdown{} : step(j).second;
    j.par.interleaved_schedule = "flexible";
    const auto [p, b] = step(j);
    const double busy = b.compute + b.exposed_tp, ideal = ideal_bubble_fraction(4, m, 2);
    double serial = 0;  // every stage's compute one after the other
    for (int s = 0; s < 4; ++s) serial += p.compute[s] + p.tp[s];
    if (m == 1) {
      // one microbatch: the 8 virtual stages run strictly one after another (+ transfers, optimizer)
      CHECK(b.step_time > serial);
      CHECK(b.step_time < 1.08 * serial);
    }
    if (m < 4) CHECK(b.bubble / busy > 1.1 * ideal);  // groups of N = m < pp stall on the round trip
    if (m >= 4) {
      CHECK(b.step_time == megatron.step_time);  // N = pp: Megatron's order
      CHECK(b.bubble / busy == Approx(ideal).epsilon(0.1));
    }
  }
}

namespace {

/// The window the measured extension used before: stage 0's backward completions from microbatch
/// min(n - 1, max(1, pp)) to n - 1, which with pp > 1 takes in stage 0's cool-down.
double old_window_period(const StepPlan& p, const network::RunResult& run) {
  const auto& d = p.microbatch_done;
  const int n = static_cast<int>(d.size()), from = std::min(n - 1, std::max(1, p.pp));
  return (run.finish[d[n - 1]] - run.finish[d[from]]) / (n - 1 - from);
}

}  // namespace

TEST_CASE(
    "zero2 / fsdp with a pipeline: the measured period spans stage 0's steady 1F1B phase and the "
    "reduce-scatter streams",
    "[measured_extension]") {
  const auto fabric = topology::build_fabric(small_fabric(16));
  const auto a100 = testing::a100_like();
  const int v = GENERATE(1, 2);
  // fsdp: every unit's gather gates its compute, so the DP traffic sets stage 0's period; zero2 at
  // 512 tokens: the reduce-scatters (25 GB/s NICs) are slower than the compute and pile up on their
  // stream; zero2 at 2048 tokens: they hide behind the compute (period = the analytic one)
  const auto [zero, seq] = GENERATE(std::pair{std::string("fsdp"), 512}, std::pair{std::string("zero2"), 512},
                                    std::pair{std::string("zero2"), 2048});
  INFO(zero << ", " << seq << " tokens, v = " << v);
  // tp 2, pp 4, dp 2 over two nodes: 32 microbatches per replica, 12 simulated (v = 2: three groups
  // of N = pp = 4)
  JobSpec j = gpt_job(2, 4, 2, v, 64);
  j.model.layers = 8;
  j.model.vocab = 1024;
  j.model.sequence_length = seq;
  j.par.zero = zero;
  // PP inside DP: the two replicas' GPUs are tp x pp = 8 apart, one node each, so every DP group
  // crosses the NICs (the premise: a reduce-scatter stream slower than the compute at 512 tokens).
  // Under the default tp,cp,dp,pp a DP pair would sit on one node's NVLink.
  j.par.order = "tp,cp,pp,dp";
  // the step time with the 32 microbatches cut to `cap`; `old_cut`: the same run extended as before,
  // at the period of stage 0's backward completions over microbatches pp .. n - 1 (at least the
  // analytic one)
  auto step = [&](int cap, double* old_cut) {
    StepOptions o;
    o.max_simulated_microbatches = cap;
    StepPlan p = plan_step(j, a100, fabric, o);
    const auto run = evaluate(p.schedule, fabric);
    if (old_cut) {
      REQUIRE(p.measured_extension);
      CHECK(p.fidelity.find("reduce-scatter stream") != std::string::npos);  // the note says how the cut step ran
      CHECK(p.fidelity.find("added analytically") == std::string::npos);
      p.measured_extension = false;
      const double analytic = analyse_step(p, run).step_time - run.makespan;
      *old_cut = run.makespan + std::max(analytic, p.extra_microbatches * old_window_period(p, run));
      p.measured_extension = true;
    }
    return analyse_step(p, run).step_time;
  };
  const double exact = step(0, nullptr);
  double old_cut = 0;
  const double cut = step(12, &old_cut);
  INFO(std::setprecision(6) << "exact " << exact << " cut " << cut << " old " << old_cut);
  CHECK(cut == Approx(exact).epsilon(0.005));
  if (seq == 512) {
    // fsdp: the old window, microbatches 4 .. 11, ends in the cool-down (v = 1: 3 of its 7 intervals,
    // after microbatch 8 = n - pp; v = 2: 6 of 7, after microbatch 5) and takes no whole groups: the
    // step came out short by 11 % / 31 % (exact 0.636 / 0.657 s, old 0.564 / 0.454 s). zero2: stage
    // 0's compute period misses the piled-up reduce-scatters: short by 42 % (exact 0.574 / 0.568 s,
    // old 0.331 / 0.326 s)
    CHECK(old_cut < exact * 0.9);
  } else {
    CHECK(old_cut == Approx(cut).epsilon(1e-12));
  }
}

TEST_CASE("Apex DistributedFusedAdam: the embeddings' fp32 gradients in the first layer's DP bucket, as NeMo runs it",
          "[apex_fp32_embedding]") {
  // NeMo 24.09-alpha.rc0 megatron_gpt_model.py configure_optimizers (with_fp32_embedding_grads) and
  // core/optim/distributed_adam.py init_params_bucket: the word embedding and learned positions (first
  // stage) and the tied copy (last stage) in fp32 buckets, reduced with the stage's first-layer bucket
  const auto fabric = topology::build_fabric(small_fabric(16));
  const auto a100 = testing::a100_like();
  // gpt, tied: pp 2 x v 2 chunks of 6 layers, dp 2, zero1 with bf16 gradient sync; 2 buckets per chunk
  JobSpec j = gpt_job(2, 2, 2, 2, 16);
  j.par.zero = "zero1";
  j.par.dp_overlap = true;
  j.grad_reduce_dtype = "bf16";
  j.par.sequence_parallel = false;  // its norms would join the first layer's bucket too: "[apex_first_bucket]"
  // what GPU `gpu` puts on the wire per collective, in emission order: one transfer per bucket (a
  // collapsed ring over 2 GPUs), its bytes scaled by NCCL's efficiency, the same for every bucket of
  // the group; so buckets are compared by their ratios
  auto sent = [](const StepPlan& p, int gpu, int tag) {
    std::vector<double> out;
    for (const auto& a : p.schedule.activities)
      if (a.tag == tag && a.kind == network::Activity::Kind::Transfer && a.gpu == gpu)
        out.push_back(a.amount * a.repeat);
    return out;
  };
  const double t = j.par.tp;
  const double half = 6 * layer_parameters(j.model) / t / 2;  // a bucket's layers: half a chunk
  const double word = double(j.model.vocab) * j.model.hidden / t;
  const double positions = double(j.model.sequence_length) * j.model.hidden / t;
  const int first = 0, last = 1;  // stages
  // g: bytes per gradient of the layers; the embeddings' at 4 B
  auto check = [&](const StepPlan& p, double g) {
    // stage 0: chunk 1 (2 buckets), then chunk 0, whose last bucket holds layer 0 and the embeddings
    const auto s0 = sent(p, p.stage_gpu[first], kTagDp);
    REQUIRE(s0.size() == 4);
    CHECK(s0[2] == Approx(s0[0]).epsilon(1e-12));
    CHECK(s0[3] / s0[0] == Approx((g * half + 4 * (word + positions)) / (g * half)).epsilon(1e-12));
    // stage 1: the tied copy's gradient in the first layer's bucket (chunk 0), not chunk 1's
    const auto s1 = sent(p, p.stage_gpu[last], kTagDp);
    REQUIRE(s1.size() == 4);
    CHECK(s1[0] == Approx(s1[1]).epsilon(1e-12));
    CHECK(s1[2] == Approx(s1[0]).epsilon(1e-12));
    CHECK(s1[3] / s1[0] == Approx((g * half + 4 * word) / (g * half)).epsilon(1e-12));
  };
  j.optimizer = "megatron";
  const auto meg = plan_step(j, a100, fabric, {});
  const auto meg0 = sent(meg, meg.stage_gpu[first], kTagDp);
  const auto meg_tied = sent(meg, meg.stage_gpu[first], kTagEmbedding);
  REQUIRE(meg0.size() == 4);
  REQUIRE(meg_tied.size() == 1);
  SECTION("megatron: every gradient in grad_reduce_dtype, spread over the chunk's buckets") {
    CHECK(meg0[3] == Approx(meg0[2]).epsilon(1e-12));
    CHECK(meg0[3] / meg0[0] == Approx((2 * half + (word + positions)) / (2 * half)).epsilon(1e-12));
  }
  SECTION("apex_distributed_fused_adam with bf16 sync: the embeddings at 4 B in the first layer's bucket") {
    j.optimizer = "apex_distributed_fused_adam";
    const auto p = plan_step(j, a100, fabric, {});
    check(p, 2.0);
    CHECK(p.fidelity.find("embeddings' gradients in fp32") != std::string::npos);  // the run's note says so
    CHECK(meg.fidelity.find("embeddings' gradients in fp32") == std::string::npos);
    // the bucket without embeddings as before; the tied-embedding all-reduce in fp32 (main_grad)
    CHECK(sent(p, p.stage_gpu[first], kTagDp)[0] == Approx(meg0[0]).epsilon(1e-12));
    const auto e = sent(p, p.stage_gpu[first], kTagEmbedding);
    REQUIRE(e.size() == 1);
    CHECK(e[0] == Approx(2 * meg_tied[0]).epsilon(1e-12));
    // one bucket per stage without overlap: the stage's bytes, the embeddings' at 4 B
    j.par.dp_overlap = false;
    const auto q = plan_step(j, a100, fabric, {});
    const auto s0 = sent(q, q.stage_gpu[first], kTagDp);
    REQUIRE(s0.size() == 1);
    CHECK(s0[0] / meg0[0] == Approx((2 * 4 * half + 4 * (word + positions)) / (2 * half)).epsilon(1e-12));
    const auto s1 = sent(q, q.stage_gpu[last], kTagDp);
    REQUIRE(s1.size() == 1);
    CHECK(s1[0] / meg0[0] == Approx((2 * 4 * half + 4 * word) / (2 * half)).epsilon(1e-12));
  }
  SECTION("untied: the output layer keeps grad_reduce_dtype, in its own chunk's buckets") {
    j.optimizer = "apex_distributed_fused_adam";
    j.model.untie_embeddings_and_output_weights = true;
    const auto p = plan_step(j, a100, fabric, {});
    const auto s0 = sent(p, p.stage_gpu[first], kTagDp);
    REQUIRE(s0.size() == 4);
    CHECK(s0[3] / s0[0] == Approx((2 * half + 4 * (word + positions)) / (2 * half)).epsilon(1e-12));
    const auto s1 = sent(p, p.stage_gpu[last], kTagDp);
    REQUIRE(s1.size() == 4);
    CHECK(s1[0] / s1[3] == Approx((2 * half + word) / (2 * half)).epsilon(1e-12));
    CHECK(s1[3] == Approx(s0[0]).epsilon(1e-12));
    CHECK(sent(p, p.stage_gpu[first], kTagEmbedding).empty());
  }
  SECTION("fp32 sync: the same bytes per stage, the embeddings moved to the first layer's bucket") {
    j.grad_reduce_dtype = "fp32";
    const auto m = plan_step(j, a100, fabric, {});
    const auto m0 = sent(m, m.stage_gpu[first], kTagDp);
    REQUIRE(m0.size() == 4);
    j.optimizer = "apex_distributed_fused_adam";
    const auto p = plan_step(j, a100, fabric, {});
    check(p, 4.0);
    const auto p0 = sent(p, p.stage_gpu[first], kTagDp);
    CHECK(std::accumulate(p0.begin(), p0.end(), 0.0) ==
          Approx(std::accumulate(m0.begin(), m0.end(), 0.0)).epsilon(1e-12));
  }
}

TEST_CASE("Apex DistributedFusedAdam: the untied output layer and sequence-parallel norms in the first layer's bucket",
          "[apex_first_bucket]") {
  // NeMo 24.09-alpha.rc0 megatron_gpt_model.py configure_optimizers: one bucket per layer (per virtual
  // stage when interleaved), the parameters outside the layers and the `_disable_overlap_grad_sync`
  // ones (sequence-parallel norms) appended to the first layer's (model.hpp first_bucket_parameters)
  const auto fabric = topology::build_fabric(small_fabric(16));
  const auto a100 = testing::a100_like();
  auto sent = [](const StepPlan& p, int gpu) {
    std::vector<double> out;
    for (const auto& a : p.schedule.activities)
      if (a.tag == kTagDp && a.kind == network::Activity::Kind::Transfer && a.gpu == gpu)
        out.push_back(a.amount * a.repeat);
    return out;
  };
  auto total = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); };
  // the 15B rows' shape: untied gpt, tp 2, no pipeline, zero1, 4 buckets over the 24 layers
  JobSpec j = gpt_job(2, 1, 2, 1, 16);  // dp 2: one transfer per bucket (a collapsed ring over 2 GPUs)
  j.model.untie_embeddings_and_output_weights = true;
  j.par.zero = "zero1";
  j.par.dp_overlap = true;
  j.grad_reduce_dtype = "bf16";
  const double t = j.par.tp, h = j.model.hidden;
  const double word = double(j.model.vocab) * h / t;
  const double positions = double(j.model.sequence_length) * h / t;
  const double norms = 24 * 4 * h / t;  // two LayerNorms (gain + bias) per layer
  const double chunk = chunk_parameters(j, 24, true, true, false);
  REQUIRE(chunk == Approx(24 * layer_parameters(j.model) / t + 2 * word + positions).epsilon(1e-12));
  // first: parameters in the first layer's bucket, fp32 of them at 4 B, the rest g B
  auto check = [&](const StepPlan& p, double g, double first, double fp32) {
    const auto s = sent(p, p.stage_gpu[0]);
    REQUIRE(s.size() == 4);
    const double other = g * (chunk - first) / 4;
    CHECK(s[1] == Approx(s[0]).epsilon(1e-12));
    CHECK(s[2] == Approx(s[0]).epsilon(1e-12));
    CHECK(s[3] / s[0] == Approx((other + g * (first - fp32) + 4 * fp32) / other).epsilon(1e-12));
  };
  j.optimizer = "megatron";
  const auto meg = plan_step(j, a100, fabric, {});
  SECTION("megatron: every gradient spread over the buckets") {
    CHECK(first_bucket_parameters(j, 24, true, true, false) == 0.0);
    check(meg, 4.0, 0, 0);
  }
  j.optimizer = "apex_distributed_fused_adam";
  SECTION("bf16 sync: the output layer (2 B) and the norms with the embeddings (4 B)") {
    CHECK(first_bucket_parameters(j, 24, true, true, false) == Approx(2 * word + positions + norms).epsilon(1e-12));
    check(plan_step(j, a100, fabric, {}), 2.0, 2 * word + positions + norms, word + positions);
  }
  SECTION("fp32 sync (the 15B rows): the same bytes as megatron's, moved to the first layer's bucket") {
    j.grad_reduce_dtype = "fp32";
    const auto p = plan_step(j, a100, fabric, {});
    check(p, 4.0, 2 * word + positions + norms, word + positions);
    j.optimizer = "megatron";
    CHECK(total(sent(p, p.stage_gpu[0])) ==
          Approx(total(sent(plan_step(j, a100, fabric, {}), p.stage_gpu[0]))).epsilon(1e-12));
  }
  SECTION("no sequence parallelism (or tp 1): the norms stay with their layers") {
    j.par.sequence_parallel = false;
    check(plan_step(j, a100, fabric, {}), 2.0, 2 * word + positions, word + positions);
    JobSpec one = j;
    one.par.sequence_parallel = true;
    one.par.tp = 1;
    CHECK(first_bucket_parameters(one, 24, true, true, false) ==
          Approx(2 * double(j.model.vocab) * h + double(j.model.sequence_length) * h).epsilon(1e-12));
  }
  SECTION("interleaved: the output layer in its own chunk's buckets, every chunk's norms in chunk 0's first layer's") {
    // pp 2 x v 2 chunks of 6 layers, 2 buckets per chunk; the last stage holds chunks 1 and 3
    JobSpec v = gpt_job(2, 2, 2, 2, 16);
    v.model.untie_embeddings_and_output_weights = true;
    v.par.zero = "zero1";
    v.par.dp_overlap = true;
    v.grad_reduce_dtype = "bf16";
    v.optimizer = "apex_distributed_fused_adam";
    const double layer = 6 * layer_parameters(v.model) / t, norm6 = 6 * 4 * h / t;
    CHECK(first_bucket_parameters(v, 6, false, true, true) == Approx(norm6).epsilon(1e-12));
    const auto p = plan_step(v, a100, fabric, {});
    const auto s1 = sent(p, p.stage_gpu[1]);  // chunk 3's two buckets, then chunk 1's
    REQUIRE(s1.size() == 4);
    CHECK(s1[0] == Approx(s1[1]).epsilon(1e-12));
    CHECK(s1[0] / s1[2] == Approx((layer - norm6 + word) / (layer - norm6)).epsilon(1e-12));
    CHECK(s1[3] / s1[2] == Approx((2 * (layer - norm6) / 2 + 2 * 2 * norm6) / ((layer - norm6))).epsilon(1e-12));
  }
}

TEST_CASE("plan_step: a dp_algorithm a DP group cannot run is an InvalidParameter on its key") {
  // tp 8 on 8-GPU domains: each DP group has one GPU in each of 3 (or 2) domains. 0.1.0 threw a
  // plain Error from the collective, no key; the checks before a run (check_dp_algorithm) say the same.
  const auto fabric = topology::build_fabric(small_fabric(24));
  for (const auto& [alg, why] : std::vector<std::pair<std::string, std::string>>{
           {"halving_doubling", "power-of-two group, got 3"}, {"sharp", "fabric.sharp: true"}}) {
    JobSpec j = gpt_job(8, 1, 3, 1, 3);
    j.par.dp_algorithm = alg;
    for (int run = 0; run < 2; ++run) {
      try {
        if (run == 0)
          plan_step(j, testing::a100_like(), fabric, {});
        else
          check_dp_algorithm(j, testing::a100_like(), fabric);
        FAIL(alg << ": no error");
      } catch (const InvalidParameter& e) {
        CHECK(e.key() == "workload.parallelism.dp_algorithm");
        CHECK(e.value() == alg);
        CHECK_THAT(e.expected(),
                   Catch::Contains(why) && Catch::Contains("pipeline stage 0, TP rank 0 (3 GPUs, 0 to 16"));
      }
    }
  }
  JobSpec ok = gpt_job(8, 1, 2, 1, 2);  // 2 replicas: a power of two
  ok.par.dp_algorithm = "halving_doubling";
  CHECK_NOTHROW(check_dp_algorithm(ok, testing::a100_like(), topology::build_fabric(small_fabric(16))));
}

namespace {
/// The step's shapes on small_fabric(64) whose makespan each add to differently: 1F1B whole,
/// interleaved with the analytic extension (`cap`: 6 microbatches simulated), 1F1B at lower clocks
/// with one slower GPU (`slow`), FSDP (measured extension), blocking exchanges (measured steady
/// pipeline), MoE with its EP all-to-alls across NVLink domains (extension with their waits).
struct StepShapes {
  JobSpec one_f1b = gpt_job(4, 4, 4, 1, 64), interleaved = gpt_job(4, 4, 4, 2, 64), fsdp = gpt_job(1, 1, 8, 1, 128),
          blocking = gpt_job(4, 4, 4, 1, 64), moe = gpt_job(1, 2, 32, 1, 256);
  StepOptions cap, slow;
};

StepShapes step_shapes() {
  StepShapes k;
  k.cap.max_simulated_microbatches = 6;
  k.slow = k.cap;
  k.slow.clock_factor.assign(64, 0.9);
  k.slow.clock_factor[5] = 0.7;
  k.fsdp.model.layers = 4;
  k.fsdp.par.zero = "fsdp";
  k.blocking.par.overlap_p2p_comm = false;
  k.moe.model.experts = 16;
  k.moe.model.top_k = 2;
  k.moe.par.ep = 16;
  return k;
}
}  // namespace

TEST_CASE("step_time is analyse_step's step time bit for bit", "[step_time]") {
  // The link-down samples of degrade mode read the step time alone (workload::step_time): it must
  // be analyse_step's, bit for bit, whatever adds to the makespan: no extension, the analytic
  // extension, the measured one (FSDP, blocking exchanges) and the layer collectives' waits.
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto a100 = testing::a100_like();
  auto same = [&](const JobSpec& j, StepOptions o, const char* what) {
    const StepPlan p = plan_step(j, a100, fabric, o);
    const auto run = evaluate(p.schedule, fabric);
    const double full = analyse_step(p, run).step_time, alone = step_time(p, run);
    INFO(what << ": analyse_step " << std::setprecision(17) << full << " s, step_time " << alone << " s, makespan "
              << run.makespan << " s");
    CHECK(std::memcmp(&full, &alone, sizeof full) == 0);
    return p;
  };
  const StepShapes k = step_shapes();
  const StepPlan whole = same(k.one_f1b, {}, "1F1B, every microbatch simulated");
  CHECK(whole.extra_microbatches == 0);
  CHECK(same(k.interleaved, k.cap, "interleaved, analytic extension").extra_microbatches > 0);
  same(k.one_f1b, k.slow, "1F1B at lower clocks, analytic extension");
  CHECK(same(k.fsdp, k.cap, "FSDP, measured extension").measured_extension);
  CHECK(same(k.blocking, k.cap, "blocking exchanges, measured steady pipeline").measured_steady_pipeline);
  // MoE with its EP all-to-alls across NVLink domains as flows: the extension adds their waits
  const StepPlan m = same(k.moe, k.cap, "MoE, EP all-to-alls as flows, analytic extension with their waits");
  CHECK(m.extra_microbatches > 0);
  CHECK(std::any_of(m.waits.begin(), m.waits.end(), [](const StepWait& w) { return w.kind == kTagEp; }));
}

namespace {

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every field of two plans, the doubles bit for bit.
void check_same_plan(const StepPlan& a, const StepPlan& b) {
  const auto& x = a.schedule.activities;
  const auto& y = b.schedule.activities;
  REQUIRE(x.size() == y.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    differ += !network::same_but_amount(x[i], y[i]) || !same_bits(x[i].amount, y[i].amount);
  CHECK(differ == 0);
  CHECK(same_bits(a.schedule.gpu_flops, b.schedule.gpu_flops));
  CHECK(same_bits(a.tokens_per_step, b.tokens_per_step));
  CHECK(same_bits(a.model_flops_per_step, b.model_flops_per_step));
  CHECK(same_bits(a.hardware_flops_per_step, b.hardware_flops_per_step));
  CHECK(same_bits(a.parameters, b.parameters));
  CHECK(a.fidelity == b.fidelity);
  CHECK(a.gpus == b.gpus);
  CHECK(a.representative_replica == b.representative_replica);
  CHECK(a.stragglers == b.stragglers);
  CHECK(a.dp_tail_begin == b.dp_tail_begin);
  CHECK(a.fabric_down == b.fabric_down);
  CHECK((a.pp == b.pp && a.chunks == b.chunks && a.microbatches == b.microbatches &&
         a.simulated_microbatches == b.simulated_microbatches));
  CHECK(a.layers == b.layers);
  CHECK(a.stage_gpu == b.stage_gpu);
  CHECK(a.stage_last_backward == b.stage_last_backward);
  CHECK(a.stage_optimizer == b.stage_optimizer);
  CHECK(a.stage_dp_done == b.stage_dp_done);
  CHECK(a.embedding_transfers == b.embedding_transfers);
  CHECK(a.stage_after_optimizer == b.stage_after_optimizer);
  for (auto f :
       {&StepPlan::compute, &StepPlan::tp, &StepPlan::cp, &StepPlan::ep, &StepPlan::optimizer, &StepPlan::extra_compute,
        &StepPlan::extra_tp, &StepPlan::extra_cp, &StepPlan::extra_ep, &StepPlan::per_microbatch})
    CHECK(same_bits(a.*f, b.*f));
  REQUIRE(a.waits.size() == b.waits.size());
  for (std::size_t i = 0; i < a.waits.size(); ++i)
    CHECK((a.waits[i].transfers == b.waits[i].transfers && a.waits[i].op == b.waits[i].op &&
           a.waits[i].prev == b.waits[i].prev && a.waits[i].kind == b.waits[i].kind));
  CHECK(same_bits(a.extra_time, b.extra_time));
  CHECK(a.measured_extension == b.measured_extension);
  CHECK(a.measured_steady_pipeline == b.measured_steady_pipeline);
  CHECK(a.extra_microbatches == b.extra_microbatches);
  CHECK(a.microbatch_done == b.microbatch_done);
  CHECK(a.microbatch_steady == b.microbatch_steady);
  CHECK(a.microbatch_group == b.microbatch_group);
  CHECK(a.microbatch_reduced == b.microbatch_reduced);
  CHECK(a.param_gather_buckets == b.param_gather_buckets);
}

}  // namespace

TEST_CASE("plan_step_reusing is plan_step bit for bit, taking the held plan's end-of-step part where it may",
          "[plan_reuse]") {
  // The steps at a cooling fault's or a hot day's lowest clock re-plan the training step: the DP
  // traffic at the end of the step does not depend on the clocks, and is taken from the held plan
  // (most of a large step's activities) unless the pipeline's ops (the representative replica) or
  // the fabric's state differ.
  const auto a100 = testing::a100_like();
  auto fabric = topology::build_fabric(small_fabric(64));
  std::vector<std::pair<std::string, JobSpec>> jobs;
  jobs.emplace_back("1F1B", gpt_job(4, 4, 4, 1, 64));
  jobs.emplace_back("interleaved", gpt_job(4, 4, 4, 2, 64));
  JobSpec z1 = gpt_job(2, 2, 16, 1, 64);
  z1.par.zero = "zero1";
  jobs.emplace_back("zero1", z1);
  z1.par.overlap_param_gather = true;
  jobs.emplace_back("zero1 overlap_param_gather", z1);
  JobSpec z2 = gpt_job(2, 2, 16, 1, 64);
  z2.model.layers = 4;
  z2.par.zero = "zero2";
  jobs.emplace_back("zero2", z2);
  z2.par.zero = "fsdp";
  jobs.emplace_back("fsdp", z2);
  JobSpec moe = gpt_job(1, 2, 32, 1, 256);
  moe.model.experts = 16;
  moe.model.top_k = 2;
  moe.par.ep = 16;
  jobs.emplace_back("MoE, EP as flows", moe);
  StepOptions slow;  // uniform lower clock: only amounts change
  slow.clock_factor.assign(64, 0.85);
  StepOptions other_replica;  // one GPU of another replica slowest: the representative moves
  other_replica.clock_factor.assign(64, 1.0);
  other_replica.clock_factor[63] = 0.6;
  int moved = 0;  // jobs whose representative replica the clocks move
  for (const auto& [name, j] : jobs) {
    INFO(name);
    const StepPlan base = plan_step(j, a100, fabric, {});
    REQUIRE(base.dp_tail_begin > 0);
    REQUIRE(base.dp_tail_begin < base.schedule.activities.size());
    {
      StepPlan held = base;
      bool reused = false;
      const StepPlan p = plan_step_reusing(j, a100, fabric, slow, held, true, &reused);
      CHECK(reused);
      CHECK(held.schedule.activities.empty());  // moved into p
      const StepPlan fresh = plan_step(j, a100, fabric, slow);
      check_same_plan(p, fresh);
      CHECK(p.schedule.activities[p.stage_optimizer[0]].amount ==
            fresh.schedule.activities[fresh.stage_optimizer[0]].amount);
      // and back: from the plan at the lower clock to full clock
      StepPlan again = p;
      check_same_plan(plan_step_reusing(j, a100, fabric, {}, again, true, &reused), base);
      CHECK(reused);
    }
    {
      StepPlan held = base;
      bool reused = true;
      const StepPlan p = plan_step_reusing(j, a100, fabric, other_replica, held, false, &reused);
      const StepPlan fresh = plan_step(j, a100, fabric, other_replica);
      if (fresh.representative_replica != base.representative_replica) {
        ++moved;
        CHECK(!reused);
        CHECK(held.schedule.activities.size() == base.schedule.activities.size());  // kept: release_held false
      }
      check_same_plan(p, fresh);
    }
  }
  CHECK(moved > 0);
  SECTION("a fabric state other than held's: the end-of-step part is planned again") {
    // GPU 1's NVLink port down: its ring hops inside the domain leave the NVLink (no merged
    // channels there), the end-of-step part differs from held's
    const JobSpec j = gpt_job(1, 1, 64, 1, 64);
    StepPlan held = plan_step(j, a100, fabric, {});
    fabric.set_link_up(fabric.nvlink_link(1), false);
    bool reused = true;
    const StepPlan p = plan_step_reusing(j, a100, fabric, slow, held, true, &reused);
    const StepPlan fresh = plan_step(j, a100, fabric, slow);
    CHECK(!reused);
    CHECK(held.schedule.activities.empty());  // released: release_held true
    check_same_plan(p, fresh);
    fabric.set_link_up(fabric.nvlink_link(1), true);
  }
}

TEST_CASE("analyse_step per stage: each stage's compute + exposed + bubble is the step", "[stage_partition]") {
  // The results' /step/stage_* (and their fractions) must add up for every stage, whatever adds to
  // the makespan (the analytic and the measured extensions, layer collectives as flows, clocks),
  // and their means over stages are the breakdown's (which zeroes a residue below 1e-12 step).
  const auto fabric = topology::build_fabric(small_fabric(64));
  const auto a100 = testing::a100_like();
  auto check = [&](const JobSpec& j, const StepOptions& o, const char* what) {
    const StepPlan p = plan_step(j, a100, fabric, o);
    const StepBreakdown b = analyse_step(p, evaluate(p.schedule, fabric));
    INFO(what << ", step " << b.step_time << " s");
    REQUIRE(b.stage_compute.size() == static_cast<std::size_t>(p.pp));
    REQUIRE(b.stage_exposed_comm.size() == b.stage_compute.size());
    REQUIRE(b.stage_bubble.size() == b.stage_compute.size());
    double c = 0, e = 0, u = 0;
    for (int s = 0; s < p.pp; ++s) {
      INFO("stage " << s << ": compute " << b.stage_compute[s] << ", exposed " << b.stage_exposed_comm[s] << ", bubble "
                    << b.stage_bubble[s]);
      CHECK(b.stage_compute[s] > 0);
      CHECK(b.stage_exposed_comm[s] >= 0);
      CHECK(b.stage_bubble[s] >= 0);
      CHECK(std::abs(b.stage_compute[s] + b.stage_exposed_comm[s] + b.stage_bubble[s] - b.step_time) <=
            1e-12 * b.step_time);
      c += b.stage_compute[s], e += b.stage_exposed_comm[s], u += b.stage_bubble[s];
    }
    const double n = p.pp, tol = 1e-12 * b.step_time;
    CHECK(std::abs(c / n - b.compute) <= tol);
    CHECK(std::abs(e / n - (b.exposed_tp + b.exposed_pp + b.exposed_dp + b.exposed_cp + b.exposed_ep)) <= tol);
    CHECK(std::abs(u / n - b.bubble) <= tol);
    return p;
  };
  const StepShapes k = step_shapes();
  check(k.one_f1b, {}, "1F1B, every microbatch simulated");
  CHECK(check(k.interleaved, k.cap, "interleaved, analytic extension").extra_microbatches > 0);
  check(k.one_f1b, k.slow, "1F1B at lower clocks, one slower GPU, analytic extension");
  CHECK(check(k.fsdp, k.cap, "FSDP, measured extension").measured_extension);
  CHECK(check(k.blocking, k.cap, "blocking exchanges, measured steady pipeline").measured_steady_pipeline);
  check(k.moe, k.cap, "MoE, EP all-to-alls as flows, analytic extension with their waits");
}
