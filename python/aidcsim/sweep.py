"""Parameter sweeps: the cartesian product of scenario overrides, parameters varied together
(zipped), named design variants and seed replicates; one simulation per point and seed, one
DataFrame row each. Local processes by default; a dask.distributed Client scales it out (a
LocalCluster with process or thread workers, or a scheduler and workers started separately).

    df = aidcsim.sweep("scenarios/stargate-uk-8k.yaml",
                       {"fabric.oversubscription.spine": [1, 2, 4], "cooling.flow_per_gpu":
                        ["0.5 L/min", "1 L/min"]})
    df = aidcsim.sweep(s, zipped={"fabric.topology": ["clos3", "leaf_spine"], "fabric.switch_radix": [64, 256]},
                       variants={"nvl72": {}, "hgx": {"cluster.nvlink_domain": 8}}, seeds=3)

The CSV (``aidcsim sweep``'s output, to_csv(); read back with read_csv()) carries the units in its
one header row: a summary column with a unit is named ``NAME [UNIT]`` (``step_time [s]``,
``mfu [%]``, ``coolant_inlet [degC]``, ``time_to_train [d]``; dimensionless ``gpus [1]``,
``pue [1]``, as the HDF5 file's ``units``); the inputs - swept keys, ``variant``, ``seed`` -,
``error`` and ``warnings`` keep their bare name.

CLI (what ``aidcsim sweep SWEEP.yaml`` calls)::

    python3 -m aidcsim sweep SWEEP.yaml [--output out.csv] [--processes N] [--scheduler ADDR] [--progress]

SWEEP.yaml::

    base: ../scenarios/stargate-uk-8k.yaml   # relative to the sweep file
    parameters:                              # cartesian product (optional if zip or variants)
      fabric.oversubscription.spine: [1, 2, 4]
    zip:                                     # optional: varied together, i-th value with i-th value
      fabric.topology: [clos3, leaf_spine]
      fabric.switch_radix: [64, 256]
    variants:                                # optional: named design points, crossed with the rest
      nvl72: {}
      hgx: {cluster.nvlink_domain: 8, cluster.gpus_per_node: 8}
    seeds: 3                                 # optional: replicates at seed, seed + 1, ...
    seed: 42                                 # optional: the (first) seed
    overrides: {cluster.gpus: 576}           # optional, applied to every point
    output: sweep.csv                        # optional, relative to the sweep file
"""

import concurrent.futures as _cf
import difflib
import itertools
import math
import multiprocessing as _mp
import os
import re
import sys

from . import _args, _cli, _workers, limits
from . import progress as _progress
from .errors import Error, argument_error
from .scenario import Scenario, as_scenario


def points(parameters):
    """Cartesian product of {key: [values]} as a list of {key: value} dicts (last key fastest).
    Raises ParameterError (a ValueError) for an empty value list or a product of more than
    aidcsim.limits.MAX_SWEEP_POINTS points (counted before anything is built), ArgumentTypeError
    for parameters that are not such a dict."""
    if not isinstance(parameters, dict) or not parameters:
        raise argument_error("parameters", parameters, "a non-empty dict {scenario key: [values]}",
                             type_error=not isinstance(parameters, dict))
    keys = list(parameters)
    values = []
    for k in keys:
        if not isinstance(k, str):
            raise argument_error("parameters", k, "scenario keys (str)", type_error=True)
        v = parameters[k]
        if hasattr(v, "tolist") and getattr(v, "ndim", 0) > 0:
            v = v.tolist()
        v = list(v) if isinstance(v, (list, tuple, range)) else [v]
        if not v:
            raise argument_error(k, [], "at least one value")
        values.append(v)
    n = math.prod(len(v) for v in values)
    if n > limits.MAX_SWEEP_POINTS:
        raise argument_error("parameters", f"{n} points",
                             f"at most {limits.MAX_SWEEP_POINTS} points: {' x '.join(str(len(v)) for v in values)} "
                             "is the product of the value lists")
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def zipped_points(zipped):
    """{key: [values]} of equal lengths -> [{key: value_i}], the i-th values together. Raises
    ValueError for lists of different lengths or no values."""
    keys = list(zipped)
    cols = [list(v) if isinstance(v, (list, tuple)) or hasattr(v, "tolist") else [v] for v in zipped.values()]
    lengths = {k: len(c) for k, c in zip(keys, cols)}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"zipped sweep parameters need lists of one length, got {lengths}")
    if any(n == 0 for n in lengths.values()):
        raise ValueError("zipped sweep parameters have no values")
    return [dict(zip(keys, row)) for row in zip(*cols)]


