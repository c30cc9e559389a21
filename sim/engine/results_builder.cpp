#include "sim/engine/results_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "models/common/units.hpp"
#include "models/compute/kernels.hpp"
#include "models/workload/memory.hpp"
#include "models/workload/stragglers.hpp"
#include "sim/engine/fabric_checks.hpp"

namespace aidcsim {
namespace {

using units::kDay;
using units::kMega;

double celsius(double kelvin) { return units::to_celsius(kelvin); }

// Tier names in code order (topology::Tier): the coordinate of the "tier" axes and the meanings of
// /network/link_tier.
std::vector<std::string> tier_names() {
  std::vector<std::string> names;
  for (auto t : {topology::Tier::NvLink, topology::Tier::Access, topology::Tier::LeafSpine, topology::Tier::SpineCore})
    names.emplace_back(topology::tier_name(t));
  return names;
}

Dataset vector_dataset(std::string path, std::vector<double> data, std::string unit, std::string description,
                       std::string dim) {
  Dataset d;
  d.path = std::move(path);
  d.shape = {data.size()};
  d.data = std::move(data);
  d.unit = std::move(unit);
  d.description = std::move(description);
  d.dims = {std::move(dim)};
  return d;
}

Dataset matrix_dataset(std::string path, std::vector<double> data, std::size_t rows, std::size_t cols, std::string unit,
                       std::string description, std::vector<std::string> dims) {
  Dataset d;
  d.path = std::move(path);
  d.shape = {rows, cols};
  d.data = std::move(data);
  d.unit = std::move(unit);
  d.description = std::move(description);
  d.dims = std::move(dims);
  return d;
}

std::vector<double> to_celsius(const std::vector<double>& kelvin) {
  std::vector<double> c(kelvin.size());
  std::transform(kelvin.begin(), kelvin.end(), c.begin(), celsius);
  return c;
}

using thermal::Sample;

// One time series of a thermal transient: `field` of every sample, along the "time" axis.
void add_series(Results& r, std::string path, const std::vector<Sample>& samples,
                const std::function<double(const Sample&)>& field, std::string unit, std::string description) {
  std::vector<double> v;
  v.reserve(samples.size());
  for (const auto& s : samples) v.push_back(field(s));
  r.datasets.push_back(vector_dataset(std::move(path), std::move(v), std::move(unit), std::move(description), "time"));
}

/// Which GPU figures the run used, and which of them are estimates rather than published figures.
std::string gpu_note(const compute::GpuSpec& g) {
  std::string est;
  for (const auto& [field, source] : g.sources)
    if (g.estimated(field)) est += (est.empty() ? "" : ", ") + field;
  return "gpu: " + g.name + (g.description.empty() ? "" : " (" + g.description + ")") +
         "; figures and sources in docs/gpus.md" + (est.empty() ? "" : "; estimated (not published): " + est);
}

void add_step(Results& r, const SituationOutcome& o, const compute::GpuSpec& gpu) {
  const auto& s = o.step;
  const int gpus = o.fabric_spec.gpus;
  const double tokens_per_s = o.plan.tokens_per_step / s.step_time;
  const double achieved_flops = o.plan.model_flops_per_step / s.step_time / gpus;
  const double peak = compute::peak_flops(gpu, compute::precision_from(o.job.precision));
  r.add("gpus", gpus, "1", "GPUs in the job");
  r.add("parameters", o.plan.parameters, "1", "Model parameters (Megatron-LM SC21 eq. 2, generalised)");
  r.add("step_time", s.step_time, "s", "Simulated time of one training step (optimizer update), final clocks");
  r.add("step_time_unthrottled", o.step_unthrottled.step_time, "s", "Step time at full GPU clocks");
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
void add_memory(Results& r, const SituationOutcome& o, const compute::GpuSpec& gpu) {
  const auto stages = workload::memory_per_stage(o.job);
  const auto peak = *std::max_element(stages.begin(), stages.end(), [](const auto& a, const auto& b) {
    return a.total() < b.total();
  });
  r.add("hbm_per_gpu", peak.total() / units::kGiga, "GB", "Peak HBM per GPU (most loaded pipeline stage): model states, "
        "activations at the schedule's peak, logits, reserve");
  r.add("hbm_capacity", gpu.hbm_bytes / units::kGiga, "GB", "HBM per GPU of the GPU model");
  r.add("hbm_peak_stage", peak.stage, "1", "Pipeline stage of the most loaded GPU");
  r.add("hbm_weights", peak.weights / units::kGiga, "GB", "16-bit weights held during the step (FSDP: shard + gathered units)");
  r.add("hbm_gradients", peak.gradients / units::kGiga, "GB", "Gradient buffer (fp32 for bf16 by default; sharded for zero2/fsdp)");
  r.add("hbm_optimizer", peak.optimizer / units::kGiga, "GB", "fp32 master weights and Adam moments (sharded for zero1+)");
  r.add("hbm_activations", peak.activations / units::kGiga, "GB",
        "Activations saved for backward at the schedule's peak (Korthikanti et al. 2022, microbatches in flight)");
  r.add("hbm_logits", peak.logits / units::kGiga, "GB", "Output-layer logits kept for the loss's backward");
  r.add("hbm_reserve", peak.reserve / units::kGiga, "GB", "CUDA context, NCCL buffers, allocator slack (workload.memory_reserve)");
  std::vector<double> m;
  for (const auto& x : stages)
    for (double v : {x.weights, x.gradients, x.optimizer, x.activations, x.logits, x.reserve, x.total()}) m.push_back(v);
  r.datasets.push_back(matrix_dataset("/memory/by_stage", m, stages.size(), 7, "B",
                                      "HBM per GPU of each pipeline stage by component", {"stage", "component"}));
  r.labels.push_back({"/memory/component",
                      {"weights", "gradients", "optimizer", "activations", "logits", "reserve", "total"},
                      "Components of /memory/by_stage"});
}

// Stragglers (cluster.gpu_speed, cluster.gpu_speed_distribution): the speed of every GPU.
void add_gpu_speed(Results& r, const SituationOutcome& o, std::uint64_t seed) {
  const auto speed = workload::gpu_speed_factors(o.job, o.fabric_spec.gpus, o.fabric_spec.gpus_per_node, seed);
  if (speed.empty()) return;
  r.datasets.push_back(vector_dataset("/step/gpu_speed", speed, "1",
                                      "Per GPU speed factor (stragglers: compute ops take 1/factor as long)", "gpu"));
  r.add("min_gpu_speed", 100.0 * *std::min_element(speed.begin(), speed.end()), "%",
        "Slowest GPU's speed (cluster.gpu_speed / gpu_speed_distribution)");
}

// The priced BOM (models/topology/bom_price.hpp): links by medium, modules, power, indicative cost.
void add_fabric_cost(Results& r, const topology::FabricCost& c) {
  const auto& m = c.media;
  long long optical = 0;
  for (const auto& x : c.optics)
    if (x.medium != topology::Medium::Copper) optical += x.modules;
  r.add("links_copper", static_cast<double>(m[0].links), "1", "Scale-out links on copper (DAC), in-reach by the layout model");
  r.add("links_multimode", static_cast<double>(m[1].links), "1", "Scale-out links on multimode optics (SR, <= 50 m)");
  r.add("links_singlemode", static_cast<double>(m[2].links), "1", "Scale-out links on single-mode optics (DR/FR)");
  r.add("optical_modules", static_cast<double>(optical), "1",
        "Pluggable optical modules (twin-port switch modules count once)");
  r.add("cable_length", m[0].length + m[1].length + m[2].length, "m", "Total scale-out cable length (layout estimate)");
  r.add("fabric_power", c.power_total / 1e3, "kW", "Scale-out fabric power: switches + optics + NICs");
  r.add("fabric_power_switches", c.power_switches / 1e3, "kW", "Switches without optics (" + c.switch_model + ")");
  r.add("fabric_power_optics", c.power_optics / 1e3, "kW", "Pluggable optics at both ends of every link");
  r.add("fabric_power_nics", c.power_nics / 1e3, "kW", "GPU scale-out NICs without modules");
  r.add("fabric_cost", c.cost_total / 1e6, "MUSD", "INDICATIVE fabric CAPEX: switches + optics + NICs (bom_parts.yaml prices)");
  r.add("fabric_cost_switches", c.cost_switches / 1e6, "MUSD", "INDICATIVE switch cost");
  r.add("fabric_cost_optics", c.cost_optics / 1e6, "MUSD", "INDICATIVE optics and copper cable cost");
  r.add("fabric_cost_nics", c.cost_nics / 1e6, "MUSD", "INDICATIVE NIC cost");
  r.add("fabric_cost_per_gpu", c.nics ? c.cost_total / c.nics : 0.0, "USD", "INDICATIVE fabric cost per GPU");
}

void add_network(Results& r, const SituationOutcome& o) {
  const auto& c = o.congestion;
  r.add("max_link_utilization", 100.0 * c.max_utilization, "%",
        "Busiest scale-out link direction, bytes / (rate x step time)");
  r.add("p99_link_utilization", 100.0 * c.p99_utilization, "%",
        "99th percentile over scale-out link directions that carried traffic");
  r.add("links_above_80", c.links_above_80, "1",
        "Scale-out link directions above 80 % utilization averaged over the step (links_above_80_busiest_bin: "
        "in the busiest time bin)");
  r.add("switches", o.bom.switches, "1", "Scale-out switches (leaf + spine + core)");
  r.add("fabric_tiers", o.bom.tiers, "1", "Switch tiers as built (2: leaf-spine, 3: with a core tier)");
  r.add("oversubscription_leaf", o.bom.oversub_leaf, "1", "Leaf downlink:uplink capacity as built (max over leaves)");
  if (o.bom.tiers == 3)
    r.add("oversubscription_spine", o.bom.oversub_spine, "1", "Spine downlink:uplink capacity as built (max over spines)");
  r.add("bisection_bandwidth", o.bom.bisection_bandwidth * units::kBitsPerByte / 1e12, "Tb/s", "Fabric bisection bandwidth, one direction");
  add_fabric_cost(r, o.cost);
  const auto [base, queue] = network::rdma_latency_p99_estimate(o.fabric_spec, o.bom, c);
  r.add("rdma_latency_p99", (base + queue) * 1e6, "us",
        "Estimate: p99 one-way RDMA latency on the longest path, switches and cables + M/M/1 queueing at each "
        "tier's p99 link utilization (sim/engine/fabric_checks.hpp)");
  r.datasets.push_back(vector_dataset("/network/link_utilization", o.link_utilization, "1",
                                      "Per fabric link: max over both directions of bytes / (rate x step time)", "link"));
  r.datasets.push_back(vector_dataset("/network/link_bytes", o.link_bytes, "B",
                                      "Per fabric link: bytes carried in one step, both directions", "link"));
  std::vector<double> tiers(o.link_tiers.begin(), o.link_tiers.end());
  Dataset tier = vector_dataset("/network/link_tier", tiers, "1",
                                "Per fabric link: tier code (flag_meanings: NVLink, access NIC-leaf, leaf-spine, spine-core)",
                                "link");
  tier.flag_meanings = tier_names();
  r.datasets.push_back(std::move(tier));
  r.labels.push_back({"/network/link", o.link_names, "Per fabric link: name (endpoints)"});
  std::vector<double> max_by_tier(std::begin(c.max_by_tier), std::end(c.max_by_tier));
  std::vector<double> p99_by_tier(std::begin(c.p99_by_tier), std::end(c.p99_by_tier));
  r.datasets.push_back(vector_dataset("/network/max_utilization_by_tier", max_by_tier, "1",
                                      "Max link-direction utilization per tier (NVLink, access, leaf-spine, spine-core)", "tier"));
  r.datasets.push_back(vector_dataset("/network/p99_utilization_by_tier", p99_by_tier, "1",
                                      "p99 link-direction utilization per tier", "tier"));
  r.labels.push_back({"/network/tier", tier_names(), "Fabric tiers"});
  const auto& t = o.timeline;
  if (!t.time.empty()) {
    double peak = 0;  // scale-out tiers only (NVLink carries PP/DP flows only)
    for (std::size_t b = 0; b < t.time.size(); ++b)
      for (int tier = 1; tier < 4; ++tier) peak = std::max(peak, t.max_by_tier[b * 4 + tier]);
    r.add("peak_link_utilization", 100.0 * peak, "%",
          "Busiest scale-out link direction in the busiest time bin of the step (link timeline; "
          "max_link_utilization averages over the whole step)");
    r.add("links_above_80_busiest_bin", *std::max_element(t.above_alarm.begin(), t.above_alarm.end()), "1",
          "Scale-out link directions above 80 % in the time bin with the most of them (brief's alarm, "
          "judged in the checklist)");
    r.add("time_above_80", o.step.step_time > 0 ? 100.0 * std::min(1.0, t.time_above_alarm / o.step.step_time) : 0.0,
          "%", "Share of the step with at least one scale-out link direction above 80 % (time bins)");
    r.datasets.push_back(vector_dataset("/network/timeline/links_above_80",
                                        std::vector<double>(t.above_alarm.begin(), t.above_alarm.end()), "1",
                                        "Scale-out link directions above 80 % in each bin", "time"));
    r.datasets.push_back(vector_dataset("/network/timeline/time", t.time, "s",
                                        "Start of each bin of the step's link timeline, from the step's start",
                                        "time"));
    const std::size_t bins = t.time.size(), hot = t.hot.size();
    r.datasets.push_back(matrix_dataset("/network/timeline/max_utilization_by_tier", t.max_by_tier, bins, 4, "1",
                                        "Busiest link direction per tier in each bin, bytes / (rate x bin)", {"time", "tier"}));
    r.datasets.push_back(matrix_dataset("/network/timeline/mean_utilization_by_tier", t.mean_by_tier, bins, 4, "1",
                                        "Mean over each tier's link directions that carry traffic in the step", {"time", "tier"}));
    r.datasets.push_back(matrix_dataset("/network/timeline/hot_link_utilization", t.hot_utilization, bins, hot, "1",
                                        "The scale-out link directions with the highest peak utilization, over the step",
                                        {"time", "hot_link"}));
    r.labels.push_back({"/network/timeline/tier", tier_names(), "Fabric tiers"});
    r.labels.push_back({"/network/timeline/hot_link", o.timeline_hot_names,
                        "Hot link directions of /network/timeline/hot_link_utilization (up = lower to upper tier)"});
  }
}

// Checklist items come in SI (K, m^3/s, W); the results show them in the brief's units. Absolute
// temperatures are told from temperature differences by magnitude: no ΔT in a datacenter reaches
// 200 K, no absolute temperature is below it.
Check display_check(const thermal::ChecklistItem& c) {
  Check d{c.item, c.value, c.limit, c.unit, c.headroom, c.pass, c.note};
  if (c.unit == "K" && c.limit > 200.0) {
    d.value = celsius(c.value);
    d.limit = celsius(c.limit);
    d.unit = "degC";  // headroom stays a difference, in K
  } else if (c.unit == "m^3/s") {
    constexpr double kLitresPerMinute = units::kMinute / units::kLitre;  // (L/min) per (m^3/s)
    d.value *= kLitresPerMinute;
    d.limit *= kLitresPerMinute;
    d.headroom *= kLitresPerMinute;
    d.unit = "L/min";
  } else if (c.unit == "s" && c.limit < 1e-3) {  // network latencies (thermal items are in seconds)
    d.value *= 1e6;
    d.limit *= 1e6;
    d.headroom *= 1e6;
    d.unit = "us";
  } else if (c.unit == "B/s") {
    d.value *= 8 / 1e9;
    d.limit *= 8 / 1e9;
    d.headroom *= 8 / 1e9;
    d.unit = "Gb/s";
  } else if (c.unit == "W") {
    d.value /= 1e3;
    d.limit /= 1e3;
    d.headroom /= 1e3;
    d.unit = "kW";
  }
  return d;
}

void add_thermal(Results& r, const SituationOutcome& o) {
  const auto& t = o.thermal;
  r.add("max_gpu_temperature", celsius(t.max_gpu_temp), "degC", "Hottest GPU junction");
  r.add("gpu_temperature_headroom", t.gpu_temp_limit - t.max_gpu_temp, "K", "Throttle limit minus hottest GPU junction");
  r.add("coolant_inlet", celsius(t.coolant_inlet), "degC", "Hottest rack-loop supply to the cold plates");
  r.add("coolant_outlet", celsius(t.coolant_outlet), "degC", "Hottest rack-loop return");
  r.add("coolant_delta_t", t.loop_delta_t, "K", "Largest rack-loop ΔT (return - supply)");
  r.add("max_cold_plate_temperature", celsius(t.max_cold_plate_temp), "degC", "Hottest cold plate (hot spot)");
  r.add("max_server_inlet_air", celsius(t.max_air_inlet), "degC", "Hottest server inlet air (cold aisle + recirculation)");
  r.add("gpu_throttle_temperature", celsius(t.gpu_temp_limit), "degC", "GPU junction throttle limit (the GPU's, or cooling.limits.gpu_temp_limit)");
  r.add("gpu_shutdown_temperature", celsius(o.shutdown_temperature), "degC",
        "GPU thermal shutdown (the GPU's, or cooling.throttle.shutdown_temp)");
  r.add("throttled_gpus", t.gpus_over_limit, "1", "GPUs above their temperature limit at full clock");
  r.add("min_gpu_clock", 100.0 * *std::min_element(o.clocks.begin(), o.clocks.end()), "%", "Lowest GPU clock after throttling");
  r.add("it_power", t.it_power / kMega, "MW", "IT power: GPUs, CPUs, NICs, switches, rack overhead, PSU losses");
  r.add("cooling_power", t.cooling_power / kMega, "MW", "Pumps, rear-door fans, heat rejection");
  r.add("facility_power", t.facility_power / kMega, "MW", "IT + cooling + distribution losses");
  r.add("pue", t.pue, "1", "Power usage effectiveness = facility / IT");
  r.add("power_swing_amplitude", t.swing.amplitude / kMega, "MW", "Synchronized power swing of a training step, peak - trough");
  r.add("power_swing_period", t.swing.period, "s", "Period of the power swing (= step time)");
  const auto& st = t.state;
  r.datasets.push_back(vector_dataset("/thermal/gpu_junction_temperature", to_celsius(st.gpu_junction), "degC",
                                      "Per GPU junction temperature, steady state", "gpu"));
  r.datasets.push_back(vector_dataset("/thermal/gpu_power", st.gpu_power, "W", "Per GPU electrical power", "gpu"));
  r.datasets.push_back(vector_dataset("/thermal/gpu_clock", o.clocks, "1", "Per GPU clock factor (1 = full clock)", "gpu"));
  r.datasets.push_back(vector_dataset("/thermal/rack_inlet_temperature", to_celsius(st.rack_inlet), "degC",
                                      "Per rack coolant supply temperature", "rack"));
  r.datasets.push_back(vector_dataset("/thermal/rack_outlet_temperature", to_celsius(st.rack_outlet), "degC",
                                      "Per rack coolant return temperature", "rack"));
  r.datasets.push_back(vector_dataset("/thermal/rack_power", st.rack_power, "W", "Per rack electrical power", "rack"));
  for (const auto& c : t.checklist) r.checks.push_back(display_check(c));
}

// The brief's fabric checklist (sim/engine/fabric_checks.hpp), after the cooling one; `prefix`
// names the rollout phase of an earlier phase's items.
void add_fabric_checks(Results& r, const SituationOutcome& o, const std::string& prefix = "") {
  for (auto c : fabric_checklist(o.fabric_spec, o.bom, o.congestion, o.timeline, o.step.step_time)) {
    c.item = prefix + c.item;
    r.checks.push_back(display_check(c));
  }
}

// A rollout's earlier phases are judged too (brief: "each phase tested end to end before the
// next"): their cooling and fabric items, named "phase NAME: item", after the last phase's.
void add_phase_checks(Results& r, const std::vector<SituationOutcome>& outcomes) {
  for (std::size_t i = 0; i + 1 < outcomes.size(); ++i) {
    const std::string prefix = "phase " + outcomes[i].name + ": ";
    for (auto c : outcomes[i].thermal.checklist) {
      c.item = prefix + c.item;
      r.checks.push_back(display_check(c));
    }
    add_fabric_checks(r, outcomes[i], prefix);
  }
}

// Daily outdoor cycle: 24 h transient from midnight (sim/engine/situation.cpp).
void add_daily_transient(Results& r, const SituationOutcome& o) {
  const auto& t = o.daily_transient;
  r.add("daily_max_gpu_temperature", celsius(t.max_gpu_temp), "degC", "Hottest GPU junction over the daily outdoor cycle");
  r.add("daily_min_gpu_clock", 100.0 * t.min_clock, "%", "Lowest GPU clock over the daily outdoor cycle");
  r.add("daily_throttled_time", t.throttled_time, "s", "Time per day with any GPU throttled by the outdoor cycle");
  r.add("step_time_daily_worst", o.step_daily_worst.step_time, "s",
        "Step time re-simulated at the lowest clock of the daily outdoor cycle");
  const auto& x = t.samples;
  const std::string g = "/thermal/daily/";
  add_series(r, g + "time", x, [](const Sample& s) { return s.time; }, "s", "Sample times of the daily cycle (0 = midnight)");
  add_series(r, g + "outdoor_temperature", x, [](const Sample& s) { return celsius(s.outdoor_temp); }, "degC",
             "Outdoor dry-bulb over the day");
  add_series(r, g + "facility_supply", x, [](const Sample& s) { return celsius(s.facility_supply); }, "degC",
             "Facility water supply over the day");
  add_series(r, g + "max_gpu_temperature", x, [](const Sample& s) { return celsius(s.max_gpu_temp); }, "degC",
             "Hottest GPU junction over the day");
  add_series(r, g + "min_gpu_clock", x, [](const Sample& s) { return s.min_clock; }, "1", "Lowest GPU clock factor over the day");
  add_series(r, g + "facility_power", x, [](const Sample& s) { return s.facility_power / kMega; }, "MW",
             "Facility power over the day");
  add_series(r, g + "pue", x, [](const Sample& s) { return s.pue; }, "1", "PUE over the day");
}

void add_fault_transient(Results& r, const SituationOutcome& o) {
  const auto& t = o.fault_transient;
  r.add("fault_max_gpu_temperature", celsius(t.max_gpu_temp), "degC", "Hottest GPU junction during the scheduled cooling faults");
  r.add("fault_min_gpu_clock", 100.0 * t.min_clock, "%", "Lowest GPU clock during the cooling faults");
  r.add("fault_throttled_time", t.throttled_time, "s", "Time with any GPU throttled during the fault transient");
  r.add("fault_halted_time", t.halted_time, "s", "Time with a GPU at its shutdown temperature (the synchronous job stops)");
  r.add("step_time_during_fault", o.step_during_fault.step_time, "s",
        "Step time re-simulated at the lowest clock reached during the cooling faults");
  r.add("fault_energy_error", t.energy_error, "1", "Energy balance of the transient: |dissipated - stored - removed| / dissipated");
  const auto& x = t.samples;
  const std::string g = "/thermal/transient/";
  add_series(r, g + "time", x, [](const Sample& s) { return s.time; }, "s", "Sample times of the cooling-fault transient");
  add_series(r, g + "max_gpu_temperature", x, [](const Sample& s) { return celsius(s.max_gpu_temp); }, "degC",
             "Hottest GPU junction over time");
  add_series(r, g + "max_cold_plate_temperature", x, [](const Sample& s) { return celsius(s.max_cold_plate_temp); },
             "degC", "Hottest cold plate over time");
  add_series(r, g + "coolant_inlet", x, [](const Sample& s) { return celsius(s.coolant_inlet); }, "degC",
             "Hottest rack-loop supply over time");
  add_series(r, g + "coolant_outlet", x, [](const Sample& s) { return celsius(s.coolant_outlet); }, "degC",
             "Hottest rack-loop return over time");
  add_series(r, g + "min_flow_per_gpu", x, [](const Sample& s) { return s.min_flow_per_gpu * (units::kMinute / units::kLitre); }, "L/min",
             "Lowest coolant flow per GPU over time");
  add_series(r, g + "min_gpu_clock", x, [](const Sample& s) { return s.min_clock; }, "1", "Lowest GPU clock factor over time");
  add_series(r, g + "it_power", x, [](const Sample& s) { return s.it_power / kMega; }, "MW", "IT power over time");
  add_series(r, g + "facility_power", x, [](const Sample& s) { return s.facility_power / kMega; }, "MW",
             "Facility power over time");
  add_series(r, g + "pue", x, [](const Sample& s) { return s.pue; }, "1", "PUE over time");
  std::vector<double> alert_time;
  std::vector<std::string> alert_text;
  for (const auto& a : t.alerts) {
    alert_time.push_back(a.time);
    alert_text.push_back(a.level + " [" + a.source + "] " + a.message);
  }
  r.datasets.push_back(vector_dataset("/thermal/alerts/time", alert_time, "s", "Time of each monitoring alert or action", "alert"));
  r.labels.push_back({"/thermal/alerts/message", alert_text, "Alert log: level [source] message", "alert"});
}

// Cooling-fault verdicts (thermal/verdict.hpp): one row per fault under /thermal/faults/, its own
// transient under /thermal/faults/fault_<n>/, its checks in the checklist ("fault n: ..."), and the
// monitoring actions that fired under /thermal/actions/.
void add_fault_verdicts(Results& r, const SituationOutcome& o) {
  const auto& vs = o.fault_verdicts;
  std::vector<double> start, duration, peak, above, shutdown, gpus_off, lost_h, lost_gpu_h, clock, pass;
  std::vector<std::string> name, description, failed, inherited;
  int passed = 0;
  auto joined = [](const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
  };
  double total_gpu_h = 0;
  for (const auto& v : vs) {
    name.push_back(v.name);
    description.push_back(v.description);
    failed.push_back(joined(v.failed));
    inherited.push_back(joined(v.inherited));
    start.push_back(v.fault.at);
    duration.push_back(v.fault.duration);
    peak.push_back(celsius(v.peak_gpu_temp));
    above.push_back(v.time_above_throttle);
    shutdown.push_back(v.time_at_shutdown);
    gpus_off.push_back(v.gpus_shutdown);
    lost_h.push_back(v.lost_training_time / units::kHour);
    lost_gpu_h.push_back(v.lost_gpu_hours);
    clock.push_back(v.min_clock);
    pass.push_back(v.pass ? 1 : 0);
    passed += v.pass;
    total_gpu_h += v.lost_gpu_hours;
    for (const auto& c : v.checks) {
      Check d = display_check(c);
      d.item = v.name + ": " + d.item;
      r.checks.push_back(std::move(d));
    }
    const std::string g = "/thermal/faults/fault_" + std::to_string(v.index + 1) + "/";
    const auto& x = v.transient.samples;
    add_series(r, g + "time", x, [](const Sample& s) { return s.time; }, "s", v.name + " (" + v.description + "): sample times");
    add_series(r, g + "max_gpu_temperature", x, [](const Sample& s) { return celsius(s.max_gpu_temp); }, "degC",
               "Hottest GPU junction, this fault alone");
    add_series(r, g + "max_cold_plate_temperature", x, [](const Sample& s) { return celsius(s.max_cold_plate_temp); },
               "degC", "Hottest cold plate, this fault alone");
    add_series(r, g + "coolant_inlet", x, [](const Sample& s) { return celsius(s.coolant_inlet); }, "degC",
               "Hottest rack-loop supply, this fault alone");
    add_series(r, g + "coolant_outlet", x, [](const Sample& s) { return celsius(s.coolant_outlet); }, "degC",
               "Hottest rack-loop return, this fault alone");
    add_series(r, g + "max_server_inlet_air", x, [](const Sample& s) { return celsius(s.max_air_inlet); }, "degC",
               "Hottest server inlet air, this fault alone");
    add_series(r, g + "min_gpu_clock", x, [](const Sample& s) { return s.min_clock; }, "1",
               "Lowest GPU clock factor (0 while a GPU is shut down), this fault alone");
  }
  const std::string f = "/thermal/faults/";
  r.labels.push_back({f + "name", name, "Cooling faults judged, one row each (cooling.faults order)", "fault"});
  r.labels.push_back({f + "description", description, "What each fault is, where and when", "fault"});
  r.labels.push_back({f + "failed", failed, "Checks that fail the fault's verdict (comma-separated; empty: pass)", "fault"});
  r.labels.push_back({f + "inherited", inherited,
                      "Checks failing already before the fault (steady state): reported, not counted in the verdict", "fault"});
  r.datasets.push_back(vector_dataset(f + "start", start, "s", "Fault start, from the training start", "fault"));
  r.datasets.push_back(vector_dataset(f + "duration", duration, "s", "Fault duration (inf: not repaired)", "fault"));
  r.datasets.push_back(vector_dataset(f + "peak_gpu_temperature", peak, "degC", "Hottest GPU junction in the fault's run", "fault"));
  r.datasets.push_back(vector_dataset(f + "time_above_throttle", above, "s", "Time with a GPU junction above its throttle limit", "fault"));
  r.datasets.push_back(vector_dataset(f + "time_at_shutdown", shutdown, "s",
                                      "Time with a GPU at its shutdown temperature (the synchronous job halted)", "fault"));
  r.datasets.push_back(vector_dataset(f + "gpus_at_shutdown", gpus_off, "1", "GPU thermal shutdowns in the fault's run", "fault"));
  r.datasets.push_back(vector_dataset(f + "lost_training_time", lost_h, "h",
                                      "Training time lost: sum of dt (1 - 1/m), m the step-time multiplier of the slowest GPU's clock "
                                      "(1 while halted)", "fault"));
  r.datasets.push_back(vector_dataset(f + "lost_gpu_hours", lost_gpu_h, "h",
                                      "GPU-hours lost: the job's GPUs x training time lost (they wait on the slowest)", "fault"));
  r.datasets.push_back(vector_dataset(f + "min_gpu_clock", clock, "1", "Lowest GPU clock factor in the fault's run", "fault"));
  Dataset verdict = vector_dataset(f + "pass", pass, "1", "Verdict: 1 when every check of the fault passes", "fault");
  verdict.flag_meanings = {"fail", "pass"};
  r.datasets.push_back(std::move(verdict));
  r.add("cooling_faults", static_cast<double>(vs.size()), "1", "Cooling faults judged, each in its own transient");
  r.add("cooling_faults_passed", passed, "1", "Cooling faults that break no limit the site met before them, with no "
                                              "throttling, no shutdown, failover < 10 s, interruption < 5 min");
  r.add("cooling_faults_lost_gpu_hours", total_gpu_h, "h", "GPU-hours lost over all cooling faults, each judged alone");

  std::vector<double> at, fault, lost, peak_after, off_after, cleared, apass;
  std::vector<std::string> aname, anote;
  for (const auto& a : o.action_verdicts) {
    aname.push_back(a.record.alert_level + " " + a.record.sensor + ": " + a.record.action);
    anote.push_back(a.note);
    at.push_back(a.record.time);
    fault.push_back(a.fault + 1);
    lost.push_back(a.record.lost_training_time / units::kHour);
    peak_after.push_back(celsius(a.record.peak_gpu_temp_after));
    off_after.push_back(a.record.shutdown_time_after);
    cleared.push_back(a.record.cleared - a.record.time);
    apass.push_back(a.pass ? 1 : 0);
  }
  if (aname.empty()) return;
  const std::string g = "/thermal/actions/";
  r.labels.push_back({g + "name", aname, "Monitoring response actions that fired: alert level, sensor, action", "action"});
  r.labels.push_back({g + "note", anote, "What followed each action", "action"});
  r.datasets.push_back(vector_dataset(g + "time", at, "s", "When the action fired, from the training start", "action"));
  r.datasets.push_back(vector_dataset(g + "fault", fault, "1", "Fault (1-based, /thermal/faults/name) during whose run it fired", "action"));
  r.datasets.push_back(vector_dataset(g + "cleared_after", cleared, "s", "Time until the alert it answered cleared (inf: not in the run)", "action"));
  r.datasets.push_back(vector_dataset(g + "lost_training_time", lost, "h", "Training time lost from its firing to the end of the run", "action"));
  r.datasets.push_back(vector_dataset(g + "peak_gpu_temperature", peak_after, "degC", "Hottest GPU junction after it fired", "action"));
  r.datasets.push_back(vector_dataset(g + "time_at_shutdown", off_after, "s", "Time with a GPU shut down after it fired", "action"));
  Dataset answered = vector_dataset(g + "pass", apass, "1", "1 when its alert cleared in the run and no GPU was at shutdown after it",
                                    "action");
  answered.flag_meanings = {"fail", "pass"};
  r.datasets.push_back(std::move(answered));
}

void add_time_to_train(Results& r, const reliability::PhasedResult& p) {
  const auto& t = p.overall;
  r.add("training_tokens", t.tokens, "1", "Tokens to train");
  r.add("time_to_train_ideal", t.ideal / kDay, "d",
        "Time-to-train without failures or checkpoints: tokens over the simulated throughput of each batch size "
        "and rollout phase");
  r.add("time_to_train", t.expected_mean / kDay, "d", "Expected time-to-train with failures, restarts and checkpoints (Monte Carlo mean)");
  r.add("time_to_train_p10", t.p10 / kDay, "d", "Time-to-train, 10th percentile of the draws");
  r.add("time_to_train_p50", t.p50 / kDay, "d", "Time-to-train, median of the draws");
  r.add("time_to_train_p90", t.p90 / kDay, "d", "Time-to-train, 90th percentile of the draws");
  r.add("ettr", t.ettr, "1", "Effective training time ratio (productive time / wall time)");
  r.add("expected_interruptions", t.expected_interruptions, "1", "Mean job interruptions over the training run");
  r.add("job_mtbf", t.job_mtbf / units::kHour, "h", "Mean time between job-stopping failures");
  r.add("checkpoint_interval", t.checkpoint_interval / 60.0, "min", "Checkpoint interval used (training work between checkpoints)");
  std::vector<double> days(t.samples.size());
  std::transform(t.samples.begin(), t.samples.end(), days.begin(), [](double s) { return s / kDay; });
  r.datasets.push_back(vector_dataset("/reliability/time_to_train_samples", days, "d",
                                      "Time-to-train of each Monte Carlo draw, in draw order", "draw"));
  std::vector<std::string> causes;
  std::vector<double> hours;
  for (const auto& [cause, h] : t.lost_gpu_hours_by_cause) {
    causes.push_back(cause);
    hours.push_back(h);
  }
  r.datasets.push_back(vector_dataset("/reliability/lost_gpu_hours", hours, "h",
                                      "Mean GPU-hours lost per cause (lost work + restarts)", "cause"));
  r.labels.push_back({"/reliability/cause", causes, "Failure causes of /reliability/lost_gpu_hours"});
}

/// Write time of a simulated checkpoint as the time-to-train model uses it: async, alongside
/// training; sync, alone (training waits for it).
double checkpoint_time_used(const Scenario& sc, const CheckpointWrite& w) {
  const bool async = sc.training.reliability.mode == reliability::CheckpointMode::Async;
  return async && w.training_time > 0 ? w.training_time : w.idle_time;
}

void add_phases(Results& r, const Scenario& sc, const std::vector<SituationOutcome>& outcomes,
                const reliability::PhasedResult& p) {
  std::vector<std::string> names;
  std::vector<double> gpus, step, util, temp, it, start, tokens, wall, batch, step_failed, faults_failed, ckpt;
  bool any_failure = false, any_verdict = false, any_ckpt = false;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    names.push_back(o.name);
    gpus.push_back(o.fabric_spec.gpus);
    step.push_back(o.step.step_time);
    any_ckpt = any_ckpt || o.has_checkpoint_write;
    ckpt.push_back(o.has_checkpoint_write ? checkpoint_time_used(sc, o.checkpoint_write) : 0.0);
    batch.push_back(o.plan.tokens_per_step);
    step_failed.push_back(o.fabric_events.empty() ? o.step.step_time : o.fabric_events.back().step_time);
    any_failure = any_failure || !o.fabric_events.empty();
    util.push_back(100.0 * o.congestion.max_utilization);
    temp.push_back(celsius(o.thermal.max_gpu_temp));
    it.push_back(o.thermal.it_power / kMega);
    faults_failed.push_back(static_cast<double>(
        std::count_if(o.fault_verdicts.begin(), o.fault_verdicts.end(), [](const auto& v) { return !v.pass; })));
    any_verdict = any_verdict || !o.fault_verdicts.empty();
    if (i < p.phases.size()) {
      start.push_back(p.phases[i].start);
      tokens.push_back(p.phases[i].mean_tokens_trained);
      wall.push_back(p.phases[i].mean_wall / kDay);
    }
  }
  r.labels.push_back({"/phases/phase", names, "Rollout phase names"});
  r.datasets.push_back(vector_dataset("/phases/gpus", gpus, "1", "GPUs per phase", "phase"));
  r.datasets.push_back(vector_dataset("/phases/step_time", step, "s", "Step time per phase", "phase"));
  r.datasets.push_back(vector_dataset("/phases/tokens_per_step", batch, "1",
                                      "Global batch per phase, tokens (weak scaling: grows with DP)", "phase"));
  if (any_failure)
    r.datasets.push_back(vector_dataset("/phases/step_time_after_fabric_failures", step_failed, "s",
                                        "Step time per phase after the timed fabric failures its fabric has "
                                        "(= step_time when none)", "phase"));
  if (any_ckpt)
    r.datasets.push_back(vector_dataset("/phases/checkpoint_write_time", ckpt, "s",
                                        "Checkpoint write time simulated on the phase's storage fabric", "phase"));
  r.datasets.push_back(vector_dataset("/phases/max_link_utilization", util, "%", "Max scale-out link utilization per phase", "phase"));
  r.datasets.push_back(vector_dataset("/phases/max_gpu_temperature", temp, "degC", "Hottest GPU junction per phase", "phase"));
  r.datasets.push_back(vector_dataset("/phases/it_power", it, "MW", "IT power per phase", "phase"));
  if (any_verdict)
    r.datasets.push_back(vector_dataset("/phases/cooling_faults_failed", faults_failed, "1",
                                        "Cooling faults failing their verdict in the phase (each judged alone)", "phase"));
  if (!start.empty()) {
    r.datasets.push_back(vector_dataset("/phases/start", start, "seconds since 1970-01-01 00:00:00 UTC", "Phase start date", "phase"));
    r.datasets.push_back(vector_dataset("/phases/tokens_trained", tokens, "1", "Mean tokens trained in the phase", "phase"));
    r.datasets.push_back(vector_dataset("/phases/wall_time", wall, "d", "Mean days the job spent in the phase", "phase"));
  }
}

std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string tokens_text(double t) {
  char buf[48];
  if (t == 0) return "0";
  if (std::fabs(t) >= 1e12) std::snprintf(buf, sizeof buf, "%.3gT", t / 1e12);
  else if (std::fabs(t) >= 1e9) std::snprintf(buf, sizeof buf, "%.3gB", t / 1e9);
  else std::snprintf(buf, sizeof buf, "%.3gM", t / 1e6);
  return buf;
}

// Convergence against the batch (training.convergence, models/reliability/convergence.hpp): what
// the larger batches cost in tokens, or a note that the run assumes they cost nothing.
void add_convergence(Results& r, const Scenario& sc, const std::vector<SituationOutcome>& outcomes,
                     const reliability::PhasedResult& p) {
  const auto& conv = sc.training.convergence;
  double lo = outcomes.front().plan.tokens_per_step, hi = lo;
  for (const auto& o : outcomes) lo = std::min(lo, o.plan.tokens_per_step), hi = std::max(hi, o.plan.tokens_per_step);
  for (const auto& b : sc.training.batch_schedule) lo = std::min(lo, b.global_batch), hi = std::max(hi, b.global_batch);
  if (conv.model == reliability::ConvergenceModel::None) {
    r.notes.push_back(
        "convergence vs batch size: off (training.convergence.model: none), the tokens to the target do not depend "
        "on the global batch" +
        (hi > lo ? " although it goes from " + tokens_text(lo) + " to " + tokens_text(hi) +
                       " tokens per step: beyond the critical batch size a run needs more tokens for the same loss "
                       "(McCandlish et al. 2018), training.convergence.model: kaplan estimates the cost"
                 : std::string(" (one batch of ") + tokens_text(lo) + " tokens per step throughout)"));
    return;
  }
  const auto& t = p.overall;
  r.add("tokens_trained", t.tokens_trained, "1",
        "Mean tokens actually trained to reach the target (training_tokens are counted at the reference batch)");
  r.add("extra_tokens", t.tokens_trained - t.tokens, "1",
        "Tokens the batches above the reference batch cost beyond training_tokens (critical batch size model)");
  r.add("reference_batch", t.reference_batch, "1", "Tokens per step training_tokens are counted at");
  std::string model = conv.model == reliability::ConvergenceModel::Kaplan
                          ? "Kaplan et al. 2020 fit B_crit = " + tokens_text(conv.b_star) + " / L^(1/" +
                                fmt_number(conv.alpha_b) + ") at the Chinchilla loss of the progress"
                          : "a fixed B_crit of " + tokens_text(conv.critical_batch) + " tokens";
  std::string phases;
  if (p.phases.size() > 1) {
    std::vector<double> extra, crit, progress;
    for (const auto& ph : p.phases) {
      extra.push_back(ph.mean_tokens_trained - ph.mean_tokens);
      crit.push_back(ph.critical_batch);
      progress.push_back(ph.mean_tokens);
      char item[240];
      const std::string at_start = ph.critical_batch > 0 ? "B_crit " + tokens_text(ph.critical_batch) + " at its start"
                                                         : "from the first step, B_crit ~0";
      std::snprintf(item, sizeof item, "; %s at %s tokens/step (%s): %s%s tokens", ph.name.c_str(),
                    tokens_text(ph.batch).c_str(), at_start.c_str(),
                    ph.mean_tokens_trained >= ph.mean_tokens ? "+" : "",
                    tokens_text(ph.mean_tokens_trained - ph.mean_tokens).c_str());
      phases += item;
    }
    r.datasets.push_back(vector_dataset("/phases/extra_tokens", extra, "1",
                                        "Mean tokens the phase's batch costs beyond the reference batch's for the same "
                                        "progress (critical batch size model)", "phase"));
    r.datasets.push_back(vector_dataset("/phases/critical_batch", crit, "1",
                                        "Critical batch (tokens) where the phase starts on average", "phase"));
    r.datasets.push_back(vector_dataset("/phases/progress_tokens", progress, "1",
                                        "Mean progress of the phase in tokens at the reference batch", "phase"));
  }
  char head[240];
  std::snprintf(head, sizeof head, "convergence vs batch size: %s tokens at the reference batch of %s tokens take %s tokens (%+.1f %%)",
                tokens_text(t.tokens).c_str(), tokens_text(t.reference_batch).c_str(),
                tokens_text(t.tokens_trained).c_str(), 100.0 * (t.tokens_trained / t.tokens - 1));
  r.notes.push_back(std::string(head) + ", E = E_min (1 + B/B_crit) (McCandlish et al. 2018 eq. 2.11, which assumes "
                    "a learning rate tuned at each batch) with " + model + phases +
                    (conv.model == reliability::ConvergenceModel::Kaplan
                         ? ". Kaplan's fit is from WebText2 losses of models up to 1.5B parameters, applied here to "
                           "Chinchilla's loss (other data, other tokenizer): an estimate (Zhang et al. 2024, "
                           "arXiv:2410.21676, find B_crit scaling with the data seen rather than the model); "
                           "training.convergence.b_star/alpha_b or model: fixed take a measured value"
                         : ""));
}

// Step variants the time-to-train model uses (sim/engine/step_variants.hpp).
// Storage on the fabric (fabric.storage): the checkpoint written as flows, its bandwidth bounds and
// bottleneck, and what the simulation leaves out.
void add_storage(Results& r, const Scenario& sc, const SituationOutcome& o) {
  if (!o.has_checkpoint_write) {
    r.notes.push_back("storage: not on the fabric (no fabric.storage): a checkpoint takes its bytes / "
                      "reliability.storage_bandwidth, without contention with training traffic");
    return;
  }
  const CheckpointWrite& w = o.checkpoint_write;
  const double used = checkpoint_time_used(sc, w);
  r.add("checkpoint_write_time", used, "s",
        "Checkpoint write time simulated as flows to the storage servers (async: alongside training steps; sync: alone)");
  r.add("checkpoint_write_time_idle", w.idle_time, "s", "Checkpoint write time on an otherwise idle fabric");
  if (w.steps_alongside > 0)
    r.add("checkpoint_write_time_training", w.training_time, "s",
          "Checkpoint write time alongside back-to-back training steps (async checkpoints)");
  r.add("storage_bandwidth_effective", used > 0 ? w.bytes / used / 1e9 : 0.0, "GB/s",
        "Checkpoint bytes / checkpoint_write_time: the bandwidth the time-to-train model uses");
  if (w.steps_alongside > 0 && w.step_time_alone > 0)
    r.add("checkpoint_step_slowdown", w.step_time_with_write / w.step_time_alone, "1",
          "Simulated part of the step with the checkpoint write alongside / alone");
  const std::string g = "/storage/";
  r.labels.push_back({g + "bound", {"media", "storage_nics", "gpu_nics"}, "Link classes of the write's bandwidth bounds"});
  r.datasets.push_back(vector_dataset(g + "bandwidth_bound", {w.media_bound / 1e9, w.storage_nic_bound / 1e9, w.gpu_nic_bound / 1e9},
                                      "GB/s", "Checkpoint bytes / the longest time any link of the class needs for its "
                                      "bytes alone (idle fabric)", "bound"));
  r.labels.push_back({g + "bottleneck", {bottleneck_name(w.bottleneck)},
                      "Link class of the busiest link direction while the checkpoint is written on an idle fabric", "bottleneck"});
  const bool async = sc.training.reliability.mode == reliability::CheckpointMode::Async;
  char line[512];
  std::snprintf(line, sizeof line,
                "storage: checkpoint of %.4g TB written as %d flows, one shard of bytes / GPUs per rank (fully sharded "
                "distributed checkpoint), rank r to storage server r %% %d through its NIC (r / %d) %% %d; alone %.4g s "
                "(bottleneck: %s, %.0f %% busy)",
                w.bytes / 1e12, w.shards, o.fabric_spec.storage.nodes, o.fabric_spec.storage.nodes,
                o.fabric_spec.storage.nics_per_node, w.idle_time, bottleneck_name(w.bottleneck),
                100 * w.bottleneck_utilization);
  std::string note = line;
  if (w.steps_alongside > 0) {
    std::snprintf(line, sizeof line, ", alongside %d back-to-back training step%s %.4g s%s", w.steps_alongside,
                  w.steps_alongside == 1 ? "" : "s", w.training_time,
                  w.steps_capped ? " (it outlasts them: the rest runs on an idle fabric)" : "");
    note += line;
  }
  note += std::string("; time-to-train uses the time ") + (used == w.idle_time ? "alone" : "alongside training") +
          " (checkpoint_mode " + (async ? "async" : "sync") + ")" +
          (sc.training.reliability.storage_bandwidth_given ? ", capped by reliability.storage_bandwidth" : "") +
          ". Not simulated: the restart's read (load = bytes / the same bandwidth), data loading" +
          (async ? ", the step's slowdown while the checkpoint persists (checkpoint_step_slowdown, not in ETTR)" : "");
  r.notes.push_back(note);
}

void add_step_variants(Results& r, const SituationOutcome& o) {
  if (!o.step_by_batch.empty()) {
    std::vector<double> batch, step;
    for (const auto& b : o.step_by_batch) {
      batch.push_back(b.global_batch);
      step.push_back(b.step_time);
    }
    r.datasets.push_back(vector_dataset("/step/by_batch/global_batch", batch, "1",
                                        "Global batches of training.batch_schedule as simulated, tokens per step", "global_batch"));
    r.datasets.push_back(vector_dataset("/step/by_batch/step_time", step, "s",
                                        "Step time at each global batch of /step/by_batch/global_batch", "global_batch"));
  }
  if (!o.link_down.links.empty()) {
    const auto& d = o.link_down;
    r.add("step_time_link_down", d.step_time, "s",
          "Mean step time with one loaded leaf-spine/spine-core link down and its flows rerouted (degrade mode)");
    r.datasets.push_back(vector_dataset("/network/link_down/step_time", d.step_times, "s",
                                        "Step time with each sampled loaded link down", "link"));
    std::vector<double> rerouted(d.rerouted_flows.begin(), d.rerouted_flows.end());
    r.datasets.push_back(vector_dataset("/network/link_down/rerouted_flows", rerouted, "1",
                                        "Transfers of the step whose route crossed the sampled link", "link"));
    r.labels.push_back({"/network/link_down/link", d.links, "Sampled loaded links, failed one at a time"});
  }
  if (!o.fabric_events.empty()) {
    std::vector<double> at, step, rerouted;
    std::vector<std::string> what;
    for (const auto& e : o.fabric_events) {
      at.push_back(e.at);
      step.push_back(e.step_time);
      rerouted.push_back(e.rerouted_flows);
      what.push_back(e.what);
    }
    r.add("step_time_after_fabric_failures", step.back(), "s",
          "Step time after every timed fabric failure (fabric.failures with at > 0)");
    r.datasets.push_back(vector_dataset("/network/failures/time", at, "s",
                                        "Time of each timed fabric failure, from the training start", "failure"));
    r.datasets.push_back(vector_dataset("/network/failures/step_time", step, "s",
                                        "Step time re-simulated with this and every earlier failure applied", "failure"));
    r.datasets.push_back(vector_dataset("/network/failures/rerouted_flows", rerouted, "1",
                                        "Transfers of the step whose route crossed an element this failure took down",
                                        "failure"));
    r.labels.push_back({"/network/failures/element", what, "Timed fabric failures: type and element", "failure"});
  }
}

void add_step_breakdown(Results& r, const SituationOutcome& o) {
  const auto& s = o.step;
  r.datasets.push_back(vector_dataset("/step/breakdown",
                                      {s.compute, s.exposed_tp, s.exposed_pp, s.exposed_dp, s.exposed_cp, s.exposed_ep, s.bubble},
                                      "s", "Step time breakdown: compute, exposed TP/PP/DP/CP/EP communication, pipeline bubble",
                                      "component"));
  r.labels.push_back({"/step/component", {"compute", "exposed_tp", "exposed_pp", "exposed_dp", "exposed_cp", "exposed_ep", "bubble"},
                      "Components of /step/breakdown"});
}

}  // namespace

Results build_results(const Scenario& sc, std::uint64_t seed, const std::vector<SituationOutcome>& outcomes,
                      const reliability::PhasedResult& ttt) {
  Results r;
  r.scenario_name = sc.name;
  r.scenario_file = sc.file;
  r.scenario_text = sc.text;
  r.seed = seed;
  const SituationOutcome& head = outcomes.back();
  add_step(r, head, sc.gpu);
  add_gpu_speed(r, head, seed);
  add_memory(r, head, sc.gpu);
  add_time_to_train(r, ttt);
  add_network(r, head);
  add_thermal(r, head);
  add_fabric_checks(r, head);
  if (head.has_fault_transient) add_fault_transient(r, head);
  if (!head.fault_verdicts.empty()) add_fault_verdicts(r, head);
  if (head.has_daily_transient) add_daily_transient(r, head);
  add_step_breakdown(r, head);
  add_step_variants(r, head);
  add_storage(r, sc, head);
  if (outcomes.size() > 1) {
    add_phases(r, sc, outcomes, ttt);
    add_phase_checks(r, outcomes);
  }
  add_convergence(r, sc, outcomes, ttt);

  r.notes.push_back(gpu_note(sc.gpu));
  r.notes.push_back("step: " + head.plan.fidelity);
  r.notes.push_back("fabric BOM: cable lengths from a layout model (" + std::to_string(head.cost.compute_racks) +
                    " compute racks in " + std::to_string(head.cost.rows) + " rows, switches in a mid-hall network row), "
                    "media by reach, power and INDICATIVE prices from models/topology/bom_parts.yaml unless the scenario's "
                    "bom: section sets them; switch and NIC power with optics feed IT power unless power.switch_power / "
                    "power.nic_per_gpu are given (estimate)");
  for (const auto& n : head.cost.notes) r.notes.push_back("fabric BOM: " + n);
  r.notes.push_back("thermal: steady state of an RC network with " + std::to_string(head.thermal.network_nodes) +
                    " nodes (identical racks grouped), throttle iterations: " + std::to_string(head.throttle_iterations));
  if (head.has_fault_transient)
    r.notes.push_back("cooling faults: implicit thermal transient over " + std::to_string(static_cast<long>(head.fault_transient_duration)) +
                      " s at 1 s steps, " + std::to_string(head.fault_transient.alerts.size()) + " alerts");
  if (!head.fault_verdicts.empty()) {
    char k[160];
    std::snprintf(k, sizeof k, "%.3f of the step scales with 1/clock (%s)", head.clock_sensitivity,
                  head.clock_sensitivity_measured ? "measured: step re-simulated at the faults' lowest clock"
                                                  : "estimated: compute share of the step");
    r.notes.push_back("cooling-fault verdicts: each fault simulated alone from the steady state 60 s before it to 30 min "
                      "after it ends (1 s steps), with the governor and the monitoring policy; training time lost: " +
                      std::string(k) + "; GPU-hours lost = the job's GPUs x time lost (synchronous training)");
  }
  {
    // Pump and CDU failures stop the job in the reliability model only with a rate: none is published.
    bool pump = false, cdu = false;
    for (const auto& f : sc.training.reliability.failures) {
      pump = pump || (f.component == reliability::Component::Pump && f.mtbf > 0);
      cdu = cdu || (f.component == reliability::Component::Cdu && f.mtbf > 0);
    }
    if (!pump || !cdu)
      r.notes.push_back(std::string("reliability: ") + (!pump && !cdu ? "pump and CDU" : !pump ? "pump" : "CDU") +
                        " failure rates are 0 (no published rate; set reliability.failures[].mtbf): time-to-train "
                        "draws no such failure; the cooling faults above are judged for their thermal effect only");
  }
  if (head.has_daily_transient)
    r.notes.push_back("daily outdoor cycle: 24 h thermal transient at 1 s steps from midnight; time-to-train sees its "
                      "step-time profile every day (after the cooling-fault transient, which already includes the cycle)");
  if (!head.step_by_batch.empty()) {
    std::string steps;
    for (const auto& b : head.step_by_batch) {
      char item[96];
      std::snprintf(item, sizeof item, "%s%.3gM tokens %.3f s", steps.empty() ? "" : ", ", b.global_batch / 1e6, b.step_time);
      steps += item;
    }
    r.notes.push_back("batch schedule: the step is re-simulated at each global batch (whole microbatches per DP "
                      "replica, a count the pipeline schedule accepts: a multiple of pp when interleaved, "
                      "replica): " + steps + "; time-to-train interpolates tokens/s between them (tokens_per_step "
                      "and tokens_per_second above are the scenario's own batch)");
  }
  if (!head.link_down.links.empty())
    r.notes.push_back("degrade mode: a link failure costs the mean step with one of " +
                      std::to_string(head.link_down.links.size()) + " sampled loaded fabric links down (of " +
                      std::to_string(head.link_down.loaded) + " loaded), not the default penalty");
  if (!head.fabric_events.empty())
    r.notes.push_back("timed fabric failures: the step is re-simulated after each (cumulative, not repaired); "
                      "time-to-train slows from each failure's time (cause fabric_failures)");
  for (const auto& f : sc.fabric.failures)
    if (f.at > 0 && f.at >= ttt.overall.p90) {
      char when[96];
      std::snprintf(when, sizeof when, " at %.4g d comes after the training ends (p90 %.4g d): it changes nothing",
                    f.at / kDay, ttt.overall.p90 / kDay);
      r.notes.push_back("fabric failure " + f.element + when);
    }
  char stall[160];
  std::snprintf(stall, sizeof stall, " (checkpoints stall training %.3g s each, every %.3g min of work)",
                ttt.overall.checkpoint_stall, ttt.overall.checkpoint_interval / 60);
  r.notes.push_back("time-to-train: Monte Carlo over " + std::to_string(ttt.overall.samples.size()) +
                    " failure draws" + (std::isfinite(ttt.overall.checkpoint_interval) ? stall : "") +
                    "; the p10-p90 spread covers the failures only, not the ECMP hash, which the seed "
                    "also sets: rerun with other --seed values (or `aidcsim compare --seeds N`) for the routing "
                    "spread of the step time");
  r.notes.push_back("network: link utilization is averaged over the simulated step (/network/timeline/* over time; "
                    "the 80 % alarm of the checklist counts links in the busiest time bin); "
                    "every rail carries its own DP flows; NVLink links carry PP/DP flows only (TP collectives are "
                    "analytic)");
  if (head.repetitions_fast_forwarded > 0)
    r.notes.push_back("network: " + std::to_string(head.repetitions_fast_forwarded) +
                      " repetitions of the step's ring / pipeline transfers were not simulated one by one: they "
                      "repeat an exact template once the fabric's state repeats (fast-forward by whole periods; "
                      "same times, link bytes and timeline as the unrolled run, tests/unit/network/test_repetition.cpp)");
  if (outcomes.size() > 1) {
    char batches[160];
    std::snprintf(batches, sizeof batches, "%.3gM tokens in %s to %.3gM in %s",
                  outcomes.front().plan.tokens_per_step / 1e6, outcomes.front().name.c_str(),
                  head.plan.tokens_per_step / 1e6, head.name.c_str());
    r.notes.push_back("rollout: the job grows with each phase at the same microbatches per DP replica (weak scaling), "
                      "so the global batch grows with DP: " + std::string(batches) + " (/phases/tokens_per_step)");
    r.notes.push_back("headline step, congestion and thermal figures are those of the last phase (" + head.name +
                      "); the checklist judges every phase (earlier phases' items named 'phase NAME: ...')");
  }
  r.warnings = ttt.overall.warnings;
  // The fabric as built, said plainly (topology::Fabric::warnings), per rollout phase.
  for (const auto& o : outcomes)
    for (const auto& w : o.fabric_warnings) r.warnings.push_back(outcomes.size() > 1 ? "phase " + o.name + ": " + w : w);
  return r;
}

}  // namespace aidcsim
