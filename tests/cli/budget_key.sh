# A Monte Carlo too long to draw names the key that makes it so (case step/18's kind). On the
# bundled scenario, reliability.async_stall "1 ms" / "0 s" / "1e-320 s" gives Young/Daly a
# checkpoint every 5-6 s, ~1.5e9 events; the error named training.tokens (adcc342). It now names
# async_stall at its file:line, with the interval, and the smallest async_stall and fixed
# checkpoint_interval the budget takes, which `run` then accepts.
source "$(dirname "$0")/lib/common.bash"
stall() {  # stall NAME VALUE
  make_scenario "$1" "\$a\\reliability:\n  async_stall: \"$2\""
  run_bad "$1.yaml"
  local line
  line=$(line_of '^  async_stall:' "$1.yaml")
  mentions "$1.yaml" "$line" "reliability.async_stall: got '$2'" || fail "$1: no $1.yaml:$line naming async_stall: $(head -1 err.txt)"
  grep -qE "a checkpoint every [0-9.]+ s: Young/Daly's optimum for a [0-9.e-]+ s stall and a job MTBF of" err.txt ||
    fail "$1: the message does not give the interval and its cause: $(head -1 err.txt)"
  echo "ok $1: $(head -1 err.txt | sed "s|$WORK/||")"
}
stall zero "0 s"
stall denormal "1e-320 s"
# Over the budget even with the step time's lower bound, but the least async_stall that bound
# needs (0.000292 s at d097d0b, whose bound was 1.97 s against the 5.32 s step; the step needs
# 0.00238 s) was refused again after
# the step: `run` now leaves a refusal naming a value to write to the check after the step, whose
# least value is accepted. `validate`, which simulates no step, says its least values are lower limits.
grep -qF "checked before simulating the step" err.txt && fail "denormal: run named the bound's least value"
least=$(grep -oE 'an async_stall of at least [0-9.e-]+ s' err.txt | grep -oE '[0-9.e-]+ s$') ||
  fail "denormal: no least async_stall in: $(head -1 err.txt)"
make_scenario least "\$a\\reliability:\n  async_stall: \"$least\""
"$AIDCSIM" run least.yaml --quiet >out.txt 2>err.txt || fail "denormal's async_stall \"$least\" is refused: $(head -1 err.txt)"
echo "ok denormal's least async_stall \"$least\" accepted"
"$AIDCSIM" validate denormal.yaml >out.txt 2>err.txt && fail "validate denormal.yaml: accepted"
grep -qF "checked before simulating the step" err.txt && grep -qF "a least value named above is a lower limit" err.txt ||
  fail "validate denormal.yaml: its least values not said to be lower limits: $(head -1 err.txt)"
stall ms "1 ms"
grep -qF "checked before simulating the step" err.txt && fail "ms: refused before the step (test out of date)"
least=$(grep -oE 'an async_stall of at least [0-9.e-]+ s' err.txt | grep -oE '[0-9.e-]+ s$') ||
  fail "no least async_stall in: $(head -1 err.txt)"
fixed=$(grep -oE 'checkpoint_policy: fixed with a checkpoint_interval of at least [0-9.e-]+ s' err.txt |
  grep -oE '[0-9.e-]+ s$') || fail "no least fixed interval in: $(head -1 err.txt)"
make_scenario least "\$a\\reliability:\n  async_stall: \"$least\""
"$AIDCSIM" run least.yaml --quiet >out.txt 2>err.txt || fail "async_stall \"$least\" is refused: $(head -1 err.txt)"
make_scenario fixed "\$a\\reliability:\n  async_stall: \"1e-320 s\"\n  checkpoint_policy: fixed\n  checkpoint_interval: \"$fixed\""
"$AIDCSIM" run fixed.yaml --quiet >out.txt 2>err.txt || fail "checkpoint_interval \"$fixed\" is refused: $(head -1 err.txt)"
echo "ok accepted: async_stall \"$least\", checkpoint_policy fixed with checkpoint_interval \"$fixed\""
# A fixed checkpoint every 10 d against the 5.47 h job MTBF: most segments never complete. The
# error named reliability.failures (adcc342); it now names checkpoint_interval and its bound.
make_scenario long "\$a\\reliability:\n  checkpoint_policy: fixed\n  checkpoint_interval: \"10 d\""
run_bad long.yaml
line=$(line_of '^  checkpoint_interval:' long.yaml)
mentions long.yaml "$line" "reliability.checkpoint_interval: got '10 d'" || fail "long: $(head -1 err.txt)"
grep -qE "longer than the job MTBF of [0-9.]+ h: .*a checkpoint_interval of at most [0-9.]+ [a-z]+, or checkpoint_policy: young_daly" err.txt ||
  fail "long: the message does not say what interval is taken: $(head -1 err.txt)"
echo "ok long: $(head -1 err.txt | sed "s|$WORK/||")"
# Restarts waiting for a spare (the rollout with gpu MTBF 5,000 h's kind): the 8K job with 8 hot
# spares, a GPU MTBF of 5,000 h and 24 h repairs runs out of spares (~40 nodes in repair): while
# a failure needing no spare could end a wait it drew ~1.3e5 interruptions per draw against ~3,200
# with unlimited spares, and at 8,000 draws the budget took it (~7.7e8 loop steps estimated
# without the waits, ~1.8e9 drawn, 42 s of CPU); a restart now waits for all its nodes, which
# never happens. It is refused naming hot_spares, with the fewest spares the budget takes.
make_scenario spares "\$a\\reliability:\n  draws: 8000\n  hot_spares: 8\n  failures:\n    - component: gpu\n      mtbf: \"5000 h\""
run_bad spares.yaml
line=$(line_of '^  hot_spares:' spares.yaml)
mentions spares.yaml "$line" "reliability.hot_spares: got '8'" || fail "spares: no spares.yaml:$line naming hot_spares: $(head -1 err.txt)"
grep -qE "the 8 hot spares run out \(~[0-9.]+ failures needing a spare per 1 d repair\), restarts wait for a repair.*; at least [0-9]+ hot_spares" err.txt ||
  fail "spares: the message does not say the spares run out and how many the budget takes: $(head -1 err.txt)"
echo "ok spares: $(head -1 err.txt | sed "s|$WORK/||")"
