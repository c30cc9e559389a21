# The installed CMake package works for a project outside the tree: `cmake --install` of this
# build into a temporary prefix, then tests/install/consumer configured with only that prefix
# (find_package(aidcsim)), built, and run on the installed default scenario.
# Usage (ctest install_consumer): bash install_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD=$(realpath "${1:?usage: install_consumer.sh BUILD_DIR SOURCE_DIR}")
SRC=$(realpath "${2:?usage: install_consumer.sh BUILD_DIR SOURCE_DIR}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$WORK/prefix" >"$WORK/install.log" || { cat "$WORK/install.log"; fail "cmake --install"; }
P="$WORK/prefix"
for f in bin/aidcsim lib/cmake/aidcsim/aidcsimConfig.cmake lib/cmake/aidcsim/aidcsimConfigVersion.cmake \
         lib/cmake/aidcsim/aidcsimTargets.cmake lib/libaidcsim_engine.a include/aidcsim/sim/engine/simulate.hpp \
         share/aidcsim/scenarios/stargate-uk-8k.yaml lib/aidcsim/python/aidcsim/__init__.py; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
ls "$P"/lib/aidcsim/python/aidcsim/_core*.so >/dev/null || fail "not installed: the Python extension"

# The consumer, copied out of the tree, sees nothing of the source or build tree: only the prefix.
cp -r "$SRC/tests/install/consumer" "$WORK/src"
cmake -S "$WORK/src" -B "$WORK/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$P" >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "consumer configure"; }
cmake --build "$WORK/consumer" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "consumer build"; }
grep -qF -e "$SRC" -e "$BUILD" "$WORK/consumer/build.ninja" && fail "the consumer build refers to the source or build tree"
"$WORK/consumer/consumer" "$P/share/aidcsim/scenarios/stargate-uk-8k.yaml" "$WORK/out.h5" >"$WORK/out.txt" \
  || fail "consumer run exited $?"
grep -qE "^step_time [0-9.]+(e[-+]?[0-9]+)? s$" "$WORK/out.txt" || { cat "$WORK/out.txt"; fail "no step time"; }
[ -s "$WORK/out.h5" ] || fail "no HDF5 written"

# A version request the package cannot satisfy is refused by aidcsimConfigVersion.cmake.
mkdir -p "$WORK/v99" && sed 's/find_package(aidcsim 0.1 REQUIRED)/find_package(aidcsim 99.0 REQUIRED)/' \
  "$WORK/src/CMakeLists.txt" >"$WORK/v99/CMakeLists.txt" && cp "$WORK/src/main.cpp" "$WORK/v99/"
cmake -S "$WORK/v99" -B "$WORK/v99/b" -G Ninja -DCMAKE_PREFIX_PATH="$P" >"$WORK/v99.log" 2>&1 \
  && fail "find_package(aidcsim 99.0) succeeded"
grep -q "compatible with requested version \"99.0\"" "$WORK/v99.log" || { cat "$WORK/v99.log"; fail "no version mismatch message"; }

# The installed CLI finds its Python package (report) without the build tree.
"$P/bin/aidcsim" report "$WORK/out.h5" --out "$WORK/plots" >"$WORK/report.txt" 2>&1 \
  || { cat "$WORK/report.txt"; fail "installed aidcsim report exited $?"; }
ls "$WORK"/plots/*.png >/dev/null || fail "installed aidcsim report wrote no PNG"
echo "ok: installed to a prefix; consumer: $(grep step_time "$WORK/out.txt"); report: $(ls "$WORK"/plots | wc -l) plots"
