// A checkpoint written as flows to the storage servers on the fabric (issue 18): on an idle fabric
// its time is size / the bottleneck bandwidth (closed forms, one per bottleneck), alongside
// training it takes longer, and the time-to-train model uses the simulated time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

#include "models/common/profile.hpp"
#include "models/workload/step.hpp"
#include "sim/engine/checkpoint_write.hpp"
#include "sim/engine/simulate.hpp"
#include "sim/scenario/gpu_catalogue.hpp"
#include "tests/unit/engine/helpers.hpp"

using namespace aidcsim;
using namespace aidcsim::topology;

namespace {

/// 16 GPUs, 4 per node, rail-optimized leaf-spine of radix-8 switches: 4 rail leaves (GPU g on
/// leaf g % 4), each with 4 GPU ports and 4 uplinks at 1:1 (2 to each of 2 spines).
FabricSpec fabric_16(double nic_rate = 50e9, double link_rate = 50e9) {
  FabricSpec s;
  s.gpus = 16;
  s.gpus_per_node = 4;
  s.nvlink_domain = 4;
  s.kind = FabricKind::LeafSpine;
  s.switch_radix = 8;
  s.nic_rate = nic_rate;
  s.link_rate = link_rate;
  return s;
}

StorageSpec servers(int nodes, int nics, double nic_rate, double write) {
  StorageSpec st;
  st.nodes = nodes;
  st.nics_per_node = nics;
  st.nic_rate = nic_rate;
  st.write_bandwidth = write;
  st.read_bandwidth = write;
  return st;
}

/// The write's time when `bottleneck` B/s carry all its bytes, plus one route's latency (every
/// flow waits its route latency first; all routes here cross 4 links of cable + switch).
double closed_form(const FabricSpec& s, double bytes, double bottleneck) {
  return bytes / bottleneck + 4 * (s.link_latency + s.switch_latency);
}

}  // namespace

TEST_CASE("checkpoint write on an idle fabric = size / bottleneck bandwidth, for each bottleneck",
          "[engine][storage][validation]") {
  const double bytes = 16e9;  // 1 GB per GPU
  SECTION("storage media: 2 servers x 10 GB/s write") {
    FabricSpec s = fabric_16();
    s.storage = servers(2, 1, 50e9, 10e9);
    const Fabric f = build_fabric(s);
    network::FlowNetwork net(f);
    const CheckpointWrite w = write_checkpoint(f, net, 16, bytes, 1);
    CHECK(w.shards == 16);
    CHECK(w.idle_time == Approx(closed_form(s, bytes, 2 * 10e9)).epsilon(1e-9));
    CHECK(w.bottleneck == StorageBottleneck::Media);
    CHECK(w.media_bound == Approx(20e9));
    CHECK(w.bottleneck_utilization == Approx(1).epsilon(1e-4));
  }
  SECTION("storage NICs: 2 servers x 2 NICs of 100 Gb/s") {
    FabricSpec s = fabric_16();
    s.storage = servers(2, 2, 12.5e9, 100e9);
    const Fabric f = build_fabric(s);
    network::FlowNetwork net(f);
    const CheckpointWrite w = write_checkpoint(f, net, 16, bytes, 1);
    CHECK(w.idle_time == Approx(closed_form(s, bytes, 4 * 12.5e9)).epsilon(1e-9));
    CHECK(w.bottleneck == StorageBottleneck::StorageNics);
    CHECK(w.storage_nic_bound == Approx(50e9));
  }
  SECTION("GPU NICs: 4 writing GPUs of 200 Gb/s") {
    // 800G switch links: even if ECMP puts all 4 flows on one storage-leaf downlink, it carries them.
    FabricSpec s = fabric_16(25e9, 100e9);
    s.storage = servers(2, 2, 100e9, 1e12);
    const Fabric f = build_fabric(s);
    network::FlowNetwork net(f);
    const CheckpointWrite w = write_checkpoint(f, net, 4, bytes / 2, 1);  // 2 GB per GPU
    CHECK(w.idle_time == Approx(closed_form(s, bytes / 2, 4 * 25e9)).epsilon(1e-9));
    CHECK(w.bottleneck == StorageBottleneck::GpuNics);
    CHECK(w.gpu_nic_bound == Approx(100e9));
  }
  SECTION("fabric: the storage leaf's single uplink at 4:1") {
    FabricSpec s = fabric_16();
    s.oversub_leaf = 4;  // radix 8: 4 GPU ports, 1 uplink; one spine
    s.storage = servers(2, 2, 50e9, 100e9);
    const Fabric f = build_fabric(s);
    REQUIRE(f.layout().leaf_up == 1);
    network::FlowNetwork net(f);
    const CheckpointWrite w = write_checkpoint(f, net, 16, bytes, 1);
    CHECK(w.idle_time == Approx(closed_form(s, bytes, 50e9)).epsilon(1e-9));
    CHECK(w.bottleneck == StorageBottleneck::Fabric);
  }
  SECTION("separate storage: no fabric in between, 3 links per route") {
    FabricSpec s = fabric_16();
    s.storage = servers(4, 1, 50e9, 5e9);
    s.storage.attach = StorageSpec::Attach::Separate;
    const Fabric f = build_fabric(s);
    network::FlowNetwork net(f);
    const CheckpointWrite w = write_checkpoint(f, net, 16, bytes, 1);
    CHECK(w.idle_time == Approx(bytes / 20e9 + 2 * (s.link_latency + s.switch_latency)).epsilon(1e-9));
    CHECK(w.bottleneck == StorageBottleneck::Media);
  }
}

