# Oversubscription "1:2" (downlink below uplink) is an error at its line naming the constraint, not
# silently read as 2:1 (issue 3: oversubscription < 1 is a file:line error).
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)spine: "1:1"/\1spine: "1:2"/'
line=$(line_of '^\s*spine: "1:2"' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "fabric.oversubscription.spine" || fail "message does not name bad.yaml:$line and the key"
grep -qF "downlink:uplink ratio >= 1, e.g. 3:1" err.txt || fail "message does not name the constraint"
validate_bad bad.yaml
echo "ok: $(head -1 err.txt)"
