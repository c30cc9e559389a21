// End-to-end tests of the co-simulation pipeline on a small (576-GPU) variant of the default site.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

#include "sim/engine/feasibility.hpp"
#include "sim/engine/simulate.hpp"
#include "sim/engine/situation.hpp"
#include "tests/unit/engine/result_dataset.hpp"

using namespace aidcsim;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string small_text() { return read_file(std::string(AIDCSIM_SOURCE_DIR) + "/tests/data/small-576.yaml"); }

std::string replace_line(std::string text, const std::string& starts_with, const std::string& line) {
  const auto pos = text.find(starts_with);
  REQUIRE(pos != std::string::npos);
  const auto end = text.find('\n', pos);
  return text.replace(pos, end - pos, line);
}

const Results& small_results() {
  static const Results r = simulate(load_scenario_text(small_text(), "small-576.yaml"));
  return r;
}

}  // namespace

TEST_CASE("the pipeline reports every headline figure with a unit", "[engine]") {
  const Results& r = small_results();
  for (const char* key : {"gpus", "step_time", "tokens_per_second", "mfu", "time_to_train", "time_to_train_ideal",
                          "max_link_utilization", "p99_link_utilization", "links_above_80", "max_gpu_temperature",
                          "gpu_temperature_headroom", "coolant_delta_t", "it_power", "facility_power", "pue"}) {
    INFO(key);
    REQUIRE_NOTHROW(r.scalar(key));
    REQUIRE(std::isfinite(r.scalar(key)));
  }
  for (const auto& s : r.summary) {
    INFO(s.key);
    REQUIRE_FALSE(s.unit.empty());
  }
  for (const auto& d : r.datasets) {
    INFO(d.path);
    REQUIRE_FALSE(d.unit.empty());
    std::size_t n = 1;
    for (auto e : d.shape) n *= e;
    REQUIRE(n == d.data.size());
  }
  REQUIRE(r.scalar("gpus") == 576);
  REQUIRE_FALSE(r.checks.empty());
  REQUIRE_FALSE(r.notes.empty());
}

TEST_CASE("the stages agree with each other", "[engine]") {
  const Results& r = small_results();
  // Ideal time-to-train is tokens / throughput (issue 2's first-order formula).
  const double ideal_days = r.scalar("training_tokens") / r.scalar("tokens_per_second") / 86400.0;
  REQUIRE(r.scalar("time_to_train_ideal") == Approx(ideal_days).epsilon(1e-9));
  REQUIRE(r.scalar("time_to_train") >= r.scalar("time_to_train_ideal"));
  REQUIRE(r.scalar("tokens_per_step") == 144.0 * 8192.0);
  REQUIRE(r.scalar("mfu") > 0.0);
  REQUIRE(r.scalar("mfu") < 100.0);
  REQUIRE(r.scalar("facility_power") > r.scalar("it_power"));
  REQUIRE(r.scalar("pue") == Approx(r.scalar("facility_power") / r.scalar("it_power")).epsilon(1e-9));
  // 576 GPUs at <= 1200 W each, plus CPUs, switches and overhead: between 0.3 and 1.5 MW of IT power.
  REQUIRE(r.scalar("it_power") > 0.3);
  REQUIRE(r.scalar("it_power") < 1.5);
}

