"""Design comparison (aidcsim.compare, `aidcsim compare`): runs per design and seed equal single
runs, statistics over seeds against closed forms, the within-spread flag, outputs, and the CLI
with per-design --set. Small designs (576 GPUs, 1-2 seeds) keep it to a few runs."""
import json
import math
import pathlib
import subprocess

import h5py
import pandas as pd
import pytest

import aidcsim
from aidcsim.compare import UNITS_FROM_COLUMN, parse_args, seed_stats

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "data" / "small-576.yaml"
LEAF = "fabric.oversubscription.leaf"


@pytest.fixture(scope="module")
def comparison():
    return aidcsim.compare([SMALL, (SMALL, {LEAF: "2:1"})], seeds=2, processes=1)


def test_runs_are_single_runs_at_paired_seeds(comparison):
    c = comparison
    assert c.seeds == [42, 43]  # the scenario's seed, then the next: the same for both designs
    assert c.names == ["small-576", "small-576 [leaf=2:1]"]
    assert list(c.runs["design"]) == [c.names[0]] * 2 + [c.names[1]] * 2
    alone = aidcsim.run(SMALL, seed=43).summary
    row = c.runs[(c.runs["design"] == c.names[0]) & (c.runs["seed"] == 43)].iloc[0]
    for key in ("step_time", "time_to_train_p50", "peak_link_utilization", "it_power"):
        assert row[key] == alone[key], key  # bit for bit: the same run


def test_statistics_over_seeds(comparison):
    c = comparison
    st = c.stats.set_index(["design", "metric"])
    for name in c.names:
        v = c.runs.loc[c.runs["design"] == name, "step_time"].to_numpy()
        s = st.loc[(name, "step_time")]
        assert s["n"] == 2
        assert s["mean"] == pytest.approx(v.mean(), rel=1e-15)
        assert s["spread"] == pytest.approx(v.max() - v.min(), abs=1e-15)
        # 95 % Student-t half-width with 1 degree of freedom: t = 12.7062
        assert s["ci95"] == pytest.approx(12.7062047 * v.std(ddof=1) / math.sqrt(2), rel=1e-6)
    ref, other = c.names
    assert st.loc[(ref, "step_time"), "delta"] == 0
    # 2:1 leaves: fewer uplinks, less bisection; bisection and BOM counts are the fabric's.
    variant = aidcsim.Scenario.load(SMALL)
    variant[LEAF] = "2:1"
    for name, s in ((ref, aidcsim.Scenario.load(SMALL)), (other, variant)):
        bom = aidcsim.Fabric(s).bom()
        assert st.loc[(name, "bisection_bandwidth"), "mean"] == pytest.approx(bom["bisection_bandwidth"] * 8 / 1e12)
        for k in ("leaves", "spines"):
            assert st.loc[(name, "bom_" + k), "mean"] == bom[k]
        # The priced BOM in the run's results is the fabric's (aidcsim.Fabric.cost, same C++ model).
        cost = aidcsim.Fabric(s).cost()
        for m in ("copper", "multimode", "singlemode"):
            assert st.loc[(name, "links_" + m), "mean"] == cost["links_" + m]
        assert sum(cost["links_" + m] for m in ("copper", "multimode", "singlemode")) == bom["scaleout_cables"]
        assert st.loc[(name, "fabric_power"), "mean"] == pytest.approx(cost["power_total"] / 1e3, rel=1e-12)
        assert st.loc[(name, "fabric_cost"), "mean"] == pytest.approx(cost["cost_total"] / 1e6, rel=1e-12)
    assert st.loc[(other, "bisection_bandwidth"), "delta"] < 0
    assert st.loc[(other, "oversubscription_leaf"), "mean"] == 2.0
    # The bisection check fails for 2:1 in every seed, passes for 1:1.
    ch = c.checks.set_index(["design", "item"])
    assert ch.loc[(other, "bisection ratio"), "passed"] == 0
    assert ch.loc[(ref, "bisection ratio"), "passed"] == 2
    t = c.table()
    assert list(t.columns) == c.names
    assert t.loc["step_time", ref] == st.loc[(ref, "step_time"), "mean"]


def test_within_spread_flag_closed_form():
    runs = pd.DataFrame({"design": ["A", "A", "B", "B", "C", "C", "D", "D"],
                         "step_time": [1.0, 1.2, 1.1, 1.15, 2.0, 2.1, 1.0, 1.2]})
    st = seed_stats(runs, ["A", "B", "C", "D"], {"step_time": "s"}).set_index("design")
    assert st.loc["B", "delta"] == pytest.approx(0.025)
    assert bool(st.loc["B", "within_spread"])          # 0.025 <= A's spread 0.2
    assert not bool(st.loc["C", "within_spread"])      # 0.95 > 0.2
    assert not bool(st.loc["D", "within_spread"])      # no difference, nothing to flag
    assert not bool(st.loc["A", "within_spread"])
    assert st.loc["C", "delta_pct"] == pytest.approx(100 * 0.95 / 1.1)
    one = seed_stats(runs.iloc[[0, 2]], ["A", "B"]).set_index("design")
    assert math.isnan(one.loc["A", "ci95"]) and not bool(one.loc["B", "within_spread"])  # one seed: unknown


