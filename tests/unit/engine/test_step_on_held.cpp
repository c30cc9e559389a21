// A step variant run on the held plan's activities (sim/engine/step_run.hpp, run_step_on): the
// re-plan at other clocks lends only its amounts to the held schedule, so one schedule is alive
// during the run, and every figure is the one run_step gives with a schedule of its own.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "sim/engine/feasibility.hpp"
#include "sim/engine/situation.hpp"
#include "sim/engine/step_run.hpp"

using namespace aidcsim;

namespace {

Scenario small_scenario() {
  std::ifstream in(std::string(AIDCSIM_SOURCE_DIR) + "/tests/data/small-576.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_scenario_text(ss.str(), "small-576.yaml");
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

void check_same_breakdown(const workload::StepBreakdown& a, const workload::StepBreakdown& b) {
  CHECK(bits(a.step_time) == bits(b.step_time));
  CHECK(bits(a.compute) == bits(b.compute));
  CHECK(bits(a.exposed_tp) == bits(b.exposed_tp));
  CHECK(bits(a.exposed_pp) == bits(b.exposed_pp));
  CHECK(bits(a.exposed_dp) == bits(b.exposed_dp));
  CHECK(bits(a.exposed_cp) == bits(b.exposed_cp));
  CHECK(bits(a.exposed_ep) == bits(b.exposed_ep));
  CHECK(bits(a.bubble) == bits(b.bubble));
  CHECK(bits(a.gpu_busy_compute_fraction) == bits(b.gpu_busy_compute_fraction));
  CHECK(bits(a.gpu_busy_comm_fraction) == bits(b.gpu_busy_comm_fraction));
}

void check_same_run(const network::RunResult& a, const network::RunResult& b) {
  CHECK(bits(a.makespan) == bits(b.makespan));
  CHECK(a.start == b.start);
  CHECK(a.finish == b.finish);
  CHECK(a.link_bytes_fwd == b.link_bytes_fwd);
  CHECK(a.link_bytes_rev == b.link_bytes_rev);
}

bool same_activities(const std::vector<network::Activity>& a, const std::vector<network::Activity>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!network::same_but_amount(a[i], b[i]) || bits(a[i].amount) != bits(b[i].amount)) return false;
  return true;
}

struct Site {
  Scenario sc = small_scenario();
  topology::Fabric fabric = topology::build_fabric(situation_fabric_spec(sc, sc.fabric.gpus));
  network::FlowNetwork net{fabric};
  workload::JobSpec job = scaled_job(sc, sc.fabric.gpus, "");
  Site() { net.set_route_reuse(true); }  // as a situation with clock variants
};

}  // namespace

TEST_CASE("a step at a uniform lower clock runs on the held plan's activities, figures as run_step's",
          "[engine][step_on_held]") {
  Site s;
  StepRun base = run_step(s.job, s.sc.gpu, s.fabric, s.net, {}, s.sc.seed);
  const std::vector<network::Activity> before = base.plan.schedule.activities;
  const network::Activity* data = base.plan.schedule.activities.data();
  const std::vector<double> slow(static_cast<std::size_t>(s.sc.fabric.gpus), 0.7);

  const StepRun fresh = run_step(s.job, s.sc.gpu, s.fabric, s.net, slow, s.sc.seed);
  REQUIRE(fresh.breakdown.step_time > base.breakdown.step_time);
  REQUIRE(!same_activities(fresh.plan.schedule.activities, before));  // the amounts differ

  const StepOnHeld on = run_step_on(s.job, s.sc.gpu, s.fabric, s.net, slow, s.sc.seed, base.plan);
  CHECK(on.reused);
  CHECK(on.step.plan.schedule.activities.empty());  // its own freed before the run
  check_same_breakdown(on.step.breakdown, fresh.breakdown);
  check_same_run(on.step.run, fresh.run);
  // The held plan is left as it was, in its own buffer.
  CHECK(base.plan.schedule.activities.data() == data);
  CHECK(same_activities(base.plan.schedule.activities, before));
}

TEST_CASE("a step on a fabric state other than held's plans its end-of-step traffic again, figures as run_step's",
          "[engine][step_on_held]") {
  // plan_step_reusing takes held's end-of-step part (DP traffic) only on the fabric state held was
  // planned on (the timed fabric failures re-plan on a failed fabric): a failure that changes it
  // (an NVLink port down: that GPU's ring hops no longer merge over NVLink) gives another plan,
  // one that moves no planned activity (a spine link) runs on held's activities, amounts written in.
  Site s;
  StepRun base = run_step(s.job, s.sc.gpu, s.fabric, s.net, {}, s.sc.seed);
  const std::vector<network::Activity> before = base.plan.schedule.activities;
  const std::vector<double> slow(static_cast<std::size_t>(s.sc.fabric.gpus), 0.8);
  for (const bool nvlink : {true, false}) {
    INFO((nvlink ? "an NVLink port down" : "a leaf-spine link down"));
    int link = -1;
    for (int l = 0; l < s.fabric.link_count() && link < 0 && !nvlink; ++l)
      if (s.fabric.link(l).tier == topology::Tier::LeafSpine) link = l;
    // the first GPU whose NVLink port down changes the plan at full clock (a DP ring's GPU)
    for (int g = 0; g < s.sc.fabric.gpus && link < 0 && nvlink; ++g) {
      s.fabric.set_link_up(s.fabric.nvlink_link(g), false);
      workload::StepOptions o;
      o.seed = s.sc.seed;
      if (!same_activities(workload::plan_step(s.job, s.sc.gpu, s.fabric, o).schedule.activities, before))
        link = s.fabric.nvlink_link(g);
      s.fabric.set_link_up(s.fabric.nvlink_link(g), true);
    }
    REQUIRE(link >= 0);
    s.fabric.set_link_up(link, false);
    const StepOnHeld on = run_step_on(s.job, s.sc.gpu, s.fabric, s.net, slow, s.sc.seed, base.plan);
    topology::Fabric other = topology::build_fabric(situation_fabric_spec(s.sc, s.sc.fabric.gpus));
    other.set_link_up(link, false);
    network::FlowNetwork net(other);
    const StepRun fresh = run_step(s.job, s.sc.gpu, other, net, slow, s.sc.seed);
    if (nvlink) CHECK(!on.reused);
    check_same_breakdown(on.step.breakdown, fresh.breakdown);
    check_same_run(on.step.run, fresh.run);
    CHECK(same_activities(base.plan.schedule.activities, before));  // held as it was
    s.fabric.set_link_up(link, true);
  }
}

TEST_CASE("a re-plan that differs from the held plan beyond amounts runs on its own schedule",
          "[engine][step_on_held]") {
  Site s;
  workload::JobSpec other = s.job;
  other.global_batch = 2 * s.job.global_batch;  // more microbatches: other activities
  StepRun held = run_step(s.job, s.sc.gpu, s.fabric, s.net, {}, s.sc.seed);
  const std::vector<network::Activity> before = held.plan.schedule.activities;
  const StepRun fresh = run_step(other, s.sc.gpu, s.fabric, s.net, {}, s.sc.seed);
  const StepOnHeld on = run_step_on(other, s.sc.gpu, s.fabric, s.net, {}, s.sc.seed, held.plan);
  CHECK(!on.reused);
  check_same_breakdown(on.step.breakdown, fresh.breakdown);
  CHECK(same_activities(held.plan.schedule.activities, before));
}

TEST_CASE("same_but_amount tells every field of an activity apart except its amount", "[engine][step_on_held]") {
  network::Activity a;
  a.kind = network::Activity::Kind::Transfer;
  a.after = {1, 2};
  network::Activity b = a;
  b.amount = 5;
  CHECK(network::same_but_amount(a, b));
  auto differs = [&](auto change) {
    network::Activity c = a;
    change(c);
    return !network::same_but_amount(a, c);
  };
  CHECK(differs([](network::Activity& c) { c.flow_hash = 1; }));
  CHECK(differs([](network::Activity& c) { c.spread_phase = 1; }));
  CHECK(differs([](network::Activity& c) { c.delay = -0.0; }));  // bit for bit
  CHECK(differs([](network::Activity& c) { c.weight = 2; }));
  CHECK(differs([](network::Activity& c) { c.rate_limit = 1; }));
  CHECK(differs([](network::Activity& c) { c.after = {1}; }));
  CHECK(differs([](network::Activity& c) { c.after_previous = {0}; }));
  CHECK(differs([](network::Activity& c) { c.after_same = {0}; }));
  CHECK(differs([](network::Activity& c) { c.gpu = 1; }));
  CHECK(differs([](network::Activity& c) { c.dst_gpu = 1; }));
  CHECK(differs([](network::Activity& c) { c.tag = 1; }));
  CHECK(differs([](network::Activity& c) { c.group = 1; }));
  CHECK(differs([](network::Activity& c) { c.repeat = 2; }));
  CHECK(differs([](network::Activity& c) { c.kind = network::Activity::Kind::Compute; }));
  CHECK(differs([](network::Activity& c) { c.spread = true; }));
}

namespace {

// small-576 with a pump failure and no standby pump (the GPUs throttle: a step at the fault's
// lowest clock follows), and optionally a timed link failure (the training step's schedule is
// then still needed after that step).
std::string with_fault(bool timed_failure) {
  std::ifstream in(std::string(AIDCSIM_SOURCE_DIR) + "/tests/data/small-576.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto pos = text.find("\ncooling:\n");
  REQUIRE(pos != std::string::npos);
  text.replace(pos + 1, std::string("cooling:\n").size(),
               "cooling:\n  pumps:\n    running: 1\n    spare: 0\n    failover_time: \"10 s\"\n"
               "  faults:\n    - type: pump_failure\n      at: \"60 s\"\n      duration: \"1 h\"\n");
  if (timed_failure) {
    const std::string key = "\nfabric:\n";
    const auto f = text.find(key);
    REQUIRE(f != std::string::npos);
    text.insert(f + key.size(),
                "  failures:\n    - type: link_down\n      element: \"leaf0-spine0.0\"\n      at: \"12 h\"\n");
  }
  return text;
}

}  // namespace

TEST_CASE("the situation's step at the fault's clocks equals a fresh run_step, schedule released or held",
          "[engine][step_on_held]") {
  // Without timed fabric failures the training step's schedule is released before the re-plan at
  // the fault's clocks (after the link-down samples); with one it is held and the re-plan runs on
  // its activities (run_step_on). Either way the step is the one a fresh plan and network give.
  for (const bool timed : {false, true}) {
    INFO("timed fabric failure: " << timed);
    const Scenario sc = load_scenario_text(with_fault(timed), "pump-n.yaml");
    const int gpus = sc.fabric.gpus;
    const SituationOutcome o = simulate_situation(sc, gpus, sc.name, "", sc.seed, {});
    REQUIRE(o.fault_transient.min_clock < 1.0);
    CHECK(o.fabric_events.size() == (timed ? 1u : 0u));
    CHECK(o.plan.schedule.activities.empty());
    topology::Fabric fabric = topology::build_fabric(situation_fabric_spec(sc, gpus));
    network::FlowNetwork net(fabric);
    const std::vector<double> slow(static_cast<std::size_t>(gpus), o.fault_transient.min_clock);
    const StepRun fresh = run_step(scaled_job(sc, gpus, ""), sc.gpu, fabric, net, slow, sc.seed);
    check_same_breakdown(o.step_during_fault, fresh.breakdown);
    CHECK(o.step_during_fault.step_time > o.step.step_time);
  }
}