TEST_CASE("the link timeline agrees with the step's average utilization", "[engine][network]") {
  const Results& r = small_results();
  const Dataset *time = nullptr, *max_tier = nullptr, *hot = nullptr;
  for (const auto& d : r.datasets) {
    if (d.path == "/network/timeline/time") time = &d;
    if (d.path == "/network/timeline/max_utilization_by_tier") max_tier = &d;
    if (d.path == "/network/timeline/hot_link_utilization") hot = &d;
  }
  REQUIRE(time != nullptr);
  REQUIRE(max_tier != nullptr);
  REQUIRE(hot != nullptr);
  const std::size_t bins = time->data.size();
  CHECK(bins >= 48);
  CHECK(bins <= 96);
  REQUIRE(max_tier->shape == std::vector<std::size_t>{bins, 4});
  // No link direction exceeds line rate in any bin (bytes read from SimGrid, not spread).
  for (double u : max_tier->data) CHECK(u <= 1.0 + 1e-9);
  // The busiest bin is at least the step average of the busiest link.
  CHECK(r.scalar("peak_link_utilization") >= r.scalar("max_link_utilization"));
  CHECK(r.scalar("peak_link_utilization") <= 100.0 + 1e-7);
  // A hot link direction's mean over the bins is its utilization over the step: at most its
  // link's (/network/link_utilization: the busier direction), equal for the busier direction.
  const std::size_t k = hot->shape[1];
  REQUIRE(k > 0);
  const Dataset* util = nullptr;
  const Labels *names = nullptr, *hot_names = nullptr;
  for (const auto& d : r.datasets)
    if (d.path == "/network/link_utilization") util = &d;
  for (const auto& l : r.labels) {
    if (l.path == "/network/link") names = &l;
    if (l.path == "/network/timeline/hot_link") hot_names = &l;
  }
  REQUIRE((util && names && hot_names));
  REQUIRE(hot_names->values.size() == k);
  const double width = time->data[1] - time->data[0];
  int equal = 0;
  for (std::size_t i = 0; i < k; ++i) {
    double mean = 0;
    for (std::size_t b = 0; b < bins; ++b) mean += hot->data[b * k + i];
    mean *= width / r.scalar("step_time");
    const std::string name = hot_names->values[i].substr(0, hot_names->values[i].find(' '));
    const auto at = std::find(names->values.begin(), names->values.end(), name) - names->values.begin();
    REQUIRE(at < static_cast<long>(names->values.size()));
    INFO(hot_names->values[i] << ": timeline mean " << mean << ", step " << util->data[at]);
    CHECK(mean <= util->data[at] * (1 + 1e-6));
    equal += std::abs(mean - util->data[at]) <= 1e-6 * util->data[at];
  }
  CHECK(equal > 0);
}

TEST_CASE("the 80 % alarm is judged in the busiest time bin, with the fabric checks", "[engine][network]") {
  // Issue 16: on this step no link averages above 80 %, yet the DP reduction runs links at line rate.
  const Results& r = small_results();
  const Dataset* above = nullptr;
  for (const auto& d : r.datasets)
    if (d.path == "/network/timeline/links_above_80") above = &d;
  REQUIRE(above != nullptr);
  const double busiest = *std::max_element(above->data.begin(), above->data.end());
  CHECK(r.scalar("links_above_80_busiest_bin") == busiest);
  CHECK(r.scalar("links_above_80") == 0);
  CHECK(busiest > 0);
  CHECK(r.scalar("time_above_80") > 0);
  CHECK(r.scalar("time_above_80") < 100);
  const Check* alarm = nullptr;
  int fabric_items = 0;
  for (const auto& c : r.checks) {
    if (c.item == "links above 80 % (busiest time bin)") alarm = &c;
    for (const char* name : {"switch port rate", "NIC rate per GPU", "injection bandwidth per node",
                             "RDMA p99 latency (estimate)", "bisection ratio"})
      fabric_items += c.item == name;
  }
  CHECK(fabric_items == 5);
  REQUIRE(alarm != nullptr);
  CHECK(alarm->value == busiest);
  CHECK_FALSE(alarm->pass);
}

TEST_CASE("same scenario and seed give the same results bit for bit", "[engine]") {
  const Results& a = small_results();
  const Results b = simulate(load_scenario_text(small_text(), "small-576.yaml"));
  REQUIRE(a.summary.size() == b.summary.size());
  for (std::size_t i = 0; i < a.summary.size(); ++i) {
    INFO(a.summary[i].key);
    REQUIRE(a.summary[i].value == b.summary[i].value);  // exact: determinism, not tolerance
  }
  REQUIRE(a.datasets.size() == b.datasets.size());
  for (std::size_t i = 0; i < a.datasets.size(); ++i) REQUIRE(a.datasets[i].data == b.datasets[i].data);
}

TEST_CASE("a cooling problem throttles the GPUs and slows the step", "[engine][thermal]") {
  // Hot facility water and a starved loop: the GPUs pass their limit, the engine re-simulates the
  // step at the throttled clocks.
  std::string text = small_text();
  text = replace_line(text, "  flow_per_gpu:", "  flow_per_gpu: \"0.2 L/min\"");
  text = replace_line(text, "  facility_supply:", "  facility_supply: \"40 degC\"");
  text = replace_line(text, "    inlet_max:", "    inlet_max: \"50 degC\"");
  text = replace_line(text, "    outlet_max:", "    outlet_max: \"90 degC\"");
  const Results hot = simulate(load_scenario_text(text, "hot.yaml"));
  REQUIRE(hot.scalar("throttled_gpus") > 0);
  REQUIRE(hot.scalar("min_gpu_clock") < 100.0);
  REQUIRE(hot.scalar("step_time") > hot.scalar("step_time_unthrottled"));
  REQUIRE(hot.scalar("step_time") > small_results().scalar("step_time"));
}

