# `aidcsim validate` cannot check the time-to-train Monte Carlo's size (it counts events from the
# simulated step time), which `run` refuses above its budget: validate said only "valid scenario"
# for a file run then refused. It now says (stdout, after the files) that this is not checked;
# `run` still refuses the file, at training.tokens.
source "$(dirname "$0")/lib/common.bash"
cp "$BASE" big.yaml
printf 'reliability:\n  draws: 1000000\n' >>big.yaml
grep -qE "^reliability:" "$BASE" && fail "the bundled scenario has a reliability section (test out of date)"
"$AIDCSIM" validate big.yaml >out.txt 2>err.txt || fail "validate exited $?"
grep -qF "big.yaml: valid scenario" out.txt || fail "no 'valid scenario' line"
[ "$(tail -1 out.txt | cut -c1-70)" = "note: not checked by validate: the size of the time-to-train Monte Car" ] ||
  fail "validate does not say that the Monte Carlo's size is checked by run"
grep -qF "reliability.draws" out.txt || fail "the note does not name reliability.draws"
# An invalid file alone gets no such note (nothing was valid).
make_scenario bad 's/^(  gpus:).*/\1 abc/'
"$AIDCSIM" validate bad.yaml >out.txt 2>err.txt
[ $? -eq 2 ] || fail "validate bad.yaml: expected exit 2"
grep -q "not checked by validate" out.txt && fail "a note after no valid file"
# `run` refuses big.yaml (the check validate cannot make), pointing at training.tokens.
"$AIDCSIM" run big.yaml --quiet >out.txt 2>err.txt
[ $? -eq 2 ] || fail "run big.yaml: expected exit 2 (Monte Carlo above its budget)"
grep -qE "big\.yaml:[0-9]+:[0-9]+: training\.tokens: .*Monte Carlo" err.txt || fail "run's refusal does not name training.tokens"
echo "ok: $(head -1 err.txt | cut -c1-120)"
