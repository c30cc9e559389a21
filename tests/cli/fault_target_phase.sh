# A cooling fault whose target is beyond a rollout phase's site names what it targets (CDUs) and the
# phase whose site lacks it: every phase judges every fault on its own site, so CDU 20 of the 31K
# phase (54 CDUs) does not exist in the 8K phase (14). It used to say only "an index below 14".
source "$(dirname "$0")/lib/common.bash"
BASE="$SRC/scenarios/stargate-uk-rollout.yaml"
make_scenario bad '0,/^(\s*)target: 0/s//\1target: 20/'
line=$(line_of '^\s*target: 20' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "cooling.faults[0].target" || fail "message does not name bad.yaml:$line and the key"
grep -qF "got '20', expected an index below 14" err.txt || fail "no index range"
grep -qF "pump_failure targets a CDU: the site has 14" err.txt || fail "does not say the target is a CDU of 14"
grep -qF "in rollout phase 8K" err.txt || fail "does not name the phase whose site lacks it"
validate_bad bad.yaml
echo "ok: $(head -1 err.txt)"
