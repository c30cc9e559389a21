# heads: 96 with hidden: 16384 (a head dimension of 170.67 channels) and kv_heads: 7 of 128 heads
# are refused at their lines, with the value and what was expected; 0.x validated the first.
source "$(dirname "$0")/lib/common.bash"
make_scenario heads 's/^(\s*)heads: 128/\1heads: 96/'
line=$(line_of '^\s*heads: 96' heads.yaml)
validate_bad heads.yaml
mentions heads.yaml "$line" "workload.model.heads: got '96'" || fail "message does not name heads.yaml:$line, heads and 96"
grep -qF "a divisor of workload.model.hidden (16384)" err.txt || fail "message does not give hidden (16384)"
grep -qF "16384 / 96 = 170.67" err.txt || fail "message does not give the head dimension"
run_bad heads.yaml
echo "ok: $(head -1 err.txt | sed "s|$WORK/||")"

make_scenario kv 's/^(\s*)kv_heads: 8/\1kv_heads: 7/'
line=$(line_of '^\s*kv_heads: 7' kv.yaml)
validate_bad kv.yaml
mentions kv.yaml "$line" "workload.model.kv_heads: got '7', expected a divisor of workload.model.heads" ||
  fail "message does not name kv.yaml:$line, kv_heads and 7"
echo "ok: $(head -1 err.txt | sed "s|$WORK/||")"
