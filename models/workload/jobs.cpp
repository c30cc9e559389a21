// Several jobs on one cluster: the `jobs:` keys and the placement table (see jobs.hpp).
#include "models/workload/jobs.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "models/workload/workload_schema.hpp"

namespace aidcsim::workload {

namespace {

const std::string kWorkload = "workload.";

/// Job keys in a message about the workload keys: "workload.x" -> "jobs[i].x".
std::string job_key(const std::string& key, const std::string& job) {
  if (key.compare(0, kWorkload.size(), kWorkload) == 0) return job + "." + key.substr(kWorkload.size());
  if (key == "cluster.gpus") return job + ".gpus";
  return key;
}

std::string rewrite(std::string text, const std::string& job) {
  for (std::size_t p = text.find(kWorkload); p != std::string::npos; p = text.find(kWorkload, p))
    text.replace(p, kWorkload.size(), job + ".");
  return text;
}

/// Runs `fn` on the job's keys seen as a one-job scenario root ("workload.*", cluster.gpus =
/// the job's GPUs); errors name the job's keys.
template <class Fn>
auto as_workload(const Params& root, const Params& item, int gpus, Fn&& fn) {
  Params w;
  for (const auto& [k, v] : item.values()) w.set(kWorkload + k, v, item.raw(k));
  w.set("cluster.gpus", static_cast<double>(gpus));
  for (const char* k : {"cluster.gpus_per_node", "cluster.nvlink_domain"})
    if (root.has(k)) w.set(k, root.number(k));
  if (root.has("fabric.sharp")) w.set("fabric.sharp", root.flag("fabric.sharp"));  // dp_algorithm sharp needs it
  try {
    return fn(w);
  } catch (const InvalidParameter& e) {
    throw InvalidParameter(job_key(e.key(), item.path()), e.value(), rewrite(e.expected(), item.path()));
  }
}

bool is_training_key(const std::string& k) {
  for (const char* j : {"name", "kind", "gpus", "placement", "start", "priority", "rate", "from", "to"})
    if (k == j) return false;
  return true;
}

/// A training job's ranks k D .. k D + D - 1 are in one NVLink domain (GPU / D).
void check_whole_domains(const JobEntry& e, const std::vector<int>& l, int D) {
  const std::string key = e.key + ".placement";
  if (static_cast<int>(l.size()) % D != 0)
    throw InvalidParameter(key, std::to_string(l.size()) + " GPUs",
                           "whole NVLink domains of " + std::to_string(D) + " GPUs");
  for (std::size_t k = 0; k < l.size(); k += D)
    for (std::size_t r = k; r < k + D; ++r)
      if (l[r] / D != l[k] / D)
        throw InvalidParameter(key, "GPUs " + std::to_string(l[k]) + " and " + std::to_string(l[r]),
                               "ranks " + std::to_string(k) + ".." + std::to_string(k + D - 1) +
                                   " in one NVLink domain (a job must not split a domain: TP is analytic on NVLink)");
}

}  // namespace

Schema jobs_schema() {
  using Q = Quantity;
  Schema s = {
      {"jobs",
       Q::List,
       "",
       false,
       {},
       {},
       false,
       {},
       "Several jobs sharing the cluster and its fabric (instead of `workload:`, the one-job shorthand; a "
       "`workloads:` list is read as `jobs:`). Each training job takes the `workload` keys (model, parallelism, "
       "global_batch, ...) plus the keys below; its steps run repeatedly with the other jobs' traffic on the same "
       "links, and the results give its step time shared and alone (docs/site-jobs-storage.md)."},
      {"jobs[].name", Q::String, "", false, {}, {}, false, {}, "Name in the results (default job<i>)."},
      {"jobs[].kind",
       Q::String,
       "training",
       false,
       {},
       {},
       false,
       {"training", "background"},
       "training (a workload) or background (a rate between two GPU groups: inference, evaluation or other "
       "tenants' traffic, as rate-bounded flows)."},
      {"jobs[].gpus",
       Q::Integer,
       "",
       false,
       1,
       1e7,
       false,
       {},
       "Training: GPUs of the job (default and only valid value: tp x cp x pp x dp)."},
      {"jobs[].placement",
       Q::String,
       "contiguous",
       false,
       {},
       {},
       false,
       {},
       "Training: contiguous (lowest free NVLink domains), per_pod (all in one pod: clos3 pod, else scalable "
       "unit), scattered (domains round robin over the pods), or an explicit GPU list in rank order "
       "(\"0-63, 128-191\", \"pod 2\"). Whole NVLink domains only: two jobs in one domain are refused (TP is "
       "analytic on NVLink)."},
      {"jobs[].start", Q::Time, "0 s", false, 0, 86400, false, {}, "Offset of the job's first step."},
      {"jobs[].priority",
       Q::Number,
       "1",
       false,
       0.001,
       1000,
       false,
       {},
       "Share weight of its flows where links saturate (weighted max-min: traffic classes, IB VL arbitration / "
       "Ethernet ETS, IEEE 802.1Qaz); 1 = equal share."},
      {"jobs[].rate",
       Q::DataRate,
       "",
       false,
       1e3,
       1e15,
       false,
       {},
       "Background: offered rate from `from` to `to` in total, spread evenly over one flow per source GPU "
       "(source k sends to to[k mod |to|]), each bounded at its share."},
      {"jobs[].from", Q::String, "", false, {}, {}, false, {}, "Background: source GPUs (\"0-63\", \"pod 1\")."},
      {"jobs[].to", Q::String, "", false, {}, {}, false, {}, "Background: destination GPUs (\"64-127\", \"pod 2\")."},
  };
  for (Field f : schema()) {
    if (f.key.compare(0, kWorkload.size(), kWorkload) != 0) continue;
    f.key = "jobs[]." + f.key.substr(kWorkload.size());
    f.required = false;  // required of training jobs, checked by jobs_from
    s.push_back(std::move(f));
  }
  return s;
}

std::vector<int> parse_gpu_list(const std::string& text, const std::string& key, const std::vector<int>& pods) {
  const int G = static_cast<int>(pods.size());
  std::vector<int> out;
  std::vector<char> seen(G, 0);
  auto add = [&](long long g) {
    if (g < 0 || g >= G)
      throw InvalidParameter(key, text,
                             "GPUs in [0, " + std::to_string(G) + ") (cluster.gpus); got GPU " + std::to_string(g));
    if (seen[g]) throw InvalidParameter(key, text, "each GPU once (GPU " + std::to_string(g) + " is listed twice)");
    seen[g] = 1;
    out.push_back(static_cast<int>(g));
  };
  const std::string syntax = "GPU ranges separated by commas (\"0-63, 128, 200-255\") or \"pod N\"";
  std::size_t p = 0;
  auto skip = [&] {
    while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
  };
  auto number = [&]() -> long long {
    skip();
    if (p >= text.size() || !std::isdigit(static_cast<unsigned char>(text[p])))
      throw InvalidParameter(key, text, syntax);
    long long v = 0;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) && v < 1e12)
      v = 10 * v + (text[p++] - '0');
    return v;
  };
  for (;;) {
    skip();
    if (text.compare(p, 3, "pod") == 0) {
      p += 3;
      const long long u = number();
      const std::size_t before = out.size();
      for (int g = 0; g < G; ++g)
        if (pods[g] == u) add(g);
      if (out.size() == before)
        throw InvalidParameter(key, text, "a pod of the fabric (pod " + std::to_string(u) + " has no GPU)");
    } else {
      const long long a = number();
      skip();
      long long b = a;
      if (p < text.size() && text[p] == '-') {
        ++p;
        b = number();
        if (b < a) throw InvalidParameter(key, text, syntax + " with ranges a-b, a <= b");
      }
      if (b - a >= G) add(b);  // out of range: reported with its GPU
      for (long long g = a; g <= b; ++g) add(g);
    }
    skip();
    if (p == text.size()) break;
    if (text[p] != ',') throw InvalidParameter(key, text, syntax);
    ++p;
  }
  return out;
}

