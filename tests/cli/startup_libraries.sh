# The CLI links HDF5 from its static archives where the system has them (CMakeLists.txt,
# AIDCSIM_HDF5_STATIC): the shared libhdf5 would load libcurl and the TLS/Kerberos stack it brings
# at every start (~8 ms of CPU per process, docs/benchmarks.md). Checks that none of them is loaded
# and that the HDF5 output still works.
source "$(dirname "$0")/lib/common.bash"
if ! compgen -G "/usr/lib/*/libhdf5_serial.a" >/dev/null && ! compgen -G "/usr/lib/*/libhdf5.a" >/dev/null; then
  echo "no static HDF5 archive on this system: the CLI links the shared one (nothing to check)"
  exit 0
fi
ldd "$AIDCSIM" >libs.txt || fail "ldd $AIDCSIM failed"
for lib in libhdf5 libcurl libssl libgnutls libkrb5 libldap; do
  grep -q "$lib" libs.txt && fail "the CLI loads $lib at start: $(grep "$lib" libs.txt | head -1)"
done
"$AIDCSIM" run -q --output out.h5 >out.txt 2>err.txt || fail "aidcsim run --output exited $?"
[ "$(head -c 8 out.h5 | od -An -c | tr -d ' ')" = "211HDF\r\n032\n" ] || fail "out.h5 is not an HDF5 file"
exit 0