def design_points(parameters=None, zipped=None, variants=None):
    """The points of a sweep as (row, overrides) pairs: every named variant ({name: {key: value}},
    row column ``variant``), crossed with every zipped row (zipped_points), crossed with the
    cartesian product of `parameters` (points), in that nesting order (parameters fastest). A key
    set by two of them is an error (ValueError), as is a sweep with no point."""
    products = points(parameters) if parameters else [{}]
    zips = zipped_points(zipped) if zipped else [{}]
    named = list((variants or {}).items()) or [(None, {})]
    clash = set(parameters or {}) & set(zipped or {})
    if clash:
        raise ValueError(f"sweep keys both in parameters and zip: {sorted(clash)}")
    if not (parameters or zipped or variants):
        raise ValueError("a sweep needs parameters, zip or variants")
    n = len(named) * len(zips) * len(products)
    limits.check_runs(n, "points", n, f"{len(named)} variants x {len(zips)} zipped rows x {len(products)} "
                                      "parameter points")
    out = []
    for name, over in named:
        if not isinstance(over, dict):
            raise ValueError(f"variant {name!r}: expected {{key: value}}, got {over!r}")
        both = set(over) & (set(parameters or {}) | set(zipped or {}))
        if both:
            raise ValueError(f"variant {name!r} sets swept keys {sorted(both)}")
        for z in zips:
            for p in products:
                row = ({"variant": name} if name is not None else {}) | z | p
                out.append((row, {**over, **z, **p}))
    return out


def _point_task(text, name, overrides, seed):
    """One sweep point (or one design at one seed of compare()) in a worker: applies the overrides
    to the base scenario text and runs it. Returns ("ok", {"summary", "units", "checks",
    "warnings"}) as plain data, or ("error", exception) so one bad point does not lose the rest
    (any Exception: a bad value, a failed simulation, a bug; not KeyboardInterrupt)."""
    from .runner import run
    try:
        s = Scenario.from_yaml(text, name=name)
        s.update(overrides)
        r = run(s, seed=seed)
    except Exception as e:  # noqa: BLE001 - recorded per point, see sweep(errors=)
        return ("error", e)
    return ("ok", {"summary": dict(r.summary), "units": dict(r.units), "checks": list(r.checks),
                   "warnings": list(r.warnings)})


def _outcome(future):
    """A finished future's outcome; a worker that died or a task that failed outside
    _point_task (KilledWorker, BrokenProcessPool, an unpicklable result) is that point's error."""
    try:
        return future.result()
    except Exception as e:  # noqa: BLE001
        return ("error", e)


def _run_on_dask(client, args, progress):
    futures = client.map(_point_task, *zip(*args), pure=False)
    if progress is True:
        from distributed import progress as dask_progress
        dask_progress(futures)          # Dask's own bar (a widget in a notebook); waits for all
    elif callable(progress):
        from distributed import as_completed
        for done, _ in enumerate(as_completed(futures), 1):
            progress(f"{done}/{len(futures)} points", done / len(futures))
    return [_outcome(f) for f in futures]


