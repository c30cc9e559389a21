# No command writes an output over one of its inputs or over a scenario file (case input/21's kind,
# outputs naming what must not be written; ../shared/cases/input/21-empty-output-path.sh and
# c9bc280's `run --json scenario.yaml`). On 1e9e09c only `run` refused it: `topology s.yaml
# --graphml s.yaml`, `compare d.yaml --json d.yaml` (or --hdf5/--png), `sweep` with `-o` or
# `output:` naming the sweep file or its base, and `report x.h5 --html x.h5` replaced the file and
# exited 0. Now: a usage error (64) for an option, 2 for a sweep file's `output:`, the file unchanged;
# and no writer takes a .yaml/.yml name (aidcsim writes no YAML), whatever the command.
source "$(dirname "$0")/lib/common.bash"
cp "$BASE" d.yaml
cp "$BASE" d.scn
"$AIDCSIM" run d.yaml -q -o x.h5 >/dev/null 2>&1 || fail "run d.yaml -o x.h5 failed"
md5sum d.yaml d.scn x.h5 >sums

# refused RC WHAT -- COMMAND...: COMMAND exits RC, says WHAT on stderr and leaves every input as it was.
refused() {
  local rc=$1 what=$2
  shift 3
  "$AIDCSIM" "$@" >out.txt 2>err.txt
  local got=$?
  md5sum -c --quiet sums >/dev/null 2>&1 || fail "$*: an input was overwritten (exit $got)"
  [ "$got" -eq "$rc" ] || fail "$*: exit code $got, expected $rc"
  grep -qF -- "$what" err.txt || fail "$*: the message does not say '$what'"
  ls | grep -vqE '^(d\.yaml|d\.scn|x\.h5|sums|out\.txt|err\.txt|sw\.yaml|link\.gml)$' && fail "$*: wrote $(ls)"
  echo "ok $*: $(grep -v warning err.txt | grep -v -- --help | tail -1)"
}

refused 64 "'d.yaml': the scenario file it reads" -- topology d.yaml --graphml d.yaml
refused 64 "'other.yml': a scenario file, not an output" -- topology d.yaml --dot other.yml
ln -s d.scn link.gml
refused 64 "'link.gml': the scenario file it reads" -- topology d.scn --graphml link.gml
rm link.gml
refused 64 "'d.scn': the scenario file it reads" -- run d.scn -q --json d.scn
# compare, report, sweep and the writers from Python run on the package next to the binary; the
# sanitizer build (`make sanitize`, build-asan) has none: it checks the C++ commands above.
if [ ! -f "$(dirname "$AIDCSIM")/../python/aidcsim/__init__.py" ]; then
  echo "ok: outputs_over_inputs (C++ commands; no Python package next to $AIDCSIM: compare/report/sweep skipped)"
  exit 0
fi
for opt in --json --hdf5 --png; do
  refused 64 "$opt: 'd.scn': the input file 'd.scn' itself" -- compare d.scn "$opt" d.scn --seeds 1
done
refused 64 "--html: 'x.h5': the input file 'x.h5' itself" -- report x.h5 --html x.h5
refused 64 "--out: 'x.h5': the input file 'x.h5' itself" -- report x.h5 --out x.h5
printf 'base: d.scn\nparameters:\n  seed: [1]\n' >sw.yaml
md5sum sw.yaml >>sums
refused 64 "--output: 'sw.yaml': the input file 'sw.yaml' itself" -- sweep sw.yaml -o sw.yaml
refused 64 "--output: 'd.scn': the input file" -- sweep sw.yaml -o d.scn
printf 'base: d.scn\nparameters:\n  seed: [1]\noutput: d.scn\n' >sw.yaml
md5sum sw.yaml d.scn x.h5 d.yaml >sums
refused 2 "output: '$PWD/d.scn': the input file" -- sweep sw.yaml
refused 64 "--output: 'other.YML': a scenario file (.yaml), not an output" -- sweep sw.yaml -o other.YML
# The writers' own check (sim/results/output_set.cpp), under every command and the Python API: a
# .yaml name is no output.
PYTHONPATH="$(dirname "$AIDCSIM")/../python" /usr/bin/python3 - >out.txt 2>err.txt <<'PY' || fail "write_output('o.yaml'): $(cat err.txt)"
import os
import aidcsim
from aidcsim import _native
try:
    _native.core().write_output("o.yaml", "{}")
except aidcsim.FileError as e:
    assert "a .yaml/.yml name is a scenario file's" in str(e), e
else:
    raise SystemExit("write_output('o.yaml') wrote the file")
assert not os.path.exists("o.yaml")
PY
echo "ok: outputs_over_inputs"
