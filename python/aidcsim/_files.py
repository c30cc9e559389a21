"""Output files written whole or not at all, as the C++ writers do: through PATH.tmp-<pid> and a
rename (os.replace is atomic on POSIX within one file system)."""
import os


def atomic_write(path, write):
    """Calls write(tmp_path), then renames tmp_path to `path`; on any error (or Ctrl-C) removes the
    temporary file and re-raises, leaving no file or the previous one."""
    path = os.fspath(path)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
