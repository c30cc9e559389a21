# docs/thermal.md section 3: a design that breaks a limit is simulated and reported, not refused at
# load. The bundled 8K scenario with a 22 degC facility supply runs (exit 0) and its coolant inlet
# check fails with a negative headroom; with --fail-on-check the exit code is 3.
source "$(dirname "$0")/lib/common.bash"
make_scenario warm 's/^(\s*)facility_supply: "18 degC"/\1facility_supply: "22 degC"/'
"$AIDCSIM" validate warm.yaml >out.txt 2>err.txt || fail "validate refused a design that only breaks a limit"
"$AIDCSIM" run warm.yaml --quiet --json warm.json >out.txt 2>err.txt || fail "run: exit code $?, expected 0"
grep -qE "^  FAIL  coolant inlet .*headroom -" out.txt || fail "no failing coolant inlet check with a negative headroom"
"$AIDCSIM" run warm.yaml --quiet --fail-on-check >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 3 ] || fail "run --fail-on-check: exit code $rc, expected 3"
echo "ok: $(grep -E '^  FAIL  coolant inlet' out.txt | tr -s ' ')"
