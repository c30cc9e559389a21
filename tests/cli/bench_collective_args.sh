# `aidcsim bench-collective` refuses nonsense options with a usage error (exit 64) and one line
# naming the option, before simulating anything, and within 5 s: case ../shared/cases/input/16
# (-f nan ran one row, an NVLink domain of 7 on 8-GPU nodes and --algo nvls on A100 ran, -N 0
# printed 'Value 0 not in range 0.000000 to 1.797...e308') and other inputs of the same kind: the
# cluster options take the scenario schema's ranges (--radix 1000000 ran for minutes, -N 1000000000
# overflowed to a negative rank count, --gpus above the cluster was silently cut to it).
source "$(dirname "$0")/lib/common.bash"

# refused MESSAGE-REGEX ARGS...: exit 64 in < 5 s, nothing on stdout, MESSAGE on stderr.
refused() {
  local want=$1 t0 t1 rc
  shift
  t0=$(date +%s%N)
  timeout 30 "$AIDCSIM" bench-collective "$@" >out.txt 2>err.txt
  rc=$?
  t1=$(date +%s%N)
  [ "$rc" -eq 64 ] || fail "bench-collective $*: exit code $rc, expected 64"
  [ -s out.txt ] && fail "bench-collective $*: printed results"
  grep -qE -- "$want" err.txt || fail "bench-collective $*: message '$(head -1 err.txt)', expected /$want/"
  [ "$(wc -l <err.txt)" -le 2 ] || fail "bench-collective $*: more than one message line"
  [ $(( (t1 - t0) / 1000000 )) -lt 5000 ] || fail "bench-collective $*: took $(( (t1 - t0) / 1000000 )) ms"
  return 0
}

# Case 16 as reported.
refused "-f: 'nan' is not an integer factor" -f nan
refused "--nvlink-domain: 7 GPUs: an NVLink domain must be a whole number of nodes" --nvlink-domain 7
# A domain dividing a node is not built (the fabric takes whole nodes): refused as such, by its option,
# not as the scenario key cluster.nvlink_domain.
refused "^aidcsim bench-collective: --nvlink-domain: 4 GPUs: an NVLink domain must be a whole number of nodes" \
  -N 2 -g 8 --nvlink-domain 4
# MI300X has no NVLink but Infinity Fabric (a scale-up fabric): 8 GPUs per node run, and so does -g 1.
"$AIDCSIM" bench-collective --gpu MI300X -g 8 -b 1M -e 1M >out.txt 2>err.txt ||
  fail "8 x MI300X (Infinity Fabric) does not run: $(cat err.txt)"
"$AIDCSIM" bench-collective --gpu MI300X -N 8 -g 1 -b 1M -e 1M >out.txt 2>err.txt ||
  fail "one MI300X per node does not run: $(cat err.txt)"
refused "nvls needs GPUs with NVLink SHARP" --gpu A100 --algo nvls
refused "--nodes: '0' is not a positive integer" -N 0

# Sizes and steps.
for f in 0 1 -2 inf 1e300 2.5 "" 0x2; do refused "^aidcsim bench-collective: -f: " -f "$f"; done
for b in 0 -8 nan 1e30 16E "8 W"; do refused "^aidcsim bench-collective: -b: " -b "$b"; done
refused "maxBytes 8 is below minBytes 16" -b 16 -e 8
# -b/-e/-i as nccl-tests' parsesize reads them (src/common.cu, NVIDIA/nccl-tests a0b82b2): K, M, G
# binary, only the letter after the number read (-e 8GB read 8 x 10^9 B, so the sweep stopped at
# 4 GiB), a fraction of a byte dropped ((size_t) there); T, B, a dangling exponent refused.
bytes_of() { # OPTION-VALUE -> "minBytes maxBytes" of the header, both given VALUE
  "$AIDCSIM" bench-collective -b "$1" -e "$1" 2>err.txt | sed -n 's/.*minBytes \([0-9]*\) maxBytes \([0-9]*\) .*/\1 \2/p'
}
for pair in "8GB:8589934592" "8GiB:8589934592" "8 G:8589934592" "8g:8589934592" "128K:131072" "64 MB:67108864" \
  "1.5M:1572864" "100.7:100" "0x400:1024" "1e3K:1024000" " 8:8"; do
  got=$(bytes_of "${pair%%:*}")
  [ "$got" = "${pair##*:} ${pair##*:}" ] || fail "-b/-e '${pair%%:*}': read '$got', expected ${pair##*:} B both"
