"""Design comparison: several designs (scenario files, each with its own overrides), each run over
the same N seeds (the seed sets the ECMP hashes and the failure Monte Carlo), side by side with
the seed spread, 95 % confidence intervals and deltas against the first design; a difference no
larger than the seed spread is flagged, because another seed could reverse it.

    c = aidcsim.compare(["scenarios/stargate-uk-8k.yaml",
                         ("scenarios/stargate-uk-8k.yaml", {"fabric.oversubscription.spine": "4:1"})],
                        seeds=4)
    c.stats        # pandas: one row per design and metric (mean, std, min, max, ci95, delta, ...)
    c.table()      # pandas: metrics x designs, means
    print(c.format())
    c.to_json("compare.json"); c.to_hdf5("compare.h5"); c.plot("compare.png")

CLI (what ``aidcsim compare`` calls)::

    python3 -m aidcsim compare A.yaml [--set KEY=VALUE]... [--name NAME] B.yaml [--set ...] ...
        [--set-all KEY=VALUE]... [--seeds N] [--seed S] [--json F] [--hdf5 F] [--png F]
        [-j N] [--scheduler ADDR] [--progress]

``--set`` and ``--name`` apply to the design file before them (the same file may appear twice with
different ``--set``); ``--set-all`` applies to every design.
"""

import json
import math
import os
import stat
import sys

from . import _args, _cli, _native, limits
from ._files import atomic_write as _atomic_write
from .errors import Error
from .scenario import SET_FROM_PYTHON, Scenario, as_scenario, yaml_load
from .sweep import _cpus, _run_locally, _run_on_dask

#: Metrics of the table, in order: (summary key, label, "higher" | "lower" is better | None).
#: Keys absent from every run's summary are left out of the table.
METRICS = [
    ("step_time", "step time", "lower"),
    ("tokens_per_second", "tokens/s", "higher"),
    ("mfu", "MFU", "higher"),
    ("time_to_train_p10", "time-to-train p10", "lower"),
    ("time_to_train_p50", "time-to-train p50", "lower"),
    ("time_to_train_p90", "time-to-train p90", "lower"),
    ("time_to_train_with_faults", "time-to-train with cooling faults", "lower"),
    ("cooling_faults_lost_training_time", "training lost to cooling faults", "lower"),
    ("max_link_utilization", "busiest link, step average", None),
    ("peak_link_utilization", "busiest link, busiest bin", None),
    ("links_above_80_busiest_bin", "links > 80 %, busiest bin", "lower"),
    ("time_above_80", "step time with a link > 80 %", "lower"),
    ("rdma_latency_p99", "RDMA p99 latency (estimate)", "lower"),
    ("fabric_tiers", "switch tiers (as built)", None),
    ("oversubscription_leaf", "oversubscription leaf", None),
    ("oversubscription_spine", "oversubscription spine", None),
    ("bisection_bandwidth", "bisection bandwidth", "higher"),
    ("switches", "switches", "lower"),
    ("bom_leaves", "leaf switches", None),
    ("bom_spines", "spine switches", None),
    ("bom_cores", "core switches", None),
    ("links_copper", "copper (DAC) links", None),
    ("links_multimode", "multimode optical links", None),
    ("links_singlemode", "single-mode optical links", None),
    ("optical_modules", "optical modules", "lower"),
    ("cable_length", "cable length (layout estimate)", "lower"),
    ("fabric_power", "fabric power (switches+optics+NICs)", "lower"),
    ("fabric_cost", "fabric cost (indicative)", "lower"),
    ("fabric_cost_per_gpu", "fabric cost per GPU (indicative)", "lower"),
    ("it_power", "IT power", "lower"),
    ("facility_power", "facility power", "lower"),
    ("pue", "PUE", "lower"),
    ("checks_passed", "checks passed", "higher"),
]

#: Relative difference below which two means (or a spread) are rounding, not a difference: sums
#: over thousands of flows in another order differ in the last bits.
_EQUAL = 1e-9

_BOM_KEYS = ("leaves", "spines", "cores")


#: The ``units`` attribute of a long-format HDF5 column whose unit varies by row: row i is in the
#: unit of row i of the ``unit`` column of the same group (named by the ``units_column`` attribute).
UNITS_FROM_COLUMN = "see column unit"
_STATS_UNITS = {**{c: UNITS_FROM_COLUMN for c in ("mean", "std", "min", "max", "spread", "ci95", "delta")},
                "delta_pct": "%"}
_CHECKS_UNITS = {"value_mean": UNITS_FROM_COLUMN, "limit": UNITS_FROM_COLUMN}


