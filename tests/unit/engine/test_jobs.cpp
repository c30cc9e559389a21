// Several jobs on one fabric (issue 18): the interleaved run's closed form, placement, errors, and
// end to end: two jobs whose DP rings cross the same spines slow each other, the same jobs in
// separate pods do not; case step/12 (two jobs, astra-sim#225, SimAI#282) runs.
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "models/common/errors.hpp"
#include "models/network/flow_network.hpp"
#include "sim/engine/jobs_run.hpp"
#include "sim/engine/simulate.hpp"
#include "tests/unit/engine/result_dataset.hpp"

using namespace aidcsim;
using Catch::Matchers::Contains;

namespace {

constexpr double kRate = 50e9;  // 400 Gb/s in B/s

/// A plan of one transfer rank 0 -> rank 1 (bytes B) then `extra` s of analytic extension.
workload::StepPlan one_transfer(double bytes, double extra = 0) {
  workload::StepPlan p;
  p.gpus = 2;
  p.extra_time = extra;
  network::Activity a;
  a.kind = network::Activity::Kind::Transfer;
  a.gpu = 0;
  a.dst_gpu = 1;
  a.amount = bytes;
  p.schedule.activities = {a};
  return p;
}

/// 2 leaves x 2 GPUs, one uplink per leaf (2:1): GPUs 0, 1 -> 2, 3 share leaf 0's uplink.
topology::Fabric two_leaves() {
  topology::FabricSpec s;
  s.gpus = 4;
  s.gpus_per_node = 1;
  s.nvlink_domain = 1;
  s.kind = topology::FabricKind::LeafSpine;
  s.wiring = topology::Wiring::RackLocal;
  s.switch_radix = 4;
  s.gpus_per_leaf = 2;
  s.oversub_leaf = 2.0;
  s.link_rate = kRate;
  s.nic_rate = kRate;
  return topology::build_fabric(s);
}

std::string jobs_text(const std::string& placement_a, const std::string& placement_b, const std::string& extra = "") {
  return "name: two-jobs-small\nseed: 3\n"
         "cluster: {gpu: H100, gpus: 128, gpus_per_node: 8, nvlink_domain: 8}\n"
         "fabric: {topology: leaf_spine, wiring: rail_optimized, switch_radix: 16, link_rate: \"100 Gbps\", nic_rate: "
         "\"400 Gbps\", ecmp: {mode: spray}}\n"
         "jobs:\n"
         "  - name: a\n"
         "    model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
         "    parallelism: {tp: 8, dp: 8}\n"
         "    global_batch: 8\n"
         "    placement: " +
         placement_a +
         "\n"
         "  - name: b\n"
         "    model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
         "    parallelism: {tp: 8, dp: 8}\n"
         "    global_batch: 8\n"
         "    placement: " +
         placement_b + "\n" + extra + "training: {tokens: \"10B\"}\nreliability: {draws: 20}\n";
}

using test::dataset;

}  // namespace

