#!/usr/bin/env bash
# Benchmark tool (prints figures; not a timed test): profile of the network event loop of one
# `aidcsim run` by sampling (perf, Debian package linux-perf; not installed by
# scripts/install-deps.sh) with DWARF call graphs, broken down by bench/tools/loop_breakdown.py
# into SimGrid's solve, its selective-update marking, variable add/remove, constraint add, the
# link timeline, repetition bookkeeping, flow start/finish and the loop itself, with the share
# of each that is allocation / page faults. Also prints the run's own --profile table (loop CPU s)
# and the whole process by owner (bench/tools/process_breakdown.py: SimGrid, aidcsim's network
# engine, the kernel, ...; CPU s include perf's own overhead on the run).
# Usage: bench/tools/loop_profile.sh AIDCSIM_BIN SCENARIO [HZ]   (HZ default 4000; 1000 for runs > 5 s)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 AIDCSIM_BIN SCENARIO [HZ]" >&2; exit 64; }
command -v perf >/dev/null || { echo "$0: needs perf (apt-get install linux-perf)" >&2; exit 69; }
BIN=$1 SCEN=$2 HZ=${3:-4000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN" run -q --profile "$SCEN" 2>"$tmp/profile" >/dev/null
loop=$(awk '/network: event loop/ {print $(NF-3)}' "$tmp/profile")
/usr/bin/time -f "%U %S" -o "$tmp/time" perf record -q -F "$HZ" --call-graph dwarf,16384 -o "$tmp/perf.data" \
  "$BIN" run -q "$SCEN" >/dev/null 2>&1
perf script -i "$tmp/perf.data" -F comm,tid,period,ip,sym --no-inline 2>/dev/null >"$tmp/perf.txt"
grep -E "network:|part " "$tmp/profile"
/usr/bin/python3 "$(dirname "$0")/loop_breakdown.py" "$tmp/perf.txt" "$loop"
# The whole process by owner (self samples of each leaf frame; SimGrid vs aidcsim's network engine),
# CPU s = share x the profiled run's user + system s.
perf report -i "$tmp/perf.data" --no-children --sort dso,sym --stdio -g none -F overhead,period,dso,sym 2>/dev/null \
  >"$tmp/report.txt"
/usr/bin/python3 "$(dirname "$0")/process_breakdown.py" "$tmp/report.txt" "$(awk '{print $1 + $2}' "$tmp/time")"