def _run_locally(args, processes, progress, desc="sweep"):
    """Runs _point_task(*a) for every a in args: in this process (processes <= 1) or in a spawn-context
    process pool; returns the outcomes in args order."""
    callback, bar = _progress.callback(progress, desc=desc)
    n = len(args)
    try:
        if processes <= 1:
            outcomes = []
            for i, a in enumerate(args):
                outcomes.append(_point_task(*a))
                if callback:
                    callback(f"{i + 1}/{n} points", (i + 1) / n)
            return outcomes
        ctx = _mp.get_context("spawn")
        ex = _cf.ProcessPoolExecutor(max_workers=processes, mp_context=ctx, initializer=_workers.die_with_parent,
                                     initargs=(os.getpid(),))
        try:
            futures = [ex.submit(_point_task, *a) for a in args]
            for done, _ in enumerate(_cf.as_completed(futures), 1):
                if callback:
                    callback(f"{done}/{n} points", done / n)
            outcomes = [_outcome(f) for f in futures]
        except BaseException:
            # Ctrl-C (KeyboardInterrupt) or a progress callback's exception: the queued points are
            # dropped and the running ones stopped. A `with` block's shutdown(wait=True) ran every
            # queued point first: `compare --seeds 400` went on for minutes after Ctrl-C.
            _workers.terminate(ex)
            raise
        ex.shutdown(wait=True)
        return outcomes
    finally:
        if bar is not None:
            bar.close()


def check_points(base, design):
    """Validates every point of `design` (design_points' (row, overrides) pairs) on Scenario `base`
    as ``aidcsim validate`` does, before any point runs: a bad value or a misspelt key in one point
    of a long sweep stopped it only after every other point had run (48 s of a 3-point rollout
    sweep, minutes to hours for a real one), and no CSV was written. Raises the first bad point's
    error (ScenarioError, ArgumentIndexError...) with the point named at the end of its message."""
    for i, (row, over) in enumerate(design, 1):
        d = base.copy()
        try:
            d.update(over)
            d.validate()
        except Error as e:
            if e.args and isinstance(e.args[0], str):
                what = ", ".join(f"{k}={v}" for k, v in row.items())
                e.args = (f"{e.args[0]} (sweep point {i} of {len(design)}"
                          f"{': ' + what if what else ''}; checked before any point ran)",) + e.args[1:]
            raise