namespace {

std::string with_pump_failure(int spare) {
  std::string text = small_text();
  const std::string block =
      "cooling:\n"
      "  pumps:\n"
      "    running: 1\n"
      "    spare: " +
      std::to_string(spare) +
      "\n"
      "    failover_time: \"10 s\"\n"
      "  faults:\n"
      "    - type: pump_failure\n"
      "      at: \"60 s\"\n"
      "      duration: \"1 h\"\n";
  const auto pos = text.find("\ncooling:\n");
  REQUIRE(pos != std::string::npos);
  return text.replace(pos + 1, std::string("cooling:\n").size(), block);
}

}  // namespace

TEST_CASE("a pump failure with a standby pump spikes and recovers without throttling", "[engine][thermal]") {
  const Results r = simulate(load_scenario_text(with_pump_failure(1), "pump-n+1.yaml"));
  REQUIRE(r.scalar("fault_max_gpu_temperature") > r.scalar("max_gpu_temperature") + 0.5);  // the spike
  REQUIRE(r.scalar("fault_min_gpu_clock") == 100.0);
  REQUIRE(r.scalar("step_time_during_fault") == r.scalar("step_time"));
  REQUIRE(r.scalar("fault_energy_error") < 1e-9);
  // Recovery: the last sample is back at the steady state.
  const Dataset* tj = nullptr;
  for (const auto& d : r.datasets)
    if (d.path == "/thermal/transient/max_gpu_temperature") tj = &d;
  REQUIRE(tj != nullptr);
  REQUIRE(tj->data.back() == Approx(r.scalar("max_gpu_temperature")).margin(0.1));
}

TEST_CASE("a pump failure without a standby pump throttles the GPUs and slows the step", "[engine][thermal]") {
  const Results r = simulate(load_scenario_text(with_pump_failure(0), "pump-n.yaml"));
  REQUIRE(r.scalar("fault_min_gpu_clock") < 100.0);
  REQUIRE(r.scalar("fault_throttled_time") > 0.0);
  REQUIRE(r.scalar("step_time_during_fault") > r.scalar("step_time"));
  // The throttled hour reaches the time-to-train model: the same failure draws take longer.
  REQUIRE(r.scalar("time_to_train") > small_results().scalar("time_to_train"));
  // Once: time_to_train_with_faults adds only faults after the fault transient, and this one is in
  // it (the old figure added the verdict's lost time again on top of time_to_train).
  REQUIRE(r.scalar("cooling_faults_lost_training_time") > 0);
  CHECK(r.scalar("time_to_train_with_faults") == r.scalar("time_to_train"));
}

TEST_CASE("GPUs shut down by a cooling fault halt the job until they restart", "[engine][thermal]") {
  // No random failures: time-to-train is deterministic, so the fault's cost is exact.
  auto no_failures = [](std::string text) {
    return text.insert(text.find("\ncooling:\n") + 1, "reliability:\n  failure_preset: none\n  draws: 10\n");
  };
  const Results base = simulate(load_scenario_text(no_failures(small_text()), "base.yaml"));
  const Results r = simulate(load_scenario_text(no_failures(with_pump_failure(0)), "pump-n-halt.yaml"));
  const double halted = r.scalar("fault_halted_time");
  INFO("halted " << halted << " s, throttled " << r.scalar("fault_throttled_time") << " s");
  REQUIRE(halted > 0);
  // The halt does no work; throttling around it slows the rest of the fault hour.
  const double cost = (r.scalar("time_to_train") - base.scalar("time_to_train")) * 86400.0;
  CHECK(cost >= halted);
  CHECK(cost <= halted + r.scalar("fault_throttled_time") + 1.0);
  // A shut-down GPU's clock is 0 in the series and in the summary alike: until 2026-12 the summary
  // gave the lowest running clock while the series read 0.
  const auto& clock = test::dataset(r, "/thermal/transient/min_gpu_clock").data;
  CHECK(*std::min_element(clock.begin(), clock.end()) == 0.0);
  CHECK(r.scalar("fault_min_gpu_clock") == 0.0);
  const auto& own = test::dataset(r, "/thermal/faults/fault_1/min_gpu_clock").data;
  CHECK(*std::min_element(own.begin(), own.end()) == 0.0);
  CHECK(test::dataset(r, "/thermal/faults/min_gpu_clock").data.at(0) == 0.0);
}

