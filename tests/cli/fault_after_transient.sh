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
"$AIDCSIM" run "$SRC/tests/regression/cooling-fault.yaml" --quiet --json in.json >out.txt 2>err.txt || fail "run: exit code $?"
grep -q "shared fault transient covers" out.txt && fail "the note is given when every fault is inside the transient"

# Each fault counted once in time_to_train_with_faults: a fault in the shared transient is in
# time_to_train's step-time profile already (the CDU loss at 3 h, which loses time: not added
# again, as it was before 2026-12), a fault after it that starts before the training ends adds its
# verdict's loss (the CDU loss moved to 80 h, the training doubled to ~4.5 d).
cat >check.py <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s, f = d["summary"], d["cooling_faults"]
ttt, withf = s["time_to_train"]["value"], s["time_to_train_with_faults"]["value"]
lost = dict(zip(f["start"]["values"], f["lost_training_time"]["values"]))  # s -> h
late = float(sys.argv[2])
added = lost[late] / 24 if late > 0 else 0.0
assert max(lost.values()) > 0, lost
assert abs(withf - (ttt + added)) <= 1e-12 * ttt, (withf, ttt, added)
PY
/usr/bin/python3 check.py in.json 0 || fail "time_to_train_with_faults adds a fault already in time_to_train"
cp "$SRC/tests/regression/cooling-fault.yaml" late2.yaml
sed -i -E 's/^(\s*)at: "3 h"/\1at: "80 h"/; s/^(\s*)tokens: "100B"/\1tokens: "200B"/' late2.yaml
[ "$(grep -c -E 'at: "80 h"|tokens: "200B"' late2.yaml)" -eq 2 ] || fail "sed did not move the CDU loss (test out of date?)"
"$AIDCSIM" run late2.yaml --quiet --json late2.json >out.txt 2>err.txt || fail "run: exit code $?"
/usr/bin/python3 check.py late2.json 288000 || fail "time_to_train_with_faults leaves out a fault after the transient"
echo "ok: $(grep -o 'cooling faults: the shared fault transient[^;]*' late.json | head -1)"
