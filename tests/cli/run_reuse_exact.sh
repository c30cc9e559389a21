# Run reuse is exact (issue 13, rollout speed): a step whose inputs are those of a step already
# simulated, bit for bit, is taken from it (sim/engine/step_run.hpp run_reuse_enabled). Two cases
# on the cooling-fault scenario: (1) the cooling faults and a hot day both throttle the GPUs to the
# governor's floor (min_clock 0.85), so the step at the day's lowest clock is the step at the
# faults' lowest clock; (2) a hot site whose steady state throttles to the floor (min_clock 0.95)
# at the first iteration and again at the second, so the second's step is the first's. With the
# reuse on, the notes name the reused step; off (AIDCSIM_NO_RUN_REUSE=1) it is simulated again;
# every other JSON value and every HDF5 dataset and attribute is the same (object references
# compared by the name they point to: the notes dataset's size moves the file's offsets).
source "$(dirname "$0")/lib/common.bash"
export SOURCE_DATE_EPOCH=1767225600
cat >same.py <<'PY'
import json, sys
from h5_flat import flat

note = sys.argv[1]
on, off = json.load(open("on.json")), json.load(open("off.json"))
assert [n for n in on["notes"] if note in n], "with the reuse on, no note names the reused step"
assert not [n for n in off["notes"] if "run reuse" in n], "AIDCSIM_NO_RUN_REUSE=1 still reuses a step"
assert [n for n in on["notes"] if "run reuse" not in n] == off["notes"], "notes differ beyond the reuse note"
on.pop("notes"), off.pop("notes")
bad = [k for k in on if on[k] != off.get(k)] + [k for k in off if k not in on]
assert not bad, "JSON differs with and without the reuse: %s" % bad

a, b = flat("on.h5"), flat("off.h5")
bad = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
assert not bad, "HDF5 differs with and without the reuse: %s" % bad[:10]
print("%d JSON keys, %d HDF5 datasets and attributes equal" % (len(on), len(a)))
PY
# same_outputs NOTE SET-ARGS...: runs cooling-fault.yaml with the --set arguments, reuse on and off.
same_outputs() {
  local note=$1
  shift
  "$AIDCSIM" run "$SRC/tests/regression/cooling-fault.yaml" --quiet "$@" --json on.json --output on.h5 \
    >out.txt 2>err.txt || fail "run with reuse: exit code $?"
  AIDCSIM_NO_RUN_REUSE=1 "$AIDCSIM" run "$SRC/tests/regression/cooling-fault.yaml" --quiet "$@" \
    --json off.json --output off.h5 >out.txt 2>err.txt || fail "run without reuse: exit code $?"
  PYTHONPATH="$SRC/tests/cli/lib" /usr/bin/python3 same.py "$note" >out.txt 2>err.txt || fail "outputs with and without the reuse: $(tail -1 err.txt)"
  echo "ok: $note: $(cat out.txt)"
}
same_outputs "run reuse: the step at the day's lowest clock (clock 0.85, the same as an earlier step's)" \
  --set "cooling.heat_rejection.outdoor_daily_swing='30 K'" --set "cooling.heat_rejection.outdoor_temp='50 degC'" \
  --set "cooling.throttle.min_clock=0.85"
same_outputs "run reuse: the throttled step of iteration 2 (the same clocks as iteration 1's" \
  --set "cooling.heat_rejection.outdoor_temp='55 degC'" --set "cooling.throttle.min_clock=0.95"
