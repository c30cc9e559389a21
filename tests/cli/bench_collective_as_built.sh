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
# NICs shared by GPUs: the header's fabric is the bench's, with each GPU's share of the 4 NICs' PCIe
# attachment (4 x 24 GB/s as NCCL rates Gen4, over 8 GPUs: 96 Gb/s, below the 100 Gb/s share of
# 4 x 200G). The header built its own fabric without --nics-per-node (192 Gb/s, d097d0b), so what
# it described could differ from what was run; both now take it from one function.
"$AIDCSIM" bench-collective --gpu A100 -N 2 --nics-per-node 4 --nic-rate "200 Gbps" -b 1M -e 1M >out.txt 2>err.txt ||
  fail "bench-collective exit $?"
grep -qF "#  NIC path: each GPU's traffic to its NIC at most 96 Gb/s, its share of the PCIe attachment of the node's 4 NICs" out.txt ||
  fail "no NIC path line for 4 shared NICs at 96 Gb/s per GPU"
"$AIDCSIM" bench-collective --gpu A100 -N 2 --nic-rate "100 Gbps" -b 1M -e 1M >out.txt 2>err.txt || fail "bench-collective exit $?"
grep -qF "NIC path" out.txt && fail "a NIC path line for a NIC slower than its PCIe path (192 Gb/s)"
echo "ok: bench-collective says the fabric as built"
