# The CLI's jemalloc options (sim/allocator/jemalloc_conf.cpp) as jemalloc reads them at start:
# never purge, one arena, no oversize arena, and no transparent huge pages of its own (thp left at
# "default": first-touch zeroing of huge pages made the rollout's system time swing above 10 % of
# its user time on the project's VM, docs/benchmarks.md). jemalloc prints its options at exit with
# MALLOC_CONF=stats_print:true; skipped when the CLI is not linked with jemalloc.
source "$(dirname "$0")/lib/common.bash"
MALLOC_CONF=stats_print:true "$AIDCSIM" version >out.txt 2>err.txt || fail "aidcsim version exited $?"
if ! grep -q "opt.thp" out.txt err.txt; then
  echo "the CLI is not linked with jemalloc (nothing to check)"
  exit 0
fi
cat out.txt err.txt >stats.txt
grep -q 'opt.thp: "default"' stats.txt || fail "opt.thp is not \"default\": $(grep 'opt.thp' stats.txt)"
grep -q 'opt.dirty_decay_ms: -1' stats.txt || fail "opt.dirty_decay_ms is not -1: $(grep 'opt.dirty_decay_ms' stats.txt)"
grep -q 'opt.narenas: 1$' stats.txt || fail "opt.narenas is not 1: $(grep 'opt.narenas' stats.txt)"
grep -q 'opt.oversize_threshold: 0$' stats.txt || fail "opt.oversize_threshold is not 0"
exit 0
