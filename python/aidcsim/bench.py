"""bench_collective(): nccl-tests on the simulated fabric, as ``aidcsim bench-collective``.

The arguments are checked and run by the CLI's own C++ code (sim/engine/collective_bench_args.hpp:
bench_options; sim/engine/collective_bench.hpp: bench_collective, format_bench), so the same
inputs give the same numbers and are refused with the same reasons, the argument named as here.
"""

import numbers

from . import _args, _native
from .errors import ScenarioError, argument_error
from .scenario import as_scenario

#: Units of the columns of bench_collective()'s table (also in ``df.attrs["units"]``). GB/s is
#: nccl-tests' (10**9 B/s); "elements" are the datatype's.
UNITS = {"size": "B", "count": "elements", "time": "s", "algbw": "GB/s", "busbw": "GB/s", "nccl_time": "s",
         "model_time": "s"}

# The options that describe the cluster: given with `scenario`, they would be ignored (the CLI's
# "--scenario excludes --nodes").
_CLUSTER = ("gpu", "gpu_file", "nodes", "gpus_per_node", "nvlink_domain", "nics_per_node", "nic_rate", "link_rate",
            "topology", "wiring", "oversubscription", "spine_oversubscription", "radix", "planes", "sharp")
_INT_MAX = 2**31 - 1  # the C++ int the CLI reads them into


def _text(value, name, expected):
    if not isinstance(value, str):
        raise argument_error(name, value, expected, type_error=True)
    if not value.strip():
        raise argument_error(name, value, expected + " (the value is empty)")
    return value


def _size(value, name):
    # An int is bytes; a str as nccl-tests reads -b/-e/-i (K, M, G binary), checked in C++.
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(_args.integer(value, name, 1))
    return _text(value, name, "a size: bytes as an int, or text such as '8', '128K', '1.5M', '8G' (binary)")


def _ratio(value, name):
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return repr(_args.number(value, name, 1))
    return _text(value, name, "a ratio such as '2:1' or a number >= 1")


def _checked(given):
    """{name: value} as the C++ bench_options reads it: types checked here, values there."""
    out = {}
    for name, value in given.items():
        if name in ("gpus", "nodes", "gpus_per_node", "iters"):
            out[name] = _args.integer(value, name, 1, _INT_MAX)
        elif name in ("nvlink_domain", "nics_per_node", "warmup_iters", "root"):
            out[name] = _args.integer(value, name, 0, _INT_MAX)
        elif name in ("radix", "planes", "max_channels", "min_channels", "max_ctas", "min_ctas", "nvls_channels"):
            # the range is the C++ check's (channels and CTAs: 1-64, 0: NCCL's), worded as the CLI's
            out[name] = _args.integer(value, name, None, _INT_MAX)
        elif name in ("sharp", "steps"):
            out[name] = _args.flag(value, name)
        elif name in ("min_bytes", "max_bytes", "step_bytes"):
            out[name] = _size(value, name)
        elif name == "step_factor":
            out[name] = str(_args.integer(value, name))
        elif name in ("oversubscription", "spine_oversubscription"):
            out[name] = _ratio(value, name)
        elif name in ("nic_rate", "link_rate"):
            out[name] = _text(value, name, "a data rate as text, e.g. '400 Gbps', '50 GB/s'")
        elif name == "gpu_file":
            out[name] = _args.path(value, name)
        else:  # gpu, topology, wiring, collective, algorithm, protocol, datatype, op: names
            out[name] = _text(value, name, "a name (str)")
    return out


