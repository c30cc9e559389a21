#!/usr/bin/env bash
# Benchmark tool (prints figures; not a timed test): profile of the network event loop of one
# `aidcsim run` by sampling (perf, Debian package linux-perf; not installed by
# scripts/install-deps.sh) with DWARF call graphs, broken down by bench/tools/loop_breakdown.py
# into SimGrid's solve, its selective-update marking, variable add/remove, constraint add, the
# link timeline, repetition bookkeeping, flow start/finish and the loop itself, with the share
# of each that is allocation / page faults. Also prints the run's own --profile table (loop CPU s).
# Usage: bench/tools/loop_profile.sh AIDCSIM_BIN SCENARIO [HZ]   (HZ default 4000; 1000 for runs > 5 s)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 AIDCSIM_BIN SCENARIO [HZ]" >&2; exit 64; }
command -v perf >/dev/null || { echo "$0: needs perf (apt-get install linux-perf)" >&2; exit 69; }
BIN=$1 SCEN=$2 HZ=${3:-4000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN" run -q --profile "$SCEN" 2>"$tmp/profile" >/dev/null
loop=$(awk '/network: event loop/ {print $(NF-3)}' "$tmp/profile")
perf record -q -F "$HZ" --call-graph dwarf,16384 -o "$tmp/perf.data" "$BIN" run -q "$SCEN" >/dev/null 2>&1
perf script -i "$tmp/perf.data" -F comm,tid,period,ip,sym --no-inline 2>/dev/null >"$tmp/perf.txt"
grep -E "network:|part " "$tmp/profile"
/usr/bin/python3 "$(dirname "$0")/loop_breakdown.py" "$tmp/perf.txt" "$loop"