class Comparison:
    """The outcome of compare(): pandas frames and the designs.

    Attributes
    ----------
    designs : list[dict]
        name, file, overrides (dict) of each design, in the order given (the first is the
        reference of the deltas).
    seeds : list[int]
        The seeds every design ran with (the same for all: paired runs).
    runs : pandas.DataFrame
        One row per design and seed: ``design``, ``seed`` and every summary value of that run
        (plus ``bom_*`` counts and ``checks_passed``/``checks_total``); units in ``runs.attrs["units"]``.
    stats : pandas.DataFrame
        One row per design and metric of METRICS: ``design, metric, label, unit, n, mean, std``
        (sample, ddof=1), ``min, max, spread`` (max - min over seeds), ``ci95`` (half-width of the
        95 % Student-t interval of the mean; NaN for one seed), ``delta`` and ``delta_pct``
        (mean - the first design's mean, and relative to it), ``within_spread`` (True when the
        delta is non-zero but no larger than the larger seed spread of the two designs: the
        ranking is not established by these seeds).
    checks : pandas.DataFrame
        One row per design and checklist item: ``design, item, passed, runs`` (seeds where it
        passed, seeds run), ``unit, value_mean, limit``.
    warnings : dict[str, list[str]]
        Per design, the distinct warnings of its runs (e.g. the fabric as built).
    """

    def __init__(self, designs, seeds, runs, stats, checks, warnings):
        self.designs, self.seeds, self.runs, self.stats, self.checks, self.warnings = (
            designs, seeds, runs, stats, checks, warnings)

    @property
    def names(self):
        """Design names (list of str), in the order given: the columns of table()."""
        return [d["name"] for d in self.designs]

    def table(self, column="mean"):
        """Metrics x designs (rows in METRICS order, columns in design order) of one stats column."""
        t = self.stats.pivot(index="metric", columns="design", values=column)
        order = [m for m, _, _ in METRICS if m in t.index]
        return t.loc[order, self.names]

    def format(self):
        """The side-by-side text table, then per design the failing checks and warnings."""
        return _format(self)

    def to_dict(self):
        """Plain data (what to_json writes): designs, seeds, stats, checks, runs, warnings, units."""
        return {
            "designs": self.designs,
            "seeds": self.seeds,
            "stats": _records(self.stats),
            "checks": _records(self.checks),
            "runs": _records(self.runs),
            "warnings": self.warnings,
            "units": dict(self.runs.attrs.get("units", {})),
        }

    def to_json(self, path=None):
        """JSON text of to_dict() (NaN as null); written whole to `path` if given (_files.atomic_write)."""
        text = json.dumps(self.to_dict(), indent=1, allow_nan=False)
        if path is not None:
            _atomic_write(path, lambda f: f.write(text.encode("utf-8")))
        return text

    def to_hdf5(self, path):
        """HDF5 file (h5py): groups /stats, /checks, /runs with one dataset per column (strings
        as UTF-8, booleans as int8), /designs (name, file, overrides as JSON) and /seeds. Every
        dataset has a ``units`` attribute (CF, as in ``aidcsim run``'s HDF5 files): the metric's unit
        for a /runs column (also as ``unit``, the name earlier versions wrote), ``"1"`` for counts,
        flags, seeds and text, ``"%"`` for /stats/delta_pct, and for the long-format columns whose
        unit varies by row (/stats mean, std, min, max, spread, ci95, delta; /checks value_mean,
        limit) ``"see column unit"`` (UNITS_FROM_COLUMN) with ``units_column = "unit"``: row i is in
        the unit of row i of the group's ``unit`` dataset. Raises ValueError (a bug) for a numeric
        column of no known unit rather than writing one without. Written whole
        (_files.atomic_write). Root attributes: aidcsim_version, git_sha, created_by."""
        import h5py
        import numpy as np

        def frame(g, df, units):
            for col in df.columns:
                v = df[col]
                if v.dtype == bool:
                    ds = g.create_dataset(col, data=v.to_numpy().astype("int8"))
                elif v.dtype.kind in "fiu":
                    ds = g.create_dataset(col, data=v.to_numpy())
                else:
                    ds = g.create_dataset(col, data=np.array([_str(x) for x in v], dtype=h5py.string_dtype()))
                unit = units.get(col)
                if unit is None and v.dtype.kind == "f":
                    raise ValueError(f"{g.name}/{col}: no unit known for this column")
                ds.attrs["units"] = "1" if unit is None else unit  # text, counts, flags: dimensionless
                if unit == UNITS_FROM_COLUMN:
                    ds.attrs["units_column"] = "unit"

        def write(out):
            from ._version import __git_sha__, __version__
            with h5py.File(out, "w") as f:
                # provenance, as `aidcsim run --output` writes it: what made this file
                f.attrs["aidcsim_version"] = __version__
                f.attrs["git_sha"] = __git_sha__
                f.attrs["created_by"] = f"aidcsim.compare {__version__}"
                frame(f.create_group("stats"), self.stats, _STATS_UNITS)
                frame(f.create_group("checks"), self.checks, _CHECKS_UNITS)
                runs = f.create_group("runs")
                run_units = dict(self.runs.attrs.get("units", {}))
                frame(runs, self.runs, run_units)
                for col, unit in run_units.items():
                    if col in runs:
                        runs[col].attrs["unit"] = unit   # the name of format 1 of this file, kept for its readers
                d = f.create_group("designs")
                for name, values in (("name", self.names), ("file", [x["file"] for x in self.designs]),
                                     ("overrides", [json.dumps(x["overrides"]) for x in self.designs])):
                    d.create_dataset(name, data=np.array(values, dtype=h5py.string_dtype())).attrs["units"] = "1"
                f.create_dataset("seeds", data=np.array(self.seeds, dtype="int64")).attrs["units"] = "1"

        _atomic_write(path, write)

    def plot(self, path=None):
        """A figure of the headline metrics per design: mean with the seed range (error bars) and
        every seed's value (dots). Saved to `path` (PNG) if given; returns the matplotlib Figure."""
        return _plot(self, path)

    def __repr__(self):
        return f"<Comparison of {len(self.designs)} designs x {len(self.seeds)} seeds>"

    def _repr_html_(self):
        return self.table().to_html()