namespace {

// A hot-afternoon day with a dry cooler (no chiller): the facility supply follows outdoor + 5 K.
std::string with_dry_cooler(const std::string& swing) {
  std::string text = small_text();
  text = replace_line(text, "    inlet_max:", "    inlet_max: \"50 degC\"");
  text = replace_line(text, "    outlet_max:", "    outlet_max: \"90 degC\"");
  const std::string block =
      "cooling:\n"
      "  plant:\n"
      "    heat_rejection: dry_cooler\n"
      "  heat_rejection:\n"
      "    outdoor_temp: \"30 degC\"\n"
      "    outdoor_daily_swing: \"" +
      swing +
      "\"\n"
      "    outdoor_peak_time: \"15 h\"\n";
  const auto pos = text.find("\ncooling:\n");
  REQUIRE(pos != std::string::npos);
  return text.replace(pos + 1, std::string("cooling:\n").size(), block);
}

using test::dataset;

}  // namespace

TEST_CASE("a hot afternoon with a dry cooler throttles at the peak and delays training", "[engine][thermal][daily]") {
  const Results flat = simulate(load_scenario_text(with_dry_cooler("0 K"), "dry-flat.yaml"));
  const Results day = simulate(load_scenario_text(with_dry_cooler("20 K"), "dry-day.yaml"));
  // Without a swing there is no daily transient and the daily mean climate does not throttle.
  CHECK_THROWS(flat.scalar("daily_min_gpu_clock"));
  REQUIRE(day.scalar("step_time") == flat.scalar("step_time"));
  // With the swing the GPUs throttle in the afternoon only.
  REQUIRE(day.scalar("daily_min_gpu_clock") < 100.0);
  REQUIRE(day.scalar("daily_throttled_time") > 0.0);
  REQUIRE(day.scalar("daily_throttled_time") < 86400.0 / 2);
  REQUIRE(day.scalar("step_time_daily_worst") > day.scalar("step_time"));
  const auto& time = dataset(day, "/thermal/daily/time").data;
  const auto& clock = dataset(day, "/thermal/daily/min_gpu_clock").data;
  const auto& tj = dataset(day, "/thermal/daily/max_gpu_temperature").data;
  REQUIRE(time.size() == clock.size());
  const auto& supply = dataset(day, "/thermal/daily/facility_supply").data;
  // The throttled window (clock < 1; the junction then sits at its limit) is centred on the peak
  // hour, up to the loop's lag; night runs at full clock.
  double first = -1, last = -1;
  for (std::size_t i = 0; i < time.size(); ++i)
    if (clock[i] < 1.0) {
      if (first < 0) first = time[i];
      last = time[i];
    }
  INFO("throttled from " << first << " s to " << last << " s");
  CHECK(std::abs(0.5 * (first + last) - 15 * 3600.0) <= 3600.0);
  CHECK(clock.front() == 1.0);
  CHECK(*std::max_element(tj.begin(), tj.end()) > tj.front() + 5.0);
  const auto warmest = std::max_element(supply.begin(), supply.end()) - supply.begin();
  CHECK(std::abs(time[warmest] - 15 * 3600.0) <= 600.0);  // supply = outdoor + approach, peak at 15:00
  // The afternoon slowdown reaches the time-to-train model.
  REQUIRE(day.scalar("time_to_train") > flat.scalar("time_to_train"));
  // The steady checklist is at the day's mean outdoor temperature and passes; the daily-peak item
  // judges the afternoon's hottest junction against the same limit and fails (it was not in the
  // checklist: a site that throttles every afternoon read PASS).
  auto check = [](const Results& r, const std::string& item) -> const Check* {
    for (const auto& c : r.checks)
      if (c.item == item) return &c;
    return nullptr;
  };
  const Check* steady = check(day, "GPU junction vs throttle limit");
  const Check* peak = check(day, "GPU junction at the daily outdoor peak vs throttle limit");
  REQUIRE(steady != nullptr);
  REQUIRE(peak != nullptr);
  CHECK(steady->pass);
  CHECK_FALSE(peak->pass);
  CHECK(peak->value == Approx(day.scalar("daily_max_gpu_temperature")));
  CHECK(peak->limit == Approx(steady->limit));
  CHECK(check(flat, "GPU junction at the daily outdoor peak vs throttle limit") == nullptr);  // no daily cycle
}

