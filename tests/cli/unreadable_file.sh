# A scenario file that cannot be read is an error (exit 1), not an invalid scenario (exit 2): see
# the exit codes of `aidcsim --help` and docs/cli.md. The message names the file.
source "$(dirname "$0")/lib/common.bash"
for cmd in run topology validate; do
  "$AIDCSIM" $cmd "$WORK/does-not-exist.yaml" >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 1 ] || fail "aidcsim $cmd of a missing file: exit code $rc, expected 1"
  grep -qF "does-not-exist.yaml" err.txt || fail "aidcsim $cmd: message does not name the file"
  mkdir -p adir.yaml
  "$AIDCSIM" $cmd adir.yaml >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 1 ] || fail "aidcsim $cmd of a directory: exit code $rc, expected 1"
done
echo "ok: $(head -1 err.txt)"