def _str(x):
    return "" if x is None else str(x)


def _records(df):
    out = []
    for row in df.to_dict(orient="records"):
        out.append({k: (None if isinstance(v, float) and not math.isfinite(v) else
                        (v.item() if hasattr(v, "item") else v)) for k, v in row.items()})
    return out


def _designs(designs, names):
    """[(name, Scenario, overrides dict, file)] from compare()'s `designs` argument."""
    if isinstance(designs, dict):
        names = list(designs) if names is None else names
        designs = list(designs.values())
    out = []
    for i, d in enumerate(designs):
        over = {}
        if isinstance(d, tuple):
            if len(d) != 2 or not isinstance(d[1], dict):
                raise ValueError(f"design {i}: expected a scenario or (scenario, {{key: value}}), got {d!r}")
            d, over = d
        s = as_scenario(d)
        file = os.fspath(d) if isinstance(d, (str, os.PathLike)) else s.name
        out.append([None, s, dict(over), file])
    if len(out) < 1:
        raise ValueError("compare needs at least one design")
    if names is not None and len(names) != len(out):
        raise ValueError(f"{len(names)} names for {len(out)} designs")
    for i, o in enumerate(out):
        if names is not None and names[i] is not None:
            o[0] = str(names[i])
            continue
        stem = os.path.splitext(os.path.basename(o[3]))[0] if o[3] else str(o[1].get("name", "design"))
        o[0] = stem + ("" if not o[2] else " [" + ", ".join(f"{k.split('.')[-1]}={v}" for k, v in o[2].items()) + "]")
    seen = {}
    for o in out:  # unique names: a repeated one gets #2, #3
        seen[o[0]] = seen.get(o[0], 0) + 1
        if seen[o[0]] > 1:
            o[0] = f"{o[0]} #{seen[o[0]]}"
    return [tuple(o) for o in out]


def _t95(n):
    """Two-sided 95 % Student-t quantile for n samples (scipy.stats.t.ppf(0.975, n - 1))."""
    from scipy.stats import t
    return float(t.ppf(0.975, n - 1))


