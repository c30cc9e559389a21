# `aidcsim topology` on a rollout builds the fabric of cluster.gpus (8,064 GPUs here) while `run`
# reports the last phase's (31,104): the topology output says so, naming the phases; a scenario
# without phases gets no such note.
source "$(dirname "$0")/lib/common.bash"
"$AIDCSIM" topology "$SRC/scenarios/stargate-uk-rollout.yaml" >out.txt 2>err.txt || fail "topology exited $?"
grep -qE "^  GPUs +8064$" out.txt || fail "the rollout's topology is not cluster.gpus's 8,064 GPUs"
want="  note: the fabric of cluster.gpus (8064 GPUs); the scenario's rollout.phases grow it (8K 8064, 16K 16128, 31K 31104 GPUs), and \`aidcsim run\` reports the last phase's fabric and bill of materials"
grep -qxF "$want" out.txt || fail "no note on the rollout's phases"
"$AIDCSIM" topology "$BASE" >out.txt 2>err.txt || fail "topology exited $?"
grep -q "rollout.phases" out.txt && fail "a note on rollout phases for a scenario without any"
echo "ok: $(grep -F 'rollout.phases' "$WORK/out.txt" || echo 'no note without phases')"
