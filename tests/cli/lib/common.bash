# Shared helpers of the CLI tests (tests/cli/*.sh; CMake runs each as `bash t.sh AIDCSIM SOURCE_DIR`).
# Bad scenarios are made on the fly by editing a copy of the bundled scenario with sed, and the
# expected line numbers are computed with grep -n, so the tests do not depend on the file's layout.
set -u
AIDCSIM=$(realpath "${1:?usage: t.sh PATH/TO/aidcsim SOURCE_DIR}")
SRC=$(realpath "${2:?usage: t.sh PATH/TO/aidcsim SOURCE_DIR}")
BASE="$SRC/scenarios/stargate-uk-8k.yaml"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

fail() {
  echo "FAIL: $*" >&2
  for f in out.txt err.txt; do [ -s "$f" ] && { echo "--- $f:" >&2; cat "$f" >&2; }; done
  exit 1
}

# make_scenario NAME SED-EXPRESSION: writes NAME.yaml, a copy of the bundled scenario edited by sed.
make_scenario() {
  cp "$BASE" "$1.yaml"
  sed -i -E -e "$2" "$1.yaml"
  cmp -s "$BASE" "$1.yaml" && fail "sed '$2' did not change the scenario (test out of date?)"
  return 0
}

# line_of REGEX FILE: number of the first line matching REGEX.
line_of() { grep -n -m1 -E "$1" "$2" | cut -d: -f1; }

# run_bad FILE: `aidcsim run FILE --output x.h5 --json x.json`, expecting exit code 2 (invalid
# scenario) and no output file, not even a temporary one. Leaves the messages in out.txt/err.txt.
run_bad() {
  "$AIDCSIM" run "$1" --output x.h5 --json x.json --quiet >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq 2 ] || fail "aidcsim run $1: exit code $rc, expected 2"
  [ -e x.h5 ] && fail "x.h5 was created by a failed run"
  [ -e x.json ] && fail "x.json was created by a failed run"
  ls -a | grep -q 'tmp-' && fail "a temporary file was left behind: $(ls -a | grep tmp-)"
  [ -s out.txt ] && fail "a failed run printed a summary on stdout"
  return 0
}

# mentions FILE LINE KEY: true when err.txt names FILE:LINE (followed by :column or text) and KEY.
mentions() {
  grep -qE "(^|[^0-9A-Za-z_])$(basename "$1" | sed 's/\./\\./g'):$2([^0-9]|\$)" err.txt && grep -qF "$3" err.txt
}

# validate_bad FILE: `aidcsim validate FILE` must exit 2 as well.
validate_bad() {
  "$AIDCSIM" validate "$1" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq 2 ] || fail "aidcsim validate $1: exit code $rc, expected 2"
  return 0
}