def seed_stats(runs, designs, units=None):
    """Statistics over seeds per design and metric of METRICS (the ``stats`` frame of Comparison).

    runs: DataFrame with a ``design`` column and one column per metric (one row per seed);
    designs: names in order, the first is the reference; units: {metric: unit}. Metrics absent
    from `runs` are skipped. mean, std (ddof=1), min, max, spread = max - min, ci95 = t(0.975,
    n-1) std / sqrt(n) (NaN for n = 1), delta = mean - reference mean, delta_pct = 100 delta /
    reference mean, within_spread = |delta| > 1e-9 |reference mean| (not a rounding difference)
    and n > 1 and |delta| <= max(spread, reference spread).
    """
    import pandas as pd

    units = units or {}
    stats = []
    ref = {}
    for name in designs:
        sub = runs[runs["design"] == name]
        for metric, label, _better in METRICS:
            if metric not in runs.columns or runs[metric].isna().all():
                continue
            v = sub[metric].astype(float)
            n = int(v.notna().sum())
            mean = float(v.mean()) if n else math.nan
            std = float(v.std(ddof=1)) if n > 1 else math.nan
            lo, hi = (float(v.min()), float(v.max())) if n else (math.nan, math.nan)
            ci = _t95(n) * std / math.sqrt(n) if n > 1 else math.nan
            stats.append({"design": name, "metric": metric, "label": label, "unit": units.get(metric, ""),
                          "n": n, "mean": mean, "std": std, "min": lo, "max": hi, "spread": hi - lo, "ci95": ci})
            if name == designs[0]:
                ref[metric] = stats[-1]
    for st in stats:
        r = ref.get(st["metric"])
        if r is None:
            st["delta"], st["delta_pct"], st["within_spread"] = math.nan, math.nan, False
            continue
        d = st["mean"] - r["mean"]
        st["delta"] = d
        st["delta_pct"] = 100.0 * d / r["mean"] if r["mean"] else math.nan
        spread = max(st["spread"], r["spread"])
        st["within_spread"] = bool(abs(d) > _EQUAL * abs(r["mean"]) and st["n"] > 1 and abs(d) <= spread)
    return pd.DataFrame(stats)


def compare(designs, seeds=3, seed=None, overrides=None, names=None, client=None, processes=None,
            progress=None):
    """Runs every design at the same `seeds` seeds and compares them.

    Parameters
    ----------
    designs : list | dict
        Each a scenario (path, Scenario or dict) or a tuple (scenario, {dotted key: value}) of
        overrides for that design; a dict maps names to such designs. The first is the reference.
    seeds : int
        Seeds per design (>= 1): seed, seed + 1, ..., the same for every design (paired runs).
    seed : int, optional
        First seed; default: the first design's ``seed`` key (42 if absent).
    overrides : dict, optional
        Dotted key -> value applied to every design before its own overrides.
    names : list[str | None], optional
        Design names (default, or None in the list: file stem plus its overrides).
    client, processes, progress
        As for sweep(): a dask.distributed Client, local worker processes (default min(runs,
        CPUs)), a progress bar (True) or callable(stage, fraction).

    Returns
    -------
    Comparison
        Frames ``runs``, ``stats``, ``checks`` (see Comparison), ``table()``, ``format()``,
        ``to_json``, ``to_hdf5``, ``plot``.

    Raises
    ------
    ParameterError (a ValueError)
        seeds not an integer from 1 to limits.MAX_SWEEP_POINTS, more than that many runs in all
        (designs x seeds), a seed outside 0 .. limits.MAX_SEED, processes outside 0 ..
        limits.MAX_PROCESSES; ValueError: malformed designs or
        names.
    ScenarioError
        A design that does not load, with its design named, before any run.
    ScenarioError, SimulationError
        The first failing run's error, with its design and seed added to the message (all runs
        finish first).
    """
    import pandas as pd

    seeds = _args.integer(seeds, "seeds", 1, limits.MAX_SWEEP_POINTS)
    if seed is not None:
        _args.integer(seed, "seed", 0, limits.MAX_SEED)
    if processes is not None:  # as sweep() checks it (-1 ran, 2**64 was an OverflowError in a pool)
        _args.integer(processes, "processes", 0, limits.MAX_PROCESSES)
    ds = _designs(designs, names)
    limits.check_runs(len(ds) * seeds, "seeds", seeds, f"{len(ds)} designs x {seeds} seeds")
    common = dict(overrides or {})
    if seed is None:
        first = ds[0][1].copy()
        first.update(common)
        first.update(ds[0][2])
        seed = int(first.get("seed", 42))
    _args.integer(int(seed) + seeds - 1, "seed", None, limits.MAX_SEED)  # the last seed of the runs
    seed_list = [int(seed) + i for i in range(seeds)]
    # A design that does not load (a typo in its overrides) fails before any run: the loader is
    # cheap, the other designs' runs are not (minutes each at 31K GPUs). The validation's fabric
    # gives the BOM counts of the table (the seed does not change them), so it is built once here.
    boms = {}
    for name, s, over, _ in ds:
        d = s.copy()
        d.update({**common, **over})
        try:
            b = d._validate(bom=True)[1]
        except Error as e:
            if e.args and isinstance(e.args[0], str):
                e.args = (f"design {name!r} (before any run): {e.args[0]}",) + e.args[1:]
            raise
        boms[name] = {f"bom_{k}": b[k] for k in _BOM_KEYS if k in b}
    args, keys = [], []
    for name, s, over, _ in ds:
        text, sname = s._source()
        for sd in seed_list:
            args.append((text, sname, {**common, **over}, sd))
            keys.append((name, sd))
    if client is not None:
        outcomes = _run_on_dask(client, args, progress)
    else:
        n = processes if processes is not None else min(len(args), _cpus())
        outcomes = _run_locally(args, n, progress, desc="compare")
    for (name, sd), (status, payload) in zip(keys, outcomes):
        if status != "ok":
            if hasattr(payload, "args") and payload.args and isinstance(payload.args[0], str):
                payload.args = (f"design {name!r}, seed {sd}: {payload.args[0]}",) + payload.args[1:]
            raise payload

    rows, units, check_rows, warnings = [], {}, {}, {}
    for (name, sd), (_, out) in zip(keys, outcomes):
        row = {"design": name, "seed": sd}
        row.update(out["summary"])
        row.update(boms[name])
        row["checks_passed"] = sum(1 for c in out["checks"] if c.get("pass"))
        row["checks_total"] = len(out["checks"])
        rows.append(row)
        units.update(out["units"])
        for c in out["checks"]:
            r = check_rows.setdefault((name, c["item"]), {"design": name, "item": c["item"], "passed": 0, "runs": 0,
                                                          "unit": c.get("unit", ""), "values": [],
                                                          "limit": c.get("limit")})
            r["passed"] += bool(c.get("pass"))
            r["runs"] += 1
            r["values"].append(c.get("value"))
        w = warnings.setdefault(name, [])
        for x in out["warnings"]:
            if x not in w:
                w.append(x)
    for k in boms[ds[0][0]]:
        units.setdefault(k, "1")
    units.update({"checks_passed": "1", "checks_total": "1"})
    runs = pd.DataFrame(rows)
    runs.attrs["units"] = units

    stats = seed_stats(runs, [name for name, *_ in ds], units)

    crow = []
    for r in check_rows.values():
        vals = [x for x in r.pop("values") if isinstance(x, (int, float))]
        r["value_mean"] = sum(vals) / len(vals) if vals else math.nan
        crow.append(r)
    checks = pd.DataFrame(crow, columns=["design", "item", "passed", "runs", "unit", "limit", "value_mean"])
    info = [{"name": name, "file": file, "overrides": {**common, **over}} for name, _, over, file in ds]
    return Comparison(info, seed_list, runs, stats, checks, warnings)