std::vector<JobEntry> jobs_from(const Params& root, const std::vector<int>& pods) {
  std::vector<JobEntry> out;
  if (!root.has("jobs")) return out;
  const auto& items = root.list("jobs");
  std::map<std::string, std::string> names;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Params& it = items[i];
    JobEntry j;
    j.key = it.path();
    j.name = it.has("name") && !it.text("name").empty() ? it.text("name") : "job" + std::to_string(i);
    for (char c : j.name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
        it.invalid("name", "a name of letters, digits, '_' and '-' (it becomes a results path /jobs/<name>)");
    if (auto n = names.find(j.name); n != names.end())
      it.invalid("name", "a name no other job has (" + n->second + " is also " + j.name + ")");
    names[j.name] = j.key;
    j.kind = it.text("kind") == "background" ? JobEntry::Kind::Background : JobEntry::Kind::Training;
    j.start = it.number("start");
    j.priority = it.number("priority");
    if (j.kind == JobEntry::Kind::Background) {
      for (const auto& [k, v] : it.values())
        if (is_training_key(k) && it.given(k))
          it.invalid(k, "no workload key in a background job (it is a rate: from, to, rate)");
      for (const char* k : {"gpus"})
        if (it.has(k)) it.invalid(k, "no GPU count in a background job (its GPUs are from and to)");
      if (it.given("placement")) it.invalid("placement", "no placement in a background job (its GPUs are from and to)");
      for (const char* k : {"rate", "from", "to"})
        if (!it.has(k)) it.invalid(k, std::string("a value: a background job needs from, to and rate"));
      j.rate = it.number("rate");
      j.from = parse_gpu_list(it.text("from"), it.full_key("from"), pods);
      j.to = parse_gpu_list(it.text("to"), it.full_key("to"), pods);
      out.push_back(std::move(j));
      continue;
    }
    for (const char* k : {"rate", "from", "to"})
      if (it.has(k)) it.invalid(k, "no background key in a training job (or kind: background)");
    for (const char* k :
         {"model.layers", "model.hidden", "model.heads", "model.vocab", "model.sequence_length", "global_batch"})
      if (!it.has(k)) throw InvalidParameter(it.full_key(k), "", "a value (required key of a training job)");
    auto opt = [&](const char* k) { return it.has(k) ? static_cast<long long>(it.integer(k)) : 1LL; };
    const long long product =
        opt("parallelism.tp") * opt("parallelism.cp") * opt("parallelism.pp") * opt("parallelism.dp");
    if (it.has("gpus") && it.integer("gpus") != product)
      it.invalid("gpus", "tp x cp x pp x dp of the job (" + std::to_string(product) + ")");
    if (product > static_cast<long long>(pods.size()))
      throw InvalidParameter(it.full_key("parallelism"), std::to_string(product) + " GPUs",
                             "at most cluster.gpus (" + std::to_string(pods.size()) + ") GPUs for tp x cp x pp x dp");
    j.gpus = static_cast<int>(product);
    j.spec = as_workload(root, it, j.gpus, [](const Params& w) { return spec_from(w); });
    const std::string& pl = it.text("placement");
    if (pl == "contiguous" || pl == "per_pod" || pl == "scattered") {
      j.placement = pl;
    } else {
      j.placement = "explicit";
      j.explicit_gpus = parse_gpu_list(pl, it.full_key("placement"), pods);
      if (static_cast<int>(j.explicit_gpus.size()) != j.gpus)
        it.invalid("placement", "contiguous, per_pod, scattered or a list of the job's " + std::to_string(j.gpus) +
                                    " GPUs (got " + std::to_string(j.explicit_gpus.size()) + ")");
    }
    out.push_back(std::move(j));
  }
  return out;
}

