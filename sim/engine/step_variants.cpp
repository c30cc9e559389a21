#include "sim/engine/step_variants.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "models/common/errors.hpp"
#include "models/workload/schedule_batch.hpp"
#include "sim/engine/feasibility.hpp"
#include "sim/engine/step_run.hpp"

namespace aidcsim {
namespace {

using topology::FailureSpec;

double simulate(const StepContext& ctx, const workload::JobSpec& job) {
  return run_step(job, ctx.scenario.gpu, ctx.fabric, ctx.net, ctx.clocks, ctx.seed).breakdown.step_time;
}

/// For each of `dead` (dead[t][l] = 1 for the links of target t), the transfers of `schedule`
/// with a sub-flow whose current route crosses one of its links: every sub-flow FlowNetwork::run
/// sends (network::for_each_subflow_route: each plane's part of a transfer over the NICs, each
/// flows_per_pair hash, each sprayed path), so a failure on any plane counts the transfers it
/// reroutes. One pass over the schedule: each route is computed once, without filling the route
/// cache that nothing reads afterwards, and tested against every target. A transfer between two
/// GPUs joined by an up NVLink takes its NVLink path whatever the hash, spray or plane
/// (Fabric::route, Fabric::routes: the two GPUs' NVLink port links), so unless one of those ports
/// is a target's link it crosses none and no route is computed for it (most of a ring's hops
/// inside an NVLink domain).
std::vector<int> crossing_transfers(const network::FlowNetwork& net, const network::Schedule& schedule,
                                    const std::vector<std::vector<char>>& dead) {
  const topology::Fabric& fabric = net.fabric();
  std::vector<int> n(dead.size(), 0);
  std::vector<char> any(static_cast<std::size_t>(fabric.link_count()), 0);
  for (const auto& d : dead)
    for (std::size_t l = 0; l < d.size() && l < any.size(); ++l) any[l] |= d[l];
  auto dead_port = [&](int gpu) {
    const int l = fabric.nvlink_link(gpu);
    return l >= 0 && any[static_cast<std::size_t>(l)];
  };
  std::vector<char> hit(dead.size());
  for (const auto& a : schedule.activities) {
    if (a.kind != network::Activity::Kind::Transfer) continue;
    if (fabric.takes_nvlink(a.gpu, a.dst_gpu) && !dead_port(a.gpu) && !dead_port(a.dst_gpu)) continue;
    bool any_hit = false;
    std::fill(hit.begin(), hit.end(), 0);
    network::for_each_subflow_route(fabric, a, net.spray_subflows(), [&](const std::vector<topology::Hop>& hops) {
      for (const auto& h : hops) {
        if (!any[static_cast<std::size_t>(h.link)]) continue;
        any_hit = true;
        for (std::size_t t = 0; t < dead.size(); ++t) hit[t] |= dead[t][static_cast<std::size_t>(h.link)];
      }
    });
    if (any_hit)
      for (std::size_t t = 0; t < dead.size(); ++t) n[t] += hit[t];
  }
  return n;
}

/// Links that `f` takes down (up now); none for a degradation.
std::vector<char> links_taken_down(const topology::Fabric& fabric, const FailureSpec& f) {
  std::vector<char> dead(static_cast<std::size_t>(fabric.link_count()), 0);
  if (f.type == FailureSpec::Type::LinkDown) {
    for (int l : fabric.find_links(f.element)) dead[l] = fabric.link(l).up;
  } else if (f.type == FailureSpec::Type::SwitchDown) {
    const int node = fabric.find_node(f.element);
    for (int l = 0; l < fabric.link_count(); ++l) {
      const auto& x = fabric.link(l);
      dead[l] = x.up && (x.a == node || x.b == node);
    }
  }
  return dead;
}

std::string describe(const FailureSpec& f) {
  switch (f.type) {
    case FailureSpec::Type::LinkDown:
      return "link_down " + f.element;
    case FailureSpec::Type::SwitchDown:
      return "switch_down " + f.element;
    case FailureSpec::Type::Degrade: {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%g %%", 100.0 * f.factor);
      return "degrade " + f.element + " to " + pct;
    }
  }
  return f.element;
}

/// Whether link l is a candidate of degraded_link_step: up, leaf-spine or spine-core.
bool link_down_candidate(const topology::Fabric& fabric, int l) {
  const auto& x = fabric.link(l);
  return x.up && (x.tier == topology::Tier::LeafSpine || x.tier == topology::Tier::SpineCore);
}

/// degraded_link_step's sample: `samples` distinct links of `loaded` (reordered), by a partial
/// Fisher-Yates shuffle; indices from the top bits of a seeded std::mt19937_64 (portable, unlike
/// std::uniform_int_distribution).
std::vector<int> draw_links(std::vector<int>& loaded, std::uint64_t seed, int samples) {
  std::mt19937_64 rng(topology::splitmix64(seed ^ 0x6c696e6b646f776eull));
  const int k = std::min<int>(samples, static_cast<int>(loaded.size()));
  for (int i = 0; i < k; ++i) {
    const auto span = static_cast<std::uint64_t>(loaded.size() - i);
    std::swap(loaded[i], loaded[i + static_cast<std::size_t>((rng() >> 11) % span)]);
  }
  return {loaded.begin(), loaded.begin() + k};
}

}  // namespace

void arm_link_down_prefixes(network::FlowNetwork& net, std::uint64_t seed, int samples) {
  net.set_prefix_capture(
      [seed, samples](const topology::Fabric& fabric, const std::vector<double>& fwd, const std::vector<double>& rev) {
        // degraded_link_step's `loaded` (utilization > 0: bytes in a direction, a rate, a step > 0).
        std::vector<int> loaded;
        for (int l = 0; l < fabric.link_count(); ++l)
          if (link_down_candidate(fabric, l) && fabric.link(l).rate > 0 &&
              ((l < static_cast<int>(fwd.size()) && fwd[l] > 0) || (l < static_cast<int>(rev.size()) && rev[l] > 0)))
            loaded.push_back(l);
        return draw_links(loaded, seed, samples);
      });
}

std::vector<reliability::BatchStepTime> batch_step_times(const StepContext& ctx, const std::vector<double>& batches,
                                                         double base_step_time) {
  const workload::JobSpec& job = ctx.job;
  const double seq = job.model.sequence_length;
  std::map<long long, double> by_sequences;  // sequences per step -> step time (sorted, distinct)
  by_sequences[job.global_batch] = base_step_time;
  for (double tokens : batches) {
    // whole microbatches per DP replica, as many as the pipeline schedule accepts (the run's
    // warnings say which entries this changes: workload::batch_rounding_warning)
    const long long sequences = workload::scheduled_batch(job, tokens).sequences;
    if (by_sequences.count(sequences)) continue;
    workload::JobSpec j = job;
    j.global_batch = static_cast<int>(sequences);
    by_sequences[sequences] = simulate(ctx, j);
  }
  std::vector<reliability::BatchStepTime> out;
  for (const auto& [sequences, step_time] : by_sequences)
    out.push_back({static_cast<double>(sequences) * seq, step_time});
  return out;
}

LinkDownStep degraded_link_step(const StepContext& ctx, const workload::StepPlan& plan,
                                const std::vector<double>& utilization, double base_step_time, int samples) {
  LinkDownStep out;
  ctx.net.set_prefix_capture(nullptr);  // the samples keep nothing (the base step's prefixes serve them)
  std::vector<int> loaded;
  for (int l = 0; l < ctx.fabric.link_count(); ++l) {
    if (!link_down_candidate(ctx.fabric, l)) continue;
    ++out.candidates;
    if (l < static_cast<int>(utilization.size()) && utilization[l] > 0) loaded.push_back(l);
  }
  out.loaded = static_cast<int>(loaded.size());
  out.step_time = base_step_time;
  if (loaded.empty()) {
    ctx.net.drop_prefixes();
    return out;
  }
  const int k = static_cast<int>(draw_links(loaded, ctx.seed, samples).size());
  // The transfers each sampled link carries, all counted in one pass on the healthy fabric.
  std::vector<std::vector<char>> dead(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    dead[i].assign(static_cast<std::size_t>(ctx.fabric.link_count()), 0);
    dead[i][loaded[i]] = 1;
  }
  out.rerouted_flows = crossing_transfers(ctx.net, plan.schedule, dead);
  double sum = 0;
  for (int i = 0; i < k; ++i) {
    const int link = loaded[i];
    out.links.push_back(ctx.fabric.link(link).name);
    ctx.fabric.set_link_up(link, false);
    try {
      // Continues from the base step's run where it kept this link's prefix
      // (arm_link_down_prefixes): the same result as a whole run, bit for bit.
      out.step_times.push_back(workload::step_time(plan, ctx.net.run(plan.schedule)));
      out.prefix_activities.push_back(ctx.net.last_run_prefix());
    } catch (...) {
      ctx.fabric.set_link_up(link, true);
      ctx.net.drop_prefixes();
      throw;
    }
    ctx.fabric.set_link_up(link, true);
    sum += out.step_times.back();
  }
  out.step_time = sum / k;
  out.activities = static_cast<long long>(plan.schedule.activities.size());
  ctx.net.drop_prefixes();
  return out;
}

std::vector<FabricEvent> fabric_event_steps(const StepContext& ctx, workload::StepPlan& base_plan) {
  std::vector<const FailureSpec*> timed;
  for (const auto& f : ctx.scenario.fabric.failures)
    if (f.at > 0) timed.push_back(&f);
  std::stable_sort(timed.begin(), timed.end(),
                   [](const FailureSpec* a, const FailureSpec* b) { return a->at < b->at; });
  std::vector<FabricEvent> out;
  for (const FailureSpec* f : timed) {
    // A rollout phase may not have the element yet (check_scenario: some phase has it).
    if (ctx.fabric.find_node(f->element) < 0 && ctx.fabric.find_links(f->element).empty()) continue;
    FabricEvent e;
    e.at = f->at;
    e.what = describe(*f);
    e.rerouted_flows = crossing_transfers(ctx.net, base_plan.schedule, {links_taken_down(ctx.fabric, *f)}).front();
    ctx.fabric.apply(*f);
    check_still_connected(*f, ctx.fabric, ctx.fabric.gpu_count());
    e.step_time = run_step_on(ctx.job, ctx.scenario.gpu, ctx.fabric, ctx.net, ctx.clocks, ctx.seed, base_plan)
                      .step.breakdown.step_time;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace aidcsim
