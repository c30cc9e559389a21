#pragma once
// CPU seconds and peak RSS of the bench process itself (getrusage): the machine may be shared,
// so the benchmarks report CPU, not wall time.
#include <sys/resource.h>

namespace aidcsim::bench {

/// CPU seconds of this process so far, user + system.
inline double cpu_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + 1e-6 * u.ru_utime.tv_usec + u.ru_stime.tv_sec + 1e-6 * u.ru_stime.tv_usec;
}

/// Peak resident set of this process, GiB (ru_maxrss is KiB on Linux).
inline double peak_rss_gib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / (1024.0 * 1024.0);
}

}  // namespace aidcsim::bench
