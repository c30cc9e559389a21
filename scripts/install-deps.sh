#!/usr/bin/env bash
# Installs every build and test dependency of aidcsim from Debian 12 packages.
# Idempotent: does nothing when everything is already installed. Works as root or through sudo.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libsimgrid-dev libboost-graph-dev libeigen3-dev libhdf5-dev pybind11-dev catch2
  libyaml-cpp-dev libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev libbenchmark-dev libjemalloc-dev
  python3 python3-dev python3-pip python3-setuptools python3-wheel python3-numpy python3-h5py python3-pytest python3-pandas python3-matplotlib
  python3-yaml python3-distributed python3-dask python3-xarray python3-h5netcdf python3-netcdf4 python3-tqdm
  python3-nbformat python3-nbclient python3-nbconvert python3-ipykernel
  clang libclang-rt-14-dev                 # make sanitize / make fuzz: ASan+UBSan and libFuzzer (asan preset)
  clang-format                             # make format and the lint_format test (clang-format 14)
  strace                                   # tests/cli/signals.sh: signals injected at each write
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
