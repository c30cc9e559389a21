# TP 7 in the default scenario (7 x 9 x 112 != 8064): the error names the parallelism group at its
# line and every key of the product, not workload.parallelism.dp alone.
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)tp: 8 /\1tp: 7 /'
line=$(line_of '^\s*parallelism:' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "workload.parallelism:" || fail "message does not name bad.yaml:$line and workload.parallelism"
for k in workload.parallelism.tp .cp .pp .dp cluster.gpus "tp 7 x cp 1 x pp 9 x dp 112 = 7056"; do
  grep -qF -- "$k" err.txt || fail "message does not name $k"
done
grep -qF "workload.parallelism.dp: got" err.txt && fail "message still blames workload.parallelism.dp"
validate_bad bad.yaml
echo "ok: $(head -1 err.txt)"
