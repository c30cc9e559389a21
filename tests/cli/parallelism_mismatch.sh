# TP x PP x DP that does not multiply to the GPU count (8 x 9 x 111 != 8064) is an error that
# points at one of the keys involved (the parallelism degrees or the GPU count), with its line.
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)dp: [0-9]+/\1dp: 111/'
run_bad bad.yaml
found=no
for pair in "workload.parallelism.dp:^\s*dp:" "workload.parallelism.tp:^\s*tp:" "workload.parallelism.pp:^\s*pp:" \
            "workload.parallelism:^\s*parallelism:" "cluster.gpus:^\s*gpus:"; do
  key=${pair%%:*}
  line=$(line_of "${pair#*:}" bad.yaml)
  if mentions bad.yaml "$line" "$key"; then found="$key at line $line"; break; fi
done
[ "$found" != no ] || fail "message names none of the parallelism keys with its line"
validate_bad bad.yaml
echo "ok ($found): $(head -1 err.txt)"
