// The step variants the time-to-train model uses (sim/engine/step_variants.hpp), end to end on the
// 576-GPU test site: per-batch step times for a batch schedule, the step with a link down in
// degrade mode, and timed fabric failures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "models/network/step_traffic.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/simulate.hpp"
#include "sim/engine/step_run.hpp"
#include "sim/engine/step_variants.hpp"
#include "tests/unit/engine/result_dataset.hpp"

using namespace aidcsim;

namespace {

constexpr double kDay = 86400.0;

std::string small_text() {
  std::ifstream in(std::string(AIDCSIM_SOURCE_DIR) + "/tests/data/small-576.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Inserts `block` (top-level YAML) before the cooling section.
std::string with_block(const std::string& block) {
  std::string text = small_text();
  const auto pos = text.find("\ncooling:\n");
  REQUIRE(pos != std::string::npos);
  return text.insert(pos + 1, block);
}

std::string with_training(const std::string& training_body) {
  std::string text = small_text();
  const std::string key = "training:\n  tokens: \"15T\"";
  const auto pos = text.find(key);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, key.size(), "training:\n  tokens: \"15T\"\n" + training_body);
}

using test::dataset;

const Labels& labels(const Results& r, const std::string& path) {
  for (const auto& l : r.labels)
    if (l.path == path) return l;
  FAIL("no labels " << path);
  return r.labels.front();
}

/// `sc`'s step simulated at full clock, then `samples` of its loaded links each taken down and the
/// step re-run (degraded_link_step), as a run's link-down variants are.
struct SampledLinksDown {
  topology::Fabric fabric;
  network::FlowNetwork net;
  StepRun step;
  LinkDownStep down;
  SampledLinksDown(const Scenario& sc, int samples)
      : fabric(topology::build_fabric(situation_fabric_spec(sc, sc.fabric.gpus))), net(fabric) {
    net.set_timeline_bins(network::kStepTimelineBins);
    const workload::JobSpec job = scaled_job(sc, sc.fabric.gpus, "");
    step = run_step(job, sc.gpu, fabric, net, {}, sc.seed);
    const network::StepTraffic traffic = network::step_traffic(fabric, step.run, step.breakdown.step_time);
    const std::vector<double> clocks(static_cast<std::size_t>(sc.fabric.gpus), 1.0);
    const StepContext ctx{sc, job, fabric, net, clocks, sc.seed};
    down = degraded_link_step(ctx, step.plan, traffic.link_utilization, step.breakdown.step_time, samples);
  }
};

/// The run's warnings about training.batch_schedule.
std::vector<std::string> schedule_warnings(const Results& r) {
  std::vector<std::string> out;
  for (const auto& w : r.warnings)
    if (w.rfind("training.batch_schedule", 0) == 0) out.push_back(w);
  return out;
}

// No failures at all: time-to-train is deterministic (no checkpoints are needed either).
const std::string kNoFailures = "reliability:\n  failure_preset: none\n  draws: 10\n";

}  // namespace

TEST_CASE("a batch schedule is simulated at every batch size and time-to-train follows it", "[engine][batch]") {
  // Multiples of dp x microbatch x sequence x pp = 8 x 1 x 8192 x 9 = 589,824 tokens (the
  // interleaved schedule needs microbatches a multiple of pp): simulated as asked.
  const double b4 = 4718592, b8 = 9437184, b16 = 16515072, t1 = 252e6, t2 = 2.87e12, total = 15e12;
  const std::string schedule =
      "  batch_schedule:\n"
      "    - {after_tokens: 0, global_batch: 4718592}\n"
      "    - {after_tokens: \"252M\", global_batch: 9437184}\n"
      "    - {after_tokens: \"2.87T\", global_batch: 16777216}\n";  // 256 microbatches: 252 are run
  const Results r = simulate(load_scenario_text(with_block(kNoFailures), "constant.yaml"));
  std::string text = with_training(schedule);
  text.insert(text.find("\ncooling:\n") + 1, kNoFailures);
  const Results s = simulate(load_scenario_text(text, "schedule.yaml"));
  const auto& batch = dataset(s, "/step/by_batch/global_batch").data;
  const auto& step = dataset(s, "/step/by_batch/step_time").data;
  // The scenario's own batch (144 sequences) and the three of the schedule, increasing.
  REQUIRE(batch.size() == 4);
  CHECK(batch[0] == 144 * 8192.0);
  CHECK(batch[1] == b4);
  CHECK(batch[2] == b8);
  CHECK(batch[3] == b16);
  CHECK(step[0] == s.scalar("step_time"));
  // A larger batch amortises the pipeline bubble and the DP reduction: more tokens per second.
  for (std::size_t i = 1; i < batch.size(); ++i) CHECK(batch[i] / step[i] > batch[i - 1] / step[i - 1]);
  // Without failures, time-to-train is the sum over the regimes of tokens / (tokens/s at that batch).
  const double expected = (t1 * step[1] / b4 + (t2 - t1) * step[2] / b8 + (total - t2) * step[3] / b16) / kDay;
  CHECK(s.scalar("time_to_train_ideal") == Approx(expected).epsilon(1e-9));
  CHECK(s.scalar("time_to_train") == Approx(expected).epsilon(1e-9));
  // ... which is not what a constant tokens/s at the scenario's batch gives.
  CHECK(r.scalar("time_to_train") == Approx(total * step[0] / batch[0] / kDay).epsilon(1e-9));
  CHECK(s.scalar("time_to_train") < r.scalar("time_to_train"));
}

TEST_CASE("a batch-schedule entry simulated at another batch than written is a warning", "[engine][batch]") {
  // dp 8 x microbatch 1 x 8192 tokens = 65,536 tokens per microbatch round; the interleaved
  // schedule (pp 9, virtual_stages 7) needs a multiple of 9 microbatches. 4M tokens make 61.04
  // microbatches: 61 is refused, 63 (4,128,768 tokens) is the nearest accepted count. 4718592 is
  // 72 microbatches: simulated as written, no warning.
  std::string text = with_training(
      "  batch_schedule:\n"
      "    - {after_tokens: 0, global_batch: \"4M\"}\n"
      "    - {after_tokens: \"252M\", global_batch: 4718592}\n");
  text.insert(text.find("\ncooling:\n") + 1, kNoFailures);
  const Scenario sc = load_scenario_text(text, "schedule.yaml");
  const Results r = simulate(sc);
  const std::vector<std::string> warned = schedule_warnings(r);  // the test site's clos3 has its own
  REQUIRE(warned.size() == 1);
  const std::string& w = warned.front();
  INFO(w);
  CHECK(w.rfind("training.batch_schedule[0].global_batch: 4M tokens written, simulated as 4.129M (4128768 tokens = "
                "63 microbatches per DP replica",
                0) == 0);
  CHECK(w.find("4M tokens make 61") != std::string::npos);
  CHECK(w.find("refuses 61") != std::string::npos);
  CHECK(w.find("Time-to-train") != std::string::npos);
  // The simulated table holds the tokens the warning names.
  const auto& batch = dataset(r, "/step/by_batch/global_batch").data;
  CHECK(std::find(batch.begin(), batch.end(), 4128768.0) != batch.end());
  // `validate` says the same before any simulation (check_scenario's warnings).
  std::vector<std::string> checked;
  check_scenario(sc, &checked);
  CHECK(std::count(checked.begin(), checked.end(), w) == 1);
}

TEST_CASE("a batch schedule simulated at one batch says so, not that it interpolates", "[engine][batch]") {
  // 1.18M tokens make 18.0 microbatches per DP replica: the scenario's own 144 sequences
  // (1,179,648 tokens), the only batch simulated.
  std::string text = with_training("  batch_schedule:\n    - {after_tokens: 0, global_batch: \"1.18M\"}\n");
  text.insert(text.find("\ncooling:\n") + 1, kNoFailures);
  const Results r = simulate(load_scenario_text(text, "one.yaml"));
  REQUIRE(dataset(r, "/step/by_batch/global_batch").data.size() == 1);
  const auto note = std::find_if(r.notes.begin(), r.notes.end(),
                                 [](const std::string& n) { return n.rfind("batch schedule:", 0) == 0; });
  REQUIRE(note != r.notes.end());
  INFO(*note);
  CHECK(note->find("interpolates") == std::string::npos);
  CHECK(note->find("trains every entry at this batch's tokens/s") != std::string::npos);
  const std::vector<std::string> warned = schedule_warnings(r);
  REQUIRE(warned.size() == 1);
  CHECK(warned.front().rfind("training.batch_schedule[0].global_batch: 1.18M tokens written, simulated as 1.1796M "
                             "(1179648 tokens",
                             0) == 0);
}

TEST_CASE("degrade mode re-simulates the step with sampled fabric links down", "[engine][failures]") {
  const Results r = simulate(
      load_scenario_text(with_block("reliability:\n  link_failure_mode: degrade\n  draws: 50\n"), "degrade.yaml"));
  const auto& steps = dataset(r, "/network/link_down/step_time").data;
  const auto& rerouted = dataset(r, "/network/link_down/rerouted_flows").data;
  const auto& links = labels(r, "/network/link_down/link").values;
  REQUIRE(steps.size() == 3);
  REQUIRE(links.size() == 3);
  CHECK(std::set<std::string>(links.begin(), links.end()).size() == 3);  // distinct links
  const double base = r.scalar("step_time");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    INFO(links[i] << ": " << steps[i] << " s (healthy " << base << " s), " << rerouted[i] << " flows rerouted");
    CHECK(rerouted[i] > 0);        // sampled among the links that carry traffic
    CHECK(steps[i] < 1.5 * base);  // the job runs on through the remaining paths
  }
  // The expectation is their mean.
  CHECK(r.scalar("step_time_link_down") == Approx((steps[0] + steps[1] + steps[2]) / 3).epsilon(1e-12));
}

