"""aidcsim: simulate AI-training datacenters from Python.

    import aidcsim
    s = aidcsim.Scenario.load("scenarios/stargate-uk-8k.yaml")
    s["fabric.oversubscription.spine"] = 2          # dotted-key override
    r = aidcsim.run(s)                              # -> Results
    r.summary["step_time"], r.units["step_time"]    # headline numbers and their units
    r.datasets["/network/link_utilization"]         # numpy arrays
    r.to_pandas(); r.to_xarray(); r.to_hdf5("out.h5")
    df = aidcsim.sweep(s, {"fabric.nic_rate": ["200 Gbps", "400 Gbps"]})   # one row per point
    df = aidcsim.sweep(s, zipped={"cluster.gpus": [576, 1152],              # keys varied together:
                                  "workload.parallelism.dp": [8, 16]})     # tp x pp x dp = gpus
    open("sweep.csv", "w").write(aidcsim.sweep_to_csv(df))  # CSV header "step_time [s]"
    df = aidcsim.read_sweep_csv("sweep.csv")
    c = aidcsim.compare([s, (s, {"fabric.oversubscription.spine": "4:1"})], seeds=2)
    c.table(); c.stats; print(c.format())                  # designs side by side over seeds
    b = aidcsim.bench_collective(gpu="H100", min_bytes="1M", max_bytes="1G", step_factor=4)
    b[["size", "algorithm", "protocol", "busbw"]]           # nccl-tests per size; busbw in GB/s

sweep and compare run on local processes (multiprocessing spawn): in a script run as
``python3 FILE``, call them under ``if __name__ == "__main__":`` (docs/python.md, Sweeps).

Errors: ScenarioError (a ValueError with .file .line .column .key .value .expected .hint),
ParameterError (ValueError), ArgumentTypeError (TypeError), ArgumentIndexError (IndexError), FileError (OSError), SimulationError,
Cancelled: all subclasses of aidcsim.Error. Ctrl-C raises KeyboardInterrupt; aidcsim.cancel() stops
a run from another thread. Input bounds: aidcsim.limits; unit constants (the C++ names of
models/common/units.hpp): aidcsim.units. See docs/python.md.
"""

from ._version import __git_sha__, __version__
from . import limits, units
from .errors import (ArgumentIndexError, ArgumentTypeError, Cancelled, Error, FileError, ParameterError, ScenarioError,
                     SimulationError)
from .results import Results
from .runner import cancel, run, validate
from .scenario import Scenario
from .sweep import read_csv as read_sweep_csv, sweep, to_csv as sweep_to_csv
from .compare import Comparison, compare
from .bench import bench_collective


def __getattr__(name):
    # Parts that need the compiled module or matplotlib are imported on first use.
    import importlib
    if name == "Fabric":
        return importlib.import_module(".fabric", __name__).Fabric
    if name in ("thermal", "report", "h5io"):
        return importlib.import_module("." + name, __name__)
    if name == "core_version":
        return importlib.import_module("._native", __name__).core().version()
    raise AttributeError(f"module 'aidcsim' has no attribute {name!r}")


__all__ = ["Scenario", "Results", "run", "validate", "bench_collective", "sweep", "sweep_to_csv", "read_sweep_csv", "compare", "Comparison", "cancel", "Fabric",
           "limits", "units", "Error", "ParameterError", "ScenarioError", "ArgumentTypeError", "ArgumentIndexError",
           "FileError", "SimulationError",
           "Cancelled"]