void check_jobs_against_gpu(const Params& root, const std::vector<JobEntry>& jobs, const compute::GpuSpec& gpu) {
  const auto& items = root.list("jobs");
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].kind == JobEntry::Kind::Training)
      as_workload(root, items[i], jobs[i].gpus, [&](const Params& w) {
        check_against_gpu(w, jobs[i].spec, gpu);
        return 0;
      });
}

// Kept whole: its passes (fixed GPUs, whole NVLink domains for the training jobs, then background
// GPUs) share the used-GPU and free-domain bookkeeping and must run in this order.
std::vector<std::vector<int>> place_jobs(const std::vector<JobEntry>& jobs, int domain, const std::vector<int>& pods) {
  const int G = static_cast<int>(pods.size());
  const int D = std::max(1, domain);
  const int domains = (G + D - 1) / D;
  std::vector<int> owner(G, -1);  // job using each GPU
  std::vector<std::vector<int>> out(jobs.size());
  auto take = [&](std::size_t j, const std::vector<int>& gpus, const std::string& key) {
    for (int g : gpus) {
      if (owner[g] >= 0 && owner[g] != static_cast<int>(j))
        throw InvalidParameter(
            key, jobs[j].key + " GPU " + std::to_string(g),
            "GPUs no other job uses (GPU " + std::to_string(g) + " is " + jobs[owner[g]].name + "'s)");
      owner[g] = static_cast<int>(j);
    }
  };
  // Fixed GPUs first: explicit placements and background groups.
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const JobEntry& e = jobs[j];
    if (e.kind == JobEntry::Kind::Background) {
      take(j, e.from, e.key + ".from");
      take(j, e.to, e.key + ".to");
      out[j] = e.from;
      out[j].insert(out[j].end(), e.to.begin(), e.to.end());
    } else if (e.placement == "explicit") {
      take(j, e.explicit_gpus, e.key + ".placement");
      out[j] = e.explicit_gpus;
      check_whole_domains(e, out[j], D);
    }
  }
  // A domain is free when no GPU of it is used.
  auto domain_free = [&](int d) {
    for (int g = d * D; g < std::min(G, (d + 1) * D); ++g)
      if (owner[g] >= 0) return false;
    return (d + 1) * D <= G;
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const JobEntry& e = jobs[j];
    if (e.kind != JobEntry::Kind::Training || e.placement == "explicit") continue;
    if (e.gpus % D != 0)
      throw InvalidParameter(e.key + ".gpus", std::to_string(e.gpus),
                             "a multiple of the NVLink domain (cluster.nvlink_domain = " + std::to_string(D) +
                                 "): jobs get whole domains (TP is analytic on NVLink, two jobs in one domain cannot "
                                 "be simulated)");
    const int need = e.gpus / D;
    std::vector<int> free;
    for (int d = 0; d < domains; ++d)
      if (domain_free(d)) free.push_back(d);
    if (static_cast<int>(free.size()) < need)
      throw InvalidParameter(e.key + ".gpus", std::to_string(e.gpus),
                             "at most the free GPUs of the cluster (" + std::to_string(free.size() * D) + " of " +
                                 std::to_string(G) + " left after the jobs before it)");
    std::vector<int> chosen;
    if (e.placement == "contiguous") {
      chosen.assign(free.begin(), free.begin() + need);
    } else {
      std::map<int, std::vector<int>> by_pod;  // pod -> its free domains, ascending
      for (int d : free) by_pod[pods[d * D]].push_back(d);
      if (e.placement == "per_pod") {
        for (const auto& [p, ds] : by_pod)
          if (static_cast<int>(ds.size()) >= need) {
            chosen.assign(ds.begin(), ds.begin() + need);
            break;
          }
        if (chosen.empty())
          throw InvalidParameter(e.key + ".placement", "per_pod",
                                 "a placement that fits: no pod has " + std::to_string(e.gpus) +
                                     " free GPUs (contiguous or scattered spread the job over pods)");
      } else {  // scattered: one domain per pod in turn
        for (std::size_t k = 0; static_cast<int>(chosen.size()) < need; ++k)
          for (const auto& [p, ds] : by_pod)
            if (k < ds.size() && static_cast<int>(chosen.size()) < need) chosen.push_back(ds[k]);
      }
    }
    for (int d : chosen)
      for (int g = d * D; g < (d + 1) * D; ++g) out[j].push_back(g);
    take(j, out[j], e.key + ".placement");
  }
  // NVLink domains: a training job's ranks k D .. k D + D - 1 fill one domain, used by no other job.
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].kind != JobEntry::Kind::Training) continue;
    const auto& l = out[j];
    const std::string key = jobs[j].key + ".placement";
    check_whole_domains(jobs[j], l, D);
    for (std::size_t k = 0; k < l.size(); k += D) {
      const int d = l[k] / D;
      for (int g = d * D; g < std::min(G, (d + 1) * D); ++g)
        if (owner[g] != static_cast<int>(j))
          throw InvalidParameter(key, "GPU " + std::to_string(l[k]),
                                 "NVLink domains no other job uses (GPU " + std::to_string(g) +
                                     " of the same domain is " +
                                     (owner[g] < 0 ? std::string("left free") : jobs[owner[g]].name + "'s") +
                                     "; two jobs in one domain cannot be simulated: TP is analytic on NVLink)");
    }
  }
  // Background GPUs outside training domains follow: training jobs own whole domains.
  return out;
}

}  // namespace aidcsim::workload
