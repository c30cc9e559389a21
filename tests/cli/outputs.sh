# `aidcsim run` outputs as a set (sim/results/output_set.hpp) and its options checked before the run:
# cases ../shared/cases/input/08 (x.h5 left without x.json after exit 1), 11 (--seed 2^64 silently
# clamped), 21 (-o '' exited 0 writing nothing), and /dev/stdout, '-', FIFOs and symlinks written
# through instead of renamed over.
source "$(dirname "$0")/lib/common.bash"

# Case 08: the JSON's directory disappears during the run: exit 1, and no HDF5 file either.
mkdir gone3
"$AIDCSIM" run -o z.h5 --json gone3/z.json >out.txt 2>err.txt &
P=$!
for i in $(seq 1 200); do grep -q "training step" err.txt 2>/dev/null && break; sleep 0.05; done
rm -rf gone3
wait $P
rc=$?
[ "$rc" -eq 1 ] || fail "json directory removed: exit code $rc, expected 1"
[ -e z.h5 ] && fail "z.h5 was published although z.json could not be written"
grep -qF "cannot write 'gone3/z.json'" err.txt || fail "no message naming gone3/z.json"
[ -z "$(ls -A | grep -vxE 'err\.txt|out\.txt')" ] || fail "files left: $(ls -A)"

# Case 21 and friends: usage errors (64) before anything runs, nothing written.
for args in "-o ''" "--json ''" "--seed 18446744073709551616" "--seed 9007199254740992" "--seed -1" \
            "--seed 1.5" "--seed 0x10"; do
  eval "\"\$AIDCSIM\" run -q $args" >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 64 ] || fail "run $args: exit code $rc, expected 64"
  [ -s out.txt ] && fail "run $args: printed a summary"
done
[ -z "$(ls -A | grep -vxE 'err\.txt|out\.txt')" ] || fail "files left: $(ls -A)"
# Unwritable destinations: an error (1) before the run.
for args in "-o $WORK" "--json no/such/dir/x.json" "-o x.out --json ./x.out"; do
  "$AIDCSIM" run -q $args >out.txt 2>err.txt
  rc=$?
  [ "$rc" -eq 1 ] || fail "run $args: exit code $rc, expected 1"
  [ -s out.txt ] && fail "run $args: ran before refusing its output"
done

# The largest seed is accepted and reported as given.
"$AIDCSIM" run -q --seed 9007199254740991 --json - >out.txt 2>err.txt || fail "--seed 2^53-1 refused"
/usr/bin/python3 -c "import json,sys; assert json.load(open('out.txt'))['scenario']['seed'] == 9007199254740991" ||
  fail "--seed 2^53-1 not kept"

# '-' and /dev/stdout: the JSON alone on stdout (the summary goes to stderr), nothing renamed.
for target in - /dev/stdout; do
  "$AIDCSIM" run -q --json "$target" >out.txt 2>err.txt || fail "--json $target: exit $?"
  /usr/bin/python3 -c "import json; json.load(open('out.txt'))" || fail "--json $target: stdout is not the JSON"
  grep -q "^Summary" err.txt || fail "--json $target: the summary did not go to stderr"
done
[ -L /dev/stdout ] || [ -c /dev/stdout ] || fail "/dev/stdout is no longer a link or a device"
# A symlink to the stdout descriptor stays a symlink; one to a regular file keeps pointing at it.
ln -s /proc/self/fd/1 to-stdout
"$AIDCSIM" run -q --json to-stdout >out.txt 2>err.txt || fail "--json to-stdout: exit $?"
[ -L to-stdout ] || fail "the symlink to-stdout was renamed over"
/usr/bin/python3 -c "import json; json.load(open('out.txt'))" || fail "--json to-stdout: not written through"
echo old > real.json
ln -s real.json link.json
"$AIDCSIM" run -q --json link.json >out.txt 2>err.txt || fail "--json link.json: exit $?"
[ -L link.json ] || fail "link.json was renamed over"
/usr/bin/python3 -c "import json; json.load(open('real.json'))" || fail "real.json not replaced"
# A FIFO is written through.
mkfifo fifo.json
cat fifo.json > from-fifo.json &
R=$!
"$AIDCSIM" run -q --json fifo.json >out.txt 2>err.txt || fail "--json fifo.json: exit $?"
wait $R
[ -p fifo.json ] || fail "fifo.json is no longer a FIFO"
/usr/bin/python3 -c "import json; json.load(open('from-fifo.json'))" || fail "nothing came through the FIFO"
# /dev/null, even twice.
"$AIDCSIM" run -q -o /dev/null --json /dev/null >out.txt 2>err.txt || fail "/dev/null twice: exit $?"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
echo "ok: outputs"
