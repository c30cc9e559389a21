#include "models/workload/step_report.hpp"

#include <algorithm>

#include "models/common/units.hpp"
#include "models/compute/kernels.hpp"
#include "models/workload/memory.hpp"
#include "models/workload/stragglers.hpp"

namespace aidcsim::workload {
namespace {

void add_step(Results& r, const StepReportInput& o, const compute::GpuSpec& gpu) {
  const auto& s = o.step;
  const int gpus = o.gpus;
  const double tokens_per_s = o.plan.tokens_per_step / s.step_time;
  const double achieved_flops = o.plan.model_flops_per_step / s.step_time / gpus;
  const double peak = compute::peak_flops(gpu, compute::precision_from(o.job.precision));
  r.add("gpus", gpus, "1", "GPUs in the job");
  r.add("parameters", o.plan.parameters, "1", "Model parameters (Megatron-LM SC21 eq. 2, generalised)");
  r.add("step_time", s.step_time, "s", "Simulated time of one training step (optimizer update), final clocks");
  r.add("step_time_unthrottled", o.unthrottled.step_time, "s", "Step time at full GPU clocks");
  r.add("tokens_per_step", o.plan.tokens_per_step, "1", "Global batch in tokens");
  r.add("tokens_per_second", tokens_per_s, "1/s", "Training throughput, tokens per second");
  r.add("mfu", 100.0 * achieved_flops / peak, "%",
        "Model FLOPs utilization: model FLOPs (no recompute) per second per GPU / dense peak");
  r.add("tflops_per_gpu", achieved_flops / 1e12, "TFLOP/s", "Achieved model TFLOP/s per GPU");
  r.add("step_compute", s.compute, "s", "Compute time on the critical path of a step");
  r.add("step_exposed_tp", s.exposed_tp, "s", "Exposed tensor-parallel communication per step");
  r.add("step_exposed_pp", s.exposed_pp, "s", "Exposed pipeline-parallel communication per step");
  r.add("step_exposed_dp", s.exposed_dp, "s", "Exposed data-parallel communication per step");
  r.add("step_bubble", s.bubble, "s", "Pipeline bubble per step");
}

// HBM per GPU by component (models/workload/memory.hpp): the most loaded stage in the summary,
// every stage in /memory.
void add_memory(Results& r, const StepReportInput& o, const compute::GpuSpec& gpu) {
  const auto stages = memory_per_stage(o.job);
  const auto peak = *std::max_element(stages.begin(), stages.end(),
                                      [](const auto& a, const auto& b) { return a.total() < b.total(); });
  r.add("hbm_per_gpu", peak.total() / units::kGiga, "GB",
        "Peak HBM per GPU (most loaded pipeline stage): model states, "
        "activations at the schedule's peak, logits, reserve");
  r.add("hbm_capacity", gpu.hbm_bytes / units::kGiga, "GB", "HBM per GPU of the GPU model");
  r.add("hbm_peak_stage", peak.stage, "1", "Pipeline stage of the most loaded GPU");
  r.add("hbm_weights", peak.weights / units::kGiga, "GB",
        "16-bit weights held during the step (FSDP: shard + gathered units)");
  r.add("hbm_gradients", peak.gradients / units::kGiga, "GB",
        "Gradient buffer (fp32 for bf16 by default; sharded for zero2/fsdp; + the reduced shards with "
        "workload.optimizer apex_distributed_fused_adam)");
  r.add("hbm_optimizer", peak.optimizer / units::kGiga, "GB",
        "Master weights and Adam moments (fp32, or workload.optimizer_dtype; sharded for zero1+), + Megatron's fp32 "
        "main gradients for 16-bit gradients (workload.optimizer megatron)");
  r.add("hbm_activations", peak.activations / units::kGiga, "GB",
        "Activations saved for backward at the schedule's peak: per layer the tensors of the model's shape as "
        "Korthikanti et al. 2022 count them (Megatron-style fused kernels assumed), times the microbatches in flight");
  r.add("hbm_logits", peak.logits / units::kGiga, "GB", "Output-layer logits kept for the loss's backward");
  r.add("hbm_reserve", peak.reserve / units::kGiga, "GB",
        "CUDA context, NCCL buffers, allocator slack (workload.memory_reserve)");
  std::vector<double> m;
  for (const auto& x : stages)
    for (double v : {x.weights, x.gradients, x.optimizer, x.activations, x.logits, x.reserve, x.total()})
      m.push_back(v);
  r.datasets.push_back(matrix_dataset("/memory/by_stage", m, stages.size(), 7, "B",
                                      "HBM per GPU of each pipeline stage by component", {"stage", "component"}));
  r.labels.push_back({"/memory/component",
                      {"weights", "gradients", "optimizer", "activations", "logits", "reserve", "total"},
                      "Components of /memory/by_stage"});
}

// Stragglers (cluster.gpu_speed, cluster.gpu_speed_distribution): the speed of every GPU.
void add_gpu_speed(Results& r, const StepReportInput& o, std::uint64_t seed) {
  const auto speed = gpu_speed_factors(o.job, o.gpus, o.gpus_per_node, seed);
  if (speed.empty()) return;
  r.datasets.push_back(vector_dataset("/step/gpu_speed", speed, "1",
                                      "Per GPU speed factor (stragglers: compute ops take 1/factor as long)", "gpu"));
  r.add("min_gpu_speed", 100.0 * *std::min_element(speed.begin(), speed.end()), "%",
        "Slowest GPU's speed (cluster.gpu_speed / gpu_speed_distribution)");
}

}  // namespace

void report_step(Results& r, const StepReportInput& in, const compute::GpuSpec& gpu, std::uint64_t seed) {
  add_step(r, in, gpu);
  add_gpu_speed(r, in, seed);
  add_memory(r, in, gpu);
  r.notes.push_back("step: " + in.plan.fidelity);
}

void report_step_breakdown(Results& r, const StepReportInput& o) {
  const auto& s = o.step;
  r.datasets.push_back(vector_dataset(
      "/step/breakdown", {s.compute, s.exposed_tp, s.exposed_pp, s.exposed_dp, s.exposed_cp, s.exposed_ep, s.bubble},
      "s", "Step time breakdown: compute, exposed TP/PP/DP/CP/EP communication, pipeline bubble", "component"));
  r.labels.push_back({"/step/component",
                      {"compute", "exposed_tp", "exposed_pp", "exposed_dp", "exposed_cp", "exposed_ep", "bubble"},
                      "Components of /step/breakdown"});
  if (s.stage_compute.empty() || !(s.step_time > 0)) return;
  // Per pipeline stage: the same partition of the step, as seconds and as fractions of step_time.
  const char* names[3] = {"compute", "exposed_communication", "bubble"};
  const char* what[3] = {"Compute per step of each pipeline stage's GPUs (forward, backward, optimizer)",
                         "Exposed communication per step of each pipeline stage's GPUs (TP, PP, DP, CP, EP "
                         "transfers waited on, not hidden under compute)",
                         "Pipeline bubble per step of each pipeline stage's GPUs (idle: fill, drain, stage "
                         "imbalance)"};
  const std::vector<double>* parts[3] = {&s.stage_compute, &s.stage_exposed_comm, &s.stage_bubble};
  for (int k = 0; k < 3; ++k)
    r.datasets.push_back(vector_dataset(std::string("/step/stage_") + names[k], *parts[k], "s",
                                        std::string(what[k]) + "; a stage's three sum to step_time", "stage"));
  for (int k = 0; k < 3; ++k) {
    std::vector<double> f(parts[k]->size());
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = (*parts[k])[i] / s.step_time;
    r.datasets.push_back(vector_dataset(std::string("/step/stage_") + names[k] + "_fraction", std::move(f), "1",
                                        std::string(what[k]) + " as a share of step_time; a stage's three sum to 1",
                                        "stage"));
  }
}

void report_gpu_load(Results& r, const StepBreakdown& site_step) {
  r.add("gpu_compute_busy", site_step.gpu_busy_compute_fraction, "1",
        "Thermal model's GPU load: share of the step computing, communication hidden under compute included, "
        "at compute power (stage mean; the site's step at its final clocks)");
  r.add("gpu_comm_busy", site_step.gpu_busy_comm_fraction, "1",
        "Thermal model's GPU load: share of the step in exposed communication (TP, PP, DP, CP, EP transfers "
        "waited on; stage mean), at power.comm_factor of the dynamic power; the rest of the step (bubble) is idle");
}

}  // namespace aidcsim::workload