TEST_CASE("interleaved jobs: two steps sharing one link take twice as long; weights 2:1", "[engine][jobs]") {
  const topology::Fabric f = two_leaves();
  network::FlowNetwork net(f);
  const double B = 1e8, L = f.latency(f.route(0, 2, 0));
  const workload::StepPlan p = one_transfer(B, 1e-3);
  // Alone: latency + B/R + the analytic extension, each of 3 steps.
  Interleaved one = interleave({{&p, {0, 2}, 0.0, 1.0, 3, 1}}, {}, 4);
  auto r = net.run(one.schedule);
  for (double d : step_durations(one, r, 0)) CHECK(d == Approx(L + B / kRate + 1e-3).epsilon(1e-9));
  // Two jobs on leaf 0's only uplink, in lockstep: R/2 each.
  Interleaved two = interleave({{&p, {0, 2}, 0.0, 1.0, 3, 1}, {&p, {1, 3}, 0.0, 1.0, 3, 2}}, {}, 4);
  r = net.run(two.schedule);
  for (std::size_t j = 0; j < 2; ++j)
    for (double d : step_durations(two, r, j)) CHECK(d == Approx(L + 2 * B / kRate + 1e-3).epsilon(1e-9));
  // Bytes by job add up to bytes per link; each job's bytes cross the uplink 3 times.
  REQUIRE(r.groups == std::vector<int>{1, 2});
  const std::size_t NL = static_cast<std::size_t>(f.link_count());
  for (std::size_t l = 0; l < NL; ++l)
    CHECK(r.link_bytes_group_fwd[l] + r.link_bytes_group_fwd[NL + l] == Approx(r.link_bytes_fwd[l]).margin(1e-3));
  CHECK(r.link_bytes_group_fwd[f.access_link(0)] == Approx(3 * B));
  CHECK(r.link_bytes_group_fwd[NL + f.access_link(0)] == 0);
  // Priority 2 against 1, one step each: 2R/3 and R/3 until the first ends at 1.5 B/R.
  Interleaved w = interleave({{&p, {0, 2}, 0.0, 2.0, 1, 1}, {&p, {1, 3}, 0.0, 1.0, 1, 2}}, {}, 4);
  r = net.run(w.schedule);
  CHECK(step_durations(w, r, 0)[0] == Approx(L + 1.5 * B / kRate + 1e-3).epsilon(1e-9));
  CHECK(step_durations(w, r, 1)[0] == Approx(L + 2 * B / kRate + 1e-3).epsilon(1e-9));
  // A start offset: job 2 starts after job 1's first step; a background flow bounded at R/4
  // leaves 3R/4 to the job crossing the same uplink.
  Interleaved s = interleave({{&p, {0, 2}, 0.0, 1.0, 1, 1}}, {{{1}, {3}, kRate / 4, 0.0, 4 * B / kRate, 1.0, 2}}, 4);
  r = net.run(s.schedule);
  CHECK(step_durations(s, r, 0)[0] == Approx(L + B / (0.75 * kRate) + 1e-3).epsilon(1e-9));
  CHECK(r.finish[s.flows[0][0]] == Approx(L + 4 * B / kRate).epsilon(1e-9));
  Interleaved late = interleave({{&p, {0, 2}, 0.0, 1.0, 1, 1}, {&p, {1, 3}, 5e-3, 1.0, 1, 2}}, {}, 4);
  r = net.run(late.schedule);
  CHECK(r.finish[late.begin[1]] == Approx(5e-3));
  CHECK(step_durations(late, r, 1)[0] == Approx(L + B / kRate + 1e-3).epsilon(1e-9));  // job 1 done by then
  CHECK_THROWS_AS(interleave({{&p, {0}, 0.0, 1.0, 1, 1}}, {}, 4), InvalidParameter);
  CHECK_THROWS_AS(interleave({{&p, {0, 7}, 0.0, 1.0, 1, 1}}, {}, 4), InvalidParameter);
}

