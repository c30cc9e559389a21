# The time-to-train Monte Carlo's size (reliability.draws x the events of a draw) needs the step
# time: 0abac4e's `validate` did not check it and `run` refused a file only after simulating its
# step (seconds to minutes). Both now check it before any step with a lower bound of the step time
# (the busiest pipeline stage's compute, fill and drain: 4.2 s against the 5.32 s step), and say
# so; `run` checks again after the step.
source "$(dirname "$0")/lib/common.bash"
grep -qE "^reliability:" "$BASE" && fail "the bundled scenario has a reliability section (test out of date)"
cp "$BASE" big.yaml
printf 'reliability:\n  draws: 1000000\n' >>big.yaml
line=$(line_of "^  tokens:" big.yaml)
for cmd in validate run; do
  "$AIDCSIM" $cmd big.yaml $([ $cmd = run ] && echo --quiet) >out.txt 2>err.txt
  [ $? -eq 2 ] || fail "$cmd big.yaml: expected exit 2 (Monte Carlo above its budget)"
  mentions big.yaml "$line" "training.tokens: got" || fail "$cmd: the refusal does not name training.tokens at line $line"
  grep -qF "checked before simulating the step, with a lower bound of the step time" err.txt ||
    fail "$cmd: the refusal does not say it was checked before the step, with a bound"
  grep -qF "fewer reliability.draws" err.txt || fail "$cmd: the refusal does not say what to change"
  echo "ok $cmd: $(head -1 err.txt | cut -c1-160)"
done
# A file within the budget: valid, with the note that `run` checks again with the simulated step.
"$AIDCSIM" validate "$BASE" >out.txt 2>err.txt || fail "validate $BASE exited $?"
[ "$(tail -1 out.txt | cut -c1-64)" = "note: the size of the time-to-train Monte Carlo (reliability.dra" ] ||
  fail "validate does not say what it checked of the Monte Carlo's size"
grep -qF "checks it again with the simulated step time" out.txt || fail "the note does not say run checks again"
# Within the budget with the bound, over it with the simulated step: validate accepts it, run refuses
# it after the step (the later check kept), at the same key, without the bound's words.
cp "$BASE" mid.yaml
printf 'reliability:\n  draws: 40000\n' >>mid.yaml
"$AIDCSIM" validate mid.yaml >out.txt 2>err.txt || fail "validate mid.yaml exited $?"
"$AIDCSIM" run mid.yaml --quiet >out.txt 2>err.txt
[ $? -eq 2 ] || fail "run mid.yaml: expected exit 2 (over the budget with the simulated step)"
mentions mid.yaml "$line" "training.tokens: got" || fail "run mid.yaml: the refusal does not name training.tokens"
grep -qF "lower bound" err.txt && fail "run mid.yaml: refused by the bound, expected the check after the step"
# With storage on the fabric the simulated write sets the checkpoint stall: not checked, said so.
make_scenario storage 's|^fabric:.*|&\n  storage: {nodes: 4, write_bandwidth: "20 GB/s", read_bandwidth: "40 GB/s"}|'
"$AIDCSIM" validate storage.yaml >out.txt 2>err.txt || fail "validate storage.yaml exited $?"
grep -qF "note: not checked by validate: the size of the time-to-train Monte Carlo" out.txt ||
  fail "no note that the Monte Carlo's size is not checked with storage on the fabric"
# An invalid file alone gets no note (nothing was valid).
make_scenario bad 's/^(  gpus:).*/\1 abc/'
"$AIDCSIM" validate bad.yaml >out.txt 2>err.txt
[ $? -eq 2 ] || fail "validate bad.yaml: expected exit 2"
grep -q "^note:" out.txt && fail "a note after no valid file"
echo "ok: the Monte Carlo's size is checked before the step"
