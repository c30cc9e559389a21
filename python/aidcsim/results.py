"""Results of one run as Python data: the summary as dicts, datasets as numpy arrays, checks as
dicts, plus pandas / xarray views and the C++ HDF5 / JSON writers.

A Results is built from the plain data the compiled module returns (python/bindings/results.cpp),
so it pickles cheaply across processes (isolated runs, sweep workers).
"""

import json

import numpy as np

from . import _args, _native
from .errors import FileError


class Results:
    """Output of one simulation (C++ ``aidcsim::Results``, models/common/results.hpp).

    Attributes
    ----------
    summary : dict[str, float]
        Headline numbers by key (``step_time``, ``mfu``, ...), in the unit of ``units[key]``.
    units : dict[str, str]
        Unit of every summary value ("s", "%", "degC", "MW", "1" for dimensionless).
    descriptions : dict[str, str]
        One-line description of every summary value.
    datasets : dict[str, numpy.ndarray]
        Arrays by HDF5 path ("/network/link_utilization"), row-major, shape as written by the
        engine (a copy, float64).
    dataset_units, dataset_dims, dataset_descriptions : dict[str, ...]
        Unit string, axis names (e.g. ["time", "link"]) and description of every dataset.
    dataset_flags : dict[str, list[str]]
        For datasets of integer codes (``/network/link_tier``): the meaning of code 0, 1, ...
        (CF flag_meanings), e.g. ["nvlink", "access", "leaf_spine", "spine_core"].
    labels : dict[str, list[str]]
        Names along an axis by path: the axis's coordinate when the leaf name is the axis name
        ("/network/link" for the axis "link" of /network/*), else along ``label_dims[path]``.
    checks : list[dict]
        Brief checklist items: item, value, limit, unit, headroom, pass, note.
    notes : list[str]
        Fidelity tiers and caveats.
    warnings : list[str]
        Inputs used otherwise than written (e.g. an async stall capped at the write time).
    scenario_name, scenario_file, scenario_text, seed
        What produced the results (the YAML text reproduces the run).
    """

    def __init__(self, raw):
        self._raw = raw
        self.scenario_name = raw.get("scenario_name", "")
        self.scenario_file = raw.get("scenario_file", "")
        self.scenario_text = raw.get("scenario_text", "")
        self.seed = int(raw.get("seed", 0))
        self.summary = {s["key"]: float(s["value"]) for s in raw.get("summary", [])}
        self.units = {s["key"]: s.get("unit", "") for s in raw.get("summary", [])}
        self.descriptions = {s["key"]: s.get("description", "") for s in raw.get("summary", [])}
        self.datasets, self.dataset_units, self.dataset_dims, self.dataset_descriptions = {}, {}, {}, {}
        self.dataset_flags = {}
        for d in raw.get("datasets", []):
            arr = np.asarray(d["data"], dtype=float)
            shape = tuple(d.get("shape", arr.shape))
            self.datasets[d["path"]] = arr.reshape(shape)
            self.dataset_units[d["path"]] = d.get("unit", "")
            self.dataset_dims[d["path"]] = list(d.get("dims", []))
            self.dataset_descriptions[d["path"]] = d.get("description", "")
            if d.get("flag_meanings"):
                self.dataset_flags[d["path"]] = list(d["flag_meanings"])
        self.labels = {l["path"]: list(l["values"]) for l in raw.get("labels", [])}
        self.label_descriptions = {l["path"]: l.get("description", "") for l in raw.get("labels", [])}
        self.label_dims = {l["path"]: l.get("dim") or l["path"].rsplit("/", 1)[-1] for l in raw.get("labels", [])}
        self.checks = [dict(c) for c in raw.get("checks", [])]
        self.notes = list(raw.get("notes", []))
        self.warnings = list(raw.get("warnings", []))

    # access --------------------------------------------------------------------------------
    def __getitem__(self, key):
        """A summary value (``r["step_time"]``) or a dataset (``r["/network/link_utilization"]``)."""
        if key in self.summary:
            return self.summary[key]
        if key in self.datasets:
            return self.datasets[key]
        if key in self.labels:
            return self.labels[key]
        raise KeyError(key)

    def __contains__(self, key):
        return key in self.summary or key in self.datasets or key in self.labels

    def to_raw(self):
        """The plain data this object was built from (dicts, lists, numpy arrays)."""
        return self._raw

    def __reduce__(self):
        return (Results, (self._raw,))

    #: What repr() shows first: the headline a researcher looks for (the first summary values are
    #: gpus, parameters and step_time twice, at full and at throttled clocks).
    _REPR_KEYS = ("gpus", "step_time", "mfu", "time_to_train_p50", "max_link_utilization", "max_gpu_temperature")

    def __repr__(self):
        def value(k):
            unit = self.units.get(k, "")
            return f"{k}={self.summary[k]:.4g}" + ("" if unit in ("", "1") else f" {unit}")
        head = ", ".join(value(k) for k in self._REPR_KEYS if k in self.summary)
        return (f"<aidcsim.Results {self.scenario_name!r}: {len(self.summary)} values, "
                f"{len(self.datasets)} datasets; {head}>")

    def _repr_html_(self):
        return self.to_pandas()._repr_html_()

    # tables --------------------------------------------------------------------------------
    def to_pandas(self):
        """Summary as a pandas.DataFrame with columns key, value, unit, description (one row per
        summary value, in the engine's order)."""
        import pandas as pd
        return pd.DataFrame({"key": list(self.summary), "value": list(self.summary.values()),
                             "unit": [self.units[k] for k in self.summary],
                             "description": [self.descriptions[k] for k in self.summary]})

    def checks_frame(self):
        """Checklist as a pandas.DataFrame: item, value, limit, unit, headroom, pass, note."""
        import pandas as pd
        cols = ["item", "value", "limit", "unit", "headroom", "pass", "note"]
        return pd.DataFrame([{c: ch.get(c) for c in cols} for ch in self.checks], columns=cols)

    def dataset_frame(self, path):
        """A 1-D or 2-D dataset as a pandas.DataFrame, indexed by its labels where known
        (e.g. link names for a "link" axis). Raises KeyError if absent, ValueError if > 2-D."""
        import pandas as pd
        arr = self.datasets[path]
        dims = self.dataset_dims.get(path) or [f"dim_{i}" for i in range(arr.ndim)]
        coords = [self._coord(path, d, n) for d, n in zip(dims, arr.shape)]
        if arr.ndim == 1:
            return pd.DataFrame({path.rsplit("/", 1)[-1]: arr},
                                index=pd.Index(coords[0], name=dims[0]))
        if arr.ndim == 2:
            return pd.DataFrame(arr, index=pd.Index(coords[0], name=dims[0]),
                                columns=pd.Index(coords[1], name=dims[1]))
        raise ValueError(f"{path} has {arr.ndim} dimensions; use to_xarray()")

    #: The per-stage partition of the step (/step/stage_<part>, s; /step/stage_<part>_fraction, 1).
    _STAGE_PARTS = ("compute", "exposed_communication", "bubble")

    def stage_busy_frame(self, seconds=False):
        """Where each pipeline stage's GPUs spend the training step, as a pandas.DataFrame indexed by
        ``stage`` (0 .. pp-1; every DP / TP rank of a stage runs alike) with the columns
        ``compute`` (forward, backward, optimizer), ``exposed_communication`` (transfers the GPU
        waits on, not hidden under compute) and ``bubble`` (pipeline bubble: fill, drain, stage
        imbalance).

        Values are fractions of ``summary["step_time"]`` (unit "1", each row sums to 1 to
        rounding), or with ``seconds=True`` seconds per step (each row sums to the step time); the
        unit is in ``df.attrs["units"]``. Read from the datasets /step/stage_<column>_fraction or
        /step/stage_<column> (shape [stage]). The GPU load the power and thermal models were given,
        ``summary["gpu_compute_busy"]`` / ``summary["gpu_comm_busy"]``, is the mean of the
        ``compute`` / ``exposed_communication`` columns (the rest, the bubble, is idle).

        Raises KeyError when the results have no per-stage datasets (files of aidcsim before them).
        """
        import pandas as pd
        seconds = _args.flag(seconds, "seconds")
        suffix = "" if seconds else "_fraction"
        paths = [f"/step/stage_{p}{suffix}" for p in self._STAGE_PARTS]
        missing = [p for p in paths if p not in self.datasets]
        if missing:
            raise KeyError(f"no per-stage step breakdown in these results ({', '.join(missing)} absent)")
        cols = {p: np.asarray(self.datasets[path], dtype=float) for p, path in zip(self._STAGE_PARTS, paths)}
        n = len(cols["compute"])
        df = pd.DataFrame(cols, index=pd.Index(self._coord(paths[0], "stage", n), name="stage"))
        df.attrs["units"] = self.dataset_units.get(paths[0], "s" if seconds else "1")
        return df

    def _coord(self, path, dim, n):
        """Coordinate values of axis `dim` (length n) of dataset `path`: a dataset or label list
        named after the axis in the same group ("/thermal/time" for dim "time"), else 0..n-1."""
        group = path.rsplit("/", 1)[0]
        for cand in (f"{group}/{dim}", f"{group}/{dim}_name", f"{group}/{dim}s", f"/{dim}"):
            if cand == path:
                continue
            if cand in self.datasets and self.datasets[cand].shape == (n,):
                return self.datasets[cand]
            if cand in self.labels and len(self.labels[cand]) == n:
                return self.labels[cand]
        return np.arange(n)

    def to_xarray(self, group=None):
        """Datasets as an xarray.Dataset (needs python3-xarray): one variable per dataset with
        named dims (from the engine's ``dims``), coordinates from same-named datasets/labels of
        the group, units in ``attrs["units"]``. `group` ("/thermal") keeps one HDF5 group only.

        The cooling-fault transient (/thermal/transient/*, written when the scenario schedules
        cooling.faults) comes first: its series share the ``time`` coordinate, in s, taken from
        /thermal/transient/time (not repeated as a variable). A later dataset whose dim clashes
        with an earlier extent gets that dim renamed "<group>_<dim>" ("network_time"); one that
        still clashes is skipped."""
        import xarray as xr
        ds = xr.Dataset(attrs={"scenario": self.scenario_name, "seed": self.seed})
        extents = {}
        transient = "/thermal/transient/"
        paths = sorted(self.datasets, key=lambda p: not p.startswith(transient))  # stable: engine order otherwise
        tt = self.datasets.get(transient + "time")
        if tt is not None and tt.ndim == 1 and (not group or transient.startswith(group.rstrip("/") + "/")):
            ds = ds.assign_coords(time=xr.DataArray(tt, dims=["time"], attrs={
                "units": self.dataset_units.get(transient + "time", "s"),
                "description": self.dataset_descriptions.get(transient + "time", "")}))
            extents["time"] = tt.size
        for path in paths:
            arr = self.datasets[path]
            if group and not path.startswith(group.rstrip("/") + "/"):
                continue
            if path == transient + "time" and "time" in ds.coords:
                continue
            dims = self.dataset_dims.get(path) or []
            if len(dims) != arr.ndim:
                dims = [f"{path.strip('/').replace('/', '_')}_dim{i}" for i in range(arr.ndim)]
            if any(extents.get(d, n) != n for d, n in zip(dims, arr.shape)):
                prefix = path.strip("/").split("/")[0]
                dims = [f"{prefix}_{d}" if extents.get(d, n) != n else d for d, n in zip(dims, arr.shape)]
            if any(extents.get(d, n) != n for d, n in zip(dims, arr.shape)):
                continue
            extents.update(zip(dims, arr.shape))
            name = path.strip("/").replace("/", ".")
            attrs = {"units": self.dataset_units.get(path, ""),
                     "description": self.dataset_descriptions.get(path, "")}
            if path in self.dataset_flags:  # integer codes, as in the HDF5 file (CF flags)
                meanings = self.dataset_flags[path]
                arr = arr.astype(np.int8 if len(meanings) <= 128 else np.int32)
                attrs.update(flag_values=np.arange(len(meanings), dtype=arr.dtype),
                             flag_meanings=" ".join(meanings))
            ds[name] = xr.DataArray(arr, dims=dims, attrs=attrs)
            for d, n in zip(dims, arr.shape):
                if d not in ds.coords:
                    c = self._coord(path, d, n)
                    if not (isinstance(c, np.ndarray) and c.dtype.kind == "i"):
                        ds = ds.assign_coords({d: np.asarray(c)})
        return ds

    # files ---------------------------------------------------------------------------------
    def to_hdf5(self, path):
        """Writes the HDF5 file ``aidcsim run --output`` writes (C++ writer, sim/results): root
        attributes and a ``units`` attribute on every dataset. Raises aidcsim.Error on I/O."""
        path = _args.path(path, "path")
        _native.core().write_hdf5(self._raw, path)
        return path

    def to_json(self, path=None):
        """Writes the JSON summary ``aidcsim run --json`` writes (C++ writer) to `path`; with no
        path, returns it as a dict instead."""
        core = _native.core()
        if path is None:
            return json.loads(core.summary_json(self._raw))
        path = _args.path(path, "path")
        core.write_json(self._raw, path)
        return path

    @classmethod
    def from_hdf5(cls, path):
        """Reads an HDF5 results file (from ``aidcsim run --output`` or to_hdf5) with h5py. Raises
        FileError (an OSError) when it cannot be read or is not an HDF5 file."""
        from . import h5io
        path = _args.path(path, "path")
        try:
            return cls(h5io.read_raw(path))
        except OSError as e:
            if isinstance(e, FileError):
                raise
            raise FileError(f"cannot read results file '{path}': {e.strerror or e}", e.errno, path) from None
