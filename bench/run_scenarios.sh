#!/usr/bin/env bash
# Benchmark (prints figures; not a timed test): `aidcsim run` end to end on the bundled scenarios
# and the scaled-out sites of bench/scenarios, each in its own process: CPU seconds (user +
# system, from the kernel's accounting of the finished process), peak RSS and minor page faults
# (first touches of fresh memory: each costs system time to map and zero a page). Targets (issue 13):
# 31K step <= 5 s CPU and <= 2 GiB; 100K run <= 30 s CPU and <= 4 GiB; rollout <= 10 s CPU with
# system time under 10 % of user time.
# Usage: bench/run_scenarios.sh [path/to/aidcsim]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/bin/aidcsim}
printf '%-44s %9s %9s %9s %10s %12s\n' "scenario" "user s" "sys s" "CPU s" "peak MiB" "minor faults"
for s in "" scenarios/stargate-uk-rollout.yaml bench/scenarios/site-31k.yaml bench/scenarios/site-100k.yaml \
         bench/scenarios/site-200k.yaml; do
  out=$(mktemp)
  /usr/bin/time -f "%U %S %M %R" -o "$out" "$BIN" run -q ${s:+"$s"} >/dev/null
  read -r u sy kb pf <"$out"
  rm -f "$out"
  awk -v n="${s:-(default) scenarios/stargate-uk-8k.yaml}" -v u="$u" -v s="$sy" -v k="$kb" -v f="$pf" \
    'BEGIN { printf "%-44s %9.2f %9.2f %9.2f %10.0f %12d\n", n, u, s, u + s, k / 1024, f }'

done
