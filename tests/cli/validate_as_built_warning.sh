# `aidcsim validate` says what `run` warns: a fabric built otherwise than written (here a spine
# ratio whole ports cannot give, and an 800G NIC on 400G switch ports) is valid (exit 0) but its
# as-built warning is printed, naming the file and the key. It used to print only "valid scenario".
source "$(dirname "$0")/lib/common.bash"
make_scenario spine 's/^(\s*)spine: "1:1"/\1spine: "2.5:1"/'
"$AIDCSIM" validate spine.yaml >out.txt 2>err.txt || fail "validate spine.yaml: exit $?, expected 0"
grep -qF "valid scenario" out.txt || fail "no 'valid scenario' line"
grep -qF "aidcsim: warning: spine.yaml: fabric.oversubscription.spine: asked 2.5:1, built 2.44:1" err.txt ||
  fail "validate does not warn that the spine is built at 2.44:1"
make_scenario nic 's/^(\s*)nic_rate: "400 Gbps"/\1nic_rate: "800 Gbps"/'
"$AIDCSIM" validate nic.yaml >out.txt 2>err.txt || fail "validate nic.yaml: exit $?, expected 0"
grep -qF "aidcsim: warning: nic.yaml: fabric.nic_rate: 800 Gb/s NIC port" err.txt ||
  fail "validate does not warn about the 800G NIC on 400G ports"
# The bundled scenario is built as written: no warning.
"$AIDCSIM" validate "$BASE" >out.txt 2>err.txt || fail "validate the bundled scenario: exit $?"
[ -s err.txt ] && fail "warnings on the bundled scenario"
echo "ok: validate prints the as-built warnings"
