# `make bench` runs every benchmark program: one executable per bench/*.cpp, named after the file,
# in the build's bin/ (bench/CMakeLists.txt). Checked with a dry run (make -n) against this build:
# each program is run by the recipe and is built next to aidcsim. The benches themselves are not run
# here (they print figures, they do not assert).
source "$(dirname "$0")/lib/common.bash"
BIN=$(dirname "$AIDCSIM")
BUILD_DIR=$(dirname "$BIN")
make -n -s -C "$SRC" bench BUILD="$BUILD_DIR" >out.txt 2>err.txt || fail "make -n bench failed"
n=0
for src in "$SRC"/bench/*.cpp; do
  b=$(basename "$src" .cpp)
  grep -qE "(^|[ /])bin/$b([ ;]|\$)" out.txt || fail "make bench does not run bin/$b"
  # Built already, or at least a target of the build writing bin/NAME (a partial build is fine).
  [ -x "$BIN/$b" ] || grep -q "^build bin/$b:" "$BUILD_DIR/build.ninja" 2>/dev/null ||
    fail "the build has no program bin/$b"
  n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "expected at least 6 bench programs, found $n"
# `make bench` runs every bench/*.sh with the aidcsim binary as its only argument: a script that
# needs more (a tool such as tools/side_by_side.sh) belongs under bench/tools/.
for s in "$SRC"/bench/*.sh; do
  [ -e "$s" ] || continue
  grep -qE 'usage: .*(OLD|ROUNDS|SCENARIO)' "$s" && fail "$(basename "$s") takes more than the aidcsim binary: move it to bench/tools/"
done
grep -q "aidcsim-bench" out.txt && fail "make bench still runs the nonexistent aidcsim-bench"
echo "ok: make bench runs $n programs"