TEST_CASE("a timed spine failure reroutes the step from its time on and slows time-to-train", "[engine][failures]") {
  const double at = 2 * kDay;
  const std::string failure = "fabric:\n  failures:\n    - {type: switch_down, element: spine0.0, at: \"2 d\"}\n";
  std::string text = with_block(kNoFailures);
  const auto fab = text.find("fabric:\n");
  REQUIRE(fab != std::string::npos);
  text.replace(fab, std::string("fabric:\n").size(), failure);
  const Results base = simulate(load_scenario_text(with_block(kNoFailures), "base.yaml"));
  const Results r = simulate(load_scenario_text(text, "timed.yaml"));
  // The step before the failure is the healthy one.
  REQUIRE(r.scalar("step_time") == base.scalar("step_time"));
  CHECK(dataset(r, "/network/failures/time").data == std::vector<double>{at});
  CHECK(labels(r, "/network/failures/element").values == std::vector<std::string>{"switch_down spine0.0"});
  CHECK(dataset(r, "/network/failures/rerouted_flows").data.at(0) > 0);
  const double after = dataset(r, "/network/failures/step_time").data.at(0);
  REQUIRE(after >= r.scalar("step_time"));
  // No random failures: time-to-train = the failure's time + the rest of the work at the new step.
  const double ideal = base.scalar("time_to_train") * kDay;
  const double m = after / r.scalar("step_time");
  CHECK(r.scalar("time_to_train") * kDay == Approx(at + (ideal - at) * m).epsilon(1e-9));
  CHECK(r.scalar("time_to_train_ideal") == base.scalar("time_to_train_ideal"));
}

