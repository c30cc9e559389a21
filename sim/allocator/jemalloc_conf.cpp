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
// thp:always: jemalloc asks for transparent huge pages (madvise MADV_HUGEPAGE) on its mappings
// (manual, "opt.thp"; honoured when /sys/kernel/mm/transparent_hugepage/enabled is "always" or
// "madvise", Debian's default). A run touches hundreds of MB once (flow records, the link
// timeline's bins): 31K bench scenario 71 K -> 3.4 K minor faults, 100K 216 K -> 2.3 K, user time
// -20 to -30 %, peak RSS +3 %, bit-identical JSON and HDF5 (docs/benchmarks.md).
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
const char* malloc_conf = "dirty_decay_ms:-1,thp:always,narenas:1,oversize_threshold:0";
}