TEST_CASE("HBM per GPU is reported by component for the most loaded stage and every stage", "[engine][memory]") {
  const Results& r = small_results();
  double parts = 0;
  for (const char* k :
       {"hbm_weights", "hbm_gradients", "hbm_optimizer", "hbm_activations", "hbm_logits", "hbm_reserve"})
    parts += r.scalar(k);
  CHECK(r.scalar("hbm_per_gpu") == Approx(parts));
  CHECK(r.scalar("hbm_per_gpu") < r.scalar("hbm_capacity"));
  const Dataset* by_stage = nullptr;
  for (const auto& d : r.datasets)
    if (d.path == "/memory/by_stage") by_stage = &d;
  REQUIRE(by_stage != nullptr);
  REQUIRE(by_stage->shape.size() == 2);
  CHECK(by_stage->shape[0] == 9);  // pp = 9
  CHECK(by_stage->shape[1] == 7);
  const int peak = static_cast<int>(r.scalar("hbm_peak_stage"));
  CHECK(by_stage->data[peak * 7 + 6] / 1e9 == Approx(r.scalar("hbm_per_gpu")));
}

TEST_CASE("a situation releases its step schedule when done; its re-plans at the fault's clocks match",
          "[engine][schedule_release]") {
  // The rollout keeps every phase's outcome until the results are built; their schedules (the
  // largest part of a plan) are released once the situation is done, so a later phase reuses that
  // memory. The pump failure with no spare throttles: the step is re-planned at the fault's clocks
  // with the base plan's size reserved (StepOptions::schedule_capacity), which changes no figure.
  const Scenario sc = load_scenario_text(with_pump_failure(0), "pump-n.yaml");
  const SituationOutcome o =
      simulate_situation(sc, sc.fabric.gpus, sc.name, "", sc.seed, [](const std::string&, double) {});
  CHECK(o.plan.schedule.activities.empty());
  CHECK(o.plan.schedule.activities.capacity() == 0);
  CHECK(o.plan.tokens_per_step > 0);
  CHECK(o.plan.parameters > 0);
  REQUIRE(o.fault_transient.min_clock < 1.0);  // the re-plan at the fault's clocks ran
  const Results r = simulate(sc);
  CHECK(r.scalar("step_time") == o.step.step_time);
  CHECK(r.scalar("step_time_during_fault") == o.step_during_fault.step_time);
  CHECK(o.step_during_fault.step_time > o.step.step_time);
}

TEST_CASE("a rollout phase reserves its step plan from the previous phase's and no figure changes",
          "[engine][schedule_release]") {
  // simulate() passes plan_capacity_for(previous phase, gpus) to the next phase's first plan: the
  // whole schedule then fits in one allocation (no doubling copies). The estimate must cover the
  // plan (else the schedule grows by doubling again) without reserving far beyond it, and a
  // reservation changes no figure. In the order tp,cp,pp,dp: the estimate (linear in GPUs) holds
  // while a phase's DP rings keep their shape; under the default tp,cp,dp,pp this 70B job's DP groups
  // go from one NVL72 domain at 288 GPUs (NVLS) to 18 rail-aligned channels over two at 576 (1,680
  // -> 6,000 activities), a change of shape no linear estimate follows (the plan then grows by
  // doubling: the CPU and memory of a copy, no figure).
  std::string text = read_file(std::string(AIDCSIM_SOURCE_DIR) + "/tests/regression/rollout-phases.yaml");
  const std::string zero = "    zero: zero1\n";
  REQUIRE(text.find(zero) != std::string::npos);
  text.replace(text.find(zero), zero.size(), zero + "    order: \"tp,cp,pp,dp\"\n");
  const Scenario sc = load_scenario_text(text, "rollout-phases.yaml");
  REQUIRE(sc.job.par.order == "tp,cp,pp,dp");
  REQUIRE(sc.training.phases.size() == 3);
  auto quiet = [](const std::string&, double) {};
  std::vector<SituationOutcome> o;
  for (const auto& p : sc.training.phases)
    o.push_back(simulate_situation(sc, p.gpus, p.name, p.key, sc.seed, quiet,
                                   o.empty() ? 0 : plan_capacity_for(o.back(), p.gpus)));
  for (std::size_t i = 1; i < o.size(); ++i) {
    INFO("phase " << i << ": " << o[i - 1].plan_activities << " -> " << o[i].plan_activities << " activities");
    REQUIRE(o[i].plan_activities > o[i - 1].plan_activities);
    const std::size_t cap = plan_capacity_for(o[i - 1], sc.training.phases[i].gpus);
    CHECK(cap >= o[i].plan_activities);
    CHECK(cap <= 1.25 * o[i].plan_activities);
  }
  CHECK(plan_capacity_for(o[2], sc.training.phases[0].gpus) == 0);  // a smaller job: none
  // The reservation changes nothing: the last phase without one.
  const auto& last = sc.training.phases[2];
  const SituationOutcome plain = simulate_situation(sc, last.gpus, last.name, last.key, sc.seed, quiet);
  CHECK(plain.plan_activities == o[2].plan_activities);
  CHECK(plain.step.step_time == o[2].step.step_time);
  CHECK(plain.step_during_fault.step_time == o[2].step_during_fault.step_time);
  CHECK(plain.link_down.step_time == o[2].link_down.step_time);
}

