"""aidcsim.bench_collective: `aidcsim bench-collective` from Python. The same arguments give the
CLI's numbers (its output parsed here), a published figure of docs/validation-busbw.md comes out,
bad arguments raise the CLI's reasons as typed errors naming the Python argument, and Ctrl-C stops
a benchmark in progress."""
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import aidcsim

_ROW = re.compile(r"^ +(\d+) +(\d+) +(\S+) +(\S+) +(-?\d+) +(\S+) +(\S+) +(\S+) +N/A +(\S+) +(\S+) +(\S+) +N/A$")
_CHOICE = re.compile(r"^# +(\d+) +(\S+) / (\S+) +/ +(\d+) ch +NCCL +(\S+) us +sim +(\S+) us")


def _float_str(v, width):
    """nccl-tests' getFloatStr as the CLI prints (sim/engine/collective_bench.cpp float_str)."""
    for decimals in (2, 1, 0):
        s = f"{v:>{width}.{decimals}f}"
        if len(s) <= width:
            return s.strip()
    return (f"{v:>{width}.1e}" if width >= 7 else f"{v:>{width}.0e}").strip()


def _cli_output(cli, *args):
    p = subprocess.run([str(cli), "bench-collective", *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


# (CLI options, the same as bench_collective's arguments)
_SAME = [
    (["-b", "8", "-e", "8G", "-f", "4"], dict(min_bytes=8, max_bytes="8G", step_factor=4)),
    (["--collective", "all_gather", "--gpu", "A100", "-N", "2", "--nics-per-node", "4", "--nic-rate", "200 Gbps",
      "-b", "1M", "-e", "1G", "-f", "8", "-d", "half"],
     dict(collective="all_gather", gpu="A100", nodes=2, nics_per_node=4, nic_rate="200 Gbps", min_bytes="1M",
          max_bytes=2**30, step_factor=8, datatype="half")),
    (["--collective", "broadcast", "-r", "3", "-N", "4", "--topology", "leaf_spine", "--oversubscription", "2:1",
      "--algo", "ring", "--proto", "Simple", "-b", "64K", "-e", "256M", "-i", "64M"],
     dict(collective="broadcast", root=3, nodes=4, topology="leaf_spine", oversubscription="2:1", algorithm="ring",
          protocol="Simple", min_bytes="64K", max_bytes="256M", step_bytes="64M")),
]


@pytest.mark.parametrize("cli_args,kwargs", _SAME, ids=["8xH100-all_reduce", "A100-all_gather", "broadcast-ring"])
def test_rows_equal_the_cli(cli, cli_args, kwargs):
    out = _cli_output(cli, *cli_args)
    rows = [_ROW.match(line).groups() for line in out.splitlines() if _ROW.match(line)]
    choices = [_CHOICE.match(line).groups() for line in out.splitlines() if _CHOICE.match(line)]
    df = aidcsim.bench_collective(**kwargs)
    assert len(df) == len(rows) == len(choices) > 1
    for r, row, choice in zip(df.itertuples(), rows, choices):
        size, count, type_, redop, root, time_us, algbw, busbw = row[:8]
        assert (r.size, r.count, r.type, r.redop, r.root) == (int(size), int(count), type_, redop, int(root))
        assert (_float_str(r.time * 1e6, 7), _float_str(r.algbw, 6), _float_str(r.busbw, 6)) == (time_us, algbw, busbw)
        assert row[8:] == row[5:8]   # in-place as out-of-place
        assert (str(r.size), r.algorithm, r.protocol, str(r.channels)) == choice[:4]
        assert (f"{r.nccl_time * 1e6:.1f}", f"{r.time * 1e6:.1f}") == choice[4:]
    avg = float(re.search(r"^# Avg bus bandwidth +: (\S+)", out, re.M).group(1))
    assert f"{df.attrs['avg_busbw']:g}" == f"{avg:g}"
    assert df.attrs["text"] == out
    assert df.attrs["units"] == {"size": "B", "count": "elements", "time": "s", "algbw": "GB/s", "busbw": "GB/s",
                                 "nccl_time": "s", "model_time": "s"}
    assert any(n.startswith("Fabric: ") for n in df.attrs["notes"])


def test_a_scenario_object_equals_the_cli_on_its_file(cli, root, tmp_path):
    # A Scenario changed from Python is the cluster, as its YAML written to a file is for --scenario.
    s = aidcsim.Scenario.load(root / "scenarios" / "stargate-uk-8k.yaml")
    s["fabric.oversubscription.leaf"] = "2:1"
    path = tmp_path / "s.yaml"
    path.write_text(s.to_yaml())
    out = _cli_output(cli, "--scenario", str(path), "--gpus", "144", "-b", "1M", "-e", "1G", "-f", "32")
    df = aidcsim.bench_collective(s, gpus=144, min_bytes="1M", max_bytes="1G", step_factor=32)
    assert df.attrs["ranks"] == 144 and df.attrs["gpu"] == "GB200"
    assert df.attrs["text"] == out


def test_published_busbw_8x_h100_nvls(root):
    # docs/validation-busbw.md, Results: 8 GiB all-reduce on 8 x H100 (NVLink4), NCCL's choice NVLS,
    # published 480 GB/s (../shared/reference/published-figures.md §4.1), within the ±10 % that
    # tests/validation/test_busbw.cpp enforces (simulated 487.0 when written).
    assert "| H100 x 8, NVLink4 | NVLS (auto) | 480 |" in (root / "docs" / "validation-busbw.md").read_text()
    df = aidcsim.bench_collective(gpu="H100", min_bytes="8G", max_bytes="8G")
    assert len(df) == 1 and df["size"][0] == 8 * 2**30
    assert (df["algorithm"][0], df["protocol"][0]) == ("nvls", "Simple")
    assert df["busbw"][0] == pytest.approx(480, rel=0.10)
    # busbw as nccl-tests defines it (doc/PERFORMANCE.md): algbw x 2(n-1)/n for all-reduce, n = 8
    assert df["busbw"][0] == pytest.approx(df["algbw"][0] * 2 * 7 / 8, rel=1e-12)
    assert df["algbw"][0] == pytest.approx(df["size"][0] / df["time"][0] / 1e9, rel=1e-12)


@pytest.mark.parametrize("kwargs,cls,key,message", [
    (dict(min_bytes="8Q"), aidcsim.ParameterError, "min_bytes", "'8Q' is not a size: a number with an optional K"),
    (dict(min_bytes="16", max_bytes="8"), aidcsim.ParameterError, "min_bytes/max_bytes",
     "maxBytes 8 is below minBytes 16"),
    (dict(step_factor=1), aidcsim.ParameterError, "step_factor", "use step_bytes for linear steps"),
    (dict(step_factor="4"), aidcsim.ArgumentTypeError, "step_factor", "expected an integer"),
    (dict(gpu="H2O"), aidcsim.ParameterError, "gpu", r"unknown GPU model 'H2O' \(one of: A100, H100"),
    (dict(nodes=0), aidcsim.ParameterError, "nodes", "expected an integer from 1"),
    (dict(nodes=1.5), aidcsim.ArgumentTypeError, "nodes", "expected an integer"),
    (dict(nic_rate=400), aidcsim.ArgumentTypeError, "nic_rate", "a data rate as text"),
    (dict(nic_rate="400 GB"), aidcsim.ParameterError, "nic_rate", "'400 GB' is not a data rate"),
    (dict(gpus_per_node=16), aidcsim.ParameterError, "gpus_per_node",
     r"16 GPUs per node \(one NVLink domain\): expected at most 8, the largest NVLink domain of H100"),
    (dict(gpus=17, nodes=2), aidcsim.ParameterError, "gpus", r"17 GPUs asked, the cluster has 16 \(nodes x gpus_per"),
    (dict(nodes=1000000000), aidcsim.ParameterError, "nodes", r"expected an integer from 1 to 10000000 \(the range "
                                                              "of cluster.gpus\\)"),
    (dict(collective="bogus"), aidcsim.ParameterError, "collective", "unknown collective 'bogus' \\(one of: all_reduce"),
    (dict(op="all_gather"), aidcsim.ParameterError, "op", "the collective is collective='all_gather'"),
    (dict(datatype="bogus"), aidcsim.ParameterError, "datatype", "unknown data type 'bogus'"),
    (dict(algorithm="bogus"), aidcsim.ParameterError, "algorithm", "unknown collective algorithm 'bogus'"),
    (dict(root=8), aidcsim.ParameterError, "root", "8: a rank from 0 to 7"),
    (dict(scenario="scenarios/stargate-uk-8k.yaml", nodes=2), aidcsim.ParameterError, "nodes",
     "nothing with scenario="),
    (dict(gpu_file=""), aidcsim.ParameterError, "gpu_file", "non-empty path"),
    (dict(max_channels=65), aidcsim.ParameterError, "max_channels", r"from 1 to 64 \(0: NCCL's\)"),
    (dict(max_ctas=65), aidcsim.ParameterError, "max_ctas", r"from 1 to 64 \(0: NCCL's\)"),
    (dict(nvls_channels=-1), aidcsim.ParameterError, "nvls_channels", r"from 1 to 64 \(0: NCCL's\)"),
    (dict(min_channels=-1), aidcsim.ParameterError, "min_channels", r"from 1 to 64 \(0: NCCL's\)"),
    (dict(min_channels=65), aidcsim.ParameterError, "min_channels", r"from 1 to 64 \(0: NCCL's\)"),
    (dict(min_ctas=-1), aidcsim.ParameterError, "min_ctas", r"from 1 to 64 \(0: NCCL's\)"),
    (dict(min_ctas=16, max_ctas=8), aidcsim.ParameterError, "min_ctas",
     r"16 is above max_ctas=8: from 1 to 8 \(0: NCCL's; NCCL refuses minCTAs > maxCTAs"),
])
def test_bad_arguments_raise_naming_the_argument(kwargs, cls, key, message):
    with pytest.raises(cls, match=message) as e:
        aidcsim.bench_collective(**kwargs)
    assert isinstance(e.value, ValueError) and e.value.key == key
    assert str(e.value).startswith(key + ": ")


def test_a_misspelt_gpu_gets_the_scenario_keys_hint(cli):
    """gpu='h100' is H100 in another case: the hint cluster.gpu gives in a scenario ("did you mean
    'H100'?"), in the message and as e.hint, and from the CLI's --gpu alike (one validator)."""
    with pytest.raises(aidcsim.ParameterError) as e:
        aidcsim.bench_collective(gpu="h100")
    assert e.value.hint == "did you mean 'H100'?"
    assert str(e.value).endswith("; did you mean 'H100'?"), str(e.value)
    p = subprocess.run([str(cli), "bench-collective", "--gpu", "gb200"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 64 and "--gpu: unknown GPU model 'gb200'" in p.stderr, p.stderr
    assert p.stderr.strip().endswith("did you mean 'GB200'?"), p.stderr
    with pytest.raises(aidcsim.ParameterError) as far:  # nothing close: no hint
        aidcsim.bench_collective(gpu="Q9")
    assert far.value.hint == "" and "did you mean" not in str(far.value)


def test_a_bad_argument_gives_the_clis_reason(cli):
    # One validator (sim/engine/collective_bench_args.cpp) for both: the reason after the name is the CLI's.
    p = subprocess.run([str(cli), "bench-collective", "--nvlink-domain", "4", "-N", "2"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 64
    reason = p.stderr.strip().split("aidcsim bench-collective: --nvlink-domain: ", 1)[1]
    with pytest.raises(aidcsim.ParameterError) as e:
        aidcsim.bench_collective(nvlink_domain=4, nodes=2)
    assert (e.value.key, e.value.value, e.value.expected) == ("nvlink_domain", "4", reason)


def test_errors_of_the_run_and_of_files_are_typed(tmp_path):
    with pytest.raises(aidcsim.Error, match="nvls needs GPUs with NVLink SHARP"):
        aidcsim.bench_collective(gpu="A100", algorithm="nvls", min_bytes="1M", max_bytes="1M")
    with pytest.raises(aidcsim.FileError):
        aidcsim.bench_collective(gpu_file=tmp_path / "missing.yaml")
    bad = tmp_path / "gpus.yaml"
    bad.write_text("gpus:\n  - name: X\n    base: H100\n    nvlink_bandwidth: fast\n")
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.bench_collective(gpu_file=bad, gpu="X")
    assert e.value.line == 4


# A benchmark of ~16 s CPU uninterrupted (512 nodes, every tree step simulated, 31 sizes) on the main
# thread. SIGINT is sent once the compiled call has begun (a profile hook records it); the call
# must stop by raising (event c_exception), not return and leave Python to raise after it
# (c_return), which is what a call that ignores Ctrl-C until it ends does.
_INTERRUPTED = textwrap.dedent("""
    import os, signal, sys, threading, time, aidcsim
    signal.signal(signal.SIGINT, signal.default_int_handler)
    events = []
    def hook(frame, event, arg):
        if event.startswith("c_") and getattr(arg, "__name__", "") == "bench_collective":
            events.append(event)
    def ctrl_c():
        while not events:
            time.sleep(0.01)
        time.sleep(1)
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=ctrl_c, daemon=True).start()
    sys.setprofile(hook)
    try:
        aidcsim.bench_collective(nodes=512, steps=True, algorithm="tree")
        print("finished", flush=True)
    except KeyboardInterrupt:
        sys.setprofile(None)
        print("KeyboardInterrupt", events, flush=True)
    df = aidcsim.bench_collective(min_bytes="1M", max_bytes="1M")   # the engine's lock is free
    print("alive", len(df), flush=True)
""")


def test_ctrl_c_stops_a_benchmark():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(aidcsim.__file__)))
    p = subprocess.run([sys.executable, "-c", _INTERRUPTED], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["KeyboardInterrupt ['c_call', 'c_exception']", "alive 1"], p.stderr


def test_cancel_stops_a_benchmark():
    # aidcsim.cancel() from another thread, once the compiled call has begun (as above): Cancelled.
    events = []

    def hook(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") == "bench_collective":
            events.append(event)

    def cancel():
        while not events:
            time.sleep(0.01)
        time.sleep(0.5)
        aidcsim.cancel()

    canceller = threading.Thread(target=cancel, daemon=True)
    canceller.start()
    sys.setprofile(hook)
    try:
        with pytest.raises(aidcsim.Cancelled):
            aidcsim.bench_collective(nodes=512, steps=True, algorithm="tree")
    finally:
        sys.setprofile(None)
    canceller.join()
    assert len(aidcsim.bench_collective(min_bytes="1M", max_bytes="1M")) == 1


def test_nvls_channels_reach_nccls_model():
    # NCCL_NVLS_NCHANNELS sets NVLS's CTAs, hence its first round (docs/collectives.md): fewer CTAs,
    # a shorter fill at a size where the fill shows, and the reported channels follow.
    base = aidcsim.bench_collective(algorithm="nvls", min_bytes="1M", max_bytes="1M")
    few = aidcsim.bench_collective(algorithm="nvls", min_bytes="1M", max_bytes="1M", nvls_channels=4)
    assert few["channels"][0] == 4 and base["channels"][0] == 16
    assert few["time"][0] != base["time"][0]


def test_min_channels_and_min_ctas_reach_nccls_model():
    # NCCL_MIN_NCHANNELS copies comm->nChannels up after NCCL_MAX_NCHANNELS caps it (graph/connect.cc
    # ncclTopoPostset): 4 channels copied to 8 run faster than 4. NCCL_MIN_CTAS raises the NVLS CTAs
    # (transport/nvls.cc): 32 instead of 16, a longer fill (docs/collectives.md).
    ring = dict(algorithm="ring", min_bytes="1G", max_bytes="1G", max_channels=4)
    four = aidcsim.bench_collective(**ring)
    eight = aidcsim.bench_collective(**ring, min_channels=8)
    assert four["channels"][0] == 4 and eight["channels"][0] == 8
    assert eight["time"][0] < four["time"][0]
    nvls = dict(algorithm="nvls", min_bytes="32M", max_bytes="32M")
    base = aidcsim.bench_collective(**nvls)
    more = aidcsim.bench_collective(**nvls, min_ctas=32)
    assert base["channels"][0] == 16 and more["channels"][0] == 32
    assert more["time"][0] > base["time"][0]
