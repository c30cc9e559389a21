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
# cluster.gpu_speed_distribution: keys its kind does not read, and a normal mean outside [min, max]
# (every draw clipped: mean 1.5 ran at 1.0 everywhere, the step time of no distribution).
dist() {  # dist NAME SPEC KEY EXPECTED
  make_scenario "$1" "s/^  nvlink_domain: 72 .*/  nvlink_domain: 72\n  gpu_speed_distribution: $2/"
  validate_bad "$1.yaml"
  grep -qE "$1\.yaml:[0-9]+:[0-9]+: cluster.gpu_speed_distribution.$3: got .*, expected $4" err.txt ||
    fail "$1: $(head -1 err.txt)"
  run_bad "$1.yaml"
  echo "ok $1: $(head -1 err.txt | sed "s|$WORK/||")"
}
dist clipped_mean "{kind: normal, mean: 1.5, sd: 0.01}" mean "a mean from cluster.gpu_speed_distribution.min to .max \(0.5 to 1\)"
dist below_min "{kind: normal, mean: 0.9, sd: 0.01, min: 0.95}" mean "a mean from .* \(0.95 to 1\)"
dist none_max "{kind: none, max: 0.8}" max "no max with cluster.gpu_speed_distribution.kind none"
dist no_kind "{per: node}" per "no per with cluster.gpu_speed_distribution.kind none"
dist uniform_sd "{kind: uniform, min: 0.9, sd: 0.1}" sd "no sd with cluster.gpu_speed_distribution.kind uniform"
make_scenario dist_ok "s/^  nvlink_domain: 72 .*/  nvlink_domain: 72\n  gpu_speed_distribution: {kind: normal, mean: 0.97, sd: 0.02, per: node}/"
"$AIDCSIM" validate dist_ok.yaml >out.txt 2>err.txt || fail "dist_ok.yaml: $(head -1 err.txt)"
# reliability: async_stall with sync checkpoints, the link repair time / degrade penalty with
# link_failure_mode stop (the default).
rel() {  # rel NAME LINES KEY EXPECTED
  make_scenario "$1" "\$a\\reliability:\n$2"
  validate_bad "$1.yaml"
  grep -qE "$1\.yaml:[0-9]+:[0-9]+: reliability.$3: got .*, expected no $3 $4" err.txt || fail "$1: $(head -1 err.txt)"
  run_bad "$1.yaml"
  echo "ok $1: $(head -1 err.txt | sed "s|$WORK/||")"
}
rel sync_stall '  checkpoint_mode: sync\n  async_stall: "5 s"' async_stall "with reliability.checkpoint_mode: sync"
rel stop_repair '  link_repair_time: "4 h"' link_repair_time "unless reliability.link_failure_mode is degrade"
rel stop_penalty '  link_failure_mode: stop\n  link_degrade_penalty: 0.2' link_degrade_penalty \
  "unless reliability.link_failure_mode is degrade"
make_scenario rel_ok "\$a\\reliability:\n  link_failure_mode: degrade\n  link_repair_time: \"4 h\"\n  async_stall: \"5 s\""
"$AIDCSIM" validate rel_ok.yaml >out.txt 2>err.txt || fail "rel_ok.yaml: $(head -1 err.txt)"
# Where the setting reads it, the key is accepted.
make_scenario fine 's/^    zero: zero1 .*/    zero: zero1\n    overlap_param_gather: true\n    param_gather_buckets: layer\n    microbatch_group_size: 9\n    interleaved_schedule: megatron/'
"$AIDCSIM" validate fine.yaml >out.txt 2>err.txt || fail "fine.yaml: $(head -1 err.txt)"
echo "ok: keys no setting reads are refused"
