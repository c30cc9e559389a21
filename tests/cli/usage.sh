# Command-line basics: version, help, usage errors (64), and an unwritable --output that fails
# (exit 1) before simulating and creates nothing.
source "$(dirname "$0")/lib/common.bash"
"$AIDCSIM" version >out.txt 2>err.txt || fail "version exited $?"
grep -q '^aidcsim [0-9]' out.txt || fail "version does not print 'aidcsim X.Y.Z'"
"$AIDCSIM" --version >out.txt 2>err.txt || fail "--version exited $?"
"$AIDCSIM" --help >out.txt 2>err.txt || fail "--help exited $?"
for sub in run validate schema topology report sweep version; do
  grep -q "$sub" out.txt || fail "--help does not list '$sub'"
done
"$AIDCSIM" >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 64 ] || fail "no subcommand: exit $rc, expected 64"
"$AIDCSIM" frobnicate >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 64 ] || fail "unknown subcommand: exit $rc, expected 64"
grep -q "^aidcsim: unknown subcommand 'frobnicate'" err.txt || fail "unknown subcommand not named: $(cat err.txt)"
grep -q "validate" err.txt || fail "unknown subcommand: the valid ones are not listed: $(cat err.txt)"
"$AIDCSIM" rnu scenario.yaml >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 64 ] || fail "misspelt subcommand: exit $rc, expected 64"
grep -q "did you mean 'run'" err.txt || fail "misspelt subcommand 'rnu': no 'did you mean': $(cat err.txt)"
"$AIDCSIM" run --seed -3 >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 64 ] || fail "negative --seed: exit $rc, expected 64"
# CLI11's own parse errors name the subcommand like the subcommands' errors ("aidcsim run: ...").
for args in "bench-collective --ngpus 0" "run --seed -3" "run --no-such-option" "schema --zzz" "topology --x" \
            "validate --x" "version --x"; do
  # shellcheck disable=SC2086  # $args is split into words on purpose
  "$AIDCSIM" $args >out.txt 2>err.txt; rc=$?
  [ "$rc" -eq 64 ] || fail "$args: exit $rc, expected 64"
  grep -q "^aidcsim ${args%% *}: " err.txt || fail "$args: the usage error lacks 'aidcsim ${args%% *}: ': $(cat err.txt)"
done
"$AIDCSIM" >out.txt 2>err.txt
grep -q "^aidcsim: " err.txt || fail "no subcommand: the usage error lacks 'aidcsim: ': $(cat err.txt)"
"$AIDCSIM" validate does-not-exist.yaml >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 1 ] || fail "validate of a missing file: exit $rc, expected 1 (an error, not an invalid scenario)"
"$AIDCSIM" run --quiet --output no/such/dir/x.h5 >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 1 ] || fail "run --output into a missing directory: exit $rc, expected 1"
grep -q "no/such/dir" err.txt || fail "the message does not name the bad output path"
[ -s out.txt ] && fail "the run went ahead although its output could not be written"
mkdir x.h5
"$AIDCSIM" run --quiet --output x.h5 >out.txt 2>err.txt; rc=$?
[ "$rc" -eq 1 ] || fail "run --output onto a directory: exit $rc, expected 1"
[ "$(ls -A | grep -c tmp-)" -eq 0 ] || fail "temporary file left behind"
"$AIDCSIM" schema >out.txt 2>err.txt || fail "schema exited $?"
grep -q "fabric.link_rate" out.txt || fail "schema does not list fabric.link_rate"
echo ok
