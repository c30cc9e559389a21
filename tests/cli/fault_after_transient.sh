# A fault that starts after the faults' shared transient (at most 72 h, models/thermal/verdict.hpp
# max_duration) is judged by its own verdict, but the summary's fault_* figures come from the
# shared transient and leave it out: the run's notes say so instead of reporting a quiet 0 s
# throttled next to a verdict that throttled. (A CDU loss at 365.6 d of the rollout scenario read
# fault_throttled_time 0 s while its verdict had 4,326 s above throttle.)
source "$(dirname "$0")/lib/common.bash"
cp "$SRC/tests/regression/cooling-fault.yaml" late.yaml
sed -i -E 's/^(\s*)at: "6 h"/\1at: "100 h"/' late.yaml
cmp -s "$SRC/tests/regression/cooling-fault.yaml" late.yaml && fail "sed did not move the fault (test out of date?)"
"$AIDCSIM" run late.yaml --quiet --json late.json >out.txt 2>err.txt || fail "run: exit code $?"
grep -qE "cooling faults: the shared fault transient covers the first 72 h only, and fault 3: supply_excursion \(supply_excursion of \+8 K at 4.2 d for 3 h\) starts after it" out.txt ||
  fail "no note naming the fault after the shared transient"
"$AIDCSIM" run "$SRC/tests/regression/cooling-fault.yaml" --quiet >out.txt 2>err.txt || fail "run: exit code $?"
grep -q "shared fault transient covers" out.txt && fail "the note is given when every fault is inside the transient"
echo "ok: $(grep -o 'cooling faults: the shared fault transient[^;]*' late.json | head -1)"