done
"$AIDCSIM" bench-collective -b 1G -e 8GB >out.txt 2>err.txt || fail "-e 8GB refused: $(head -1 err.txt)"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +float' out.txt)" -eq 4 ] || fail "-b 1G -e 8GB: not 4 sizes (1, 2, 4, 8 GiB)"
grep -qE '^ +8589934592 +2147483648 +float' out.txt || fail "-b 1G -e 8GB: no 8 GiB row"
# the header names the NCCL release the tuner follows (nccl::kModelVersion), not an older one
grep -qF "NCCL's tuner (NCCL 2.28.3-1 cost model)" out.txt || fail "header: $(grep -m1 'tuner' out.txt)"
for b in 1T "512 B" 8B 1eK 0.5 inf; do refused "^aidcsim bench-collective: -b: '$b' is" -b "$b"; done
# 2^64 - 1 reads as 2^64 (a double, as nccl-tests' %lf): the message gave "to 2^64 - 1 B" as the
# range it had just refused (1e9e09c); the range is now the largest size a double holds below 2^64.
refused "-e: '18446744073709551615' is .* B: expected a size from 1 B to below 2\\^64 B \\(at most 18446744073709549568 B" \
  -b 1 -e 18446744073709551615
# A size NCCL's tuner predicts at an hour or more for every algorithm (its minTime cap): it finds no
# algorithm; 1e9e09c said "auto with protocol auto is not available ... (NCCL tuning.cc)", no reason.
refused "all_reduce of 1e\\+15 B on 8 GPUs: every algorithm and protocol allowed is predicted at an hour or more" \
  -b 1e15 -e 1e15
refused "-i: more than 10,000 sizes" -b 1 -e 8G -i 1
refused "^aidcsim bench-collective: -i: " -i 0 -e 1M

# The cluster: counts, overflow, the schema's ranges.
refused "-N: 8000000000 GPUs: expected an integer from 1 to 10000000 \\(the range of cluster.gpus\\)" -N 1000000000
refused "-N: .*GPUs: expected an integer from 1 to 10000000" -N 2000000 -g 8
refused "-g/-t: 65 x 1 GPUs per node: expected an integer from 1 to 64" -g 65
refused "-g/-t: 16 x 8 GPUs per node" -g 16 -t 8
refused "--ngpus: '0' is not a positive integer" -g 0
refused "--nthreads: '0' is not a positive integer" -t 0
refused "--gpus: 100000 GPUs asked, the cluster has 8" --gpus 100000
refused "--gpus: 17 GPUs asked, the cluster has 16" --gpus 17 -N 2
refused "--nvlink-domain: 1152 GPUs: expected an integer from 1 to 576" --nvlink-domain 1152
refused "--radix: 1000000 ports: expected an integer from 4 to 1024" --radix 1000000
refused "--radix: 2048 ports" --radix 2048
refused "--radix: 3: a switch needs at least 4 ports" --radix 3
refused "--planes: 1000: from 1 to 16" --planes 1000
refused "--nics-per-node: 1000" --nics-per-node 1000
refused "--nic-rate: '1 bps': expected a data rate from .* \\(the range of fabric.nic_rate\\)" --nic-rate "1 bps"
refused "--nic-rate: '1000 Tbps': expected" --nic-rate "1000 Tbps"
# The range in the unit written (was in the schema default's, Gbps, for a rate written in GB/s).
refused "--nic-rate: '2000 GB/s': expected a data rate from 0.001 GB/s to 1000 GB/s \\(the range" --nic-rate "2000 GB/s"
refused "--nic-rate: 'nan' is not a data rate" --nic-rate nan
refused "--nic-rate: '400 GB' is not a data rate" --nic-rate "400 GB"
refused "--link-rate: '100 Tbps': expected" --link-rate "100 Tbps"
refused "--oversubscription: '0:1' is not a ratio" --oversubscription 0:1
refused "--oversubscription: '100:1': expected" --oversubscription 100:1
refused "--spine-oversubscription: '65': expected" --spine-oversubscription 65
refused "--topology: 'bogus'" --topology bogus
refused "--wiring: 'bogus'" --wiring bogus

# The cluster is the scenario's or the options': with --scenario, a cluster option was ignored
# (-N 4 ran the file's 8,064 GPUs); --gpus N still takes the first N.
for opt in "-N 4" "-g 4" "-t 2" "--gpu H100" "--nvlink-domain 8" "--nics-per-node 4" "--nic-rate 200Gbps" \
  "--topology leaf_spine" "--oversubscription 2:1" "--radix 128" "--planes 2" "--sharp"; do
  # shellcheck disable=SC2086
  refused "^aidcsim bench-collective: --scenario excludes --" --scenario "$BASE" $opt -b 1M -e 1M
done

