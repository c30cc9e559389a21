# Prefix reuse is exact (issue 13, rollout speed): in degrade mode each link-down sample continues
# from the base step's run up to the first transfer over its link (FlowNetwork::set_prefix_capture,
# sim/engine/step_variants.hpp arm_link_down_prefixes). On clos3-failures (links down from the
# start, timed failures after the samples) the reuse on and off (AIDCSIM_NO_RUN_REUSE=1) give the
# same JSON values and the same HDF5 datasets and attributes; only the degrade note differs, which
# with the reuse on names the samples that continued from the prefix. Again with CP rings across
# NVLink domains as flows (repeated transfers: their repetition state is kept with the prefix).
source "$(dirname "$0")/lib/common.bash"
export SOURCE_DATE_EPOCH=1767225600
cat >same.py <<'PY'
import json, re
from h5_flat import flat

on, off = json.load(open("on.json")), json.load(open("off.json"))
mark = "; run reuse: the runs with "
assert [n for n in on["notes"] if mark in n and "continued from the base step's run" in n], \
    "with the reuse on, no note names the link-down runs that continued from the base step's run"
assert not [n for n in off["notes"] if "run reuse" in n], "AIDCSIM_NO_RUN_REUSE=1 still reuses a run"
assert [n.split(mark)[0] for n in on["notes"]] == off["notes"], "notes differ beyond the reuse"
on.pop("notes"), off.pop("notes")
bad = [k for k in on if on[k] != off.get(k)] + [k for k in off if k not in on]
assert not bad, "JSON differs with and without the reuse: %s" % bad

a, b = flat("on.h5"), flat("off.h5")
assert "D network/link_down/step_time" in a, "no link-down samples in the results"
bad = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
assert not bad, "HDF5 differs with and without the reuse: %s" % bad[:10]
print("%d JSON keys, %d HDF5 datasets and attributes equal" % (len(on), len(a)))
PY
S="$SRC/tests/regression/clos3-failures.yaml"
same() {  # $1: what is checked; the rest: the run's arguments
  local what=$1
  shift
  "$AIDCSIM" run "$@" --quiet --json on.json --output on.h5 >out.txt 2>err.txt || fail "$what, with reuse: exit code $?"
  AIDCSIM_NO_RUN_REUSE=1 "$AIDCSIM" run "$@" --quiet --json off.json --output off.h5 >out.txt 2>err.txt ||
    fail "$what, without reuse: exit code $?"
  PYTHONPATH="$SRC/tests/cli/lib" /usr/bin/python3 same.py >out.txt 2>err.txt ||
    fail "$what: outputs with and without the reuse: $(tail -1 err.txt)"
  echo "ok: $what: $(cat out.txt)"
}
same "link-down samples from the base step's prefix" "$S"
same "with CP rings (repeated transfers)" "$S" --set workload.parallelism.cp=4 --set workload.parallelism.dp=8 \
  --set workload.parallelism.allow_tp_across_domains=true
grep -q "CP ring exchange as flows" on.json || fail "the CP rings are not simulated as flows: nothing repeated"
