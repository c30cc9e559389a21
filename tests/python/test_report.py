"""Plots: `python3 -m aidcsim.report RESULTS.h5 --out DIR` and the same functions from Python."""
import subprocess
import sys

import pytest

from aidcsim import report


def test_report_cli_writes_pngs(small_results, tmp_path):
    h5 = small_results.to_hdf5(tmp_path / "r.h5")
    out = tmp_path / "png"
    r = subprocess.run([sys.executable, "-m", "aidcsim.report", str(h5), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    paths = r.stdout.split()
    assert paths, "no plot written"
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_report_from_results_object(small_results, tmp_path):
    paths = report.write_report(small_results, tmp_path)
    names = {p.rsplit("/", 1)[-1] for p in paths}
    # the default pipeline writes step and power figures at least
    assert "step_breakdown.png" in names or "power_pue.png" in names, names


def test_each_plot_has_title_and_labelled_axes(small_results):
    for name, fn in report.PLOTS:
        fig = fn(small_results)
        if fig is None:
            continue
        ax = fig.axes[0]
        assert ax.get_title(), name
        assert "[" in ax.get_ylabel(), (name, ax.get_ylabel())  # a unit in brackets
        import matplotlib.pyplot as plt
        plt.close(fig)


def test_link_timeline_plot(small_results, tmp_path):
    fig = report.plot_link_timeline(small_results)
    assert fig is not None
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert any(lab.endswith("busiest") for lab in labels) and any("80 %" in lab for lab in labels)
    # the busiest curve of a tier is the dataset, in %
    peak = small_results.datasets["/network/timeline/max_utilization_by_tier"]
    busiest = [line for line in ax.get_lines() if line.get_label().endswith("busiest")]
    assert max(line.get_ydata().max() for line in busiest) == pytest.approx(100 * peak[:, 1:].max())
    names = {p.rsplit("/", 1)[-1] for p in report.write_report(small_results, tmp_path)}
    assert "link_timeline.png" in names


def test_missing_datasets_draw_nothing():
    from aidcsim import Results
    empty = Results({"summary": [], "datasets": []})
    assert report.write_report(empty, "/nonexistent-dir-not-created") == []


# --- cooling-fault transient plots and the CLI ---------------------------------------------------

@pytest.fixture(scope="module")
def fault_results(default_path):
    """The 576-GPU variant with a pump failure and no spare (see test_faults.py)."""
    import aidcsim
    from conftest import small
    s = small(aidcsim.Scenario.load(default_path))
    s["cooling.pumps"] = {"running": 1, "spare": 0, "failover_time": "10 s"}
    s["cooling.faults"] = [{"type": "pump_failure", "at": "60 s", "duration": "1 h"}]
    return aidcsim.run(s)


def _is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_transient_temperatures_plot(fault_results, tmp_path):
    import matplotlib.pyplot as plt
    fig = report.plot_temperatures(fault_results)
    ax = fig.axes[0]
    assert "transient" in ax.get_title() and "temperature" in ax.get_title()
    assert ax.get_ylabel() == "temperature [°C]"
    assert ax.get_xlabel() in ("time [min]", "time [h]")
    labels = [ln.get_label() for ln in ax.get_lines()]
    for want in ("GPU junction (max)", "cold plate (max)", "coolant inlet (max)", "coolant outlet (max)"):
        assert want in labels
    # checklist limits (degC items) as horizontal lines: outlet 40 °C, inlet 25 °C
    limits = {ln.get_label(): ln.get_ydata()[0] for ln in ax.get_lines() if ln.get_label().startswith("limit:")}
    assert any("outlet" in k and v == pytest.approx(40.0) for k, v in limits.items()), limits
    assert any("inlet" in k and v == pytest.approx(25.0) for k, v in limits.items()), limits
    # one vertical marker per alert, at the alert time in the plotted unit
    n_alerts = fault_results.datasets["/thermal/alerts/time"].size
    assert sum(1 for ln in ax.get_lines() if ln.get_linewidth() == 0.8 and len(set(ln.get_xdata())) == 1) == n_alerts
    # the GPU junction curve is the transient series in °C
    gpu = next(ln for ln in ax.get_lines() if ln.get_label() == "GPU junction (max)")
    assert max(gpu.get_ydata()) == pytest.approx(fault_results.datasets["/thermal/transient/max_gpu_temperature"].max())
    path = report._save(fig, tmp_path, "t.png")
    assert _is_png(path)
    plt.close("all")


def test_transient_power_plot(fault_results, tmp_path):
    fig = report.plot_power(fault_results)
    ax = fig.axes[0]
    assert "power" in ax.get_title().lower() and "PUE" in ax.get_title()
    assert ax.get_ylabel() == "power [MW]"
    assert ax.get_xlabel() in ("time [min]", "time [h]")
    assert fig.axes[1].get_ylabel() == "PUE [1]"
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert "IT power" in labels and "facility power" in labels
    it = next(ln for ln in ax.get_lines() if ln.get_label() == "IT power")
    assert it.get_ydata()[0] == pytest.approx(fault_results.summary["it_power"], rel=1e-6)
    assert _is_png(report._save(fig, tmp_path, "p.png"))


def test_report_of_a_fault_h5_file(fault_results, tmp_path):
    h5 = fault_results.to_hdf5(tmp_path / "fault.h5")
    paths = report.write_report(str(h5), tmp_path / "png")
    names = {p.rsplit("/", 1)[-1] for p in paths}
    assert {"temperatures.png", "power_pue.png"} <= names
    assert all(_is_png(p) for p in paths)


def test_without_transient_the_profile_plot_is_kept(small_results):
    fig = report.plot_temperatures(small_results)
    assert fig is not None and "transient" not in fig.axes[0].get_title()
    assert fig.axes[0].get_ylabel() == "temperature [°C]"


def test_cli_run_report_and_sweep_end_to_end(cli, default_path, small_scenario, tmp_path):
    """The compiled `aidcsim` binary: run -> HDF5, `report RESULTS.h5 --out DIR`, `sweep SWEEP.yaml`
    (the last two hand over to this package's Python modules)."""
    from aidcsim.sweep import read_csv as read_sweep_csv
    yaml_path = tmp_path / "small.yaml"
    s = small_scenario.copy()
    s["cooling.faults"] = [{"type": "pump_failure", "at": "60 s", "duration": "10 min"}]
    yaml_path.write_text(s.to_yaml())
    h5 = tmp_path / "r.h5"
    r = subprocess.run([str(cli), "run", str(yaml_path), "--output", str(h5), "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "png"
    r = subprocess.run([str(cli), "report", str(h5), "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    paths = r.stdout.split()
    assert {p.rsplit("/", 1)[-1] for p in paths} >= {"temperatures.png", "power_pue.png"}
    assert all(_is_png(p) for p in paths)

    sweep_file = tmp_path / "sweep.yaml"
    sweep_file.write_text(
        f"base: {default_path}\n"
        "overrides: {cluster.gpus: 576, workload.parallelism.dp: 8, workload.global_batch: 144}\n"
        "parameters:\n  fabric.oversubscription.spine: [1, 2]\n"
        "output: sweep.csv\n")
    r = subprocess.run([str(cli), "sweep", str(sweep_file), "-j", "1"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    df = read_sweep_csv(tmp_path / "sweep.csv")     # header "step_time [s]": units in the CSV
    assert len(df) == 2 and list(df["fabric.oversubscription.spine"]) == [1, 2]
    assert df.attrs["units"]["step_time"] == "s"
    assert (df["step_time"] > 0).all()


def test_lost_gpu_hours_and_alarm_and_titles(small_results, tmp_path):
    fig = report.plot_lost_gpu_hours(small_results)
    assert fig is not None
    ax = fig.axes[0]
    hours = small_results.datasets["/reliability/lost_gpu_hours"]
    heights = sorted((b.get_height() for b in ax.patches), reverse=True)
    scale = 1e6 if hours.max() >= 1e6 else (1e3 if hours.max() >= 1e4 else 1)
    assert heights == pytest.approx(sorted((h / scale for h in hours if h > 0), reverse=True))
    assert ax.get_title() and "[" in ax.get_ylabel() and ax.get_legend() is not None
    # the link timeline shows the links above the 80 % alarm per bin on a second axis
    tl = report.plot_link_timeline(small_results)
    assert len(tl.axes) == 2
    above = small_results.datasets["/network/timeline/links_above_80"]
    assert tl.axes[1].get_lines()[0].get_ydata().max() == above.max()
    # every written figure names the scenario and seed
    titles = []
    save = report._save
    report._save = lambda fig, out, name: titles.append(fig._suptitle.get_text()) or save(fig, out, name)
    try:
        paths = report.write_report(small_results, tmp_path)
    finally:
        report._save = save
    assert len(titles) == len(paths) >= 6
    assert set(titles) == {f"{small_results.scenario_name}, seed {small_results.seed}"}


def test_phases_plot_on_a_rollout(tmp_path):
    from aidcsim import Results
    raw = {"scenario_name": "r", "seed": 3, "summary": [], "datasets": [
        {"path": "/phases/gpus", "data": [8064, 16128], "shape": [2], "unit": "1", "dims": ["phase"]},
        {"path": "/phases/step_time", "data": [6.6, 6.7], "shape": [2], "unit": "s", "dims": ["phase"]}],
        "labels": [{"path": "/phases/phase", "values": ["8K", "16K"]}]}
    r = Results(raw)
    fig = report.plot_phases(r)
    assert [a.get_title() for a in fig.axes] == ["GPUs per phase", "Step time per phase"]
    assert fig.axes[1].get_ylabel() == "step time [s]"
    assert [b.get_height() for b in fig.axes[1].patches] == [6.6, 6.7]
    assert report.plot_phases(Results({"summary": [], "datasets": []})) is None
    assert report._subtitle(r) == "r, seed 3"


def test_rollout_judges_every_phase_and_draws_phases(tmp_path):
    import pathlib
    import aidcsim
    root = pathlib.Path(__file__).resolve().parents[2]
    s = aidcsim.Scenario.load(root / "scenarios" / "stargate-uk-rollout.yaml")
    del s["rollout.phases[2]"]
    s.update({"rollout.phases[0].gpus": 576, "rollout.phases[1].gpus": 1152, "cluster.gpus": 576,
              "workload.parallelism.dp": 8, "workload.global_batch": 144, "training.tokens": "2T"})
    r = aidcsim.run(s)
    first = [c for c in r.checks if c["item"].startswith("phase 8K: ")]
    # the same steady-state checklist for the earlier phase too; cooling-fault verdicts ("fault n: ...")
    # are judged on the rollout's final site only (docs/thermal.md)
    last = [c for c in r.checks if not c["item"].startswith(("phase ", "fault "))]
    assert len(first) == len(last) > 0
    assert {c["item"][len("phase 8K: "):] for c in first} == {c["item"] for c in last}
    assert not any(c["item"].startswith("phase 16K: ") for c in r.checks)  # the last phase is unprefixed
    fig = report.plot_phases(r)
    assert [b.get_height() for b in fig.axes[0].patches] == [576, 1152]
    assert all(ax.get_title() and "[" in ax.get_ylabel() for ax in fig.axes)


def test_fabric_drawing_counts_are_the_fabric_s(small_results, tmp_path):
    import aidcsim
    f = aidcsim.Fabric(aidcsim.Scenario.from_yaml(small_results.scenario_text))
    fig = f.draw(tmp_path / "fabric.png")
    assert (tmp_path / "fabric.png").stat().st_size > 10000
    ax = fig.axes[0]
    text = " ".join(t.get_text() for t in ax.texts)
    bom = f.bom()
    assert f"{bom['leaves']} leaves" in text and f"{bom['spines']} spines" in text
    assert f"{bom['switches']} switches" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith(f"access (NIC - leaf): {bom['access_links']:,} x 400 Gb/s") for t in legend)
    assert any(w[:40] in text for w in f.warnings)  # built otherwise than asked: said on the drawing
    names = {p.rsplit("/", 1)[-1] for p in report.write_report(small_results, tmp_path / "rep")}
    assert "fabric.png" in names


def test_html_report_is_one_file_with_checks_and_figures(small_results, tmp_path):
    h5 = small_results.to_hdf5(tmp_path / "r.h5")
    r = subprocess.run([sys.executable, "-m", "aidcsim.report", str(h5), "--out", str(tmp_path / "png"),
                        "--html", str(tmp_path / "r.html")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "r.html").read_text()
    failed = sum(1 for c in small_results.checks if not c["pass"])
    n = len(small_results.checks)
    assert f"Checklist: {n - failed} of {n} passed" in text
    assert text.count("<tr class='fail'>") == failed
    pngs = len(list((tmp_path / "png").glob("*.png")))
    assert text.count("src='data:image/png;base64,") == pngs >= 6  # every figure, embedded
    assert f"{small_results.scenario_name}, seed {small_results.seed}" in text
    assert not list(tmp_path.glob("*.tmp-*"))


def test_phase_pages_one_per_phase_with_its_own_checklist(tmp_path):
    from aidcsim import Results
    chk = lambda item, head, lim, ok: {"item": item, "value": lim - head, "limit": lim, "unit": "degC",
                                       "headroom": head, "pass": ok, "note": ""}
    raw = {"scenario_name": "r", "seed": 3, "summary": [],
           "checks": [chk("phase 8K: GPU junction", 17.0, 85.0, True), chk("GPU junction", -8.5, 85.0, False),
                      chk("fault 1: coolant outlet", 5.0, 40.0, True)],
           "datasets": [
               {"path": "/phases/gpus", "data": [8064, 16128], "shape": [2], "unit": "1", "dims": ["phase"]},
               {"path": "/phases/wall_time", "data": [10.0, 30.0], "shape": [2], "unit": "d", "dims": ["phase"]},
               {"path": "/phases/tokens_trained", "data": [1e12, 3e12], "shape": [2], "unit": "1", "dims": ["phase"]}],
           "labels": [{"path": "/phases/phase", "values": ["8K", "16K"]}]}
    pages = report.plot_phase_pages(Results(raw))
    assert [n for n, _ in pages] == ["phase_1_8K", "phase_2_16K"]
    first, last = pages[0][1], pages[1][1]
    # the time-to-train contribution: this phase's days and token share in the title
    assert first.axes[0].get_title() == "Contribution to time-to-train: 10.0 d of 40.0, 25 % of the tokens"
    assert first.axes[0].get_xlabel() == "mean time spent in the phase [d]"
    # the earlier phase has its prefixed item only; the last the unprefixed ones (fault verdicts too)
    assert [t.get_text() for t in first.axes[1].get_yticklabels()] == ["GPU junction"]
    assert first.axes[1].get_title() == "Checklist of phase 8K: 1 of 1 pass"
    assert [t.get_text() for t in last.axes[1].get_yticklabels()] == ["GPU junction", "fault 1: coolant outlet"]
    assert last.axes[1].get_title() == "Checklist of phase 16K: 1 of 2 pass"
    bars = [p.get_width() for p in last.axes[1].patches]
    assert bars == pytest.approx([-10.0, 12.5])  # headroom in % of the limit
    assert [t.get_text() for t in last.axes[1].get_legend().get_texts()] == ["pass", "fail"]
    assert [t.get_text() for t in first.axes[0].get_legend().get_texts()] == ["phase 8K", "other phases"]
    for _, fig in pages:
        for ax in fig.axes:
            assert ax.get_title() and "[" in ax.get_xlabel() and ax.get_ylabel()
            assert ax.get_legend() is not None
    assert "r, seed 3" in first._suptitle.get_text()
    written = report.write_report(Results(raw), tmp_path)
    assert {p.split("/")[-1] for p in written} >= {"phase_1_8K.png", "phase_2_16K.png"}
    assert report.plot_phase_pages(Results({"summary": [], "datasets": []})) == []
