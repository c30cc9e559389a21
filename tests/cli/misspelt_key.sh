# A misspelt key (fabric.switch_radix -> switch_radx) is an error at its line, with a suggestion.
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)switch_radix:/\1switch_radx:/'
line=$(line_of 'switch_radx:' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "fabric.switch_radx" || fail "message does not name bad.yaml:$line and fabric.switch_radx"
grep -q "switch_radix" err.txt || fail "no 'did you mean switch_radix' suggestion"
validate_bad bad.yaml
mentions bad.yaml "$line" "fabric.switch_radx" || fail "validate: message does not name bad.yaml:$line"
echo "ok: $(head -1 err.txt)"
