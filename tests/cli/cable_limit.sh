# The brief's "Cables under 50 m" (network::FabricLimits::cable_length_max) against the laid-out
# scale-out cables: `topology` at 31,104 GPUs (the rollout's last phase, whose leaves stand in a
# mid-hall network row) says how many are 50 m or longer and names the longest, in its text and
# JSON (cable_limit); the 8K fabric has none; `run` judges it as the check "longest scale-out cable".
source "$(dirname "$0")/lib/common.bash"
big=(--set cluster.gpus=31104 --set workload.parallelism.dp=432 --set workload.global_batch=7776)
"$AIDCSIM" topology "$BASE" "${big[@]}" --json big.json >out.txt 2>err.txt || fail "topology 31104 GPUs failed"
grep -qE "note: [0-9]+ scale-out cables are not under the brief's 50 m" out.txt || fail "no note on cables of 50 m or more"
python3 - big.json <<'PY' || fail "JSON cable_limit of the 31K fabric"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cable_limit"]
sm = {m["medium"]: m for m in d["media"]}["singlemode"]
assert c["limit_m"] == 50 and c["links_at_or_over"] > 0, c
assert c["links_at_or_over"] == sum(c["links_at_or_over_by_medium"].values()), c
assert c["longest_m"] > 50 and abs(c["longest_m"] - sm["longest_m"]) < 1e-9, (c, sm)
assert c["longest_link"], c
PY
"$AIDCSIM" topology "$BASE" --json small.json >out.txt 2>err.txt || fail "topology 8K failed"
grep -q "not under the brief" out.txt && fail "the 8K fabric has no cable of 50 m or more"
python3 -c "import json,sys; c=json.load(open('small.json'))['cable_limit']; assert c['links_at_or_over']==0 and c['longest_m']<50, c" \
  || fail "JSON cable_limit of the 8K fabric"
# run: the check, passing on the test site, failing with 50 m of slack on every rack-to-rack cable.
"$AIDCSIM" run "$SRC/tests/data/small-576.yaml" --quiet --json ok.json >out.txt 2>err.txt || fail "run failed"
grep -qE "PASS +longest scale-out cable" out.txt || fail "no passing 'longest scale-out cable' check"
"$AIDCSIM" run "$SRC/tests/data/small-576.yaml" --set 'bom.layout.cable_slack=50 m' --quiet --json long.json \
  --fail-on-check >out.txt 2>err.txt
[ $? = 3 ] || fail "--fail-on-check should exit 3 with cables over 50 m"
python3 - long.json <<'PY' || fail "JSON: cable check"
import json, sys
c = {c["item"]: c for c in json.load(open(sys.argv[1]))["checks"]}["longest scale-out cable"]
assert c["pass"] is False and c["limit"] == 50 and c["unit"] == "m" and c["value"] > 50, c
assert "singlemode" in c["note"] and "brief: cables under 50 m" in c["note"], c
PY
echo "ok: $(grep -E 'longest scale-out cable' out.txt | head -1)"
