"""Every dataset and attribute of an HDF5 file as {key: comparable value}, for the CLI tests that
compare two runs' results (tests/cli/run_reuse_exact.sh, prefix_reuse_exact.sh). Object references
are compared by the name they point to (a longer notes dataset moves the file's offsets); the notes
datasets themselves are left out (the tests compare notes from the JSON)."""
import h5py
import numpy as np


def flat(path):
    """{"D name": value, "A name@attribute": value} of the HDF5 file at `path`."""
    f, out = h5py.File(path, "r"), {}

    def val(x):
        if isinstance(x, h5py.Reference):
            return f[x].name
        if isinstance(x, np.ndarray) and x.dtype.kind == "O":
            return [val(y) for y in x.tolist()]
        if isinstance(x, np.ndarray) and x.dtype.names:  # REFERENCE_LIST: (reference, index)
            return [tuple(val(v) for v in row) for row in x.tolist()]
        if isinstance(x, (list, tuple)):
            return [val(y) for y in x]
        return x.tobytes() if isinstance(x, np.ndarray) else x

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and name not in ("note", "notes"):
            out["D " + name] = val(obj[()])
        for k, a in obj.attrs.items():
            out["A %s@%s" % (name, k)] = val(a)

    f.visititems(visit)
    for k, a in f.attrs.items():
        out["A /@" + k] = val(a)
    return out
