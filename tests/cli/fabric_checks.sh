# The brief's fabric checks are judged in `aidcsim run`: listed with the cooling checks, a 200 Gb/s
# NIC fails "NIC rate per GPU" (brief: 400 Gb/s per port), the JSON carries the verdict, and
# --fail-on-check exits 3.
source "$(dirname "$0")/lib/common.bash"
cp "$SRC/tests/data/small-576.yaml" slow.yaml
sed -i -E 's/^(\s*)nic_rate: .*/\1nic_rate: "200 Gbps"/' slow.yaml
grep -q 'nic_rate: "200 Gbps"' slow.yaml || fail "sed did not set nic_rate (test out of date?)"
"$AIDCSIM" run slow.yaml --quiet --json x.json --fail-on-check >out.txt 2>err.txt
rc=$?
[ "$rc" = 3 ] || fail "--fail-on-check exited $rc, expected 3"
for item in "switch port rate" "injection bandwidth per node" "links above 80 % (busiest time bin)" \
            "RDMA p99 latency (estimate)" "bisection ratio"; do
  grep -qF "$item" out.txt || fail "no '$item' check in the run output"
done
grep -qE "FAIL +NIC rate per GPU +200 Gb/s" out.txt || fail "a 200 Gb/s NIC should fail 'NIC rate per GPU'"
python3 - x.json <<'PY' || fail "JSON: NIC rate check missing or passing"
import json, sys
checks = {c["item"]: c for c in json.load(open(sys.argv[1]))["checks"]}
c = checks["NIC rate per GPU"]
assert c["pass"] is False and c["value"] == 200 and c["limit"] == 400 and c["unit"] == "Gb/s", c
PY
echo "ok: $(grep -E 'NIC rate per GPU' out.txt | head -1)"