TEST_CASE("a timed leaf failure that disconnects GPUs is a file:line error", "[engine][failures]") {
  std::string text = small_text();
  const auto fab = text.find("fabric:\n");
  text.replace(fab, std::string("fabric:\n").size(),
               "fabric:\n  failures:\n    - {type: switch_down, element: leaf0, at: \"1 d\"}\n");
  const Scenario sc = load_scenario_text(text, "leaf.yaml");
  try {
    simulate(sc);
    FAIL("no error");
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("leaf.yaml:17") != std::string::npos);
    CHECK(what.find("fabric.failures[0]") != std::string::npos);
    CHECK(what.find("leaf0") != std::string::npos);
    CHECK(what.find("disconnect") != std::string::npos);
  }
}

namespace {

// Runs `text` and returns the ScenarioError message ("" when it runs).
std::string run_error(const std::string& text, const std::string& name) {
  try {
    simulate(load_scenario_text(text, name));
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::string with_failure(const std::string& item) {
  std::string text = small_text();
  const auto fab = text.find("fabric:\n");
  return text.replace(fab, std::string("fabric:\n").size(), "fabric:\n  failures:\n    - " + item + "\n");
}

}  // namespace

TEST_CASE("a NIC link failure is an error even where the simulated flows do not pass", "[engine][failures]") {
  // GPU 5's NIC: the step simulates the DP flows of some TP ranks only, which may not include it.
  for (const std::string at : {"0 s", "1 d"}) {
    const std::string msg =
        run_error(with_failure("{type: link_down, element: gpu5-leaf1, at: \"" + at + "\"}"), "nic.yaml");
    INFO(msg);
    CHECK(msg.find("nic.yaml:17") != std::string::npos);
    CHECK(msg.find("fabric.failures[0].element") != std::string::npos);
    CHECK(msg.find("disconnects GPU 5") != std::string::npos);
  }
}

TEST_CASE("NVLink failures are rejected: the collectives inside the domain are analytic", "[engine][failures]") {
  for (const std::string item :
       {"{type: switch_down, element: nvs0}", "{type: link_down, element: gpu5-nvs0, at: \"2 d\"}"}) {
    const std::string msg = run_error(with_failure(item), "nvl.yaml");
    INFO(msg);
    CHECK(msg.find("fabric.failures[0].element") != std::string::npos);
    CHECK(msg.find("NVLink") != std::string::npos);
  }
}

TEST_CASE("a batch smaller than one microbatch per DP replica is an error", "[engine][batch]") {
  // dp 8 x 1 x 8192 = 65,536 tokens at least.
  const std::string msg =
      run_error(with_training("  batch_schedule:\n    - {after_tokens: 0, global_batch: \"1K\"}\n"), "tiny.yaml");
  INFO(msg);
  CHECK(msg.find("training.batch_schedule[0].global_batch") != std::string::npos);
  CHECK(msg.find("65536 tokens") != std::string::npos);
}

TEST_CASE("link-down samples count the transfers each sampled link carries one link at a time", "[engine][failures]") {
  // degraded_link_step counts every sample's rerouted transfers in one pass over the schedule;
  // here each count is checked against a plain count of the transfers whose route crosses that
  // one link, so a pass that credits a transfer to every sample when it crosses any would fail.
  const Scenario sc = load_scenario_text(small_text(), "small.yaml");
  const SampledLinksDown run(sc, 6);
  const topology::Fabric& fabric = run.fabric;
  const StepRun& step = run.step;
  const LinkDownStep& down = run.down;
  REQUIRE(down.links.size() == 6);
  REQUIRE(down.rerouted_flows.size() == down.links.size());
  std::set<int> distinct;
  for (std::size_t i = 0; i < down.links.size(); ++i) {
    const std::vector<int> ids = fabric.find_links(down.links[i]);
    REQUIRE(ids.size() == 1);
    int n = 0;
    for (const auto& a : step.plan.schedule.activities) {
      if (a.kind != network::Activity::Kind::Transfer || a.gpu == a.dst_gpu) continue;
      for (const auto& h : fabric.route(a.gpu, a.dst_gpu, a.flow_hash))
        if (h.link == ids[0]) {
          ++n;
          break;
        }
    }
    INFO(down.links[i]);
    CHECK(down.rerouted_flows[i] == n);
    CHECK(n > 0);
    distinct.insert(n);
  }
  CHECK(distinct.size() > 1);  // the links carry different transfer counts: the check can tell them apart
  // Every link is up again.
  for (int l = 0; l < fabric.link_count(); ++l) CHECK(fabric.link(l).up);
}

TEST_CASE("link-down samples on a 2-plane fabric count the transfers whose part on any plane crosses the link",
          "[engine][failures][planes]") {
  // FlowNetwork splits a transfer over the NICs evenly over the planes (one sub-flow per plane,
  // Fabric::hash_on_plane). The count took only the part on the flow hash's own plane, so a link
  // carrying the other part of a transfer was not credited with it.
  std::string text = small_text();
  const std::string topo = "  topology: clos3";
  const auto pos = text.find(topo);
  REQUIRE(pos != std::string::npos);
  text.insert(pos, "  planes: 2\n");
  const Scenario sc = load_scenario_text(text, "small-2-planes.yaml");
  REQUIRE(sc.fabric.planes == 2);
  const SampledLinksDown run(sc, 6);
  const topology::Fabric& fabric = run.fabric;
  const StepRun& step = run.step;
  const LinkDownStep& down = run.down;
  REQUIRE(down.links.size() == 6);
  int missed = 0;  // transfers only their second plane's part brings onto a sampled link
  for (std::size_t i = 0; i < down.links.size(); ++i) {
    const std::vector<int> ids = fabric.find_links(down.links[i]);
    REQUIRE(ids.size() == 1);
    auto crosses = [&](const network::Activity& a, std::uint64_t h) {
      for (const auto& hop : fabric.route(a.gpu, a.dst_gpu, h))
        if (hop.link == ids[0]) return true;
      return false;
    };
    int all = 0, first = 0;
    for (const auto& a : step.plan.schedule.activities) {
      if (a.kind != network::Activity::Kind::Transfer || a.gpu == a.dst_gpu) continue;
      const bool on_first = crosses(a, a.flow_hash);
      bool on_any = on_first;
      if (fabric.link(fabric.route(a.gpu, a.dst_gpu, a.flow_hash).front().link).tier == topology::Tier::Access) {
        const int other = (fabric.plane_of(a.gpu, a.dst_gpu, a.flow_hash) + 1) % 2;
        on_any = on_any || crosses(a, fabric.hash_on_plane(a.gpu, a.dst_gpu, a.flow_hash, other));
      }
      all += on_any;
      first += on_first;
    }
    INFO(down.links[i]);
    CHECK(down.rerouted_flows[i] == all);
    missed += all - first;
  }
  CHECK(missed > 0);  // the second planes' parts matter here: the first-part count would differ
}

namespace {
/// The small site's text with the job on its first 288 GPUs (dp 4, the same microbatches per replica):
/// a rollout's first phase, which later phases grow.
std::string half_site(std::string text) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"  gpus: 576", "  gpus: 288"},
                                 {"    dp: 8", "    dp: 4"},
                                 {"  global_batch: 144", "  global_batch: 72"}}) {
    const auto pos = text.find(from);
    REQUIRE(pos != std::string::npos);
    text.replace(pos, from.size(), to);
  }
  return text;
}
}  // namespace

