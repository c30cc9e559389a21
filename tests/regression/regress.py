#!/usr/bin/python3
"""Regression tier (issue 15): small, fast scenarios with blessed results, so that a change in any
number of a run is seen in review as a diff of tests/regression/<name>.expected.json.

Usage: regress.py AIDCSIM [SOURCE_DIR] [--update] [--only NAME ...] [--rtol R]

Cases: tests/data/small-576.yaml and every tests/regression/*.yaml. Each is run as
`aidcsim run SCENARIO --json X.json --output X.h5 --quiet` (the scenario's own seed) and reduced to
a flat map of named values:
  - every leaf of the JSON results (summary values and units, checks, rollout phases, cooling-fault
    verdicts, warnings, ...), lists of records keyed by their `item` or `name`; left out are free
    text that only restates numbers (`description`, `note`, `notes`) and what names the build or
    the machine (`aidcsim_version`, `git_sha`, `scenario.file`);
  - every dataset of the HDF5 file outside what the JSON already holds (summary, checks, notes,
    warnings): its units, and its values when it has at most 16, else its shape and exact digests
    (math.fsum of x, of x^2 and of x weighted by position, min, max; strings: a SHA-256 prefix).
Numbers are compared with a relative tolerance (default 1e-9, --rtol) and an absolute floor of
1e-12 (a residue near 0), not bit for bit: glibc picks FMA-specific libm variants (exp, log, pow)
by CPU, so the same binary on another machine may differ in the last bits (docs/testing.md).
Text, booleans, units and the set of names must match exactly.

Every changed, added or removed value is printed (old -> new, relative change), then the command
that re-blesses. --update rewrites the expected files of the cases run (all, or --only ones) from
this build; commit the diff with the change that explains it.
Exit status: 0 all match (or updated), 1 a difference or a failed run, 64 usage.
"""
import argparse
import hashlib
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

RTOL = 1e-9
ATOL = 1e-12
FULL = 16             # datasets and lists with at most this many values are kept element by element
TIMEOUT = 300.0       # seconds per run (each case takes a few seconds)
FORMAT = 1            # of the expected files

# JSON keys never compared: free text restating numbers, and what names the build or machine.
SKIP_KEYS = {"description", "note", "notes"}
SKIP_PATHS = {"aidcsim_version", "git_sha", "scenario.file"}
# HDF5 paths whose content the JSON already holds.
H5_SKIP = {"summary", "checks", "notes", "note", "warnings", "warning"}


def cases(src):
    """name -> scenario path relative to src: the test scenario + every tests/regression/*.yaml."""
    out = {"small-576": "tests/data/small-576.yaml"}
    d = os.path.join(src, "tests", "regression")
    for f in sorted(os.listdir(d)):
        if f.endswith(".yaml"):
            out[f[:-len(".yaml")]] = os.path.join("tests", "regression", f)
    return out


def expected_path(src, name):
    return os.path.join(src, "tests", "regression", name + ".expected.json")


def _record_keys(items):
    """(keys, field) for a list of dicts: their `item` or `name` when unique (that field is then
    not repeated as a value), else indices."""
    for field in ("item", "name"):
        keys = [it.get(field) for it in items]
        if all(isinstance(k, str) for k in keys) and len(set(keys)) == len(keys):
            return keys, field
    return [str(i) for i in range(len(items))], None


def flatten_json(x, path, out):
    if isinstance(x, dict):
        for k, v in x.items():
            p = f"{path}.{k}" if path else k
            if k in SKIP_KEYS or p in SKIP_PATHS:
                continue
            flatten_json(v, p, out)
    elif isinstance(x, list):
        out[f"{path}#count"] = len(x)
        if x and all(isinstance(it, dict) for it in x):
            keys, field = _record_keys(x)
            for k, it in zip(keys, x):
                flatten_json({f: v for f, v in it.items() if f != field}, f"{path}[{k}]", out)
        else:
            for i, it in enumerate(x):
                flatten_json(it, f"{path}[{i}]", out)
    else:
        out[path] = x


