"""Parameter sweeps: the cartesian product of scenario overrides, one simulation per point, one
DataFrame row per point. Local processes by default; a dask.distributed Client scales it out (a
LocalCluster with process or thread workers, or a scheduler and workers started separately).

    df = aidcsim.sweep("scenarios/stargate-uk-8k.yaml",
                       {"fabric.oversubscription.spine": [1, 2, 4], "cooling.flow_per_gpu":
                        ["0.5 L/min", "1 L/min"]})

CLI (what ``aidcsim sweep SWEEP.yaml`` calls)::

    python3 -m aidcsim sweep SWEEP.yaml [--output out.csv] [--processes N] [--scheduler ADDR] [--progress]

SWEEP.yaml::

    base: ../scenarios/stargate-uk-8k.yaml   # relative to the sweep file
    parameters:
      fabric.oversubscription.spine: [1, 2, 4]
    overrides: {cluster.gpus: 576}           # optional, applied to every point
    output: sweep.csv                        # optional, relative to the sweep file
"""

import argparse
import concurrent.futures as _cf
import itertools
import multiprocessing as _mp
import os
import sys

from . import progress as _progress
from .errors import Error
from .scenario import Scenario, as_scenario


def points(parameters):
    """Cartesian product of {key: [values]} as a list of {key: value} dicts (last key fastest).
    Raises ValueError for an empty value list."""
    keys = list(parameters)
    values = []
    for k in keys:
        v = parameters[k]
        v = list(v) if isinstance(v, (list, tuple)) or hasattr(v, "tolist") else [v]
        if not v:
            raise ValueError(f"sweep parameter {k!r} has no values")
        values.append(v)
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


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
        with _cf.ProcessPoolExecutor(max_workers=processes, mp_context=ctx) as ex:
            futures = [ex.submit(_point_task, *a) for a in args]
            for done, _ in enumerate(_cf.as_completed(futures), 1):
                if callback:
                    callback(f"{done}/{n} points", done / n)
            return [_outcome(f) for f in futures]
    finally:
        if bar is not None:
            bar.close()


def sweep(base, parameters, client=None, processes=None, seed=None, errors="raise", progress=None):
    """Runs every point of the cartesian product of `parameters` over scenario `base`.

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
        Seed for every point (default: the scenario's).
    errors : "raise" | "record"
        On a failing point, raise its exception (ScenarioError, SimulationError, or the worker's
        failure, e.g. distributed's KilledWorker) once all points are done, or record the message
        in an ``error`` column. A failing point never stops the other points.
    progress : bool | callable, optional
        True: Dask's progress bar with a client (distributed.progress: a widget in a notebook,
        text in a terminal), else a tqdm bar on stderr. A callable gets ``(stage, fraction)``
        ("3/6 points", 0.5) as points finish.

    Returns
    -------
    pandas.DataFrame
        One row per point, in product order: the swept keys (as given) then every summary value
        (columns named by summary key, units in ``df.attrs["units"]``).
    """
    import pandas as pd

    if errors not in ("raise", "record"):
        raise ValueError(f"errors must be 'raise' or 'record', got {errors!r}")
    s = as_scenario(base)
    text, name = s._source()
    pts = points(parameters)
    args = [(text, name, p, seed) for p in pts]
    if client is not None:
        outcomes = _run_on_dask(client, args, progress)
    else:
        n = processes if processes is not None else min(len(pts), _cpus())
        outcomes = _run_locally(args, n, progress)

    rows, units = [], {}
    for p, (status, payload) in zip(pts, outcomes):
        row = dict(p)
        if status == "ok":
            row.update(payload["summary"])
            units.update(payload["units"])
        elif errors == "raise":
            raise payload
        else:
            row["error"] = str(payload)
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["units"] = units
    return df


def _cpus():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def load_sweep_file(path):
    """Reads SWEEP.yaml -> (base Scenario with overrides applied, parameters, output path|None).
    Paths inside are relative to the sweep file. Raises ScenarioError for a malformed file."""
    from .errors import ScenarioError
    from .scenario import yaml_load
    with open(path, encoding="utf-8") as f:
        spec = yaml_load(f.read()) or {}
    here = os.path.dirname(os.path.abspath(path))
    for k in spec:
        if k not in ("base", "parameters", "overrides", "output", "seed"):
            raise ScenarioError(f"{path}: unknown sweep key '{k}'", file=path, key=k,
                                expected="base, parameters, overrides, output or seed")
    if not isinstance(spec.get("parameters"), dict) or not spec["parameters"]:
        raise ScenarioError(f"{path}: 'parameters' must map scenario keys to value lists",
                            file=path, key="parameters", expected="{key: [values]}")
    base = spec.get("base")
    if base is None:
        scenario = Scenario.default()
    elif isinstance(base, dict):
        scenario = Scenario.from_dict(base, name=path)
    else:
        scenario = Scenario.load(os.path.join(here, base))
    scenario.update(spec.get("overrides") or {})
    out = spec.get("output")
    return scenario, spec["parameters"], (os.path.join(here, out) if out else None), spec.get("seed")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="aidcsim sweep", description="Runs a parameter sweep.")
    ap.add_argument("sweep_file", help="SWEEP.yaml: base, parameters, overrides, output")
    ap.add_argument("-o", "--output", help="CSV path (default: the file's `output`, else stdout)")
    ap.add_argument("-j", "--processes", type=int, help="local worker processes")
    ap.add_argument("--scheduler", help="dask.distributed scheduler address (tcp://host:8786)")
    ap.add_argument("--progress", action="store_true", help="show a progress bar (stderr)")
    a = ap.parse_args(argv)
    try:
        scenario, params, out, seed = load_sweep_file(a.sweep_file)
        client = None
        if a.scheduler:
            from distributed import Client
            client = Client(a.scheduler)
        df = sweep(scenario, params, client=client, processes=a.processes, seed=seed, progress=a.progress or None)
    except (Error, OSError, ValueError) as e:
        print(f"aidcsim sweep: error: {e}", file=sys.stderr)
        return 1
    out = a.output or out
    if out:
        df.to_csv(out, index=False)
        print(f"wrote {len(df)} points to {out}", file=sys.stderr)
    else:
        df.to_csv(sys.stdout, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
