# `aidcsim run --output out.json` wrote an HDF5 file named out.json (and `--json out.h5` a JSON
# file named out.h5): a swapped option is a usage error (exit 64) naming the other option, before
# the run, and no file is written.
source "$(dirname "$0")/lib/common.bash"
swapped() {
  local opt=$1 path=$2 other=$3 name=${4:-$1}
  "$AIDCSIM" run "$BASE" --quiet "$opt" "$path" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq 64 ] || fail "run $opt $path: exit code $rc, expected 64"
  [ -e "$path" ] && fail "run $opt $path: the file was written"
  grep -qF -- "$name: '$path'" err.txt || fail "run $opt $path: message does not name the option and path"
  grep -qF -- "use $other $path" err.txt || fail "run $opt $path: message does not point at $other"
  [ -s out.txt ] && fail "run $opt $path: printed a summary"
  return 0
}
swapped --output out.json --json
swapped -o OUT.JSON --json --output
swapped --json out.h5 --output
swapped --json out.hdf5 --output
swapped --json out.nc --output
# topology: --dot wrote DOT into a file named .graphml (and --graphml GraphML into a .dot file).
for args in "--dot fabric.graphml|--dot|--graphml" "--graphml fabric.dot|--graphml|--dot" "--graphml F.GV|--graphml|--dot"; do
  IFS='|' read -r opt_path name other <<<"$args"
  path=${opt_path#* }
  "$AIDCSIM" topology "$BASE" $opt_path >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 64 ] || fail "topology $opt_path: exit code $rc, expected 64"
  [ -e "$path" ] && fail "topology $opt_path: the file was written"
  grep -qF -- "$name: '$path'" err.txt && grep -qF -- "use $other $path" err.txt ||
    fail "topology $opt_path: message does not name the option, the path and $other"
done
# `run --json scenario.yaml` (the scenario written after an option that takes a path) ran the
# built-in scenario and wrote its JSON over the user's scenario file: refused, the file unchanged.
cp "$BASE" mine.yaml
for opt in --json --output -o; do
  before=$(md5sum mine.yaml)
  "$AIDCSIM" run --quiet "$opt" mine.yaml >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 64 ] || fail "run $opt mine.yaml: exit code $rc, expected 64"
  [ "$(md5sum mine.yaml)" = "$before" ] || fail "run $opt mine.yaml: the scenario file was overwritten"
  grep -qF -- "'mine.yaml': a scenario file" err.txt || fail "run $opt mine.yaml: message does not say why"
done
# The scenario itself under another name (a symbolic link) is refused the same way.
ln -sf mine.yaml mine.scn
"$AIDCSIM" run mine.yaml --quiet --json mine.scn >out.txt 2>err.txt
[ $? -eq 64 ] || fail "run mine.yaml --json mine.scn (the same file): expected exit 64"
cmp -s mine.yaml "$BASE" || fail "run mine.yaml --json mine.scn: the scenario file was overwritten"
echo "ok: $(head -1 err.txt)"
