# A temperature written in kelvin that is out of range but would be in range in degC ("25 K" for
# the coolant inlet limit, meant as 25 degC) gets a "did you mean '25 degC'?" hint; the range stays
# in the unit written (kelvin). A plausible kelvin value out of range gets no such hint.
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)inlet_max: "25 degC"/\1inlet_max: "25 K"/'
line=$(line_of '^\s*inlet_max: "25 K"' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "cooling.limits.inlet_max" || fail "message does not name bad.yaml:$line and the key"
grep -qF "expected a temperature from 273.15 K to 373.15 K" err.txt || fail "range not given in kelvin"
grep -qF "did you mean '25 degC'?" err.txt || fail "no degC hint for a kelvin slip"
validate_bad bad.yaml
msg=$(head -1 err.txt)
make_scenario hot 's/^(\s*)inlet_max: "25 degC"/\1inlet_max: "400 K"/'
run_bad hot.yaml
grep -qF "did you mean" err.txt && fail "a hint for 400 K, which is out of range in degC too"
echo "ok: $msg"