TEST_CASE("the shards are spread evenly: rank r to server r % S, NIC (r / S) % nics", "[engine][storage]") {
  FabricSpec s = fabric_16();
  s.storage = servers(3, 2, 50e9, 10e9);
  const Fabric f = build_fabric(s);
  const network::Schedule sch = checkpoint_schedule(f, 16, 16e9, 7);
  REQUIRE(sch.activities.size() == 16);
  for (int r = 0; r < 16; ++r) {
    const auto& a = sch.activities[r];
    CHECK(a.gpu == r);
    CHECK(a.dst_gpu == f.storage_node(r % 3));
    CHECK(a.amount == Approx(1e9));
    const auto hops = f.route(a.gpu, a.dst_gpu, a.flow_hash);
    CHECK(hops[hops.size() - 2].link == f.storage_access_link(r % 3, (r / 3) % 2));
  }
  FabricSpec none = fabric_16();
  const Fabric g = build_fabric(none);
  CHECK_THROWS_AS(checkpoint_schedule(g, 16, 1e9, 7), InvalidParameter);
}

TEST_CASE("alongside training the write takes longer: two flows per GPU NIC get half each",
          "[engine][storage][validation]") {
  // GPU-NIC-bound write (4 GPUs x 2 GB at 25 GB/s: 0.08 s alone). Each step: every writing GPU
  // sends 1.5 GB to a GPU of another leaf (0.06 s alone). Together the NIC is shared 1:1, so the
  // write gets 12.5 GB/s per GPU: 2 GB in 0.16 s (2 steps run meanwhile), and the first step
  // takes 0.12 s instead of 0.06 s.
  FabricSpec s = fabric_16(25e9, 100e9);  // switch links carry any ECMP collision of these flows
  s.storage = servers(2, 2, 100e9, 1e12);
  const Fabric f = build_fabric(s);
  network::FlowNetwork net(f);
  CheckpointWrite w = write_checkpoint(f, net, 4, 8e9, 1);
  network::Schedule step;
  step.gpu_flops = {1e15};
  for (int g = 0; g < 4; ++g) {
    network::Activity a;
    a.kind = network::Activity::Kind::Transfer;
    a.gpu = g;
    a.dst_gpu = g + 5;  // another node (and leaf)
    a.amount = 1.5e9;
    a.flow_hash = 11 + g;
    step.activities.push_back(a);
  }
  const double step_alone = net.run(step).makespan;
  REQUIRE(step_alone == Approx(0.06).epsilon(1e-4));
  write_checkpoint_alongside(w, f, net, 4, step, step_alone, 1);
  const double lat = 4 * (s.link_latency + s.switch_latency);
  CHECK(w.training_time > 1.9 * w.idle_time);
  CHECK(w.training_time == Approx(0.16 + lat).epsilon(1e-4));
  CHECK(w.steps_alongside == 2);
  CHECK_FALSE(w.steps_capped);
  CHECK(w.step_time_with_write == Approx(0.12 + lat).epsilon(1e-4));
  CHECK(w.step_time_alone == step_alone);
}

