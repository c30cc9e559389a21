"""Output files written whole or not at all, as the C++ writers do (sim/results/output_set.hpp).

`write(f)` renders the file into memory (f is an io.BytesIO: h5py, matplotlib's savefig and
f.write take it), then the bytes are published by the native writer of `aidcsim run`'s outputs: an
unnamed temporary in the destination's directory (O_TMPFILE), flushed, then linked or renamed;
special files (`-`, /dev/stdout, FIFOs) written through. Nothing is left on disk on an error,
Ctrl-C or even SIGKILL. Without the compiled module: PATH.tmp-<pid> and os.replace (atomic on
POSIX within one file system), the temporary removed on any error or Ctrl-C (not on SIGKILL)."""
import io
import os

from . import _native


def atomic_write(path, write):
    """Calls write(f) with an in-memory binary file, then publishes its bytes at `path` whole; on
    any error (or Ctrl-C) nothing new is left and the exception propagates (aidcsim.FileError, an
    OSError, for a destination that cannot be written)."""
    path = os.fspath(path)
    buf = io.BytesIO()
    write(buf)
    data = buf.getvalue()
    if _native.has("write_output"):
        _native.core().write_output(path, data)
        return
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
