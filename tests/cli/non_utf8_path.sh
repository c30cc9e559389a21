# A scenario file whose name is not UTF-8 (Latin-1 "caf\xE9.yaml": Linux names are bytes) runs and
# writes both outputs, the name stored with U+FFFD for the bad byte (case input/03's kind: 0.1.0
# simulated, then failed with "internal error: [json.exception.type_error.316]", exit 1, no file;
# with -o only, the HDF5 attribute held the raw byte and `aidcsim report` could not pass it on).
source "$(dirname "$0")/lib/common.bash"
name=$'caf\xe9.yaml'
cp "$BASE" "$name"
# Few draws: the point is the writers, not the Monte Carlo.
printf 'reliability:\n  draws: 10\n' >>"$name"
"$AIDCSIM" run "$name" --quiet -o x.h5 --json x.json >out.txt 2>err.txt || fail "run exited $?: $(tail -1 err.txt)"
[ -s x.h5 ] && [ -s x.json ] || fail "an output is missing"
grep -qF "\"file\": \"caf"$'\xef\xbf\xbd'".yaml\"" x.json || fail "x.json does not name the file with U+FFFD: $(grep '"file"' x.json)"
iconv -f UTF-8 -t UTF-8 x.json >/dev/null || fail "x.json is not UTF-8"
# The HDF5 string attributes are UTF-8 too (h5dump prints them; no tool of ours needed).
if command -v h5dump >/dev/null; then
  h5dump -a /scenario_file x.h5 >attr.txt 2>&1 || fail "h5dump failed: $(cat attr.txt)"
  iconv -f UTF-8 -t UTF-8 attr.txt >/dev/null || fail "/scenario_file is not UTF-8: $(cat attr.txt)"
  grep -qF "caf"$'\xef\xbf\xbd'".yaml" attr.txt || fail "/scenario_file: $(cat attr.txt)"
fi
echo "ok: a non-UTF-8 scenario name runs and is written as UTF-8"