def sweep(base, parameters=None, client=None, processes=None, seed=None, errors="raise", progress=None,
          zipped=None, variants=None, seeds=None):
    """Runs every point of the cartesian product of `parameters` (crossed with `zipped` rows and
    named `variants`) over scenario `base`, at one seed or `seeds` replicates.

    Parameters
    ----------
    base : str | os.PathLike | Scenario | dict
        The scenario every point starts from.
    parameters : dict[str, list]
        Dotted scenario key -> values, e.g. {"cluster.gpus": [576, 1152]}. Values in scenario
        syntax ("800 Gbps") or plain numbers.
    client : dask.distributed.Client, optional
        Runs the points with client.map on that cluster (each task is one full simulation, run in
        the worker's task thread): a LocalCluster with process (default) or thread workers, or a
        scheduler reached by address with workers started separately (``dask scheduler``, ``dask
        worker``); workers must import aidcsim (installed, or PYTHONPATH). Default: local processes.
    processes : int, optional
        Local worker processes (spawn context); default min(points, CPUs). 1 (or 0) runs the
        points one after the other in this process.
    seed : int, optional
        Seed for every point (default: the scenario's); with `seeds`, the first replicate's seed
        (default the scenario's ``seed`` key, 42 if absent).
    zipped : dict[str, list], optional
        Keys varied together: the i-th point takes the i-th value of every list (equal lengths),
        e.g. {"fabric.topology": ["clos3", "leaf_spine"], "fabric.switch_radix": [64, 256]}.
    variants : dict[str, dict], optional
        Named design points {name: {key: value}}, crossed with the rest (column ``variant``).
    seeds : int, optional
        Replicates per point at seed, seed + 1, ... (column ``seed``), the same seeds for every point;
        points x seeds at most limits.MAX_SWEEP_POINTS (a ParameterError before any run).
    errors : "raise" | "record"
        "raise": every point is validated first (check_points: the loader and the checks of
        ``aidcsim validate``, a fraction of a second each), and a point that does not load raises
        its ScenarioError before any point runs; a point that fails in its run raises its
        exception (SimulationError, or the worker's failure, e.g. distributed's KilledWorker) once
        all points are done. "record": every point runs and a failing one's message goes to an
        ``error`` column. A failing run never stops the other points.
    progress : bool | callable, optional
        True: Dask's progress bar with a client (distributed.progress: a widget in a notebook,
        text in a terminal), else a tqdm bar on stderr. A callable gets ``(stage, fraction)``
        ("3/6 points", 0.5) as points finish.

    Returns
    -------
    pandas.DataFrame
        One row per point (and seed), in design_points order with seeds fastest: ``variant``, the
        swept keys (as given), ``seed`` with `seeds`, then every summary value (columns named by
        summary key, units in ``df.attrs["units"]``); a ``warnings`` column when some point's run
        used an input otherwise than written (e.g. a 3-tier Clos built as 2 tiers: the run's
        warnings joined by " | ", NaN elsewhere). to_csv(df) writes it with the units in the
        header (``step_time [s]``), read_csv() reads that back into this form.
    """
    import pandas as pd

    _args.choice(errors, "errors", ("raise", "record"))
    if processes is not None:
        _args.integer(processes, "processes", 0, limits.MAX_PROCESSES)
    if seed is not None:
        _args.integer(seed, "seed", 0, limits.MAX_SEED)
    s = as_scenario(base)
    text, name = s._source()
    design = design_points(parameters, zipped, variants)
    if seeds is None:
        pts = [(row, over, seed) for row, over in design]
    else:
        seeds = _args.integer(seeds, "seeds", 1, limits.MAX_SWEEP_POINTS)
        first = int(s.get("seed", 42)) if seed is None else int(seed)
        _args.integer(first + seeds - 1, "seed", None, limits.MAX_SEED)  # the last replicate's seed
        limits.check_runs(len(design) * seeds, "seeds", seeds, f"{len(design)} points x {seeds} seeds")
        pts = [({**row, "seed": first + i}, over, first + i) for row, over in design for i in range(seeds)]
    if errors == "raise":
        check_points(s, design)
    args = [(text, name, over, sd) for _, over, sd in pts]
    if client is not None:
        outcomes = _run_on_dask(client, args, progress)
    else:
        n = processes if processes is not None else min(len(pts), _cpus())
        outcomes = _run_locally(args, n, progress)

    rows, units = [], {}
    for (p, _, _), (status, payload) in zip(pts, outcomes):
        row = dict(p)
        if status == "ok":
            row.update(payload["summary"])
            units.update(payload["units"])
            if payload["warnings"]:  # the run used an input otherwise than written (fabric as built)
                row["warnings"] = WARNING_SEPARATOR.join(payload["warnings"])
        elif errors == "raise":
            raise payload
        else:
            row["error"] = str(payload)
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["units"] = units
    return df


# Between the warnings of one point in its ``warnings`` cell (a warning's text may hold "; ").
WARNING_SEPARATOR = " | "

_UNIT_HEADER = re.compile(r"^(?P<name>.*\S) \[(?P<unit>[^\[\]]+)\]$")


def to_csv(df):
    """The sweep table `df` (as sweep() returns it) as CSV text with the units in the header: a
    column with a ``df.attrs["units"]`` entry (every summary value) is named ``NAME [UNIT]``
    (``step_time [s]``, ``mfu [%]``, ``gpus [1]``); the inputs (swept keys, ``variant``, ``seed``)
    and ``error`` keep their name. Rows, order and values as in `df` (no index column).
    read_csv() is the inverse."""
    units = df.attrs.get("units", {})
    names = {c: f"{c} [{units[c]}]" for c in df.columns if isinstance(c, str) and units.get(c)}
    return df.rename(columns=names).to_csv(index=False)