def test_outputs(comparison, tmp_path):
    c = comparison
    text = c.format()
    assert "step time" in text and c.names[1] in text and "bisection ratio: passed in 0 of 2 seeds" in text
    c.to_json(tmp_path / "c.json")
    data = json.loads((tmp_path / "c.json").read_text())
    assert [d["name"] for d in data["designs"]] == c.names
    assert len(data["runs"]) == 4 and data["units"]["step_time"] == "s"
    c.to_hdf5(tmp_path / "c.h5")
    with h5py.File(tmp_path / "c.h5") as f:
        assert f["seeds"][()].tolist() == [42, 43]
        assert f["runs/step_time"].attrs["unit"] == "s"
        assert f["runs/step_time"].attrs["units"] == "s"  # the CF name `aidcsim run`'s files use
        assert f["stats/mean"].shape == (len(c.stats),)
        # Every dataset has units (the project's standard; /stats and /checks had none before).
        without = []
        f.visititems(lambda n, o: without.append(n) if isinstance(o, h5py.Dataset) and "units" not in o.attrs else None)
        assert without == []
        for ds in ("stats/design", "stats/n", "stats/within_spread", "checks/passed", "checks/runs", "seeds",
                   "designs/overrides", "runs/seed", "runs/checks_passed"):
            assert f[ds].attrs["units"] == "1", ds
        assert f["stats/delta_pct"].attrs["units"] == "%"
        # Long-format columns: the unit of each row is in the group's `unit` column, as the
        # attributes say; a reader gets step_time's mean in seconds from them.
        for ds in ("stats/mean", "stats/std", "stats/min", "stats/max", "stats/ci95", "stats/delta",
                   "checks/value_mean", "checks/limit"):
            assert f[ds].attrs["units"] == UNITS_FROM_COLUMN == "see column unit", ds
            assert f[ds].attrs["units_column"] == "unit"
        row = list(f["stats/metric"].asstr()[()]).index("step_time")
        assert f["stats/" + f["stats/mean"].attrs["units_column"]].asstr()[row] == "s"
    fig = c.plot(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 10000
    for ax in fig.axes:
        if ax.has_data():
            assert ax.get_title() and "[" in ax.get_ylabel() and ax.get_xlabel() == "design"
    # one legend for the figure, below the panels
    assert len(fig.legends) == 1
    assert {"mean over seeds", "seed range", "one seed"} <= {t.get_text() for t in fig.legends[0].get_texts()}
    assert "fabric cost (indicative)" in [ax.get_title() for ax in fig.axes]
    assert not list(tmp_path.glob("*.tmp-*"))


def test_parse_args_binds_set_to_the_design_before():
    designs, rest = parse_args(["a.yaml", "--set", "x.y=2:1", "--seeds", "2", "a.yaml", "--set=z=5",
                                "--name", "Z", "--set-all", "cluster.gpus=576"])
    assert designs == [["a.yaml", {"x.y": "2:1"}, None], ["a.yaml", {"z": 5}, "Z"]]
    assert rest == ["--seeds", "2", "--set-all", "cluster.gpus=576"]
    with pytest.raises(ValueError, match="before any design"):
        parse_args(["--set", "a=1", "a.yaml"])


def test_cli(cli, tmp_path):
    out = subprocess.run([str(cli), "compare", str(SMALL), str(SMALL), "--set", f"{LEAF}=2:1", "--seeds", "1",
                          "--json", str(tmp_path / "c.json")], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "small-576 [leaf=2:1]" in out.stdout and "(-41.7 %)" in out.stdout  # bisection 115.2 -> 67.2 Tb/s
    assert json.loads((tmp_path / "c.json").read_text())["seeds"] == [42]
    bad = subprocess.run([str(cli), "compare", "--set", "a=1", str(SMALL)], capture_output=True, text=True)
    assert bad.returncode == 64 and "before any design" in bad.stderr
    wrong = subprocess.run([str(cli), "compare", str(SMALL), "--set", "fabric.oversubscription.leaf=banana",
                            "--seeds", "1"], capture_output=True, text=True)
    assert wrong.returncode == 1 and "design 'small-576 [leaf=banana]'" in wrong.stderr
    assert "(set on the command line with --set)" in wrong.stderr


def test_cli_outputs_checked_before_any_run(cli, tmp_path):
    """As `aidcsim run` and `sweep`: an output that cannot be written is reported before the designs
    run (the comparison used to run them all, print the table, then fail on the path), a file of
    another kind is a usage error, and two outputs naming one file are refused."""
    def compare(*out):
        return subprocess.run([str(cli), "compare", str(SMALL), "--seeds", "1", *out], capture_output=True,
                              text=True, cwd=tmp_path)
    gone = compare("--json", str(tmp_path / "no" / "c.json"))
    assert gone.returncode == 1 and "directory" in gone.stderr and "does not exist" in gone.stderr
    assert gone.stdout == ""  # no table: nothing ran
    for out in (("--json", "c.h5"), ("--hdf5", "c.json"), ("--png", "c.json")):
        swapped = compare(*out)
        assert swapped.returncode == 64 and f"{out[0]}: '{out[1]}'" in swapped.stderr, swapped.stderr
    twice = compare("--json", "same.out", "--hdf5", "./same.out")
    assert twice.returncode == 1 and "the same file as another output" in twice.stderr and twice.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_cli_outputs_survive_a_gone_reader(cli, tmp_path):
    """`aidcsim compare ... --json c.json | head -1`: the reader of the table has gone when it is
    printed; the JSON of the finished runs is written all the same (it was lost with a BrokenPipeError,
    exit 1)."""
    p = subprocess.Popen([str(cli), "compare", str(SMALL), "--seeds", "1", "--json", "c.json"], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader goes away before the table is printed
    err = p.stderr.read().decode()
    assert p.wait() == 0, err
    assert json.loads((tmp_path / "c.json").read_text())["seeds"] == [42]


def test_runs_and_seeds_bounded_before_any_run(cli, monkeypatch):
    """designs x seeds at most aidcsim.limits.MAX_SWEEP_POINTS, seeds an integer >= 1 and the last
    seed within MAX_SEED, all before any run: `--seeds 100000000` started 1e8 runs, `--seeds 0` and
    `--seed -5` were errors (exit 1) rather than usage errors (64), seeds=2.0 was converted."""
    monkeypatch.setattr(aidcsim.limits, "MAX_SWEEP_POINTS", 3)
    started = []
    with pytest.raises(aidcsim.ParameterError, match="2 designs x 2 seeds = 4"):
        aidcsim.compare([SMALL, (SMALL, {LEAF: "2:1"})], seeds=2, processes=1,
                        progress=lambda stage, fraction: started.append(stage))
    assert started == []
    with pytest.raises(aidcsim.ArgumentTypeError, match="seeds: got 2.0"):
        aidcsim.compare([SMALL], seeds=2.0, processes=1)
    with pytest.raises(aidcsim.ParameterError, match="seed: got 9007199254740992"):
        aidcsim.compare([SMALL], seeds=2, seed=2**53 - 1, processes=1)
    for args, message in ((["--seeds", "0"], "--seeds: got 0"), (["--seeds", "100000000"], "--seeds: got 100000000"),
                          (["--seed", "-5"], "--seed: got -5")):
        out = subprocess.run([str(cli), "compare", str(SMALL), str(SMALL), *args], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 64 and message in out.stderr and out.stdout == "", out.stderr


def test_cli_output_on_stdout_keeps_stdout_to_itself(cli, tmp_path):
    """`--json -`: the table was printed on stdout with the JSON, so stdout was not JSON; with an
    output on stdout the table goes to stderr, as `aidcsim run` moves its summary."""
    out = subprocess.run([str(cli), "compare", str(SMALL), "--seeds", "1", "--json", "-"], capture_output=True,
                         text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["seeds"] == [42]
    assert "Comparison of 1 designs" in out.stderr


def test_a_design_that_does_not_load_fails_before_any_run():
    """A typo in the last design's overrides is reported before the other designs run (at 31K GPUs
    those runs are minutes each): the progress callback, called as runs finish, is never called."""
    done = []
    with pytest.raises(aidcsim.ScenarioError) as e:
        aidcsim.compare([SMALL, (SMALL, {"fabric.link_rate": "400"})], seeds=2, processes=1,
                        progress=lambda stage, fraction: done.append(stage))
    assert done == []
    assert "design 'small-576 [link_rate=400]' (before any run): " in str(e.value)
    assert e.value.key == "fabric.link_rate" and "got a plain number without a unit" in str(e.value)


def test_table_numbers_keep_their_digits():
    # The table printed "(-0.100 %)" next to "(-0.1 %)" (the decimals were chosen on the unrounded
    # difference) and "±0.16" next to "±0.151" (%g drops trailing zeros).
    from aidcsim.compare import _fmt, _fmt_pct
    assert _fmt_pct(-0.09998) == "-0.1 %"
    assert _fmt_pct(-0.1002) == "-0.1 %"
    assert _fmt_pct(0.049) == "+0.049 %"
    assert _fmt_pct(-12.46) == "-12.5 %"
    assert _fmt(0.16) == "0.160"
    assert _fmt(0.000282) == "0.000282"
    assert _fmt(0.151) == "0.151"
    assert _fmt(5.246) == "5.246"


def test_cooling_fault_figures_in_the_table():
    # The table left out the time-to-train with the cooling faults and the training time they cost,
    # though the run's summary has both (models/thermal/thermal_report.cpp).
    fault = ROOT / "tests" / "regression" / "cooling-fault.yaml"
    c = aidcsim.compare([fault], seeds=1, processes=1)
    alone = aidcsim.run(fault, seed=c.seeds[0]).summary
    st = c.stats.set_index("metric")
    text = c.format()
    for key, label in (("time_to_train_with_faults", "time-to-train with cooling faults"),
                       ("cooling_faults_lost_training_time", "training lost to cooling faults")):
        assert st.loc[key, "mean"] == alone[key], key
        assert label in text, key


def test_hdf5_says_what_made_it(comparison, tmp_path):
    # `aidcsim run`'s files carry the version and commit as root attributes; the comparison's had
    # none, so a file could not be traced to the code that computed it.
    comparison.to_hdf5(tmp_path / "c.h5")
    with h5py.File(tmp_path / "c.h5") as f:
        assert f.attrs["aidcsim_version"] == aidcsim.__version__
        assert f.attrs["git_sha"] == aidcsim.__git_sha__
        assert f.attrs["created_by"] == f"aidcsim.compare {aidcsim.__version__}"


def test_each_design_fabric_is_built_once_before_the_runs(monkeypatch):
    # compare() validated each design (building its fabric) and then built the fabric again
    # (aidcsim.Fabric) for the BOM counts of the table: ~0.03 s a design at 31K GPUs. The
    # validation's fabric gives them now; a second build fails this test.
    import aidcsim.fabric
    want = {d: aidcsim.Fabric(s).bom() for d, s in (("a", SMALL), ("b", _with(SMALL, {LEAF: "2:1"})))}

    def built_again(*args, **kwargs):
        raise AssertionError("a design's fabric built a second time")

    monkeypatch.setattr(aidcsim.fabric, "Fabric", built_again)
    c = aidcsim.compare([SMALL, (SMALL, {LEAF: "2:1"})], seeds=1, processes=1)
    for name, d in zip(c.names, ("a", "b")):
        row = c.runs[c.runs["design"] == name].iloc[0]
        for k in ("leaves", "spines", "cores"):
            assert row[f"bom_{k}"] == want[d][k], (name, k)


def _with(path, overrides):
    s = aidcsim.Scenario.load(path)
    s.update(overrides)
    return s


@pytest.mark.parametrize("path, overrides", [
    (SMALL, {}),
    (ROOT / "tests" / "regression" / "clos3-failures.yaml", {}),  # a timed failure: built again
    (ROOT / "tests" / "regression" / "rollout-phases.yaml", {}),  # first phase = cluster.gpus
    # a first phase larger than the job: its fabric is not the scenario's, built again
    (ROOT / "tests" / "regression" / "rollout-phases.yaml",
     {"rollout.phases": [{"name": "4 racks", "gpus": 288, "start": "2026-04-01"},
                         {"name": "8 racks", "gpus": 576, "start": "2026-05-01"}]}),
])
def test_the_validation_bom_is_the_fabric_bom(path, overrides):
    s = _with(path, overrides)
    validated, bom = s._validate(bom=True)
    assert bom == aidcsim.Fabric(s).bom()
    assert validated == s.validate() and s._validate()[1] is None


def test_the_validation_bom_of_a_jobs_scenario():
    # `jobs:` scenarios keep no fabric from their checks: the BOM is built for them.
    text = """name: two-jobs
cluster: {gpu: H100, gpus: 128, gpus_per_node: 8, nvlink_domain: 8}
fabric: {topology: leaf_spine, wiring: rail_optimized, switch_radix: 16, link_rate: "100 Gbps", nic_rate: "400 Gbps"}
jobs:
  - {name: a, model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048},
     parallelism: {tp: 8, dp: 8}, global_batch: 8}
  - {name: b, model: {layers: 4, hidden: 4096, heads: 32, vocab: 51200, sequence_length: 2048},
     parallelism: {tp: 8, dp: 8}, global_batch: 8}
training: {tokens: "10B"}
"""
    s = aidcsim.Scenario.from_yaml(text, name="two-jobs.yaml")
    assert s._validate(bom=True)[1] == aidcsim.Fabric(s).bom()
