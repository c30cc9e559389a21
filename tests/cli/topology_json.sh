# `aidcsim topology --json FILE`: what topology prints, as JSON for scripts (architects scripted
# the text). Checks the document against the printed tables (counts, power and cost totals, notes),
# that the BOM lines add up to the totals, '-' for stdout, no file from a failed run, and that an
# output named like the scenario is refused (`topology --json mine.yaml` would replace it).
source "$(dirname "$0")/lib/common.bash"
PY=/usr/bin/python3
"$AIDCSIM" topology "$SRC/scenarios/stargate-uk-rollout.yaml" --json topo.json >out.txt 2>err.txt ||
  fail "topology --json exited $?"
ls -a | grep -q 'tmp-' && fail "a temporary file was left behind"
$PY - topo.json out.txt <<'PYEOF' || fail "the JSON does not match the printed tables"
import json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
def row(label):  # the value column of a printed row
    m = re.search(r"^  " + re.escape(label) + r" +(\S.*)$", text, re.M)
    assert m, label
    return m.group(1).strip()
assert d["format_version"] == "1" and d["scenario"]["name"] == "stargate-uk-rollout"
f, sw, ln = d["fabric"], d["switches"], d["links"]
assert f["gpus"] == int(row("GPUs")) and f["tiers"] == 3 and f["switch_radix_ports"] == 64
assert f["link_rate_bit_per_s"] == 400e9 and f["nic_rate_bit_per_s"] == 400e9
assert sw["leaf"] == int(row("leaf switches")) and sw["spine"] == int(row("spine switches"))
assert sw["core"] == int(row("core switches")) and sw["scale_out"] == int(row("scale-out switches"))
assert sw["nvlink_logical"] == int(row("NVLink switches (logical)"))
assert ln["access"] == int(row("access links (NIC-leaf)")) and ln["leaf_spine"] == int(row("leaf-spine links"))
assert ln["spine_core"] == int(row("spine-core links")) and ln["nvlink"] == int(row("NVLink links (copper)"))
assert ln["scale_out_cables"] == int(row("scale-out cables")) == ln["copper_dac"] + ln["optical"]
assert d["optical_modules"] == int(row("optical modules"))
assert f"{f['bisection_bandwidth_bit_per_s'] / 1e12:.2f}" == row("bisection bandwidth (Tb/s, one way)")
assert f"{f['oversubscription_leaf']:.2f}:1" == row("oversubscription leaf (as built)")
assert f["diameter_switches"] == int(row("diameter (switches)"))
assert sum(m["links"] for m in d["media"]) == ln["scale_out_cables"]
# BOM lines: count x each = line; the lines add up to the printed totals.
for l in d["bom"]:
    assert abs(l["count"] * l["power_W_each"] - l["power_W"]) <= 1e-9 * max(1, l["power_W"])
    assert abs(l["count"] * l["price_USD_each"] - l["price_USD"]) <= 1e-9 * max(1, l["price_USD"])
kinds = [l["kind"] for l in d["bom"]]
assert kinds[0] == "switch" and kinds[-1] == "nic" and "optic" in kinds
assert d["bom"][0]["part"] == row("switch model") and d["bom"][0]["count"] == sw["scale_out"]
for l in d["bom"]:
    if l["kind"] == "optic":
        assert l["end"] in ("switch", "nic") and l["medium"] in ("copper", "multimode", "singlemode")
p, c = d["power_W"], d["cost_USD"]
assert abs(sum(l["power_W"] for l in d["bom"]) - p["total"]) <= 1e-6 * p["total"]
assert abs(sum(l["price_USD"] for l in d["bom"]) - c["total"]) <= 1e-6 * c["total"]
assert f"{p['total'] / 1e3:.1f}" == row("power: fabric total (kW)")
assert f"{c['total'] / 1e6:.2f}" == row("cost: fabric total (MUSD)")
assert f"{c['per_gpu']:.0f}" == row("cost per GPU (USD)")
assert d["notes"] == re.findall(r"^  note: (.*)$", text, re.M), "notes differ from the printed ones"
assert any("rollout.phases grow it" in n for n in d["notes"])
PYEOF
# '-': the JSON on stdout, the tables on stderr.
"$AIDCSIM" topology "$BASE" --json - >out.txt 2>err.txt || fail "topology --json - exited $?"
$PY -c "import json,sys; json.load(open('out.txt'))" || fail "--json - did not write JSON on stdout"
grep -q "Fabric bill of materials" err.txt || fail "--json -: the tables are not on stderr"
# A scenario the fabric cannot be built from: exit 2, no file.
make_scenario bad 's/^(  switch_radix:).*/\1 3/'
"$AIDCSIM" topology bad.yaml --json bad.json >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || fail "topology of an invalid scenario: exit $rc, expected 2"
[ -e bad.json ] && fail "a failed topology wrote its JSON"
# An output named like a scenario (or the scenario itself through a link) is refused, the file kept.
cp "$BASE" mine.yaml
ln -sf mine.yaml mine.scn
for args in "--json mine.yaml" "--graphml mine.yaml" "--dot mine.yml" "mine.yaml --json mine.scn"; do
  before=$(md5sum mine.yaml)
  "$AIDCSIM" topology $args >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 64 ] || fail "topology $args: exit code $rc, expected 64"
  [ "$(md5sum mine.yaml)" = "$before" ] || fail "topology $args: the scenario file was overwritten"
  grep -qE "a scenario file, not an output|the scenario file it reads" err.txt || fail "topology $args: message does not say why"
done
"$AIDCSIM" topology "$BASE" --json fabric.dot >out.txt 2>err.txt
[ $? -eq 64 ] || fail "topology --json fabric.dot: expected exit 64"
echo "ok: $(head -1 err.txt)"