def read_csv(path):
    """Reads a sweep CSV written by to_csv() / ``aidcsim sweep`` (a path or file object) ->
    pandas.DataFrame as sweep() returns it: columns named by summary key (``step_time``), units in
    ``df.attrs["units"]`` ({"step_time": "s"}). A header ``NAME [UNIT]`` gives column NAME in UNIT;
    a CSV without units (written before units were in the header) reads with no units."""
    import pandas as pd
    df = pd.read_csv(path)
    names, units = {}, {}
    for c in df.columns:
        m = _UNIT_HEADER.match(str(c))
        if m:
            names[c] = m["name"]
            units[m["name"]] = m["unit"]
    df = df.rename(columns=names)
    df.attrs["units"] = units
    return df


def _cpus():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _marks(text):
    """The sweep file's YAML node tree (positions only), or None when it does not parse."""
    import yaml
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    return root if isinstance(root, yaml.MappingNode) else None


def _mark(node):
    return node.start_mark.line + 1, node.start_mark.column + 1


def locate_point_key(text, key, value):
    """(line, column), 1-based, where the sweep file `text` writes the value of scenario key `key`
    that a ScenarioError names: in ``parameters``, ``zip``, ``overrides`` or a ``variants`` item,
    the list item equal to `value` (as written) when there is one, else the key itself (a misspelt
    key, or a key above the one named: ``fabric.oversubscripton`` for
    ``fabric.oversubscripton.leaf``). None when the file does not write it."""
    import yaml
    root = _marks(text)
    if root is None:
        return None
    sections = []
    for k, v in root.value:
        if not isinstance(v, yaml.MappingNode):
            continue
        if k.value in ("parameters", "zip", "overrides"):
            sections.append(v)
        elif k.value == "variants":
            sections += [item for _, item in v.value if isinstance(item, yaml.MappingNode)]
    found = None
    for section in sections:
        for k, v in section.value:
            w = k.value if isinstance(k, yaml.ScalarNode) else None
            if not w or not any(a == b or a.startswith(b + ".") or a.startswith(b + "[") for a, b in
                                ((key, w), (w, key))):
                continue
            items = v.value if isinstance(v, yaml.SequenceNode) else [v]
            for item in items:
                if isinstance(item, yaml.ScalarNode) and item.value == str(value):
                    return _mark(item)
            found = found or _mark(k)
    return found


def sweep_file_error(err, path, text):
    """A ScenarioError about a key the sweep file sets (the Python API's "FILE (set from Python)",
    FILE the base scenario) placed where the user wrote it: ``SWEEP.yaml:LINE:COLUMN: key: got
    ...``, file, line and column set; other errors are returned unchanged."""
    from .errors import ScenarioError
    from .scenario import SET_FROM_PYTHON
    if not isinstance(err, ScenarioError) or not err.args or not isinstance(err.args[0], str):
        return err
    old = f"{err.file} {SET_FROM_PYTHON}"
    if not err.args[0].startswith(old):
        return err
    loc = locate_point_key(text, err.key, err.value)
    err.file = path
    err.line, err.column = loc or (0, 0)
    new = f"{path}:{err.line}:{err.column}" if loc else f"{path} (set in the sweep file)"
    err.args = (new + err.args[0][len(old):],) + err.args[1:]
    return err


