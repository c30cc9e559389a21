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


def test_missing_datasets_draw_nothing():
    from aidcsim import Results
    empty = Results({"summary": [], "datasets": []})
    assert report.write_report(empty, "/nonexistent-dir-not-created") == []
