#pragma once
// Where a run's time goes (issue 13: `aidcsim run --profile`, or AIDCSIM_PROFILE=1): named
// counters of CPU seconds (this thread and the worker threads it waited for), wall seconds and calls, filled by the pipeline's stages
// and the network engine's parts, printed at the end of the run. Off by default: when off,
// Scope costs one branch.
#include <string>
#include <vector>

namespace aidcsim::profile {

/// Whether profiling is on: enable(true) was called, or the environment variable AIDCSIM_PROFILE
/// is set to a non-empty value other than "0" when first asked.
bool enabled();
void enable(bool on);

/// Adds `cpu_s` CPU seconds, `wall_s` wall seconds and `calls` calls to the counter `name`
/// (created on first use). `stage`: the counter is one of the run's stages, which partition it
/// (the pipeline's progress stages); otherwise it is a part measured inside stages (e.g. the
/// network engine's solver). No-op when profiling is off.
void add(const std::string& name, double cpu_s, double wall_s, long long calls = 1, bool stage = false);

struct Entry {
  std::string name;
  double cpu = 0, wall = 0;  ///< s
  long long calls = 0;
  bool stage = false;
};
/// The counters in the order they were first used.
std::vector<Entry> entries();
/// Drops every counter.
void reset();

/// CPU seconds used by the calling thread so far (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();
/// CPU seconds of the calling thread plus those of every worker thread that has finished and
/// reported them (add_worker_cpu): a stage whose work runs on a worker thread (FlowNetwork::run on
/// its large stack, models/network/large_stack.hpp) is charged that work. Exact for workers that
/// run while the caller waits for them, the only use today; workers running beside the caller
/// would be charged to every stage open meanwhile.
double cpu_seconds();
/// Reports the CPU seconds a worker thread used (its thread_cpu_seconds() as it ends); thread-safe.
void add_worker_cpu(double cpu_s);
/// Wall seconds from an arbitrary origin (CLOCK_MONOTONIC).
double wall_seconds();

/// Adds the CPU (cpu_seconds()) and wall time of its lifetime to counter `name` (nothing when
/// profiling is off).
class Scope {
 public:
  explicit Scope(const char* name);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  const char* name_;
  double cpu0_ = 0, wall0_ = 0;
  bool on_;
};

/// The counters as a table: stages first, then parts; name, CPU s, wall s, calls and share of the
/// stages' total CPU time.
std::string format_table();

}  // namespace aidcsim::profile