TEST_CASE("a rollout reports the step variants of the phase where training ends, each phase's in /phases",
          "[engine][failures][rollout]") {
  // Two phases that differ (288 then 576 GPUs); training ends long before the second starts. The
  // summary's step time is the first phase's (the job's), and so must be its step with a link
  // down: it came from the last phase, whose job never ran.
  std::string text =
      half_site(with_block("reliability:\n  link_failure_mode: degrade\n  failure_preset: none\n  draws: 10\n"
                           "rollout:\n  phases:\n"
                           "    - {name: half, gpus: 288, start: \"2026-03-01\"}\n"
                           "    - {name: full, gpus: 576, start: \"2099-01-01\"}\n"));
  const Results r = simulate(load_scenario_text(text, "rollout-degrade.yaml"));
  REQUIRE(dataset(r, "/phases/gpus").data == std::vector<double>{288, 576});
  REQUIRE(dataset(r, "/phases/wall_time").data.at(1) == 0);  // the second phase never runs
  REQUIRE(r.scalar("step_time") == dataset(r, "/phases/step_time").data.at(0));
  const auto& down = dataset(r, "/phases/step_time_link_down").data;
  REQUIRE(down.size() == 2);
  CHECK(down[0] != down[1]);  // each phase's own fabric and job
  CHECK(r.scalar("step_time_link_down") == down[0]);
  const auto& steps = dataset(r, "/network/link_down/step_time").data;
  REQUIRE(steps.size() == 3);
  CHECK(down[0] == Approx((steps[0] + steps[1] + steps[2]) / 3).epsilon(1e-12));
}

