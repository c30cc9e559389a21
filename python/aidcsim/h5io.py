"""Reads an aidcsim HDF5 results file (layout: sim/results/hdf5_writer.hpp, format_version "1")
back into the plain result data aidcsim.Results is built from, with h5py only (no compiled
module needed)."""

import numpy as np


def _str(x):
    if isinstance(x, bytes):
        return x.decode("utf-8")
    if isinstance(x, np.ndarray) and x.shape == ():
        return _str(x.item())
    return str(x)


def _strings(dset):
    return [_str(v) for v in dset[()].tolist()] if dset.shape != () else [_str(dset[()])]


def read_raw(path):
    """HDF5 results file -> the dict aidcsim.Results(raw) takes. Raises OSError if unreadable."""
    import h5py

    raw = {"summary": [], "datasets": [], "labels": [], "checks": [], "notes": []}
    with h5py.File(path, "r") as f:
        a = f.attrs
        raw["scenario_name"] = _str(a.get("scenario_name", ""))
        raw["scenario_file"] = _str(a.get("scenario_file", ""))
        raw["scenario_text"] = _str(a.get("scenario_text", ""))
        raw["seed"] = int(a.get("seed", 0))
        if "summary" in f and isinstance(f["summary"], h5py.Group):
            # HDF5 orders group members by name; the JSON and in-memory order is the engine's.
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
        if "notes" in f and isinstance(f["notes"], h5py.Dataset):
            raw["notes"] = _strings(f["notes"])

        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return
            top = name.split("/", 1)[0]
            if top in ("summary", "checks") or name == "notes":
                return
            path = "/" + name
            if obj.dtype.kind in ("S", "O", "U"):
                raw["labels"].append({"path": path, "values": _strings(obj),
                                      "description": _str(obj.attrs.get("description", ""))})
                return
            dims = [_str(d) for d in obj.attrs.get("dims", [])]
            raw["datasets"].append({"path": path, "data": np.asarray(obj[()], dtype=float),
                                    "shape": obj.shape, "unit": _str(obj.attrs.get("units", "")),
                                    "description": _str(obj.attrs.get("description", "")),
                                    "dims": dims})

        f.visititems(visit)
    return raw