def _scalar(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if hasattr(v, "item"):
        v = v.item()
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def flatten_h5(path, out):
    import h5py  # python3-h5py, Debian's (scripts/install-deps.sh)
    import numpy

    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if not isinstance(obj, h5py.Dataset) or name.split("/")[0] in H5_SKIP:
                return
            key = f"h5:{name}"
            units = obj.attrs.get("units")
            if units is not None:
                out[f"{key}.units"] = _scalar(units)
            data = obj[()]
            arr = numpy.asarray(data)
            flat = [_scalar(v) for v in arr.reshape(-1)]
            if arr.ndim == 0:
                out[key] = flat[0]
                return
            out[f"{key}.shape"] = "x".join(str(n) for n in arr.shape)
            if len(flat) <= FULL:
                for i, v in enumerate(flat):
                    out[f"{key}[{i}]"] = v
            elif all(isinstance(v, str) for v in flat):
                out[f"{key}{{sha256}}"] = hashlib.sha256("\n".join(flat).encode()).hexdigest()[:16]
            else:
                vals = [float(v) for v in flat]
                n = len(vals)
                finite = [v for v in vals if math.isfinite(v)]
                out[f"{key}{{nonfinite}}"] = n - len(finite)
                out[f"{key}{{sum}}"] = math.fsum(finite)
                out[f"{key}{{sumsq}}"] = math.fsum(v * v for v in finite)
                out[f"{key}{{possum}}"] = math.fsum((i + 1) / n * v for i, v in enumerate(vals)
                                                   if math.isfinite(v))
                out[f"{key}{{min}}"] = min(finite) if finite else float("nan")
                out[f"{key}{{max}}"] = max(finite) if finite else float("nan")
        f.visititems(visit)


def run_case(aidcsim, src, scenario, tmp):
    """Runs one scenario; returns (flat values, None) or (None, error text)."""
    js, h5 = os.path.join(tmp, "x.json"), os.path.join(tmp, "x.h5")
    cmd = [aidcsim, "run", os.path.join(src, scenario), "--json", js, "--output", h5, "--quiet"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {TIMEOUT:.0f} s: {shlex.join(cmd)}"
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {shlex.join(cmd)}\n{p.stderr.strip()}"
    out = {}
    with open(js, encoding="utf-8") as fh:
        flatten_json(json.load(fh), "", out)
    flatten_h5(h5, out)
    return out, None


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def same(a, b, rtol):
    if _number(a) and _number(b):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a == b:
            return True
        d = abs(a - b)
        return d <= ATOL or d <= rtol * max(abs(a), abs(b))
    return type(a) is type(b) and a == b


def describe(old, new):
    if _number(old) and _number(new):
        old_f, new_f = float(old), float(new)
        if old_f != 0 and math.isfinite(old_f) and math.isfinite(new_f):
            return f"{old!r} -> {new!r} ({(new_f - old_f) / abs(old_f):+.3g} relative)"
        return f"{old!r} -> {new!r}"
    return f"{json.dumps(old, ensure_ascii=False)} -> {json.dumps(new, ensure_ascii=False)}"


def compare(old, new, rtol):
    """Lines describing every difference between two flat maps."""
    lines = []
    for k in sorted(set(old) | set(new)):
        if k not in new:
            lines.append(f"  removed {k}: {json.dumps(old[k], ensure_ascii=False)}")
        elif k not in old:
            lines.append(f"  added   {k}: {json.dumps(new[k], ensure_ascii=False)}")
        elif not same(old[k], new[k], rtol):
            lines.append(f"  changed {k}: {describe(old[k], new[k])}")
    return lines


def write_expected(path, name, scenario, values):
    doc = {"format": FORMAT, "case": name, "scenario": scenario,
           "command": f"aidcsim run {scenario} --json X.json --output X.h5 --quiet",
           "values": values}
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True, ensure_ascii=False, allow_nan=True)
        fh.write("\n")
    os.replace(tmp, path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("aidcsim")
    ap.add_argument("source_dir", nargs="?", default=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--update", action="store_true", help="rewrite the expected files from this build")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these cases")
    ap.add_argument("--rtol", type=float, default=RTOL, help=f"relative tolerance (default {RTOL:g})")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 64 if e.code else 0
    src = os.path.abspath(args.source_dir)
    aidcsim = os.path.abspath(args.aidcsim)
    all_cases = cases(src)
    names = args.only or list(all_cases)
    unknown = [n for n in names if n not in all_cases]
    if unknown:
        print(f"regress.py: unknown case(s) {', '.join(unknown)}; cases: {', '.join(all_cases)}",
              file=sys.stderr)
        return 64

    failed = []
    stale = [f for f in sorted(os.listdir(os.path.join(src, "tests", "regression")))
             if f.endswith(".expected.json") and f[:-len(".expected.json")] not in all_cases]
    for f in stale:
        print(f"FAIL {f}: blessed results of no case (scenario removed?): delete it")
        failed.append(f)
    with tempfile.TemporaryDirectory(prefix="aidcsim-regress-") as tmp:
        for name in names:
            scenario = all_cases[name]
            values, err = run_case(aidcsim, src, scenario, tmp)
            if err:
                print(f"FAIL {name}: the run failed: {err}")
                failed.append(name)
                continue
            path = expected_path(src, name)
            if args.update:
                write_expected(path, name, scenario, values)
                print(f"blessed {name}: {len(values)} values -> {os.path.relpath(path, src)}")
                continue
            if not os.path.exists(path):
                print(f"FAIL {name}: no blessed results ({os.path.relpath(path, src)})")
                failed.append(name)
                continue
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
            lines = compare(doc.get("values", {}), values, args.rtol)
            if lines:
                print(f"FAIL {name} ({scenario}): {len(lines)} value(s) differ from "
                      f"{os.path.relpath(path, src)} (relative tolerance {args.rtol:g}):")
                print("\n".join(lines))
                failed.append(name)
            else:
                print(f"ok {name}: {len(values)} values match")
    if failed and not args.update:
        binary = os.path.relpath(aidcsim, src) if aidcsim.startswith(src + os.sep) else aidcsim
        only = "" if set(failed) >= set(all_cases) else " --only " + " ".join(
            n for n in failed if n in all_cases)
        print(f"\n{len(failed)} regression case(s) failed. If every change above is intended (a "
              "model change), re-bless from this build and commit the diff with the change:\n"
              f"  cd {shlex.quote(src)} && /usr/bin/python3 tests/regression/regress.py "
              f"{shlex.quote(binary)} --update{only}\n"
              "  (or `make bless`, which rebuilds and re-blesses every case); then "
              "`git diff tests/regression/` shows what moved.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