TEST_CASE("the write alongside a step with relaxed switch links: within 1e-9 of the run with them in the solver",
          "[engine][storage][relaxed_links]") {
  // 32 H100s (4 HGX nodes), rack-local leaf-spine at 2:1 with 100 Gb/s NICs: the step's DP rings
  // and the write (4 servers on their own leaves; media-bound at 4 x 5 GB/s alone) share the GPU
  // NICs and the oversubscribed uplinks: each slows the other, and relaxed uplinks are put back in
  // the solver during the run (counted below).
  topology::FabricSpec fs = test::h100_rail_fabric(32, 8, 16, 12.5e9);
  fs.oversub_leaf = 2;
  fs.wiring = topology::Wiring::RackLocal;
  fs.storage = servers(4, 2, 50e9, 5e9);
  const Fabric f = build_fabric(fs);
  network::FlowNetwork net(f);
  workload::JobSpec j;
  j.model = test::small_gpt();
  j.par.tp = 2;
  j.par.pp = 2;
  j.par.dp = 8;
  j.grad_reduce_dtype = "fp32";
  j.global_batch = 8 * j.par.dp;
  workload::StepOptions opt;
  opt.seed = 42;
  const auto plan = workload::plan_step(j, builtin_gpus().find("H100"), f, opt);
  const double step_alone = net.run(plan.schedule).makespan;
  REQUIRE(step_alone > 0);
  // A checkpoint that the media write in ~60 % of the step alone.
  const double bytes = 0.6 * step_alone * 4 * 5e9;
  const CheckpointWrite w0 = write_checkpoint(f, net, 32, bytes, 42);
  CheckpointWrite exact = w0, relaxed = w0;
  network::RunResult exact_run, relaxed_run;
  write_checkpoint_alongside(exact, f, net, 32, plan.schedule, step_alone, 42, false, &exact_run);
  profile::enable(true);  // counts the relaxed directions put back: the test covers that path
  profile::reset();
  write_checkpoint_alongside(relaxed, f, net, 32, plan.schedule, step_alone, 42, true, &relaxed_run);
  long long put_back = 0;
  for (const auto& e : profile::entries())
    if (e.name == "network: relaxed link directions put back in the solver (count)") put_back += e.calls;
  profile::reset();
  profile::enable(false);
  CHECK(put_back > 0);
  CHECK(net.relaxed_tiers() == 0);                              // restored
  CHECK(exact.step_time_with_write > step_alone * (1 + 1e-6));  // the write slows the step: they interact
  CHECK(relaxed.steps_alongside == exact.steps_alongside);
  CHECK(relaxed.training_time == Approx(exact.training_time).epsilon(1e-9).margin(0));
  CHECK(relaxed.step_time_with_write == Approx(exact.step_time_with_write).epsilon(1e-9).margin(0));
  REQUIRE(relaxed_run.link_bytes_fwd.size() == exact_run.link_bytes_fwd.size());
  double worst = 0;
  for (std::size_t l = 0; l < exact_run.link_bytes_fwd.size(); ++l)
    for (const auto& [a, b] : {std::pair{exact_run.link_bytes_fwd[l], relaxed_run.link_bytes_fwd[l]},
                               std::pair{exact_run.link_bytes_rev[l], relaxed_run.link_bytes_rev[l]}})
      if (a != b) worst = std::max(worst, std::abs(a - b) / std::max(std::abs(a), std::abs(b)));
  CHECK(worst <= 1e-9);
  REQUIRE(relaxed_run.finish.size() == exact_run.finish.size());
  double worst_finish = 0;  // every activity's finish, relative to the run's length
  for (std::size_t i = 0; i < exact_run.finish.size(); ++i)
    worst_finish = std::max(worst_finish, std::abs(relaxed_run.finish[i] - exact_run.finish[i]));
  CHECK(worst_finish <= 1e-9 * exact_run.makespan);
}

