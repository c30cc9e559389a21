# A temperature written in degC and out of range is reported with its range in degC (the unit the
# user wrote), not in kelvin; `aidcsim schema` gives temperature ranges in degC.
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)facility_supply: "18 degC"/\1facility_supply: "70 degC"/'
line=$(line_of '^\s*facility_supply: "70 degC"' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "cooling.facility_supply" || fail "message does not name bad.yaml:$line and the key"
grep -qF "from 0 degC to 60 degC" err.txt || fail "range not given in degC"
grep -qF "273.15" err.txt && fail "range given in kelvin for a value written in degC"
validate_bad bad.yaml
msg=$(head -1 err.txt)
"$AIDCSIM" schema >out.txt 2>err.txt || fail "aidcsim schema failed"
grep -E "^cooling\.facility_supply " out.txt | grep -qF "from 0 degC to 60 degC" || fail "schema: facility_supply range not in degC"
echo "ok: $msg"
