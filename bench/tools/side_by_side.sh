#!/usr/bin/env bash
# Benchmark tool (prints figures; not a timed test; in bench/tools/ so `make bench`, which runs every
# bench/*.sh with the one aidcsim binary, does not run it): two aidcsim builds side by side on the same
# scenarios, alternating old, new, old, new ... so that the machine's load drifts alike for both.
# Per run: user and system CPU seconds and peak RSS (kernel accounting of the finished process,
# /usr/bin/time), the load average; per round whether the two JSON summaries are identical
# (git_sha aside). Usage: bench/tools/side_by_side.sh OLD_BIN NEW_BIN ROUNDS SCENARIO...
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 OLD_BIN NEW_BIN ROUNDS SCENARIO..." >&2; exit 64; }
OLD=$1 NEW=$2 ROUNDS=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-28s %-4s %8s %8s %9s %6s\n' scenario bin "user s" "sys s" "peak MiB" load
for s in "$@"; do
  for _ in $(seq "$ROUNDS"); do
    for v in old new; do
      bin=$OLD
      [ "$v" = new ] && bin=$NEW
      /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$bin" run -q "$s" --json "$tmp/$v.json" >/dev/null
      read -r u sy kb <"$tmp/t"
      printf '%-28s %-4s %8.2f %8.2f %9d %6s\n' "$(basename "$s" .yaml)" "$v" "$u" "$sy" $((kb / 1024)) \
        "$(cut -d' ' -f1 /proc/loadavg)"
    done
    if cmp -s <(grep -v git_sha "$tmp/old.json") <(grep -v git_sha "$tmp/new.json"); then
      echo "$(basename "$s" .yaml): JSON identical"
    else
      echo "$(basename "$s" .yaml): JSON DIFFERS"
    fi
  done
done
