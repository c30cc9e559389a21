#include "models/common/profile.hpp"

#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace aidcsim::profile {
namespace {

struct Registry {
  std::vector<Entry> entries;
  std::map<std::string, std::size_t, std::less<>> index;
};

Registry& registry() {
  static Registry r;
  return r;
}

int& state() {  // -1: not decided yet, 0 off, 1 on
  static int s = -1;
  return s;
}

std::atomic<double>& worker_cpu() {  // s, finished worker threads (add_worker_cpu)
  static std::atomic<double> s{0.0};
  return s;
}

double clock_s(clockid_t id) {
  timespec t{};
  clock_gettime(id, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

bool enabled() {
  int& s = state();
  if (s < 0) {
    const char* v = std::getenv("AIDCSIM_PROFILE");
    s = (v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0) ? 1 : 0;
  }
  return s == 1;
}

void enable(bool on) { state() = on ? 1 : 0; }

void add(const std::string& name, double cpu_s, double wall_s, long long calls, bool stage) {
  if (!enabled()) return;
  Registry& r = registry();
  auto it = r.index.find(name);
  if (it == r.index.end()) {
    it = r.index.emplace(name, r.entries.size()).first;
    r.entries.push_back({name, 0, 0, 0, stage});
  }
  Entry& e = r.entries[it->second];
  e.cpu += cpu_s;
  e.wall += wall_s;
  e.calls += calls;
}

std::vector<Entry> entries() { return registry().entries; }

void reset() {
  registry().entries.clear();
  registry().index.clear();
}

double thread_cpu_seconds() { return clock_s(CLOCK_THREAD_CPUTIME_ID); }
double wall_seconds() { return clock_s(CLOCK_MONOTONIC); }

double cpu_seconds() { return thread_cpu_seconds() + worker_cpu().load(); }

void add_worker_cpu(double cpu_s) {
  auto& w = worker_cpu();
  double old = w.load();
  while (!w.compare_exchange_weak(old, old + cpu_s)) {
  }
}

Scope::Scope(const char* name) : name_(name), on_(enabled()) {
  if (!on_) return;
  cpu0_ = cpu_seconds();
  wall0_ = wall_seconds();
}

Scope::~Scope() {
  if (on_) add(name_, cpu_seconds() - cpu0_, wall_seconds() - wall0_);
}

std::string format_table() {
  const auto all = entries();
  double total = 0;
  for (const auto& e : all)
    if (e.stage) total += e.cpu;
  std::string out =
      "Profile: CPU seconds (this thread and the worker threads it waited for) and wall seconds; parts are measured "
      "inside the stages\n";
  char line[256];
  for (bool stages : {true, false}) {
    std::snprintf(line, sizeof line, "  %-50s %9s %9s %9s %7s\n", stages ? "stage" : "part", "CPU s", "wall s", "calls",
                  "CPU %");
    out += line;
    for (const auto& e : all) {
      if (e.stage != stages) continue;
      std::snprintf(line, sizeof line, "  %-50s %9.3f %9.3f %9lld %6.1f%%\n", e.name.c_str(), e.cpu, e.wall, e.calls,
                    total > 0 ? 100.0 * e.cpu / total : 0.0);
      out += line;
    }
  }
  std::snprintf(line, sizeof line, "  %-50s %9.3f\n", "total of the stages", total);
  out += line;
  return out;
}

}  // namespace aidcsim::profile
