# The outputs of a finished run survive a reader of its console output that has gone: `aidcsim run
# -o x.h5 --json x.json | head -1` used to print the summary first and die of SIGPIPE before
# publishing the files (exit 141, no file, no message); `aidcsim compare` lost its --json the same
# way (BrokenPipeError). The reader here exits at once, so every write to the pipe fails.
source "$(dirname "$0")/lib/common.bash"

"$AIDCSIM" run -q -o x.h5 --json x.json 2>err.txt | true
[ -s x.h5 ] || fail "run | (reader gone): x.h5 not written"
/usr/bin/python3 -c "import json; json.load(open('x.json'))" || fail "run | (reader gone): x.json not written whole"
/usr/bin/python3 -c "
import h5py; f = h5py.File('x.h5'); assert f['summary/step_time'][()] > 0" || fail "x.h5 not readable"
echo "ok: outputs_reader_gone"
