# bench-collective's header says when the fabric is built otherwise than its options ask, with the
# run's as-built warning: an 800 Gb/s NIC on 400 Gb/s switch ports (the leaf is 2:1 as built) and a
# leaf ratio whole ports cannot give. It used to print the asked ratio only ("leaf oversubscription 1:1").
source "$(dirname "$0")/lib/common.bash"
"$AIDCSIM" bench-collective --gpu H100 -N 4 -g 8 --nic-rate "800 Gbps" --link-rate "400 Gbps" -b 1M -e 1M >out.txt 2>err.txt ||
  fail "bench-collective exit $?"
grep -qF "#  Fabric as built: fabric.nic_rate: 800 Gb/s NIC port" out.txt || fail "no as-built line for the 800G NIC"
grep -qF "leaf 2:1 as built (asked 1:1)" out.txt || fail "does not say the leaf is 2:1 as built"
"$AIDCSIM" bench-collective --gpu H100 -N 4 -g 8 --oversubscription 1.37:1 -b 1M -e 1M >out.txt 2>err.txt ||
  fail "bench-collective exit $?"
grep -qF "#  Fabric as built: fabric.oversubscription.leaf: asked 1.37:1, built 1.33:1" out.txt ||
  fail "no as-built line for the leaf ratio"
"$AIDCSIM" bench-collective --gpu H100 -N 4 -g 8 --topology leaf_spine -b 1M -e 1M >out.txt 2>err.txt || fail "bench-collective exit $?"
grep -qF "Fabric as built" out.txt && fail "an as-built line for a fabric built as asked"
echo "ok: bench-collective says the fabric as built"
