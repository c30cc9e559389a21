# A GPU not in the built-in catalogue, from a catalogue file (../shared/cases/step/15): bench-collective
# --gpu-file runs it; a bad figure in the file is an error at its line; an unknown --gpu is a usage error.
source "$(dirname "$0")/lib/common.bash"
cat > gpus.yaml <<'YAML'
gpus:
  - name: H100-PCIe-NVL
    base: H100
    nvlink_bandwidth: 300 GB/s
    nvls: false
    tdp: 350 W
YAML
"$AIDCSIM" bench-collective --gpu-file gpus.yaml --gpu H100-PCIe-NVL -b 1G -e 1G >out.txt 2>err.txt \
  || fail "bench-collective with --gpu-file exited $?"
grep -q "ring" out.txt || fail "a GPU without NVLS should run ring"
sed -i 's/tdp: 350 W/tdp: 350/' gpus.yaml
"$AIDCSIM" bench-collective --gpu-file gpus.yaml --gpu H100-PCIe-NVL -b 1G -e 1G >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || fail "a bad GPU file: exit code $rc, expected 2"
mentions gpus.yaml 6 "gpus[0].tdp" || fail "message does not name gpus.yaml:6 and gpus[0].tdp"
"$AIDCSIM" bench-collective --gpu H2O -b 1G -e 1G >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 64 ] || fail "unknown GPU: exit code $rc, expected 64"
grep -q "H20" err.txt || fail "unknown GPU: the message does not list the known GPUs"
echo "ok: $(head -1 err.txt)"