# The collective.
refused "--algo: unknown collective algorithm 'bogus'" --algo bogus
refused "--proto: unknown NCCL protocol 'bogus'" --proto bogus
refused "--collective: unknown collective 'bogus'" --collective bogus
refused "--max-channels: from 1 to 64" --max-channels 100000
refused "--nvls-channels: from 1 to 64" --nvls-channels -1
refused "--max-ctas: from 1 to 64" --max-ctas 65
refused "--min-channels: from 1 to 64" --min-channels 65
refused "--min-ctas: from 1 to 64" --min-ctas -1
# NCCL refuses minCTAs > maxCTAs in ncclConfig_t (from the environment it lowers the minimum
# silently): refused, naming both options and the range.
refused "^aidcsim bench-collective: --min-ctas: 16 is above --max-ctas 8: from 1 to 8 \(0: NCCL's; NCCL refuses" \
  --min-ctas 16 --max-ctas 8
# A minimum channel count above the maximum is NCCL's "max, then min" duplication: it runs.
"$AIDCSIM" bench-collective --max-channels 4 --min-channels 8 --algo ring -b 1G -e 1G >out.txt 2>err.txt ||
  fail "--max-channels 4 --min-channels 8 does not run: $(cat err.txt)"
grep -q "ring / Simple /  8 ch" out.txt || fail "--max-channels 4 --min-channels 8: not 8 channels: $(grep ' ch ' out.txt)"
refused "-r: 100000: a rank from 0 to 7" -r 100000
refused "-d: unknown data type 'bogus'" -d bogus
refused "-o: unknown reduction operation 'bogus'" -o bogus

# The NVLink domain is at most the GPU's (catalogue max_nvlink_domain), as cluster.nvlink_domain in a
# scenario: --gpu H100 --nvlink-domain 72 ran as one 72-GPU NVLink domain no HGX H100 builds. The
# message names the option, the value, the GPU, its maximum and the catalogue's source.
refused "^aidcsim bench-collective: --nvlink-domain: 72 GPUs: expected at most 8, the largest NVLink domain of H100 \(max_nvlink_domain: .*HGX H100" \
  --gpu H100 --nvlink-domain 72
refused "--nvlink-domain: 144 GPUs: expected at most 72, the largest NVLink domain of GB200" \
  --gpu GB200 -g 4 -N 36 --nvlink-domain 144
refused "--nvlink-domain: 32 GPUs: expected at most 16, the largest NVLink domain of A100" --gpu A100 -N 4 --nvlink-domain 32
# Without --nvlink-domain the domain is one node: -g/-t asked for it.
refused "^aidcsim bench-collective: -g/-t: 16 GPUs per node \(one NVLink domain\): expected at most 8, .* of H100" -g 16
# Each GPU's largest domain still runs: GB200 NVL72 (18 trays of 4) and two HGX A100 boards.
"$AIDCSIM" bench-collective --gpu GB200 -g 4 -N 18 --nvlink-domain 72 -b 1M -e 1M >out.txt 2>err.txt ||
  fail "a GB200 NVL72 domain refused: $(head -1 err.txt)"
"$AIDCSIM" bench-collective --gpu A100 -N 2 --nvlink-domain 16 -b 1M -e 1M >out.txt 2>err.txt ||
  fail "a 16-GPU A100 NVLink domain refused: $(head -1 err.txt)"

# The bounds are not off by one: the largest values still run. The schema's largest NVLink domain
# (576) is larger than any catalogue GPU's, so it runs on a --gpu-file GPU whose max_nvlink_domain is
# the catalogue field's largest (576, an NVL576-like rack); on the default H100 it is refused above.
cat >nvl576.yaml <<'YAML'
gpus:
  - name: GB200-NVL576
    base: GB200
    max_nvlink_domain: 576
YAML
"$AIDCSIM" bench-collective --gpu-file nvl576.yaml --gpu GB200-NVL576 --radix 1024 --nvlink-domain 576 -g 64 -N 9 \
  -e 1M >out.txt 2>err.txt ||
  fail "the schema's largest radix / NVLink domain / GPUs per node refused: $(head -1 err.txt)"
"$AIDCSIM" bench-collective --gpus 8 -e 1M >out.txt 2>err.txt || fail "--gpus equal to the cluster refused"
"$AIDCSIM" bench-collective --scenario "$BASE" --gpus 144 -b 1M -e 1M >out.txt 2>err.txt ||
  fail "--scenario with --gpus refused: $(head -1 err.txt)"
grep -q "nGpus 144 " out.txt || fail "--scenario --gpus 144: not 144 GPUs: $(grep nGpus out.txt)"
echo "ok: bench-collective options"