TEST_CASE("placement: contiguous, per_pod, scattered, explicit; errors name the job's key", "[engine][jobs]") {
  using workload::JobEntry;
  const std::vector<int> pods = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};  // 16 GPUs, 2 pods
  auto job = [](int gpus, std::string placement) {
    JobEntry e;
    e.gpus = gpus;
    e.placement = std::move(placement);
    e.key = "jobs[0]";
    e.name = "j";
    return e;
  };
  std::vector<JobEntry> jobs = {job(4, "contiguous"), job(4, "per_pod"), job(4, "scattered")};
  jobs[1].key = "jobs[1]";
  jobs[2].key = "jobs[2]";
  auto g = workload::place_jobs(jobs, 2, pods);
  CHECK(g[0] == std::vector<int>{0, 1, 2, 3});
  CHECK(g[1] == std::vector<int>{4, 5, 6, 7});    // the rest of pod 0
  CHECK(g[2] == std::vector<int>{8, 9, 10, 11});  // pod 0 is full: pod 1 only
  jobs = {job(8, "scattered")};
  g = workload::place_jobs(jobs, 2, pods);
  CHECK(g[0] == std::vector<int>{0, 1, 8, 9, 2, 3, 10, 11});  // domains round robin over pods
  jobs = {job(4, "explicit"), job(4, "contiguous")};
  jobs[0].explicit_gpus = {2, 3, 0, 1};
  jobs[1].key = "jobs[1]";
  g = workload::place_jobs(jobs, 2, pods);
  CHECK(g[0] == std::vector<int>{2, 3, 0, 1});
  CHECK(g[1] == std::vector<int>{4, 5, 6, 7});
  auto key_of = [&](std::vector<JobEntry> js, int domain = 2) {
    try {
      workload::place_jobs(js, domain, pods);
    } catch (const InvalidParameter& e) {
      return e.key();
    }
    return std::string("no error");
  };
  // Overlap, a split domain, more GPUs than the cluster has, a domain shared with a background job.
  jobs = {job(4, "explicit"), job(4, "explicit")};
  jobs[1].key = "jobs[1]";
  jobs[0].explicit_gpus = {0, 1, 2, 3};
  jobs[1].explicit_gpus = {2, 3, 4, 5};
  CHECK(key_of(jobs) == "jobs[1].placement");
  jobs = {job(4, "explicit")};
  jobs[0].explicit_gpus = {0, 2, 1, 3};
  CHECK(key_of(jobs) == "jobs[0].placement");
  jobs = {job(12, "contiguous"), job(8, "contiguous")};
  jobs[1].key = "jobs[1]";
  CHECK(key_of(jobs) == "jobs[1].gpus");
  jobs = {job(3, "contiguous")};
  CHECK(key_of(jobs) == "jobs[0].gpus");
  jobs = {job(12, "per_pod")};
  CHECK(key_of(jobs) == "jobs[0].placement");
  JobEntry bg;
  bg.kind = JobEntry::Kind::Background;
  bg.key = "jobs[1]";
  bg.from = {3};
  bg.to = {9};
  jobs = {job(4, "explicit"), bg};
  jobs[0].explicit_gpus = {2, 3, 4, 5};
  CHECK(key_of(jobs) == "jobs[1].from");  // a training job's GPU (whole domains: no domain is shared)
  bg.from = {1};
  jobs = {job(4, "explicit"), bg};
  jobs[0].explicit_gpus = {2, 3, 4, 5};
  CHECK(key_of(jobs) == "no error");
  // GPU lists.
  CHECK(workload::parse_gpu_list("0-3, 8", "k", pods) == std::vector<int>{0, 1, 2, 3, 8});
  CHECK(workload::parse_gpu_list("pod 1", "k", pods).size() == 8);
  CHECK_THROWS_AS(workload::parse_gpu_list("0-16", "k", pods), InvalidParameter);
  CHECK_THROWS_AS(workload::parse_gpu_list("0, 0", "k", pods), InvalidParameter);
  CHECK_THROWS_AS(workload::parse_gpu_list("pod 5", "k", pods), InvalidParameter);
  CHECK_THROWS_AS(workload::parse_gpu_list("a-b", "k", pods), InvalidParameter);
}