def load_sweep_file(path):
    """Reads SWEEP.yaml -> (base Scenario with overrides applied, {"parameters", "zipped",
    "variants", "seeds", "seed"} keyword arguments of sweep(), output path|None). Paths inside are
    relative to the sweep file. Raises ScenarioError for a malformed file at ``file:line:column``
    of the entry at fault (the file's start for one not written): its keys, sections, seeds and
    seed, and the design they make (an empty value list, zipped lists of different lengths, a key
    swept twice, more than aidcsim.limits.MAX_SWEEP_POINTS runs), all before any run."""
    from .errors import ParameterError, ScenarioError
    from .scenario import _locate_path, read_text, yaml_load
    text = read_text(path, "sweep file")
    spec = yaml_load(text, path) or {}

    def bad(where, message, key="", expected="", value="", hint=""):
        line, column = _locate_path(text, where) or (1, 1)
        raise ScenarioError(f"{path}:{line}:{column}: {message}" + (f"; {hint}" if hint else ""), file=path,
                            line=line, column=column, key=key, value=value, expected=expected, hint=hint)

    if not isinstance(spec, dict):
        bad((), "a sweep file is a mapping (base, parameters, overrides, output, seed)", expected="a mapping")
    here = os.path.dirname(os.path.abspath(path))
    allowed = ("base", "parameters", "zip", "variants", "seeds", "overrides", "output", "seed")
    for k in spec:
        if k not in allowed:
            close = difflib.get_close_matches(str(k), allowed, n=1)
            bad((k,), f"unknown sweep key '{k}', expected one of {', '.join(allowed)}", key=str(k), value=str(k),
                expected=", ".join(allowed), hint=f"did you mean '{close[0]}'?" if close else "")
    for k in ("parameters", "zip", "variants"):
        if k in spec and (not isinstance(spec[k], dict) or not spec[k]):
            bad((k,), f"'{k}' must map scenario keys to value lists" if k != "variants" else
                "'variants' must map names to {key: value} overrides",
                key=k, expected="{key: [values]}" if k != "variants" else "{name: {key: value}}")
    if not any(k in spec for k in ("parameters", "zip", "variants")):
        bad((), "a sweep needs 'parameters', 'zip' or 'variants'", key="parameters", expected="{key: [values]}")
    for section in ("parameters", "zip"):
        for k, v in (spec.get(section) or {}).items():
            if isinstance(v, list) and not v:
                bad((section, k), f"{k}: got [], expected at least one value", key=str(k), value="[]",
                    expected="at least one value")
    for k in (spec.get("zip") or {}):
        if k in (spec.get("parameters") or {}):
            bad(("zip", k), f"{k}: swept both in parameters and zip", key=str(k), expected="each key swept once")
    for name, over in (spec.get("variants") or {}).items():
        if not isinstance(over, dict):
            bad(("variants", name), f"variant {name!r}: expected {{key: value}}, got {over!r}", key=str(name),
                expected="{key: value}")
    seeds, seed = spec.get("seeds"), spec.get("seed")
    for k, lo, hi in (("seeds", 1, limits.MAX_SWEEP_POINTS), ("seed", 0, limits.MAX_SEED)):
        if spec.get(k) is not None:
            try:
                _args.integer(spec[k], k, lo, hi)
            except ParameterError as e:
                bad((k,), str(e), key=k, value=e.value, expected=e.expected)
    # The design the sections make (design_points' own checks), and its runs with the seeds.
    try:
        design = design_points(spec.get("parameters"), spec.get("zip"), spec.get("variants"))
        if seeds is not None:
            limits.check_runs(len(design) * seeds, "seeds", seeds, f"{len(design)} points x {seeds} seeds")
    except ValueError as e:  # ParameterError included
        key = getattr(e, "key", "")
        where = next(((sec, key) for sec in ("parameters", "zip") if key in (spec.get(sec) or {})), None)
        if where is None:
            where = ("seeds",) if key == "seeds" else next(
                ((sec,) for sec in ("zip", "parameters", "variants") if sec in spec), ())
        bad(where, str(e), key=key, value=getattr(e, "value", ""), expected=getattr(e, "expected", ""))
    base = spec.get("base")
    if base is None:
        scenario = Scenario.default()
    elif isinstance(base, dict):
        scenario = Scenario.from_dict(base, name=path)
    elif isinstance(base, str) and base:
        scenario = Scenario.load(os.path.join(here, base))
    else:
        bad(("base",), "'base' must be a scenario path or mapping", key="base", expected="a path or a mapping")
    out = spec.get("output")
    if out is not None and (not isinstance(out, str) or not out):
        bad(("output",), "'output' must be a file path", key="output", expected="a path")
    overrides = spec.get("overrides") or {}
    if not isinstance(overrides, dict):
        bad(("overrides",), "'overrides' must map scenario keys to values", key="overrides", expected="{key: value}")
    scenario.update(overrides)
    kwargs = {"parameters": spec.get("parameters"), "zipped": spec.get("zip"), "variants": spec.get("variants"),
              "seeds": seeds, "seed": seed}
    return scenario, kwargs, (os.path.join(here, out) if out else None)


