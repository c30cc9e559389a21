# `aidcsim run` (no file: the built-in default scenario) from a directory that is not the repo:
# exits 0, prints the headline figures the README promises, and writes HDF5 + JSON outputs.
source "$(dirname "$0")/lib/common.bash"
"$AIDCSIM" run --quiet --output x.h5 --json x.json >out.txt 2>err.txt || fail "aidcsim run exited $?"
for key in gpus step_time tokens_per_second mfu time_to_train max_link_utilization p99_link_utilization \
           links_above_80 max_gpu_temperature gpu_temperature_headroom coolant_delta_t it_power facility_power pue; do
  grep -qE "^  $key +" out.txt || fail "summary has no '$key' line"
done
grep -qE "^  gpus +8,064" out.txt || fail "the default scenario should have 8,064 GPUs"
grep -q "Checks (" out.txt || fail "no cooling checklist in the summary"
[ -s x.h5 ] || fail "no HDF5 output"
[ -s x.json ] || fail "no JSON output"
ls x.h5.tmp-* x.json.tmp-* >/dev/null 2>&1 && fail "temporary files left behind"
echo "ok: default scenario ran; $(grep -E '^  step_time ' out.txt)"