TEST_CASE("two jobs whose DP rings cross the same spines slow each other; in separate pods they do not",
          "[engine][jobs]") {
  // 128 GPUs rail-optimized, 2 scalable units of 64 GPUs, leaf uplinks at 1/4 of the NIC rate
  // (4:1), flows sprayed over every uplink (no ECMP collision luck either way).
  const Results apart = simulate(load_scenario_text(jobs_text("per_pod", "per_pod"), "apart.yaml"));
  const Results mixed = simulate(load_scenario_text(jobs_text("scattered", "scattered"), "mixed.yaml"));
  for (const char* j : {"a", "b"}) {
    const std::string k = std::string("jobs.") + j + ".";
    INFO(j << ": apart " << apart.scalar(k + "step_time") << " s (alone " << apart.scalar(k + "step_time_alone")
           << "), scattered " << mixed.scalar(k + "step_time") << " s (alone " << mixed.scalar(k + "step_time_alone")
           << ")");
    // Per pod: DP rings stay on their scalable unit's rail leaves, nothing shared.
    CHECK(apart.scalar(k + "slowdown") == Approx(1.0).epsilon(1e-9));
    // Scattered: every ring step crosses the oversubscribed uplinks, now with the other job's.
    CHECK(mixed.scalar(k + "slowdown") > 1.05);
    CHECK(mixed.scalar(k + "step_time") > apart.scalar(k + "step_time"));
    CHECK(dataset(mixed, "/jobs/" + std::string(j) + "/slowdown").unit == "1");
    CHECK(dataset(mixed, "/jobs/" + std::string(j) + "/step_time").unit == "s");
    CHECK(mixed.scalar(k + "time_to_train") > apart.scalar(k + "time_to_train"));
  }
  // Bytes by job add up to bytes per link.
  const Dataset& by_job = dataset(mixed, "/network/link_bytes_by_job");
  const Dataset& total = dataset(mixed, "/network/link_bytes");
  REQUIRE(by_job.shape == std::vector<std::size_t>{2, total.data.size()});
  for (std::size_t l = 0; l < total.data.size(); ++l)
    CHECK(by_job.data[l] + by_job.data[total.data.size() + l] == Approx(total.data[l]).margin(1e-3));
  // Same scenario and seed: the same results bit for bit.
  const Results again = simulate(load_scenario_text(jobs_text("scattered", "scattered"), "mixed.yaml"));
  CHECK(again.scalar("jobs.a.step_time") == mixed.scalar("jobs.a.step_time"));
}

TEST_CASE("a background job slows a training job crossing its links; achieved rate reported", "[engine][jobs]") {
  const std::string bg =
      "  - {name: inference, kind: background, from: \"64-95\", to: \"96-127\", rate: \"3200 Gbps\"}\n";
  std::string text = jobs_text("\"0-63\"", "\"64-127\"", "");
  // Replace job b by a background job on the other scalable unit: no shared link with job a.
  const auto b = text.find("  - name: b");
  const auto end = text.find("training:");
  const std::string apart = text.substr(0, b) + bg + text.substr(end);
  const Results r = simulate(load_scenario_text(apart, "bg.yaml"));
  CHECK(r.scalar("jobs.a.slowdown") == Approx(1.0).epsilon(1e-9));
  CHECK(r.scalar("jobs.inference.offered_rate") == Approx(3200));
  CHECK(r.scalar("jobs.inference.achieved_rate") == Approx(3200).epsilon(0.01));
}