namespace {
std::string small_text() {
  std::ifstream in(std::string(AIDCSIM_SOURCE_DIR) + "/tests/data/small-576.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("the simulated checkpoint sets the Young/Daly interval and ETTR; absent storage keeps the scalar",
          "[engine][storage]") {
  // Sync checkpoints (the stall is the write), a fixed 1 TB checkpoint; storage: 4 servers of
  // 2.5 GB/s media on their own leaves = 10 GB/s -> 100 s alone, the media being the bottleneck.
  const std::string base = small_text() + "reliability:\n  checkpoint_mode: sync\n  checkpoint_bytes: \"1 TB\"\n";
  std::string text = base;
  const auto pos = text.find("  ecmp:");
  REQUIRE(pos != std::string::npos);
  text.insert(pos,
              "  storage:\n    nodes: 4\n    nics_per_node: 1\n    nic_rate: \"400 Gbps\"\n"
              "    write_bandwidth: \"2.5 GB/s\"\n    read_bandwidth: \"5 GB/s\"\n");
  const Results r = simulate(load_scenario_text(text, "storage.yaml"));
  const double t = r.scalar("checkpoint_write_time");
  CHECK(t == Approx(1e12 / 10e9).epsilon(1e-3));
  CHECK(r.scalar("checkpoint_write_time_idle") == Approx(t));
  CHECK_THROWS(r.scalar("checkpoint_write_time_training"));  // sync: training waits, nothing runs alongside
  CHECK(r.scalar("storage_bandwidth_effective") == Approx(10).epsilon(1e-3));  // GB/s
  const Results plain = simulate(load_scenario_text(base, "plain.yaml"));
  CHECK_THROWS(plain.scalar("checkpoint_write_time"));
  // 2 TB/s scalar: 0.5 s per checkpoint; simulated: 100 s: Daly's interval grows ~ sqrt(stall)
  // and ETTR falls.
  CHECK(r.scalar("checkpoint_interval") > 10 * plain.scalar("checkpoint_interval"));
  CHECK(r.scalar("ettr") < plain.scalar("ettr"));
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.rfind("storage: checkpoint of 1 TB written as 576 flows", 0) == 0;
  CHECK(noted);
}

TEST_CASE("the step with the write alongside can end before the step alone: max-min sharing is not monotone",
          "[engine][storage][slowdown]") {
  // GPUs 0, 4, 8, 12 on one rail leaf (4 nodes), NICs of C = 25 GB/s, 100 GB/s switch links.
  // Step: f1 GPU 4 -> 8 (0.25 GB), then 2e13 FLOP on GPU 8 (20 ms at 1 PFLOP/s): the critical
  // path; f2 GPU 0 -> 8 and f3 GPU 0 -> 12 (0.25 GB each). Alone: f1 and f2 share GPU 8's NIC at
  // C/2 (f2 gets C/2 from GPU 0's NIC too): f1 ends at 20 ms, the step at 40 ms. With rank 0's
  // shard written (storage fast enough that GPU 0's NIC binds), f2, f3 and the write get C/3 each
  // of GPU 0's NIC, so f1 gets 2C/3 of GPU 8's: it ends at 15 ms, the step at 35 ms (f2, f3 at
  // 30 ms): step_time_with_write / step_time_alone = 0.875, the write ending later (shared NIC).
  FabricSpec s = fabric_16(25e9, 100e9);
  s.storage = servers(1, 1, 100e9, 1e12);
  const Fabric f = build_fabric(s);
  network::FlowNetwork net(f);
  CheckpointWrite w = write_checkpoint(f, net, 1, 1.5e9, 1);  // rank 0 only: 60 ms alone
  REQUIRE(w.idle_time == Approx(0.06).epsilon(1e-3));
  network::Schedule step;
  step.gpu_flops.assign(16, 1e15);
  auto transfer = [&](int src, int dst, std::uint64_t hash) {
    network::Activity a;
    a.kind = network::Activity::Kind::Transfer;
    a.gpu = src;
    a.dst_gpu = dst;
    a.amount = 0.25e9;
    a.flow_hash = hash;
    step.activities.push_back(a);
  };
  transfer(4, 8, 3);
  network::Activity compute;
  compute.kind = network::Activity::Kind::Compute;
  compute.gpu = 8;
  compute.amount = 2e13;
  compute.after = {0};
  step.activities.push_back(compute);
  transfer(0, 8, 5);
  transfer(0, 12, 7);
  const double step_alone = net.run(step).makespan;
  REQUIRE(step_alone == Approx(0.04).epsilon(1e-3));
  int runs = 0, steps_seen = 0;
  write_checkpoint_alongside(w, f, net, 1, step, step_alone, 1, true, nullptr, [&](int k) {
    ++runs;
    steps_seen = k;
  });
  CHECK(w.step_time_alone == step_alone);
  CHECK(w.step_time_with_write == Approx(0.035).epsilon(1e-3));
  CHECK(w.step_time_with_write / w.step_time_alone == Approx(0.875).epsilon(1e-3));
  CHECK(w.training_time > w.idle_time);
  CHECK(runs >= 1);  // the progress hook sees each alongside run, with its step copies
  CHECK(steps_seen == w.steps_alongside);
}

TEST_CASE("an async checkpoint's stage reports before each of its flow runs, and reporting changes no result",
          "[engine][storage][progress]") {
  // The stage is FlowNetwork runs: the write alone, then the write alongside the steps (one run,
  // or two when the steps end first). A report before each keeps the progress line moving.
  std::string text = small_text() + "reliability:\n  checkpoint_mode: async\n  checkpoint_bytes: \"200 GB\"\n";
  const auto pos = text.find("  ecmp:");
  REQUIRE(pos != std::string::npos);
  text.insert(pos,
              "  storage:\n    nodes: 4\n    nics_per_node: 1\n    nic_rate: \"400 Gbps\"\n"
              "    write_bandwidth: \"20 GB/s\"\n    read_bandwidth: \"40 GB/s\"\n");
  const Scenario sc = load_scenario_text(text, "storage.yaml");
  std::vector<std::pair<std::string, double>> seen;
  RunOptions opt;
  opt.progress = [&](const std::string& stage, double f) { seen.emplace_back(stage, f); };
  const Results r = simulate(sc, opt);
  const Results quiet = simulate(sc);
  int alone = 0, alongside = 0;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    INFO(seen[i].first << " at " << seen[i].second);
    if (seen[i].first.find("checkpoint write to storage, alone (flows)") != std::string::npos) ++alone;
    if (seen[i].first.find("checkpoint write alongside ") != std::string::npos) ++alongside;
    if (i > 0) CHECK(seen[i].second >= seen[i - 1].second);
  }
  CHECK(alone == 1);
  CHECK(alongside >= 1);
  CHECK(alongside <= 2);
  CHECK(r.scalar("checkpoint_step_slowdown") == quiet.scalar("checkpoint_step_slowdown"));
  CHECK(r.scalar("checkpoint_write_time") == quiet.scalar("checkpoint_write_time"));
  CHECK(r.scalar("step_time") == quiet.scalar("step_time"));
}