def _fmt(x):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    a = abs(x)
    if a == 0:
        return "0"
    if float(x).is_integer() and a < 1e15:
        return f"{int(x):,}"
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.1f}"
    if a >= 10:
        return f"{x:.2f}"
    return f"{x:#.3g}" if a < 1 else f"{x:.3f}"  # '#': 3 significant digits, 0.160 not 0.16


def _fmt_pct(pct):
    """A difference in % for the table: one decimal, three when it rounds below 0.1 % (0.049 ->
    "+0.049 %"); the choice is made on the rounded value, so -0.09998 is "-0.1 %", not "-0.100 %"."""
    digits = 1 if round(abs(pct), 1) >= 0.1 else 3
    return f"{pct:+.{digits}f} %"


def _format(c):
    names = c.names
    st = c.stats.set_index(["metric", "design"])
    header = ["metric", "unit"] + names
    lines = []
    for metric, label, _ in METRICS:
        if (metric, names[0]) not in st.index:
            continue
        cells = [label, st.loc[(metric, names[0]), "unit"]]
        for i, name in enumerate(names):
            s = st.loc[(metric, name)]
            cell = _fmt(s["mean"])
            if s["n"] > 1 and s["spread"] > _EQUAL * abs(s["mean"]):
                cell += f" ±{_fmt(s['ci95'])}"
            ref = st.loc[(metric, names[0]), "mean"]
            if i > 0 and math.isfinite(s["delta"]) and abs(s["delta"]) > _EQUAL * abs(ref):
                pct = s["delta_pct"]
                cell += f" ({_fmt_pct(pct)})" if math.isfinite(pct) else f" ({s['delta']:+g})"
                if s["within_spread"]:
                    cell += " ~"
            cells.append(cell)
        lines.append(cells)
    widths = [max(len(str(r[i])) for r in [header] + lines) for i in range(len(header))]
    out = [f"Comparison of {len(names)} designs over {len(c.seeds)} seeds ({c.seeds[0]}..{c.seeds[-1]}, "
           f"the same for every design)", ""]
    fmt_row = lambda r: "  ".join(str(x).ljust(w) if i < 2 else str(x).rjust(w) for i, (x, w) in enumerate(zip(r, widths)))
    out.append(fmt_row(header))
    out.append("  ".join("-" * w for w in widths))
    out.extend(fmt_row(r) for r in lines)
    out.append("")
    out.append("mean over seeds ± half-width of its 95 % confidence interval (Student t); (Δ %) against "
               f"{names[0]};")
    out.append("~ : the difference is no larger than the seed spread (max - min over seeds) of either design, "
               "so these seeds do not establish it.")
    for d in c.designs:
        name = d["name"]
        sub = c.checks[c.checks["design"] == name]
        failing = sub[sub["passed"] < sub["runs"]]
        out.append("")
        over = ", ".join(f"{k}={v}" for k, v in d["overrides"].items())
        out.append(f"{name}: {d['file']}" + (f" with {over}" if over else ""))
        if failing.empty:
            out.append(f"  checks: all {len(sub)} pass in every seed")
        else:
            out.append(f"  checks failing ({len(failing)} of {len(sub)}):")
            for _, r in failing.iterrows():
                unit = "" if r["unit"] in ("", "1") else " " + r["unit"]
                out.append(f"    {r['item']}: passed in {r['passed']} of {r['runs']} seeds "
                           f"(mean {_fmt(r['value_mean'])}{unit}, limit {_fmt(r['limit'])}{unit})")
        for w in c.warnings.get(name, []):
            out.append(f"  warning: {w}")
    return "\n".join(out)


