# A workload key written where no setting reads it is an invalid scenario (exit 2, file:line:column,
# naming the setting it needs), from `validate` as from `run` (case step/01's kind: dp_algorithm with
# zero1; input/07: checkpoint_interval with young_daly). 0.1.0 accepted each of these and gave
# results bit-identical to the file without the key, with no note.
source "$(dirname "$0")/lib/common.bash"
check() {  # check NAME SED KEY NEEDS
  make_scenario "$1" "$2"
  validate_bad "$1.yaml"
  local line
  line=$(line_of "^    $3:" "$1.yaml")
  mentions "$1.yaml" "$line" "workload.parallelism.$3: got" || fail "$1: no $1.yaml:$line naming $3: $(head -1 err.txt)"
  grep -qF "expected no $3 unless $4" err.txt || fail "$1: the message does not say what $3 needs: $(head -1 err.txt)"
  run_bad "$1.yaml"
  echo "ok $1: $(head -1 err.txt | sed "s|$WORK/||")"
}
check fsdp_style 's/^    zero: zero1 .*/    zero: none\n    fsdp_style: deepspeed/' fsdp_style "workload.parallelism.zero is fsdp"
check reshard 's/^    zero: zero1 .*/    zero: zero1\n    reshard_after_forward: false/' reshard_after_forward \
  "workload.parallelism.zero is fsdp with fsdp_style pytorch"
check reshard_ds 's/^    zero: zero1 .*/    zero: fsdp\n    fsdp_style: deepspeed\n    reshard_after_forward: false/' \
  reshard_after_forward "workload.parallelism.zero is fsdp with fsdp_style pytorch"
check flexible 's/^    virtual_stages: 7 .*/    virtual_stages: 1\n    interleaved_schedule: flexible/' interleaved_schedule \
  "workload.parallelism.virtual_stages > 1"
check group 's/^    virtual_stages: 7 .*/    virtual_stages: 1\n    microbatch_group_size: 9/' microbatch_group_size \
  "workload.parallelism.virtual_stages > 1"
check buckets 's/^    zero: zero1 .*/    zero: zero1\n    param_gather_buckets: layer/' param_gather_buckets \
  "workload.parallelism.overlap_param_gather is true"
# Where the setting reads it, the key is accepted.
make_scenario fine 's/^    zero: zero1 .*/    zero: zero1\n    overlap_param_gather: true\n    param_gather_buckets: layer\n    microbatch_group_size: 9\n    interleaved_schedule: megatron/'
"$AIDCSIM" validate fine.yaml >out.txt 2>err.txt || fail "fine.yaml: $(head -1 err.txt)"
echo "ok: keys no setting reads are refused"
