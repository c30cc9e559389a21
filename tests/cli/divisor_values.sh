# A divisor error says the value it is checked against: heads: 100 (hidden 12800, a whole head
# dimension) with tp 8 gave "expected a divisor of workload.model.heads" without saying heads is 100.
source "$(dirname "$0")/lib/common.bash"
make_scenario tp 's/^(\s*)heads: 128/\1heads: 100/; s/^(\s*)hidden: 16384/\1hidden: 12800/; s/^(\s*)kv_heads: 8/\1kv_heads: 10/'
line=$(line_of '^\s*tp: 8' tp.yaml)
validate_bad tp.yaml
mentions tp.yaml "$line" "workload.parallelism.tp: got '8', expected a divisor of workload.model.heads (100)" ||
  fail "message does not name tp.yaml:$line, tp, 8 and heads (100)"
echo "ok: $(head -1 err.txt | sed "s|$WORK/||")"

make_scenario kv 's/^(\s*)kv_heads: 8/\1kv_heads: 7/'
line=$(line_of '^\s*kv_heads: 7' kv.yaml)
validate_bad kv.yaml
mentions kv.yaml "$line" "workload.model.kv_heads: got '7', expected a divisor of workload.model.heads (128)" ||
  fail "message does not name kv.yaml:$line, kv_heads, 7 and heads (128)"
echo "ok: $(head -1 err.txt | sed "s|$WORK/||")"