TEST_CASE("jobs: errors at file:line with the job's key", "[engine][jobs]") {
  auto error_of = [](const std::string& text) {
    try {
      simulate(load_scenario_text(text, "bad.yaml"));
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Overlapping GPU sets.
  CHECK_THAT(error_of(jobs_text("\"0-63\"", "\"32-95\"")), Contains("bad.yaml:15") && Contains("jobs[1].placement"));
  // A job splitting an NVLink domain (ranks 0-7 on GPUs 4-11).
  CHECK_THAT(error_of(jobs_text("\"4-67\"", "contiguous")), Contains("jobs[0].placement") && Contains("NVLink"));
  // GPUs beyond cluster.gpus.
  CHECK_THAT(error_of(jobs_text("\"64-127\"", "\"100-163\"")),
             Contains("jobs[1].placement") && Contains("cluster.gpus"));
  std::string three = jobs_text("contiguous", "contiguous");
  three.replace(three.find("training:"), 0,
                "  - {name: c, model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}, "
                "parallelism: {tp: 8, dp: 2}, global_batch: 2}\n");
  CHECK_THAT(error_of(three), Contains("jobs[2].gpus") && Contains("free GPUs"));
  // A workload key of a job is checked as workload: keys are, under its own name.
  std::string bad_tp = jobs_text("contiguous", "contiguous");
  bad_tp.replace(bad_tp.find("tp: 8, dp: 8}\n    global_batch: 8\n    placement: contiguous\n  - name: b"), 13,
                 "tp: 8, dp: 7}");
  CHECK_THAT(error_of(bad_tp), Contains("jobs[0]"));
  // A dp_algorithm a job cannot run, under the job's key: sharp without in-network reduction (the
  // loader), nvls on DP groups of one GPU per 8-GPU domain (before simulating; 0.1.0: an untyped
  // error from the step, no key).
  for (const std::string alg : {"sharp", "nvls"}) {
    std::string t = jobs_text("contiguous", "contiguous");
    t.replace(t.find("tp: 8, dp: 8}\n    global_batch: 8\n    placement: contiguous\n  - name: b"), 13,
              "tp: 8, dp: 8, dp_algorithm: " + alg + "}");
    CHECK_THAT(error_of(t), Contains("bad.yaml:8") && Contains("jobs[0].parallelism.dp_algorithm: got '" + alg) &&
                                Contains(alg == "sharp" ? "fabric.sharp: true" : "more than 2 GPUs in every NVLink"));
  }
  // fabric.sharp: true that no job's DP group uses: job a's nvls DP group (tp 1, dp 8) lies inside
  // one 8-GPU NVLink domain, job b's DP runs auto (ring across domains). d097d0b ran it, the key
  // unread; now an error at the key's line (the loader sees only dp_algorithm's name).
  {
    std::string t = jobs_text("contiguous", "contiguous");
    t.replace(t.find("nic_rate"), 0, "sharp: true, ");
    t.replace(t.find("tp: 8, dp: 8}\n    global_batch: 8\n    placement: contiguous\n  - name: b"), 13,
              "tp: 1, dp: 8, dp_algorithm: nvls}");
    CHECK_THAT(error_of(t), Contains("bad.yaml:4") && Contains("fabric.sharp: got 'true', expected no fabric.sharp") &&
                                Contains("no jobs[] entry has one") && Contains("would be ignored"));
  }
  // workload: and jobs: together.
  CHECK_THAT(error_of(jobs_text("contiguous", "contiguous") + "workload: {global_batch: 8}\n"), Contains("workload"));
  // A background job with workload keys.
  std::string bgw = jobs_text("contiguous", "contiguous");
  bgw.replace(bgw.find("training:"), 0,
              "  - {name: x, kind: background, from: \"0\", to: \"1\", rate: \"1 Gbps\", global_batch: 2}\n");
  CHECK_THAT(error_of(bgw), Contains("jobs[2].global_batch"));
}

TEST_CASE("case step/12: two jobs (workloads:) share a 2:1 leaf-spine and each gets its step time",
          "[engine][jobs][cases]") {
  // ../shared/cases/step/12-two-jobs.yaml as written (astra-sim#225, SimAI#282), with a short
  // Monte Carlo. `workloads:` is read as `jobs:`; contiguous placement by default.
  const std::string text =
      "name: two-jobs\n"
      "cluster: {gpu: H100, gpus: 512, gpus_per_node: 8, nvlink_domain: 8}\n"
      "fabric: {topology: leaf_spine, wiring: rail_optimized, oversubscription: {leaf: \"2:1\"}}\n"
      "workloads:\n"
      "  - model: {layers: 32, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
      "    parallelism: {tp: 8, dp: 32}\n"
      "    global_batch: 256\n"
      "  - model: {layers: 32, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048}\n"
      "    parallelism: {tp: 8, dp: 32}\n"
      "    global_batch: 256\n"
      "training: {tokens: \"1T\"}\nreliability: {draws: 20}\n";
  const Results r = simulate(load_scenario_text(text, "12-two-jobs.yaml"));
  for (const char* j : {"job0", "job1"}) {
    const std::string k = std::string("jobs.") + j + ".";
    INFO(j << ": shared " << r.scalar(k + "step_time") << " s, alone " << r.scalar(k + "step_time_alone") << " s");
    CHECK(r.scalar(k + "step_time") > 0);
    CHECK(r.scalar(k + "slowdown") >= 1.0 - 1e-9);
  }
  // Identical jobs on mirror halves of the cluster: the same step time alone (up to their
  // distinct ECMP hashes: each job's flows get their own seed).
  CHECK(r.scalar("jobs.job0.step_time_alone") == Approx(r.scalar("jobs.job1.step_time_alone")).epsilon(1e-3));
}