TEST_CASE("a rollout that finishes before its last phase reports the job of the phase where it ends",
          "[engine][rollout]") {
  // tests/regression/rollout-phases: 2T tokens in ~57 d, before the 8-rack phase starts on day 61.
  // The summary gave that phase's 576 GPUs, step time, job MTBF and checkpoint interval; the job
  // never ran on it. The site as built (fabric, power) stays the last phase's.
  const Scenario sc = load_scenario_text(
      read_file(std::string(AIDCSIM_SOURCE_DIR) + "/tests/regression/rollout-phases.yaml"), "rollout-phases.yaml");
  const Results r = simulate(sc);
  const auto& wall = dataset(r, "/phases/wall_time").data;
  REQUIRE(wall.size() == 3);
  REQUIRE(wall[1] > 0);
  REQUIRE(wall[2] == 0);  // phase 3 never runs
  CHECK(r.scalar("gpus") == dataset(r, "/phases/gpus").data[1]);
  CHECK(r.scalar("gpus") == 288);
  CHECK(r.scalar("step_time") == dataset(r, "/phases/step_time").data[1]);
  CHECK(r.scalar("tokens_per_step") == dataset(r, "/phases/tokens_per_step").data[1]);
  CHECK(r.scalar("job_mtbf") == dataset(r, "/phases/job_mtbf").data[1]);
  CHECK(r.scalar("checkpoint_interval") == dataset(r, "/phases/checkpoint_interval").data[1]);
  CHECK(r.scalar("it_power") == Approx(dataset(r, "/phases/it_power").data[2]).epsilon(1e-12));
}

TEST_CASE("the first situation takes the fabric the checks built and no figure changes", "[engine][checked_fabric]") {
  // simulate() hands check_scenario's fabric of the first situation to simulate_situation instead
  // of building it again; not when a timed failure was applied to it during the checks.
  const Scenario sc = load_scenario_text(small_text(), "small-576.yaml");
  std::unique_ptr<topology::Fabric> first;
  check_scenario(sc, nullptr, &first);
  REQUIRE(first != nullptr);
  auto quiet = [](const std::string&, double) {};
  const SituationOutcome taken =
      simulate_situation(sc, sc.fabric.gpus, sc.name, "", sc.seed, quiet, 0, std::move(first));
  const SituationOutcome built = simulate_situation(sc, sc.fabric.gpus, sc.name, "", sc.seed, quiet);
  CHECK(taken.step.step_time == built.step.step_time);
  CHECK(taken.link_down.step_time == built.link_down.step_time);
  CHECK(taken.traffic.link_utilization == built.traffic.link_utilization);
  CHECK(taken.bom.switches == built.bom.switches);

  const Scenario failing = load_scenario_text(
      read_file(std::string(AIDCSIM_SOURCE_DIR) + "/tests/regression/clos3-failures.yaml"), "clos3-failures.yaml");
  REQUIRE(std::any_of(failing.fabric.failures.begin(), failing.fabric.failures.end(),
                      [](const auto& f) { return f.at > 0; }));
  std::unique_ptr<topology::Fabric> none;
  check_scenario(failing, nullptr, &none);
  CHECK(none == nullptr);
}