TEST_CASE("a failure from the start is checked against each rollout phase's fabric, the error naming the phase",
          "[engine][failures][rollout]") {
  // A spine only the 576-GPU fabric has: the 288-GPU first phase cannot fail it from the start.
  const Scenario plain = load_scenario_text(small_text(), "small.yaml");
  const topology::Fabric big = topology::build_fabric(situation_fabric_spec(plain, 576));
  const topology::Fabric half = topology::build_fabric(situation_fabric_spec(plain, 288));
  std::string spine;
  for (int n = 0; n < big.node_count() && spine.empty(); ++n)
    if (big.node(n).kind == topology::NodeKind::Spine && half.find_node(big.node(n).name) < 0) spine = big.node(n).name;
  REQUIRE(!spine.empty());
  const std::string rollout =
      "rollout:\n  phases:\n"
      "    - {name: half, gpus: 288, start: \"2026-03-01\"}\n"
      "    - {name: full, gpus: 576, start: \"2026-06-01\"}\n";
  std::string text = half_site(with_failure("{type: switch_down, element: " + spine + "}"));
  text.insert(text.find("\ncooling:\n") + 1, rollout);
  const std::string msg = run_error(text, "rollout-failure.yaml");
  INFO(msg);
  CHECK(msg.find("fabric.failures[0].element") != std::string::npos);
  CHECK(msg.find(spine) != std::string::npos);
  CHECK(msg.find("in rollout phase half") != std::string::npos);
}
