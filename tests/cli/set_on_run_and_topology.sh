# `aidcsim run`, `topology` and `validate` take `--set KEY=VALUE` (repeatable) as `compare` does:
# the override is applied by the loader, its errors name the key, the value and what was expected,
# and say they come from --set, not from a line of the file; `run` records the overrides in its
# notes (JSON, HDF5) and in the HDF5 file's created_by. Before, run and topology refused --set.
source "$(dirname "$0")/lib/common.bash"

# A bad value: exit 2 (invalid scenario), reported as set on the command line, no output written.
"$AIDCSIM" run "$BASE" --set cluster.gpus=abc --output x.h5 --json x.json --quiet >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || fail "run --set cluster.gpus=abc: exit code $rc, expected 2"
want="$BASE (set on the command line with --set): cluster.gpus: got 'abc', expected a plain integer such as 64 (not a number)"
[ "$(cat err.txt)" = "$want" ] || fail "message '$(cat err.txt)', expected '$want'"
[ -e x.h5 ] || [ -e x.json ] && fail "a failed run wrote an output"

# A mapping the file lacks, created by --set, is the command line's too (not the file's first line).
"$AIDCSIM" topology --set fabric.nope.x=1 "$BASE" >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || fail "topology --set fabric.nope.x=1: exit code $rc, expected 2"
grep -qF "$BASE (set on the command line with --set): fabric.nope: got 'nope', expected one of the keys of 'fabric'" err.txt ||
  fail "topology --set fabric.nope.x=1: message '$(cat err.txt)'"

# A value the file has elsewhere is replaced (the option before the file, the file still positional);
# the last --set of a key wins.
"$AIDCSIM" topology "$BASE" >plain.txt 2>&1 || fail "topology: exit code $?"
"$AIDCSIM" topology --set 'fabric.link_rate=100 Gbps' --set 'fabric.link_rate=800 Gbps' "$BASE" >out.txt 2>err.txt ||
  fail "topology --set fabric.link_rate: exit code $?"
grep -qE 'oversubscription leaf \(as built\) +0\.50:1' out.txt ||
  fail "topology --set 'fabric.link_rate=800 Gbps' did not build the 800G fabric"
grep -qE 'oversubscription leaf \(as built\) +1\.00:1' plain.txt || fail "the bundled fabric is not 1:1 (test out of date?)"

# A list item past the end: the index expected.
"$AIDCSIM" validate "$BASE" --set 'rollout.phases[1].gpus=64' >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 2 ] || fail "validate --set rollout.phases[1].gpus=64: exit code $rc, expected 2"
grep -qF "(set on the command line with --set): rollout.phases[1]: got '64', expected index 0 to append an item" err.txt ||
  fail "validate --set rollout.phases[1]: message '$(cat err.txt)'"

# A well-known synonym of a choice gets the choice it stands for (models/common/suggest.hpp).
"$AIDCSIM" validate "$BASE" --set fabric.topology=fat_tree >out.txt 2>err.txt
grep -qF "fabric.topology: got 'fat_tree', expected one of leaf_spine, clos3; did you mean 'clos3'? (a 3-tier fat tree" err.txt ||
  fail "validate --set fabric.topology=fat_tree: message '$(cat err.txt)'"

# Usage errors (exit 64): no '=', an empty key.
for bad in cluster.gpus ' =8'; do
  "$AIDCSIM" run "$BASE" --set "$bad" >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 64 ] || fail "run --set '$bad': exit code $rc, expected 64"
done

# A valid override runs and is recorded: seed in the JSON, the --set in the notes and created_by.
"$AIDCSIM" run "$BASE" --set seed=7 --set 'fabric.link_rate=800 Gbps' --json r.json --output r.h5 --quiet \
  >out.txt 2>err.txt || fail "run --set seed=7: exit code $?"
grep -q '"seed": 7' r.json || fail "r.json: seed is not 7"
grep -qF -- "--set seed=7 --set 'fabric.link_rate=800 Gbps'" r.json || fail "r.json: the overrides are not in its notes"
grep -qF -- "--set seed=7" out.txt || fail "the summary's notes do not list the overrides"
grep -qF -- "run $BASE --set seed=7 --set 'fabric.link_rate=800 Gbps'" r.h5 || fail "r.h5: created_by lacks the overrides"
echo "ok: $want"
