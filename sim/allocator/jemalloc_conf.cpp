// jemalloc's compile-time options for aidcsim's executables (linked only with jemalloc, see the
// aidcsim_allocator target in CMakeLists.txt).
//
// Why: a step frees and re-allocates hundreds of MB of small objects (routes, solver variables,
// flow records) over and over. With jemalloc's default dirty_decay_ms (10 s) the freed pages are
// handed back to the kernel (madvise) and faulted in again on the next allocation: on the 31K-GPU
// bench scenario 1.65 M minor page faults and more system than user time. Never purging keeps
// those pages for reuse; the price is a higher peak RSS (docs/benchmarks.md has both figures).
//
// Source: jemalloc 5.3.0 manual (Debian libjemalloc-dev, /usr/share/doc/libjemalloc-dev/
// jemalloc.html), "opt.dirty_decay_ms": "A decay time of -1 disables purging"; the options string
// is read from the global `malloc_conf` symbol at start-up (manual, section TUNING).
//
// No thp option (jemalloc's "default": its mappings get transparent huge pages only where the
// system's /sys/kernel/mm/transparent_hugepage/enabled says "always"; Debian's default "madvise"
// gives them 4 KiB pages). thp:always (MADV_HUGEPAGE on every mapping) was the setting until
// 2026-12-02: it cut minor faults ~40x and user time 13-23 %, but on this VM (Firecracker, kernel
// 6.18) first-touch zeroing of huge pages costs 2-4x the system time of the same memory in 4 KiB
// pages and swings from run to run (rollout 0.6-1.2 s, once 5.0 s; 4 KiB: 0.3-0.7 s), so the
// rollout's system time was 10-14 % of its user time, against issue 13's < 10 %. Without it
// (docs/benchmarks.md, "The rollout's system time"): system 3-7 % of user on the rollout, total CPU
// +2-17 % there, site-31k about equal, site-100k -6 to -27 %, peak RSS -3-7 %; MALLOC_CONF=thp:always at run
// time restores the old setting. The fluid run's large random-access arrays still ask for huge
// pages themselves (models/network/huge_pages.hpp).
//
// narenas:1: one arena for every thread. Two threads allocate, never at the same time (the main
// thread plans a step and waits while the large-stack worker runs it, models/network/large_stack.cpp),
// so an arena per thread buys no concurrency, and each thread's freed pages could serve only its own
// later allocations: the worker's SimGrid objects took fresh (kernel-zeroed) pages while the main
// thread's freed plan arrays sat idle, and the reverse (manual, "opt.narenas").
// oversize_threshold:0: jemalloc 5.3 serves requests above 8 MiB (a step's schedule as it grows by
// doubling, the flow tables) from a dedicated arena whose freed extents serve only such requests;
// 0, not a large size class, disables it (manual, "opt.oversize_threshold"), so the freed halves of a
// doubled schedule serve the run's smaller objects. Both together: site-100k peak RSS 837 -> 766 MiB,
// minor faults 2,224 -> 1,946, bit-identical JSON (docs/benchmarks.md, engine13).
extern "C" {
// NOLINTNEXTLINE: jemalloc looks this symbol up by name.
extern const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:-1,narenas:1,oversize_threshold:0";
}
