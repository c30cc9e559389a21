# A data rate given as a size ("400 GB" instead of "400 Gbps") is an error at its line.
source "$(dirname "$0")/lib/common.bash"
make_scenario bad 's/^(\s*)link_rate: .*/\1link_rate: "400 GB"/'
line=$(line_of 'link_rate: "400 GB"' bad.yaml)
run_bad bad.yaml
mentions bad.yaml "$line" "fabric.link_rate" || fail "message does not name bad.yaml:$line and fabric.link_rate"
grep -qF "400 GB" err.txt || fail "message does not repeat the bad value '400 GB'"
validate_bad bad.yaml
echo "ok: $(head -1 err.txt)"
