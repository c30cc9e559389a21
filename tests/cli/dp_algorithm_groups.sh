# workload.parallelism.dp_algorithm that some DP group cannot run is an invalid scenario (exit 2 from
# `validate` and `run`, at the key's file:line, naming the value, what it needs and which DP group:
# stage, TP rank, its GPUs and NVLink domains). 0.1.0 validated these and failed in `run` with exit 1
# and no key ("sharp reduces in the fabric switches: it needs more than one NVLink domain"). The
# DP group is the GPUs of one stage and TP rank: with rank order tp,cp,dp,pp (the default) the 8
# replicas of a stage sit in 64 consecutive GPUs, inside one or two NVL72 racks, not one per rack.
source "$(dirname "$0")/lib/common.bash"
# 576 GPUs: tp 8 x pp 9 x dp 8, zero: none (all-reduce), dp_algorithm ALG; EXTRA: more sed
small() {  # small NAME ALG [EXTRA-SED]
  make_scenario "$1" "s/^  gpus: 8064 .*/  gpus: 576/; s/^    dp: 112 .*/    dp: 8/; s/^  global_batch: 2016 .*/  global_batch: 144/; s/^    zero: zero1 .*/    zero: none\n    dp_algorithm: $2/${3:+; $3}"
}
bad() {  # bad NAME ALG EXTRA-SED NEEDS GROUP
  small "$1" "$2" "$3"
  validate_bad "$1.yaml"
  local line
  line=$(line_of "^    dp_algorithm:" "$1.yaml")
  mentions "$1.yaml" "$line" "workload.parallelism.dp_algorithm: got '$2'" ||
    fail "$1: no $1.yaml:$line naming dp_algorithm '$2': $(head -1 err.txt)"
  grep -qF "$4" err.txt || fail "$1: the message does not say what $2 needs ($4): $(head -1 err.txt)"
  grep -qF "$5" err.txt || fail "$1: the message does not name the DP group ($5): $(head -1 err.txt)"
  run_bad "$1.yaml"
  mentions "$1.yaml" "$line" "workload.parallelism.dp_algorithm: got '$2'" || fail "$1 (run): $(head -1 err.txt)"
  echo "ok $1: $(head -1 err.txt | sed "s|$WORK/||")"
}
sharp_on='s/^  wiring: (.*)/  wiring: \1\n  sharp: true/'
pp_inner='s/^    tp: 8 .*/    tp: 8\n    order: tp,cp,pp,dp/'
bad sharp_one_domain sharp "$sharp_on" "needs more than one NVLink domain" \
  "DP group of pipeline stage 0, TP rank 0 (8 GPUs, 0 to 56 in rank order tp,cp,dp,pp; 1 NVLink domain of 72 GPUs"
bad nvls_one_per_domain nvls "$sharp_on" "more than 2 GPUs in every NVLink domain" \
  "stage 1, TP rank 0 (8 GPUs, 64 to 120 in rank order tp,cp,dp,pp; 2 NVLink domains of 72 GPUs holding 1 to 7"
# What the scenario alone decides is refused by the loader: no group to name.
bad sharp_no_fabric sharp "$pp_inner" "needs fabric.sharp: true" "sharp reduces in the switches"
make_scenario hd_six "s/^  gpus: 8064 .*/  gpus: 432/; s/^    dp: 112 .*/    dp: 6/; s/^  global_batch: 2016 .*/  global_batch: 108/; s/^    zero: zero1 .*/    zero: none\n    dp_algorithm: halving_doubling/"
validate_bad hd_six.yaml
grep -qF "dp_algorithm: got 'halving_doubling', expected" err.txt && grep -qF "dp x cp = 6 GPUs can run: halving_doubling (Rabenseifner) needs a power-of-two group" err.txt ||
  fail "hd_six: $(head -1 err.txt)"
run_bad hd_six.yaml
echo "ok hd_six: $(head -1 err.txt | sed "s|$WORK/||")"
# The same algorithm where every group can run it: valid, and it runs (8 domains, one GPU of the
# group in each: SHARP through the NICs).
small sharp_per_rack sharp "$sharp_on; $pp_inner"
"$AIDCSIM" validate sharp_per_rack.yaml >out.txt 2>err.txt || fail "sharp_per_rack: validate exit $?"
"$AIDCSIM" run sharp_per_rack.yaml --json x.json --quiet >out.txt 2>err.txt || fail "sharp_per_rack: run exit $?"
echo "ok sharp_per_rack: valid and runs"
# fabric.sharp: true that no DP group uses: nvls with every DP group inside one NVLink domain (648
# GPUs, dp 9: each stage's 72 GPUs are one rack) reduces in the NVSwitches, never in the fabric's
# switches. d097d0b validated and ran it, bit-identical to the run without the key (the loader's
# check, keys_in_use.cpp, sees only the algorithm's name); now refused at the key's line, as the
# loader's "no KEY unless ..." errors, by validate and run.
one_rack="s/^  gpus: 8064 .*/  gpus: 648/; s/^    dp: 112 .*/    dp: 9/; s/^  global_batch: 2016 .*/  global_batch: 162/; s/^    zero: zero1 .*/    zero: none\n    dp_algorithm: nvls/"
make_scenario nvls_in_domain "$one_rack; $sharp_on"
sharp_line=$(line_of "^  sharp: true" nvls_in_domain.yaml)
rm -f x.json x.h5  # sharp_per_rack's run
for cmd in validate_bad run_bad; do
  $cmd nvls_in_domain.yaml
  mentions nvls_in_domain.yaml "$sharp_line" "fabric.sharp: got 'true', expected no fabric.sharp: true unless a DP group of dp_algorithm sharp or nvls spans NVLink domains" ||
    fail "nvls_in_domain ($cmd): no nvls_in_domain.yaml:$sharp_line naming fabric.sharp: $(head -1 err.txt)"
  grep -qF "every DP group of dp_algorithm 'nvls' lies inside one NVLink domain of 72 GPUs" err.txt &&
    grep -qF "the key would be ignored" err.txt || fail "nvls_in_domain ($cmd): the message does not say why: $(head -1 err.txt)"
done
echo "ok nvls_in_domain: $(head -1 err.txt | sed "s|$WORK/||")"
# The same without the key, and nvls with DP groups across two racks (1296 GPUs, dp 18): valid.
make_scenario nvls_in_domain_plain "$one_rack"
"$AIDCSIM" validate nvls_in_domain_plain.yaml >out.txt 2>err.txt || fail "nvls_in_domain_plain: validate exit $?: $(head -1 err.txt)"
make_scenario nvls_across "s/^  gpus: 8064 .*/  gpus: 1296/; s/^    dp: 112 .*/    dp: 18/; s/^  global_batch: 2016 .*/  global_batch: 324/; s/^    zero: zero1 .*/    zero: none\n    dp_algorithm: nvls/; $sharp_on"
"$AIDCSIM" validate nvls_across.yaml >out.txt 2>err.txt || fail "nvls_across: validate exit $?: $(head -1 err.txt)"
echo "ok nvls_across: valid"
