#!/usr/bin/env bash
# The engine-constants lint must fail on a tree whose sim/engine defines a physical constant: a copy
# of sim/engine with one injected per rule the lint has, each run on its own.
# Usage: engine_constants_catches.sh <source dir>
set -u
src=${1:?source dir}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for line in 'constexpr double kSettle = 1.5;' 'double t = x + 273.15;' 'double d = s / 86400;' \
            'double b = p * 14.0;' 'int mtu = 4096;' 'double w = 1800.0;' 'double r = 400e9 / 8;' \
            'double f = q * 60000;'; do
  rm -rf "$tmp/sim"; mkdir -p "$tmp/sim"; cp -r "$src/sim/engine" "$tmp/sim/"
  printf '%s\n' "$line" >>"$tmp/sim/engine/situation.cpp"
  if bash "$here/engine_constants.sh" "$tmp" >/dev/null; then echo "lint missed: $line"; fail=1; fi
done
# Comments and strings are not code.
rm -rf "$tmp/sim"; mkdir -p "$tmp/sim"; cp -r "$src/sim/engine" "$tmp/sim/"
printf '%s\n' '// 273.15 K is 0 degC' 'const char* s = "3600 s";' >>"$tmp/sim/engine/situation.cpp"
bash "$here/engine_constants.sh" "$tmp" >/dev/null || { echo "lint flagged a comment or a string"; fail=1; }
[ $fail -eq 0 ] && echo "lint catches every rule's constant"
exit $fail