def bench_collective(scenario=None, *, collective="all_reduce", min_bytes="8", max_bytes="8G", step_factor=2,
                     step_bytes=None, datatype="float", op="sum", root=0, algorithm="auto", protocol="auto",
                     max_channels=0, min_channels=0, max_ctas=0, min_ctas=0, nvls_channels=0, steps=False, iters=20, warmup_iters=5,
                     gpus=None, gpu=None, gpu_file=None,
                     nodes=None, gpus_per_node=None, nvlink_domain=None, nics_per_node=None, nic_rate=None,
                     link_rate=None, topology=None, wiring=None, oversubscription=None,
                     spine_oversubscription=None, radix=None, planes=None, sharp=None):
    """nccl-tests (``all_reduce_perf`` ...) on the simulated fabric: one collective over message
    sizes, NCCL's algorithm and protocol chosen per size by NCCL's tuner, as
    ``aidcsim bench-collective`` (same C++ code, same numbers; docs/validation-busbw.md).

    Parameters (the CLI's option in brackets)
    ----------
    scenario : str | os.PathLike | Scenario | dict, optional  [--scenario]
        The cluster of a scenario (its fabric and GPU model). Excludes the cluster options below
        (``gpu`` ... ``sharp``): ParameterError when both are given. None: the cluster options.
    collective : str  [--collective]
        all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv (or
        nccl-tests' binary name, "all_reduce_perf").
    min_bytes, max_bytes : int | str  [-b, -e]
        Smallest and largest size: bytes as an int, or text as nccl-tests reads it ("8", "128K",
        "1.5M", "8G": K, M, G binary; "8GB" is 8 GiB). Default 8 B to 8 GiB.
    step_factor : int  [-f]
        Factor between sizes, 2 to 1024 (default 2). ``step_bytes`` [-i] (int | str): a linear
        step instead (at most 10,000 sizes).
    datatype, op, root : str, str, int  [-d, -o, -r]
        Element type (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16,
        f8e4m3, f8e5m2), reduction (sum, prod, max, min, avg), root rank of broadcast / reduce.
    algorithm, protocol : str  [--algo, --proto]
        "auto" (NCCL's tuner), or ring, tree, nvls, nvls_tree, collnet_direct, collnet_chain, pat,
        sharp, hierarchical, halving_doubling, direct; protocol auto, LL, LL128, Simple.
    max_channels, max_ctas, nvls_channels : int  [--max-channels, --max-ctas, --nvls-channels]
        NCCL_MAX_NCHANNELS (ring, tree, PAT, CollNet and NVLS across NVLink domains),
        NCCL_MAX_CTAS (every algorithm) and NCCL_NVLS_NCHANNELS (NVLS and NVLSTree CTAs), each
        1 to 64 (0: NCCL's); docs/collectives.md.
    min_channels, min_ctas : int  [--min-channels, --min-ctas]
        NCCL_MIN_NCHANNELS (raises what max_channels caps, by copies of the first channels; above
        max_channels too, as NCCL permits) and NCCL_MIN_CTAS (raises every algorithm's channels
        and the NVLS CTAs; at most max_ctas when both are set), each 1 to 64 (0: NCCL's). Small
        messages still run on fewer channels (NCCL sheds them).
    steps : bool  [--steps]
        Simulate every ring / tree step (default False: steps collapsed, exact on an idle fabric).
    iters, warmup_iters : int  [-n, -w]
        nccl-tests' iteration counts, printed in ``attrs["text"]``; the simulation is deterministic.
    gpus : int, optional  [--gpus]
        GPUs taking part: the first ``gpus`` of the cluster (default all).
    gpu, gpu_file, nodes, gpus_per_node, nvlink_domain, nics_per_node, nic_rate, link_rate,
    topology, wiring, oversubscription, spine_oversubscription, radix, planes, sharp
        The cluster without a scenario [--gpu, --gpu-file, -N, -g, --nvlink-domain,
        --nics-per-node, --nic-rate, --link-rate, --topology, --wiring, --oversubscription,
        --spine-oversubscription, --radix, --planes, --sharp]. Defaults (None): H100, the
        built-in catalogue (docs/gpus.md), 1 node, 8 GPUs per node, one node per NVLink domain,
        one NIC per GPU, "400 Gbps" per NIC, link rate the NIC's (at least 400 Gbps), "clos3",
        "rail_optimized", "1:1", "1:1", 64 ports, 1 plane, no SHARP. Rates are text with a unit
        ("200 Gbps", "50 GB/s"); ratios "2:1" or a number >= 1. Each count within the range of
        its scenario key (docs/scenario-reference.md).

    Returns
    -------
    pandas.DataFrame
        One row per size, in nccl-tests' order: ``size`` [B] (nccl-tests' size, after its rounding
        per op), ``count`` [elements], ``type``, ``redop`` ("none" when the op has none), ``root``
        (-1 when it has none), ``time`` [s], ``algbw`` [GB/s] = size / time, ``busbw`` [GB/s] =
        algbw x nccl-tests' factor (doc/PERFORMANCE.md: all-reduce 2(n-1)/n; all-gather,
        reduce-scatter, alltoall (n-1)/n; else 1), then NCCL's choice: ``algorithm``,
        ``protocol`` ("LL", "LL128", "Simple"), ``channels``, ``nccl_time`` [s] (NCCL's own
        prediction), ``model_time`` [s] (the execution model on an idle fabric), ``note`` (the
        approximation made for that size, "" when none). GB/s is 10**9 B/s, as nccl-tests'.
        ``df.attrs``: ``units`` ({column: unit}), ``avg_busbw`` [GB/s] (nccl-tests' "Avg bus
        bandwidth"), ``notes`` (the run's notes: devices, fabric, the fabric as built where it
        differs from the options, the collective model; list of str), ``text`` (the CLI's
        output, nccl-tests' format), ``collective``, ``nccl_tests_name``, ``ranks``, ``gpu``.

    Raises
    ------
    ParameterError (a ValueError)
        A bad argument (unknown name, a size that is not one, a count beyond its scenario key's
        range, an NVLink domain the GPU cannot build ...): ``key`` is the argument's name,
        ``value`` the value given, ``expected`` the CLI's reason, ``str(e)`` "name: reason".
    ArgumentTypeError (a TypeError)
        An argument of the wrong type (``nodes=1.5``, ``nic_rate=400``).
    ScenarioError, FileError
        A bad or unreadable scenario or ``gpu_file`` (file, line, key).
    Error, SimulationError
        An algorithm the GPUs or fabric cannot run (``algorithm="nvls"`` on A100), a size no
        algorithm can run in an hour (NCCL's tuner); valid input the simulation cannot run.
    KeyboardInterrupt
        Ctrl-C: the benchmark stops at its next cancellation point (python/bindings/interrupt.hpp);
        ``Cancelled`` after ``aidcsim.cancel()``.

    Runs in this process with the GIL released, one call at a time with run() (a lock).
    """
    given = {k: v for k, v in locals().items() if k != "scenario" and v is not None}
    import pandas as pd

    from .runner import _lock
    if scenario is not None:
        both = [k for k in _CLUSTER if k in given]
        if both:
            raise argument_error(both[0], given[both[0]], "nothing with scenario= (the cluster is the scenario's; "
                                 "gpus= takes its first GPUs)")
    args = _checked(given)
    text = name = s = None
    if scenario is not None:
        s = as_scenario(scenario)
        text, name = s._source()
    try:
        with _lock:
            raw = _native.core().bench_collective(args, text, name or "<string>")
    except ScenarioError as e:
        raise (s.relocate(e) if s is not None else e) from None
    rows = raw["rows"]
    for r in rows:
        r["size"] = int(r["size"])  # whole bytes (nccl-tests' size_t)
        r["algbw"] /= 1e9
        r["busbw"] /= 1e9
    df = pd.DataFrame(rows, columns=["size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                                     "algorithm", "protocol", "channels", "nccl_time", "model_time", "note"])
    df.attrs["units"] = dict(UNITS)
    # nccl-tests averages busbw over both columns (out-of-place, in-place), equal here.
    df.attrs["avg_busbw"] = float(df["busbw"].mean()) if len(df) else 0.0
    header = raw["text"].split("# NCCL's choice per size")[0].splitlines()
    df.attrs["notes"] = [line[3:] for line in header if line.startswith("#  ")]
    df.attrs["text"] = raw["text"]
    for key in ("collective", "nccl_tests_name", "ranks", "gpu"):
        df.attrs[key] = raw[key]
    return df