def _plot(c, path):
    import matplotlib
    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import numpy as np

    panels = [m for m in ("step_time", "tokens_per_second", "mfu", "time_to_train_p50",
                          "time_above_80", "it_power", "fabric_power", "fabric_cost")
              if (c.stats["metric"] == m).any()]
    cols = 4
    rows = max(1, math.ceil(len(panels) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    names = c.names
    x = np.arange(len(names))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    labels = {m: lab for m, lab, _ in METRICS}
    for ax, metric in zip(axes.flat, panels):
        st = c.stats[c.stats["metric"] == metric].set_index("design").loc[names]
        mean = st["mean"].to_numpy()
        err = np.vstack([mean - st["min"].to_numpy(), st["max"].to_numpy() - mean])
        ax.bar(x, mean, color=[colors[i % len(colors)] for i in range(len(names))], alpha=0.6,
               label="mean over seeds")
        ax.errorbar(x, mean, yerr=err, fmt="none", ecolor="k", capsize=4, label="seed range")
        for i, name in enumerate(names):
            v = c.runs.loc[c.runs["design"] == name, metric].to_numpy(dtype=float)
            ax.plot(np.full(v.size, x[i]), v, "k.", ms=4, label="one seed" if i == 0 else None)
        if metric == "time_to_train_p50":
            for key, mk in (("time_to_train_p10", "v"), ("time_to_train_p90", "^")):
                if (c.stats["metric"] == key).any():
                    q = c.stats[c.stats["metric"] == key].set_index("design").loc[names, "mean"].to_numpy()
                    ax.plot(x, q, mk, color="C3", label=key.rsplit("_", 1)[1] + " (Monte Carlo, mean over seeds)")
        unit = st["unit"].iloc[0]
        ax.set_title(labels.get(metric, metric))
        ax.set_ylabel(f"{labels.get(metric, metric).split(' (')[0]} [{unit}]")
        ax.set_xticks(x)
        ax.set_xticklabels([f"{chr(65 + i)}" for i in range(len(names))])
        ax.set_xlabel("design")

    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    # One legend for the figure (every panel draws the same marks; p10/p90 only on time-to-train),
    # below the panels so that it hides no bar.
    handles = {}
    for ax in list(axes.flat)[:len(panels)]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    if handles:
        fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=len(handles), fontsize=8,
                   frameon=False)
    legend = "; ".join(f"{chr(65 + i)} = {n}" for i, n in enumerate(names))
    fig.suptitle(f"Design comparison over {len(c.seeds)} seeds ({c.seeds[0]}..{c.seeds[-1]})\n{legend}", fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    if path is not None:
        _atomic_write(path, lambda f: fig.savefig(f, dpi=110, format="png"))
    return fig


def _parse_set(text, flag):
    if "=" not in text:
        raise ValueError(f"{flag} {text!r}: expected KEY=VALUE")
    k, v = text.split("=", 1)
    k = k.strip()
    if not k:
        raise ValueError(f"{flag} {text!r}: empty key")
    return k, yaml_load(v) if v.strip() else v


_VALUED = {"--set", "--name", "--set-all", "--seeds", "--seed", "--json", "--hdf5", "--png", "-j",
           "--processes", "--scheduler"}


def parse_args(argv):
    """(designs [(file, overrides, name|None)], argparse.Namespace) from the command line; --set and
    --name bind to the design file before them. Raises ValueError for a misplaced --set/--name."""
    designs, rest = [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        flag, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if flag in ("--set", "--name"):
            if not eq:
                if i + 1 >= len(argv):
                    raise ValueError(f"{flag} needs a value")
                val = argv[i + 1]
                i += 1
            if not designs:
                raise ValueError(f"{flag} {val!r} comes before any design file (--set-all applies to every design)")
            if flag == "--set":
                k, v = _parse_set(val, flag)
                designs[-1][1][k] = v
            else:
                designs[-1][2] = val
        elif a.startswith("-") and a != "-":
            rest.append(a)
            if flag in _VALUED and not eq and i + 1 < len(argv):
                rest.append(argv[i + 1])
                i += 1
        else:
            designs.append([a, {}, None])
        i += 1
    return designs, rest


def _said_as_typed(err, designs, common):
    """The error's text with a bad key's origin as the user wrote it: "(set on the command line with
    --set)" (or --set-all) instead of the Python API's "(set from Python)"."""
    text = str(err)
    if SET_FROM_PYTHON not in text:
        return text
    key = getattr(err, "key", "") or ""

    def has(over):
        return any(key == k or key.startswith(k + ".") or key.startswith(k + "[") for k in over)

    flags = [f for f, hit in (("--set", any(has(over) for _, over, _ in designs)), ("--set-all", has(common)))
             if hit] or ["--set"]
    return text.replace(SET_FROM_PYTHON, f"(set on the command line with {' or '.join(flags)})")


def _output_kind_error(json_path, hdf5_path, png_path):
    """The usage error of an output option given a file of another kind (`--json x.h5`), as `aidcsim
    run` refuses `--json x.h5` and `--output x.json`; None when the names fit."""
    def ends(path, *suffixes):
        return path is not None and path.lower().endswith(suffixes)
    if ends(json_path, ".h5", ".hdf5", ".he5", ".nc", ".png"):
        return f"--json: '{json_path}': --json writes JSON"
    if ends(hdf5_path, ".json", ".png"):
        return f"--hdf5: '{hdf5_path}': --hdf5 writes HDF5"
    if ends(png_path, ".json", ".h5", ".hdf5", ".he5", ".nc"):
        return f"--png: '{png_path}': --png writes a PNG image"
    return None


def _check_outputs(paths):
    """Raises aidcsim.FileError (exit 1) before any run when an output cannot be written (missing or
    unwritable directory, a directory) or two outputs name one file (character devices such as
    /dev/null excepted), as `aidcsim run` checks its outputs (sim/results/output_set.hpp)."""
    from .errors import FileError
    seen = {}
    for path in paths:
        _native.core().check_output(path)
        if os.path.exists(path) and stat.S_ISCHR(os.stat(path).st_mode):
            continue
        key = os.path.realpath(path) if path != "-" else "-"
        if key in seen:
            raise FileError(f"cannot write '{path}': the same file as another output ('{seen[key]}')",
                            filename=path)
        seen[key] = path


def _writes_stdout(path):
    """True when the output `path` is standard output ('-', /dev/stdout, /dev/fd/1, or a name of
    the file or pipe fd 1 is), so the table must go elsewhere."""
    if path in ("-", "/dev/stdout"):
        return True
    try:
        a, b = os.stat(path), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _print_table(table, stream=None):
    """Prints the table on `stream` (stdout by default); a reader that has gone (BrokenPipeError) is
    not an error of the comparison, whose files are written by then: the rest goes to /dev/null."""
    stream = stream or sys.stdout
    try:
        print(table, file=stream)
        stream.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def main(argv=None):
    """``aidcsim compare``: exit 0, 1 (a run failed, an output not written or not writable: checked
    before any run), 64 (usage error, e.g. `--json x.h5`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = _cli.ArgumentParser(
        prog="aidcsim compare",
        usage="aidcsim compare A.yaml [--set KEY=VALUE]... [--name NAME] B.yaml ... [options]",
        description="Runs each design over the same seeds and prints them side by side: mean ± 95 % CI, "
                    "delta against the first design, '~' where the difference is within the seed spread.")
    ap.add_argument("--set", metavar="KEY=VALUE", help="override for the design file before it (repeatable)")
    ap.add_argument("--name", help="name of the design file before it")
    ap.add_argument("--set-all", metavar="KEY=VALUE", action="append", default=[],
                    help="override applied to every design (repeatable), e.g. cluster.gpus=576")
    ap.add_argument("--seeds", type=int, default=3, help="seeds per design (default 3)")
    ap.add_argument("--seed", type=int, help="first seed (default: the first design's seed key)")
    ap.add_argument("--json", type=_cli.path_arg, help="write the comparison as JSON")
    ap.add_argument("--hdf5", type=_cli.path_arg, help="write the comparison as HDF5")
    ap.add_argument("--png", type=_cli.path_arg, help="write a figure of the headline metrics (PNG)")
    ap.add_argument("-j", "--processes", type=_cli.processes_arg, help="local worker processes (0 or 1: in this process)")
    ap.add_argument("--scheduler", help="dask.distributed scheduler address (tcp://host:8786)")
    ap.add_argument("--progress", action="store_true", help="show a progress bar (stderr)")
    if any(a in ("-h", "--help") for a in argv):
        ap.print_help()
        return 0
    try:
        designs, rest = parse_args(argv)
    except ValueError as e:
        _cli.usage_error(ap, str(e))
    a = ap.parse_args(rest)
    if not designs:
        _cli.usage_error(ap, "no design file given")
    if any(f == "" for f, _, _ in designs):  # as _cli.path_arg refuses an empty --json, and `run ''`
        _cli.usage_error(ap, "design file: the value is empty (give a path)")
    kind_error = _output_kind_error(a.json, a.hdf5, a.png)
    if kind_error:
        _cli.usage_error(ap, kind_error)
    for option, path in (("--json", a.json), ("--hdf5", a.hdf5), ("--png", a.png)):
        clash = _cli.output_over_input(option, path, [f for f, _, _ in designs])
        if clash:  # `compare s.yaml --json s.yaml` wrote the table over the design
            _cli.usage_error(ap, clash)
    if not 1 <= a.seeds <= limits.MAX_SWEEP_POINTS // len(designs):
        _cli.usage_error(ap, f"--seeds: got {a.seeds}, expected an integer from 1 to "
                             f"{limits.MAX_SWEEP_POINTS // len(designs)} ({len(designs)} designs, at most "
                             f"{limits.MAX_SWEEP_POINTS} runs: aidcsim.limits.MAX_SWEEP_POINTS)")
    if a.seed is not None and not 0 <= a.seed <= limits.MAX_SEED - (a.seeds - 1):
        _cli.usage_error(ap, f"--seed: got {a.seed}, expected an integer from 0 to {limits.MAX_SEED - (a.seeds - 1)} "
                             f"(the last of the {a.seeds} seeds at most {limits.MAX_SEED})")
    common = {}
    try:
        common = dict(_parse_set(x, "--set-all") for x in a.set_all)
        client = None
        if a.scheduler:
            from distributed import Client
            client = Client(a.scheduler)
        outputs = [(path, write) for path, write in ((a.json, "to_json"), (a.hdf5, "to_hdf5"), (a.png, "plot"))
                   if path]
        _check_outputs([path for path, _ in outputs])  # before any run, as `aidcsim run` and `sweep` do
        c = compare([(f, over) for f, over, _ in designs], seeds=a.seeds, seed=a.seed, overrides=common,
                    names=[n for _, _, n in designs], client=client, processes=a.processes,
                    progress=a.progress or None)
        # The files first, then the table: a reader of stdout that has gone (`| head`) must not
        # lose the outputs of the runs; when a file cannot be written, the table is still shown.
        table = c.format()
        # An output on stdout (`--json -`) gets stdout to itself: the table goes to stderr, as
        # `aidcsim run` moves its summary.
        console = sys.stderr if any(_writes_stdout(path) for path, _ in outputs) else sys.stdout
        try:
            for path, write in outputs:
                getattr(c, write)(path)
        except BaseException:
            _print_table(table, console)
            raise
        _print_table(table, console)
        for path, _ in outputs:
            try:
                print(f"wrote {path}", file=sys.stderr)
            except BrokenPipeError:  # stderr into the same gone reader (2>&1 | head)
                break
    except (Error, OSError, ValueError) as e:
        print(f"aidcsim compare: error: {_said_as_typed(e, designs, common)}", file=sys.stderr)
        return _cli.EXIT_ERROR
    return _cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
