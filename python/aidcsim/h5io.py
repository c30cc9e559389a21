"""Reads an aidcsim HDF5 results file (layout: sim/results/hdf5_writer.hpp) back into the plain
result data aidcsim.Results is built from, with h5py only (no compiled module needed).

Format "2" (this version's writer) names axes with HDF5 dimension scales (netCDF-4 model), writes
integer codes with CF flag_values/flag_meanings and /checks/pass as int8 codes; format "1" files
(axis names in a ``dims`` string attribute, /checks/pass a boolean enum) are read too.
"""

import posixpath

import numpy as np


def _str(x):
    if isinstance(x, bytes):
        return x.decode("utf-8")
    if isinstance(x, np.ndarray) and x.shape == ():
        return _str(x.item())
    return str(x)


def _strings(dset):
    return [_str(v) for v in dset[()].tolist()] if dset.shape != () else [_str(dset[()])]


def _is_scale(obj):
    return _str(obj.attrs.get("CLASS", b"")) == "DIMENSION_SCALE"


def _axis_names(obj):
    """Axis names of a dataset: its attached dimension scales (format 2), else the ``dims``
    attribute (format 1); [] when neither says."""
    if _is_scale(obj) and obj.ndim == 1:
        return [posixpath.basename(obj.name)]
    names = []
    for axis in obj.dims:
        if len(axis) == 0:
            break
        names.append(posixpath.basename(axis[0].name))
    if len(names) == obj.ndim:
        return names
    return [_str(d) for d in obj.attrs.get("dims", [])]


def _is_index(obj):
    """An index coordinate the writer adds for an axis without one (integer scale, no flags)."""
    return _is_scale(obj) and obj.dtype.kind in "iu" and "flag_meanings" not in obj.attrs


def read_raw(path):
    """HDF5 results file -> the dict aidcsim.Results(raw) takes. Raises OSError if unreadable."""
    import h5py

    raw = {"summary": [], "datasets": [], "labels": [], "checks": [], "notes": [], "warnings": []}
    with h5py.File(path, "r") as f:
        a = f.attrs
        raw["scenario_name"] = _str(a.get("scenario_name", ""))
        raw["scenario_file"] = _str(a.get("scenario_file", ""))
        raw["scenario_text"] = _str(a.get("scenario_text", ""))
        raw["seed"] = int(a.get("seed", 0))
        if "summary" in f and isinstance(f["summary"], h5py.Group):
            # The writer tracks creation order, which h5py follows: the engine's order.
            for key, d in f["summary"].items():
                raw["summary"].append({"key": key, "value": float(d[()]),
                                       "unit": _str(d.attrs.get("units", "")),
                                       "description": _str(d.attrs.get("description", ""))})
        if "checks" in f and isinstance(f["checks"], h5py.Group) and "item" in f["checks"]:
            g = f["checks"]
            cols = {}
            for c in ("item", "unit", "note"):
                cols[c] = _strings(g[c]) if c in g else None
            for c in ("value", "limit", "headroom"):
                cols[c] = g[c][()].tolist() if c in g else None
            cols["pass"] = [bool(v) for v in g["pass"][()].tolist()] if "pass" in g else None
            n = len(cols["item"])
            for i in range(n):
                raw["checks"].append({c: (v[i] if v is not None else None) for c, v in cols.items()})
        for name in ("notes", "warnings"):
            if name in f and isinstance(f[name], h5py.Dataset):
                raw[name] = _strings(f[name])

        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            top = name.split("/", 1)[0]
            if top in ("summary", "checks") or name in ("notes", "note", "warnings", "warning") or _is_index(obj):
                return
            path = "/" + name
            dims = _axis_names(obj)
            if obj.dtype.kind in ("S", "O", "U"):
                dim = dims[0] if dims else ""
                raw["labels"].append({"path": path, "values": _strings(obj),
                                      "description": _str(obj.attrs.get("description", "")),
                                      "dim": "" if dim == posixpath.basename(name) else dim})
                return
            flags = _str(obj.attrs.get("flag_meanings", "")).split()
            raw["datasets"].append({"path": path, "data": np.asarray(obj[()], dtype=float),
                                    "shape": obj.shape, "unit": _str(obj.attrs.get("units", "")),
                                    "description": _str(obj.attrs.get("description", "")),
                                    "dims": dims, "flag_meanings": flags})

        f.visititems(visit)
    return raw
