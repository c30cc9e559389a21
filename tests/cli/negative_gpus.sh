# A negative GPU count is an error at its line.
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)gpus: [0-9]+/\1gpus: -8064/'
line=$(line_of '^\s*gpus: -8064' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "cluster.gpus" || fail "message does not name bad.yaml:$line and cluster.gpus"
validate_bad bad.yaml
echo "ok: $(head -1 err.txt)"