def _print_warnings(df):
    """Each distinct warning of the sweep's runs on stderr, once, with the points it concerns (as
    ``aidcsim run`` prints its own), so a point built otherwise than written is not silent."""
    if "warnings" not in df.columns:
        return
    seen = {}
    for i, w in df["warnings"].items():
        if isinstance(w, str) and w:
            for x in w.split(WARNING_SEPARATOR):
                seen.setdefault(x, []).append(str(i + 1))
    for w, rows in seen.items():
        print(f"aidcsim sweep: warning: point{'s' if len(rows) > 1 else ''} {', '.join(rows)} of {len(df)}: {w}",
              file=sys.stderr)


def main(argv=None):
    """``aidcsim sweep``: exit 0, 1 (error: a point failed, an output not written), 2 (invalid sweep
    or scenario), 64 (usage error), 130 (Ctrl-C); the codes of the C++ CLI (aidcsim._cli). The
    output path is checked before any point runs and the CSV is written like ``aidcsim run``'s
    outputs (complete or not at all)."""
    from . import _native
    from .errors import ParameterError
    ap = _cli.ArgumentParser(prog="aidcsim sweep", description="Runs a parameter sweep.")
    ap.add_argument("sweep_file", type=_cli.path_arg, help="SWEEP.yaml: base, parameters, zip, variants, seeds, seed, overrides, output")
    ap.add_argument("-o", "--output", type=_cli.path_arg, help="CSV path (default: the file's `output`, else stdout)")
    ap.add_argument("-j", "--processes", type=_cli.processes_arg, help="local worker processes (0 or 1: in this process)")
    ap.add_argument("--scheduler", help="dask.distributed scheduler address (tcp://host:8786)")
    ap.add_argument("--progress", action="store_true", help="show a progress bar (stderr)")
    a = ap.parse_args(argv)
    try:
        scenario, kwargs, out = load_sweep_file(a.sweep_file)
        # The sweep file and its base scenario are inputs: `-o` (or `output:`) naming one of them
        # wrote the CSV over it.
        inputs = [a.sweep_file, scenario.name]
        if a.output:
            clash = _cli.output_over_input("--output", a.output, inputs)
            if clash:
                _cli.usage_error(ap, clash)
        elif out:
            clash = _cli.output_over_input("output", out, inputs)
            if clash:
                print(f"aidcsim sweep: {a.sweep_file}: {clash}", file=sys.stderr)
                return _cli.EXIT_INVALID_SCENARIO
        out = a.output or out
        if out:
            _native.core().check_output(out)  # before any point runs (case input/13)
        try:  # the size and shape, before any run (input/12): an invalid sweep file
            design_points(kwargs["parameters"], kwargs["zipped"], kwargs["variants"])
        except ValueError as e:
            print(f"aidcsim sweep: {a.sweep_file}: {e}", file=sys.stderr)
            return _cli.EXIT_INVALID_SCENARIO
        client = None
        if a.scheduler:
            from distributed import Client
            client = Client(a.scheduler)
        df = sweep(scenario, client=client, processes=a.processes, progress=a.progress or None, **kwargs)
        _print_warnings(df)
        text = to_csv(df)
        if out:
            _native.core().write_output(out, text)
            print(f"wrote {len(df)} points to {out}", file=sys.stderr)
        else:
            sys.stdout.write(text)
    except KeyboardInterrupt:
        return _cli.stopped("aidcsim sweep")
    except ParameterError as e:
        text = None
        try:
            from .scenario import read_text
            text = read_text(a.sweep_file, "sweep file")
        except (Error, OSError):
            pass
        print(f"aidcsim sweep: {sweep_file_error(e, a.sweep_file, text) if text is not None else e}",
              file=sys.stderr)
        return _cli.EXIT_INVALID_SCENARIO
    except (Error, OSError, ValueError) as e:
        print(f"aidcsim sweep: error: {e}", file=sys.stderr)
        return _cli.EXIT_ERROR
    return _cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
