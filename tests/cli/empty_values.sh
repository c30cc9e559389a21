# An option or argument given as an empty string is a usage error (exit 64) naming it, before any
# work, not "not given" (case input/21's kind beyond run -o ''). 0.1.0 ran the built-in scenario for
# `run ''` and `topology ''`, exited 0 without writing for `topology --dot ''` / `--graphml ''`,
# and went on without the file for `bench-collective --scenario ''` / `--gpu-file ''` (and with the
# default for `--link-rate ''`, `-i ''`). The Python subcommands: see tests/python/test_hardening.py.
source "$(dirname "$0")/lib/common.bash"
check() {  # check NAME ARGS...: exit 64, NAME in the message, nothing on stdout
  local name=$1; shift
  "$AIDCSIM" "$@" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq 64 ] || fail "aidcsim $*: exit code $rc, expected 64"
  grep -qF -- "aidcsim $1: $name: the value is empty" err.txt || fail "aidcsim $*: no '$name: the value is empty'"
  [ -s out.txt ] && fail "aidcsim $*: printed on stdout (the work went ahead)"
  return 0
}
check scenario run '' --quiet
check scenario validate ''
check scenario validate "$BASE" ''
check scenario topology ''
check --dot topology "$BASE" --dot ''
check --graphml topology "$BASE" --graphml ''
check --scenario bench-collective --scenario '' -b 8 -e 8
check --gpu-file bench-collective --gpu-file '' -b 8 -e 8
check --link-rate bench-collective --link-rate '' -b 8 -e 8
check -i bench-collective -i '' -b 8 -e 64
ls -A | grep -v -e '^out.txt$' -e '^err.txt$' && fail "a file was written"
# A flag and a non-empty value still work.
"$AIDCSIM" validate "$BASE" >out.txt 2>err.txt || fail "validate of the bundled scenario failed"
echo "ok: empty values refused"
