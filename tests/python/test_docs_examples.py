"""The code blocks of docs/python.md that are too costly to run in a test are checked for what a
reader would hit first: every scenario they build validates."""
import pathlib
import re

import aidcsim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _block_after(heading):
    text = (ROOT / "docs" / "python.md").read_text()
    section = text[text.index(heading):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_comparing_designs_example_validates(monkeypatch):
    # The example's overrides set cluster.gpus alone (16128 GPUs for a tp 8 x pp 9 x dp 112 job):
    # every design was a ScenarioError. Its compare() call runs here with compare replaced by
    # the validation compare does first (overrides, then the design's own keys).
    call = re.search(r"^c = (aidcsim\.compare\(.*?)\nprint\(c\.format", _block_after("## Comparing designs"),
                     re.S | re.M).group(1)
    checked = []

    def validate_only(designs, seeds=3, overrides=None, **kwargs):
        for d in designs:
            path, own = (d, {}) if isinstance(d, str) else d
            s = aidcsim.Scenario.load(ROOT / path)
            s.update(dict(overrides or {}))
            s.update(own)
            checked.append(s.validate()["cluster.gpus"])
            assert aidcsim.Fabric(s).warnings == [], d   # each design built as written

    monkeypatch.setattr(aidcsim, "compare", validate_only)
    eval(call, {"aidcsim": aidcsim})
    assert len(checked) == 3 and len(set(checked)) == 1


def test_bench_collective_example_runs(monkeypatch, capsys):
    # The example runs as written from the repository root (its scenario path is relative), and
    # its rows are those of the 8 x H100 sweep it names: ring / LL at 1 MiB, NVLS from 8 MiB.
    monkeypatch.chdir(ROOT)
    names = {"aidcsim": aidcsim}
    exec(_block_after("## Collective bus bandwidth"), names)
    df, ag = names["df"], names["ag"]
    assert list(df["size"]) == [2**20, 2**23, 2**26, 2**29, 2**32]
    assert df["algorithm"].iloc[0] == "ring" and set(df["algorithm"].iloc[1:]) == {"nvls"}
    assert "# Avg bus bandwidth" in capsys.readouterr().out
    assert ag.attrs["ranks"] == 144 and ag.attrs["collective"] == "all_gather" and len(ag) == 1
