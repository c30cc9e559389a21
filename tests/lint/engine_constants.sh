#!/usr/bin/env bash
# Lint (issue 19): sim/engine orders the areas' stages and runs the coupling loops; it holds no
# physical constant. Physics (checkpoint bytes per parameter, thermal run windows and throttling
# tolerances, the RDMA MTU, the brief's limits, unit factors) lives in its area under models/ or in
# models/common/units.hpp. Fails on a floating-point constant defined in sim/engine or on a known
# constant's literal (the ones moved out, so they cannot come back unnoticed).
# Usage: engine_constants.sh <source dir>
set -u
src=${1:?source dir}
dir="$src/sim/engine"
status=0
report() { echo "sim/engine holds a physical constant ($1):"; echo "$2"; status=1; }

# Any floating-point constexpr in the engine (integer loop limits of the engine itself are allowed).
hits=$(grep -nE '\bconstexpr[[:space:]]+(double|float|long double)\b' "$dir"/*.cpp "$dir"/*.hpp |
       grep -vE 'units::k[A-Za-z]+[[:space:]]*/[[:space:]]*units::k[A-Za-z]+;')
[ -n "$hits" ] && report "a floating-point constexpr; move it to its area or to models/common/units.hpp" "$hits"

# Known constants by value, outside comments and string literals (file:line of each hit).
check() {  # name, extended regex
  local h="" f
  for f in "$dir"/*.cpp "$dir"/*.hpp; do
    h+=$(sed -E 's://.*$::; s/"([^"\\]|\\.)*"/""/g' "$f" | grep -nE "$2" | sed "s|^|$f:|")
  done
  [ -n "$h" ] && report "$1" "$h"
}
check "0 degC in K (units::kZeroCelsius)" '273\.15'
check "seconds per hour/day (units::kHour, units::kDay)" '(^|[^0-9.])(3600|86400)(\.0*)?([^0-9.e]|$)'
check "model-state bytes per parameter (reliability::kModelStateBytesPerParameter)" '(^|[^0-9.])14\.0([^0-9]|$)'
check "RDMA MTU (network::kRdmaMtu)" '(^|[^0-9.])4096(\.0*)?([^0-9.e]|$)'
check "thermal settle/sample windows (thermal::run_windows.hpp)" '(^|[^0-9.])(1800|300)\.0([^0-9]|$)'
check "the brief's fabric limits (network::FabricLimits)" '(400|200)e9'
check "L/min per m^3/s (units::kLitre, units::kMinute)" '(^|[^0-9.])60000(\.0*)?([^0-9.e]|$)'
[ $status -eq 0 ] && echo "sim/engine: no physical constants"
exit $status
