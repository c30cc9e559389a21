# Limit pairs the wrong way round are input slips, refused at their line: a flow band with
# cooling.limits.flow_min above flow_max (every flow failed the check: "band 2.00-1.00 L/min"), and a
# GPU shutdown temperature at or below its throttle limit (the steady state ran GB200s at 61 degC
# with shutdown_temp 55 degC, all checks passed, no GPU at shutdown). Limits themselves stay checks.
source "$(dirname "$0")/lib/common.bash"

make_scenario band 's/^(\s*)hotspot_max: "60 degC"/\1hotspot_max: "60 degC"\n\1flow_min: "2 L\/min"\n\1flow_max: "1 L\/min"/'
line=$(line_of '^\s*flow_max: "1 L/min"' band.yaml)
run_bad band.yaml
mentions band.yaml "$line" "cooling.limits.flow_max" || fail "message does not name band.yaml:$line and flow_max"
grep -qF "got '1 L/min'" err.txt && grep -qF "flow_min (2 L/min) <= flow_max (1 L/min)" err.txt ||
  fail "message does not give the value and the band"
validate_bad band.yaml

# Only flow_min written: the message names it (flow_max is the default 1 L/min).
make_scenario low 's/^(\s*)hotspot_max: "60 degC"/\1hotspot_max: "60 degC"\n\1flow_min: "1.5 L\/min"/'
run_bad low.yaml
mentions low.yaml "$(line_of '^\s*flow_min:' low.yaml)" "cooling.limits.flow_min" || fail "flow_min not named"

make_scenario shut 's/^(\s*)hotspot_max: "60 degC"/\1hotspot_max: "60 degC"\n  throttle:\n    shutdown_temp: "55 degC"/'
line=$(line_of '^\s*shutdown_temp: "55 degC"' shut.yaml)
run_bad shut.yaml
mentions shut.yaml "$line" "cooling.throttle.shutdown_temp" || fail "message does not name shut.yaml:$line and shutdown_temp"
grep -qF "got '55 degC', expected a shutdown temperature above the GPU throttle limit (87 degC, the GPU's in the compute catalogue)" err.txt ||
  fail "message does not give the throttle limit"
validate_bad shut.yaml

# A throttle limit written at the catalogue's shutdown temperature (GB200: 92 degC) is refused too.
make_scenario thr 's/^(\s*)hotspot_max: "60 degC"/\1hotspot_max: "60 degC"\n\1gpu_temp_limit: "92 degC"/'
run_bad thr.yaml
mentions thr.yaml "$(line_of '^\s*gpu_temp_limit:' thr.yaml)" "cooling.limits.gpu_temp_limit" || fail "gpu_temp_limit not named"
grep -qF "a throttle limit below the GPU shutdown temperature (92 degC" err.txt || fail "shutdown temperature not given"

# Pairs in order are accepted (a limit is a check, not a load error).
make_scenario ok 's/^(\s*)hotspot_max: "60 degC"/\1hotspot_max: "60 degC"\n\1flow_min: "0.8 L\/min"\n\1gpu_temp_limit: "80 degC"/'
"$AIDCSIM" validate ok.yaml >out.txt 2>err.txt || fail "an ordered pair was refused"
echo "ok: limit pairs"
