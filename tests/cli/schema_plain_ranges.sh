# `aidcsim schema` (plain) gives each range as the reference page and the load errors do: in the
# unit of the key's default, integers in full. It printed "[0, 9.0072e+15] SI" for the seed, a
# bound above the real one (2^53 - 1), and data rates in B/s ("[1e+06, 1e+12] SI").
source "$(dirname "$0")/lib/common.bash"
"$AIDCSIM" schema >out.txt 2>err.txt || fail "aidcsim schema failed"
grep -E "^seed " out.txt | grep -qF "from 0 to 9007199254740991" || fail "seed range not exact"
grep -E "^fabric\.link_rate " out.txt | grep -qF "from 8 Mbps to 8 Tbps" || fail "link_rate range not in Gbps-family units"
grep -E "^fabric\.switch_latency " out.txt | grep -qF "from 0 ns to 1 ms" || fail "switch_latency range not in time units"
grep -E "^cluster\.gpus " out.txt | grep -qF "from 1 to 10000000" || fail "cluster.gpus range not in full"
grep -qE "e\+[0-9]+\]|\] SI" out.txt && fail "a range still printed as %g in SI: $(grep -E 'e\+[0-9]+\]|\] SI' out.txt | head -1)"
echo "ok: $(grep -E '^seed ' out.txt)"
