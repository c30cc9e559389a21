# A bad value given with `aidcsim compare FILE --set KEY=VALUE` is reported as set on the command
# line with --set (the Python API's wording, "(set from Python)", is for s[key] = value), and
# --set-all's as --set-all; exit 1, before any simulation.
source "$(dirname "$0")/lib/common.bash"

"$AIDCSIM" compare "$BASE" --set cluster.gpus=abc --seeds 1 >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 1 ] || fail "compare --set cluster.gpus=abc: exit code $rc, expected 1"
want="aidcsim compare: error: design 'stargate-uk-8k [gpus=abc]' (before any run): $BASE (set on the command line with --set): cluster.gpus: got 'abc', expected a plain integer such as 64 (not a number)"
[ "$(cat err.txt)" = "$want" ] || fail "message '$(cat err.txt)', expected '$want'"

"$AIDCSIM" compare "$BASE" --set-all cluster.gpus=abc --seeds 1 >out.txt 2>err.txt
rc=$?
[ "$rc" -eq 1 ] || fail "compare --set-all cluster.gpus=abc: exit code $rc, expected 1"
grep -qF "$BASE (set on the command line with --set-all): cluster.gpus: got 'abc'" err.txt ||
  fail "--set-all: message '$(cat err.txt)'"
grep -q "set from Python" err.txt && fail "--set-all: says 'set from Python'"
echo "ok: $(head -1 err.txt)"
