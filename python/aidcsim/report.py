"""Plots of one run, from a Results or an HDF5 results file (h5py): link utilization by tier and
over the step (with the links above the 80 % alarm), step-time breakdown, temperatures against
their limits, each cooling fault's transient with its limits and verdict, power and PUE,
time-to-train distribution, GPU-hours lost by failure cause, rollout phases side by side, the fabric
at pod level; each figure's title names the scenario and seed.
Each plot is drawn only when the datasets it needs exist, so the report follows what the engine
writes. Matplotlib with the Agg backend (files, no display).

    python3 -m aidcsim.report RESULTS.h5 --out DIR [--html FILE]   # writes PNGs (and one HTML file)

Dataset discovery is by HDF5 group and name (see each function); units come from the ``units``
attribute and are shown on the axes (K shown as degC, fractions as %).
"""

import os
import sys

import numpy as np

import matplotlib
# Files only, no display - unless the caller already chose a backend (a notebook's inline one).
if "matplotlib.pyplot" not in sys.modules and not os.environ.get("MPLBACKEND"):
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import _cli  # noqa: E402
from .errors import Error  # noqa: E402
from .results import Results  # noqa: E402
from .units import kDay, kHour, kMinute, to_celsius  # noqa: E402

TIERS = ["nvlink", "access", "leaf_spine", "spine_core"]   # topology::tier_name order


def _results(obj):
    if isinstance(obj, Results):
        return obj
    return Results.from_hdf5(obj)


def _find(r, group, words, ndim=None, exclude=()):
    """Dataset paths under `group` whose last name contains any of `words` (in `words` order)."""
    out = []
    for w in words:
        for p in r.datasets:
            name = p.rsplit("/", 1)[-1].lower()
            if (p.startswith(group) and w in name and p not in out
                    and not any(x in name for x in exclude)
                    and (ndim is None or r.datasets[p].ndim in (ndim if isinstance(ndim, tuple) else (ndim,)))):
                out.append(p)
    return out


def _summary(r, *words):
    for w in words:
        for k in r.summary:
            if w in k:
                return k
    return None


def _as_percent(values, unit):
    """(values, label unit): fractions ("1", "" or "fraction") shown in %."""
    if unit in ("1", "", "fraction"):
        return np.asarray(values) * 100.0, "%"
    return np.asarray(values), unit


def _as_celsius(values, unit):
    if unit == "K":
        return to_celsius(np.asarray(values)), "°C"
    if unit in ("degC", "Cel", "°C"):
        return np.asarray(values), "°C"
    return np.asarray(values), unit


def _tier_of_name(name):
    """Tier from a link name ("gpu17-leaf3" -> access); the engine's tier dataset wins when present."""
    a, _, b = name.partition("-")
    ends = {a.rstrip("0123456789./"), b.split("/")[0].rstrip("0123456789./")}
    if "nvs" in ends or "nvswitch" in ends:
        return "nvlink"
    if "gpu" in ends:
        return "access"
    if "core" in ends:
        return "spine_core"
    if "spine" in ends:
        return "leaf_spine"
    return "other"


def _link_tiers(r, path, n):
    """Tier name of each of the n links of dataset `path`: the engine's /network/link_tier codes
    (names from its flag meanings; format-1 files: /network/tier_name), tier labels, or the link
    names."""
    group = path.rsplit("/", 1)[0]
    names = r.dataset_flags.get(f"{group}/link_tier") or r.labels.get(f"{group}/tier_name", TIERS)
    codes = r.datasets.get(f"{group}/link_tier")
    if codes is not None and codes.shape == (n,):
        return [names[int(c)] if 0 <= int(c) < len(names) else "other" for c in codes]
    for p, vals in r.labels.items():
        if p.startswith(group) and "tier" in p and len(vals) == n:
            return list(vals)
    link_names = r._coord(path, "link", n)
    if isinstance(link_names, np.ndarray) and link_names.dtype.kind in "iu":
        return ["link"] * n
    return [_tier_of_name(str(x)) for x in link_names]


def _time_axis(r, path, n):
    dims = r.dataset_dims.get(path) or []
    group = path.rsplit("/", 1)[0]
    t = None
    if dims and dims[0] in ("time", "t", "step"):
        t = r._coord(path, dims[0], n)
    if t is None or (isinstance(t, np.ndarray) and t.dtype.kind in "iu"):
        for cand in (f"{group}/time", "/time"):
            if cand in r.datasets and r.datasets[cand].shape == (n,):
                return r.datasets[cand], r.dataset_units.get(cand, "s")
        return np.arange(n), "sample"
    tp = next((c for c in (f"{group}/{dims[0]}",) if c in r.datasets), None)
    return np.asarray(t, dtype=float), (r.dataset_units.get(tp, "s") if tp else "s")


def _scale_time(t, unit):
    t = np.asarray(t, dtype=float)
    if unit != "s" or t.size == 0:
        return t, unit
    span = float(np.nanmax(t) - np.nanmin(t)) if t.size else 0.0
    for factor, u in ((kDay, "days"), (kHour, "h"), (kMinute, "min"), (1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if span >= 3 * factor or u == "µs":
            return t / factor, u
    return t, unit


def _save(fig, out_dir, name):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --- the plots ------------------------------------------------------------------------------------

def plot_link_utilization(results, ax=None):
    """Link utilization by tier. A (time, link) dataset under /network whose name contains "util"
    becomes a heatmap (links grouped by tier, colour = utilization in %); a per-link (1-D) one
    becomes per-tier sorted profiles with the 80 % line of the brief. Returns the Figure or None
    when no such dataset exists."""
    r = _results(results)
    paths = _find(r, "/network/", ["link_util", "util"], exclude=("tier", "time", "mean_by", "p99", "max_by"))
    paths = [p for p in paths if (r.dataset_dims.get(p) or ["link"])[-1] == "link"] or paths
    if not paths:
        return None
    p2 = [p for p in paths if r.datasets[p].ndim == 2]
    path = p2[0] if p2 else next((p for p in paths if r.datasets[p].ndim == 1), None)
    if path is None:
        return None
    arr, unit = _as_percent(r.datasets[path], r.dataset_units.get(path, ""))
    n = arr.shape[-1]
    tiers = _link_tiers(r, path, n)
    order = sorted(range(n), key=lambda i: (TIERS.index(tiers[i]) if tiers[i] in TIERS else 9, i))
    if arr.ndim == 2:
        fig, ax = plt.subplots(figsize=(10, 5)) if ax is None else (ax.figure, ax)
        t, tu = _time_axis(r, path, arr.shape[0])
        t, tu = _scale_time(t, tu)
        data = arr[:, order].T
        extent = [float(t[0]), float(t[-1]) if len(t) > 1 else float(t[0]) + 1, n, 0]
        im = ax.imshow(data, aspect="auto", interpolation="nearest", cmap="inferno", extent=extent,
                       vmin=0, vmax=max(100.0, float(np.nanmax(data))) if unit == "%" else None)
        fig.colorbar(im, ax=ax, label=f"utilization [{unit}]")
        ax.set_xlabel(f"time [{tu}]")
        ax.set_ylabel("links by tier [count]")
        pos, ticks, names = 0, [], []
        for tier in TIERS + ["other", "link"]:
            k = sum(1 for i in order if tiers[i] == tier)
            if k:
                ax.axhline(pos, color="white", lw=0.5)
                ticks.append(pos + k / 2)
                names.append(f"{tier} ({k})")
                pos += k
        ax.set_yticks(ticks, names)
        ax.set_title(f"Link utilization over time by tier ({path})")
        return fig
    fig, ax = plt.subplots(figsize=(9, 4.5)) if ax is None else (ax.figure, ax)
    present = [tr for tr in TIERS + ["other", "link"] if tr in tiers]
    for tier in present:
        v = np.sort(arr[[i for i in range(n) if tiers[i] == tier]])[::-1]
        ax.plot(np.linspace(0, 100, len(v)) if len(v) > 1 else [0], v, label=f"{tier} ({len(v)} links)",
                drawstyle="steps-post")
    if unit == "%":
        ax.axhline(80, color="red", ls="--", lw=1, label="80 % (brief: adjust batch)")
    ax.set_xlabel("links of the tier, sorted [% of links]")
    ax.set_ylabel(f"utilization [{unit}]")
    ax.set_title("Link utilization by tier (per link, one step)")
    ax.legend(fontsize=8)
    return fig


def plot_link_timeline(results, ax=None):
    """Link utilization over the step (/network/timeline/*, bytes SimGrid sent per bin): the
    busiest link direction of each scale-out tier (solid) and the tier's mean (dotted), with the
    brief's 80 % line. Returns the Figure or None without a timeline."""
    r = _results(results)
    g = "/network/timeline/"
    if g + "time" not in r.datasets or g + "max_utilization_by_tier" not in r.datasets:
        return None
    t, tu = _scale_time(r.datasets[g + "time"], r.dataset_units.get(g + "time", "s"))
    peak, unit = _as_percent(r.datasets[g + "max_utilization_by_tier"], r.dataset_units.get(g + "max_utilization_by_tier", ""))
    mean = None
    if g + "mean_utilization_by_tier" in r.datasets:
        mean, _ = _as_percent(r.datasets[g + "mean_utilization_by_tier"], r.dataset_units.get(g + "mean_utilization_by_tier", ""))
    names = list(r.labels.get(g + "tier") or r.labels.get("/network/tier_name", TIERS))
    fig, ax = plt.subplots(figsize=(9, 4.5)) if ax is None else (ax.figure, ax)
    for k in range(peak.shape[1]):
        name = names[k] if k < len(names) else f"tier {k}"
        if name == "nvlink" or not np.any(peak[:, k] > 0):
            continue  # NVLink carries PP/DP flows only (TP collectives are analytic)
        line, = ax.step(t, peak[:, k], where="post", label=f"{name}: busiest")
        if mean is not None:
            ax.step(t, mean[:, k], where="post", ls=":", color=line.get_color(), label=f"{name}: mean")
    if unit == "%":
        ax.axhline(80, color="red", ls="--", lw=1, label="80 % (brief: adjust batch)")
    ax.set_xlabel(f"time in the step [{tu}]")
    ax.set_ylabel(f"utilization [{unit}]")
    ax.set_title("Link utilization over one step, by tier")
    handles, labels = ax.get_legend_handles_labels()
    if g + "links_above_80" in r.datasets:  # the brief's alarm per bin (sim/engine/fabric_checks)
        above = np.asarray(r.datasets[g + "links_above_80"], dtype=float)
        ax2 = ax.twinx()
        ax2.fill_between(t, above, step="post", color="red", alpha=0.12, lw=0)
        line, = ax2.step(t, above, where="post", color="red", lw=0.8, alpha=0.6,
                         label="link directions above 80 % (right axis)")
        ax2.set_ylabel("link directions above 80 % [count]")
        ax2.set_ylim(bottom=0)
        handles.append(line)
        labels.append(line.get_label())
    ax.legend(handles, labels, fontsize=8, loc="upper left")
    return fig


def _breakdown(r):
    """(bar labels, {component: values}, unit) for the step-time breakdown, or None. Sources, in
    order: /step/breakdown with its /step/component labels (the engine's layout); /step/*
    datasets named compute / exposed / bubble; summary values step_compute, step_exposed_*,
    step_bubble. Zero components are dropped."""
    comps = {}
    unit = "s"
    if "/step/breakdown" in r.datasets and "/step/component" in r.labels:
        v = np.atleast_1d(r.datasets["/step/breakdown"])
        names = r.labels["/step/component"]
        if len(names) == v.shape[0]:
            comps = {n: np.atleast_1d(v[i]).astype(float) for i, n in enumerate(names)}
            unit = r.dataset_units.get("/step/breakdown", "s")
    if not comps:
        for w in ("compute", "exposed", "comm", "bubble"):
            for p in _find(r, "/step/", [w], ndim=(0, 1)):
                comps.setdefault(p.rsplit("/", 1)[-1], np.atleast_1d(r.datasets[p]).astype(float))
                unit = r.dataset_units.get(p, "s")
    if not comps:
        keys = [k for k in r.summary if k.startswith("step_") and
                any(w in k for w in ("compute", "exposed", "bubble"))]
        if not keys or len({r.units[k] for k in keys}) != 1:
            return None
        unit = r.units[keys[0]]
        comps = {k[len("step_"):]: np.array([r.summary[k]]) for k in keys}
    n = {len(v) for v in comps.values()}
    if len(n) != 1:
        return None
    comps = {k: v for k, v in comps.items() if np.any(v != 0)} or comps
    n = n.pop()
    labels = ["step"] if n == 1 else [str(i) for i in range(n)]
    return labels, comps, unit


_COMPONENT_COLORS = {"compute": "#4c72b0", "bubble": "#8c8c8c"}
_EXPOSED_COLORS = ["#dd8452", "#c44e52", "#e6a06b", "#937860", "#da8bc3"]


def _component_label(name):
    if name.startswith("exposed_"):
        return f"exposed {name[len('exposed_'):].upper()} communication"
    return {"bubble": "pipeline bubble"}.get(name, name.replace("_", " "))


def plot_step_breakdown(results, ax=None):
    """Step-time breakdown as a stacked bar: compute / exposed communication / pipeline bubble,
    from /step/* datasets (one bar per row, e.g. per rollout phase) or, failing those, from the
    summary values of those names. Returns the Figure or None."""
    r = _results(results)
    b = _breakdown(r)
    if b is None:
        return None
    labels, comps, unit = b
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(labels) + 5), 4.8)) if ax is None else (ax.figure, ax)
    bottom = np.zeros(len(labels))
    k = 0
    for name, v in comps.items():
        color = _COMPONENT_COLORS.get(name)
        if color is None:
            color = _EXPOSED_COLORS[k % len(_EXPOSED_COLORS)]
            k += 1
        ax.bar(labels, v, bottom=bottom, label=f"{_component_label(name)} ({v.sum():.3g} {unit})",
               color=color, width=0.5)
        bottom += v
    st = _summary(r, "step_time")
    if st and len(labels) == 1 and r.units.get(st) == unit:
        ax.axhline(r.summary[st], color="k", ls=":", lw=1, label=f"step time {r.summary[st]:.3g} {unit}")
    ax.set_ylabel(f"time per step [{unit}]")
    ax.set_title("Step-time breakdown: compute / exposed communication / bubble")
    ax.set_xlim(-1, len(labels) + 1.5)
    ax.legend(fontsize=8, loc="upper right")
    return fig


def _limits(r, prefix=None):
    """Temperature limits from the checks: [(label, value in °C)]. prefix None: the steady-state
    checklist (items not starting with "fault "); else the checks of one fault verdict, whose items
    start with `prefix` (e.g. "fault 2: cdu_loss: "), without the prefix."""
    out = []
    for c in r.checks:
        item = str(c.get("item", "limit"))
        if item.startswith("phase "):
            continue  # an earlier rollout phase's item: the figures are the last phase's
        if prefix is None and item.startswith("fault "):
            continue
        if prefix is not None:
            if not item.startswith(prefix):
                continue
            item = item[len(prefix):]
        unit = c.get("unit", "")
        if unit in ("degC", "K", "Cel", "°C") and c.get("limit") is not None:
            v, _ = _as_celsius(c["limit"], unit)
            if unit == "K" and float(c["limit"]) < 100:  # a ΔT limit, not a temperature
                continue
            out.append((item, float(v)))
    if prefix is not None:
        return out
    t, h = _summary(r, "max_gpu_temperature"), _summary(r, "gpu_temperature_headroom")
    if t and h and r.units.get(h) == "K":
        v, _ = _as_celsius(r.summary[t], r.units[t])
        lim = float(v) + r.summary[h]
        if all(abs(lim - x) > 0.05 for _, x in out):
            out.append(("GPU junction throttle limit", lim))
    return out


TRANSIENT = "/thermal/transient/"
_ALERT_STYLE = {"critical": ("#c44e52", "-"), "warning": ("#dd8452", "--"), "info": ("#8c8c8c", ":")}


def _transient(r):
    """(time [s], {name: (values, unit)}) of the engine's cooling-fault transient
    (/thermal/transient/time and the series beside it, sim/engine/results_builder.cpp), or None
    when the scenario scheduled no cooling fault."""
    t = r.datasets.get(TRANSIENT + "time")
    if t is None or t.ndim != 1 or t.size < 2:
        return None
    series = {p[len(TRANSIENT):]: (r.datasets[p], r.dataset_units.get(p, ""))
              for p in r.datasets if p.startswith(TRANSIENT) and p != TRANSIENT + "time"
              and r.datasets[p].shape == t.shape}
    return np.asarray(t, dtype=float), series


def _mark_alerts(r, ax, factor):
    """Vertical lines at the alert log's times (/thermal/alerts/time, messages "level [source] ..."),
    one colour and style per level, one legend entry per level; x in units of `factor` seconds."""
    times = r.datasets.get("/thermal/alerts/time")
    if times is None or times.size == 0:
        return
    msgs = r.labels.get("/thermal/alerts/message", [])
    seen = set()
    for i, at in enumerate(np.atleast_1d(times)):
        level = msgs[i].split(" ", 1)[0] if i < len(msgs) else "alert"
        color, ls = _ALERT_STYLE.get(level, ("k", ":"))
        n = sum(1 for j, m in enumerate(msgs) if j < times.size and m.startswith(level))
        ax.axvline(float(at) / factor, color=color, ls=ls, lw=0.8, alpha=0.7,
                   label=None if level in seen else f"{level} alerts ({n})")
        seen.add(level)


def _time_factor(t):
    """(divisor, unit) showing the span of t [s] in minutes or hours."""
    span = float(np.nanmax(t) - np.nanmin(t))
    return (kHour, "h") if span >= 3 * kHour else (kMinute, "min")


def _plot_transient_temperatures(r, tr, ax=None):
    t, series = tr
    factor, tu = _time_factor(t)
    x = t / factor
    fig, ax = plt.subplots(figsize=(10, 5)) if ax is None else (ax.figure, ax)
    names = [("max_gpu_temperature", "GPU junction (max)"), ("max_cold_plate_temperature", "cold plate (max)"),
             ("coolant_outlet", "coolant outlet (max)"), ("coolant_inlet", "coolant inlet (max)")]
    for i, (key, label) in enumerate(names):
        if key in series:
            y, _ = _as_celsius(*series[key])
            ax.plot(x, y, color=f"C{i}", lw=1.6, label=label)
    for i, (label, v) in enumerate(_limits(r)):
        ax.axhline(v, ls="--", lw=1, color=f"C{(i + 4) % 10}", label=f"limit: {label} ({v:.0f} °C)")
    _mark_alerts(r, ax, factor)
    ax.set_xlabel(f"time [{tu}]")
    ax.set_ylabel("temperature [°C]")
    ax.set_title("Cooling-fault transient: temperatures against their limits")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def _plot_transient_power(r, tr, ax=None):
    t, series = tr
    factor, tu = _time_factor(t)
    x = t / factor
    scale = {"W": 1e-6, "kW": 1e-3, "MW": 1.0}
    fig, ax = plt.subplots(figsize=(10, 4.8)) if ax is None else (ax.figure, ax)
    lines = []
    for i, (key, label) in enumerate((("it_power", "IT power"), ("facility_power", "facility power"))):
        if key in series and series[key][1] in scale:
            y, u = series[key]
            lines += ax.plot(x, y * scale[u], color=f"C{i}", lw=1.6, label=label)
    ax.set_xlabel(f"time [{tu}]")
    ax.set_ylabel("power [MW]")
    if "pue" in series:
        ax2 = ax.twinx()
        lines += ax2.plot(x, series["pue"][0], color="k", ls=":", lw=1.4, label="PUE")
        lines.append(ax2.axhline(1.2, color="k", ls="--", lw=0.8, alpha=0.6, label="PUE target 1.2 (brief)"))
        ax2.set_ylabel("PUE [1]")
    _mark_alerts(r, ax, factor)
    alerts = [ln for ln in ax.get_lines() if " alerts (" in ln.get_label()]
    ax.legend(handles=lines + alerts, fontsize=7, loc="center left", bbox_to_anchor=(1.08, 0.5))
    ax.set_title("Cooling-fault transient: IT and facility power, PUE")
    return fig


def plot_temperatures(results, ax=None):
    """Temperatures against their limits. When the run has a cooling-fault transient
    (/thermal/transient/*): hottest GPU junction, cold plate, coolant outlet and inlet [°C] over
    time [min or h], the checklist limits (items in degC: inlet, outlet, hot spot, GPU junction) as
    dashed lines and the alert log (/thermal/alerts/*) as vertical markers. Otherwise every other
    /thermal/* dataset in K or degC: time series ((time,) or (time, x): the max over x) over time,
    per-element values as sorted profiles. Figure or None."""
    r = _results(results)
    tr = _transient(r)
    if tr is not None and any(k in tr[1] for k in ("max_gpu_temperature", "coolant_outlet")):
        return _plot_transient_temperatures(r, tr, ax)
    paths = [p for p in r.datasets if p.startswith("/thermal/") and not p.startswith(TRANSIENT)
             and r.dataset_units.get(p) in ("K", "degC", "Cel", "°C")
             and not any(w in p.rsplit("/", 1)[-1] for w in ("delta", "dt", "approach", "limit", "headroom", "rise"))]
    if not paths:
        return None
    fig, ax = plt.subplots(figsize=(9, 4.5)) if ax is None else (ax.figure, ax)
    timeish = False
    for p in paths:
        arr, _ = _as_celsius(r.datasets[p], r.dataset_units[p])
        dims = r.dataset_dims.get(p) or []
        name = p.rsplit("/", 1)[-1]
        if arr.ndim == 0:
            ax.axhline(float(arr), lw=1.5, label=f"{name}")
        elif dims and dims[0] in ("time", "t"):
            t, tu = _scale_time(*_time_axis(r, p, arr.shape[0]))
            y = arr if arr.ndim == 1 else np.nanmax(arr.reshape(arr.shape[0], -1), axis=1)
            ax.plot(t, y, label=name + (" (max)" if arr.ndim > 1 else ""))
            timeish = True
            ax.set_xlabel(f"time [{tu}]")
        else:
            v = np.sort(arr.ravel())[::-1]
            ax.plot(np.linspace(0, 100, len(v)) if len(v) > 1 else [0], v, label=f"{name} ({dims[0] if dims else 'element'}s)")
    for i, (label, v) in enumerate(_limits(r)):
        ax.axhline(v, ls="--", lw=1, color=f"C{(i + 3) % 10}", label=f"limit: {label}")
    if not timeish:
        ax.set_xlabel("elements sorted by temperature [% of elements]")
    ax.set_ylabel("temperature [°C]")
    ax.set_title("Temperatures against their limits")
    ax.legend(fontsize=7, loc="best")
    return fig


def plot_power(results, ax=None):
    """Power and PUE. With a cooling-fault transient (/thermal/transient/it_power,
    facility_power [MW], pue [1]): IT and facility power over time [min or h], PUE on a second
    axis, alerts as vertical markers. Otherwise time series of /power/* or /thermal/* datasets in W
    (shown in MW) with PUE on a second axis when present; otherwise IT vs facility power bars from
    the summary with the PUE and its 1.2 target. Figure or None."""
    r = _results(results)
    tr = _transient(r)
    if tr is not None and any(k in tr[1] for k in ("it_power", "facility_power")):
        return _plot_transient_power(r, tr, ax)
    paths = [p for p in r.datasets if (p.startswith("/power/") or p.startswith("/thermal/") or p.startswith("/facility/"))
             and r.dataset_units.get(p) in ("W", "kW", "MW") and r.datasets[p].ndim == 1
             and (r.dataset_dims.get(p) or [""])[0] in ("time", "t")]
    pue_path = next((p for p in r.datasets if "pue" in p.rsplit("/", 1)[-1].lower() and r.datasets[p].ndim == 1), None)
    if paths:
        fig, ax = plt.subplots(figsize=(9, 4.5)) if ax is None else (ax.figure, ax)
        scale = {"W": 1e-6, "kW": 1e-3, "MW": 1.0}
        for p in paths:
            t, tu = _scale_time(*_time_axis(r, p, r.datasets[p].shape[0]))
            ax.plot(t, r.datasets[p] * scale[r.dataset_units[p]], label=p.rsplit("/", 1)[-1])
        ax.set_xlabel(f"time [{tu}]")
        ax.set_ylabel("power [MW]")
        if pue_path and r.datasets[pue_path].shape == r.datasets[paths[0]].shape:
            ax2 = ax.twinx()
            ax2.plot(t, r.datasets[pue_path], color="k", ls=":", label="PUE")
            ax2.set_ylabel("PUE [1]")
            ax2.legend(loc="lower right", fontsize=8)
        ax.legend(loc="upper left", fontsize=8)
        ax.set_title("Power and PUE over time")
        return fig
    bars = [(k, r.summary[k]) for k in r.summary if r.units.get(k) in ("MW", "kW", "W") and "power" in k
            and "swing" not in k]
    pue = _summary(r, "pue")
    if not bars:
        return None
    scale = {"W": 1e-6, "kW": 1e-3, "MW": 1.0}
    fig, ax = plt.subplots(figsize=(7, 4.5)) if ax is None else (ax.figure, ax)
    names = [k for k, _ in bars]
    vals = [v * scale[r.units[k]] for k, v in bars]
    ax.bar(names, vals, color=[f"C{i}" for i in range(len(names))])
    for i, v in enumerate(vals):
        ax.text(i, v, f"{v:.2f}", ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("power [MW]")
    title = "Power"
    if pue:
        title += f" - PUE {r.summary[pue]:.3f} (brief target < 1.2)"
    ax.set_title(title)
    ax.tick_params(axis="x", labelrotation=20)
    return fig


def plot_time_to_train(results, ax=None):
    """Time-to-train distribution: histogram of /reliability/* samples whose name contains
    "time_to_train" (or "ttt"), with p10/p50/p90 lines. Figure or None."""
    r = _results(results)
    paths = _find(r, "/reliability/", ["time_to_train", "ttt", "duration"], ndim=1)
    if not paths:
        return None
    p = paths[0]
    v = np.asarray(r.datasets[p], dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    unit = r.dataset_units.get(p, "s")
    if unit == "s":
        v, unit = v / kDay, "days"
    fig, ax = plt.subplots(figsize=(8, 4.5)) if ax is None else (ax.figure, ax)
    ax.hist(v, bins=min(40, max(5, v.size // 5)), color="#4c72b0", alpha=0.8, label=f"{v.size} samples")
    for q, ls in ((10, ":"), (50, "-"), (90, "--")):
        x = np.percentile(v, q)
        ax.axvline(x, color="k", ls=ls, lw=1.2, label=f"p{q} = {x:.3g} {unit}")
    ax.set_xlabel(f"time to train [{unit}]")
    ax.set_ylabel("samples [count]")
    ax.set_title("Time-to-train distribution")
    ax.legend(fontsize=8)
    return fig


def plot_lost_gpu_hours(results, ax=None):
    """GPU-hours lost per failure cause (/reliability/lost_gpu_hours along /reliability/cause: the
    Monte Carlo mean of lost work plus restarts), largest first, with each cause's share. Figure or
    None."""
    r = _results(results)
    p = "/reliability/lost_gpu_hours"
    causes = r.labels.get("/reliability/cause")
    if p not in r.datasets or not causes:
        return None
    hours = np.asarray(r.datasets[p], dtype=float)
    if hours.size != len(causes) or not np.any(hours > 0):
        return None
    order = [i for i in np.argsort(-hours, kind="stable") if hours[i] > 0]  # causes that cost nothing: left out
    total = hours.sum()
    scale, prefix = (1e6, "million ") if hours.max() >= 1e6 else ((1e3, "thousand ") if hours.max() >= 1e4 else (1, ""))
    fig, ax = plt.subplots(figsize=(9, 4.5)) if ax is None else (ax.figure, ax)
    x = np.arange(len(order))
    bars = ax.bar(x, hours[order] / scale, color="#c44e52",
                  label=f"mean over the Monte Carlo draws (total {total / scale:,.3g} {prefix}GPU-h)")
    for b, h in zip(bars, hours[order]):
        ax.annotate(f"{100 * h / total:.1f} %", (b.get_x() + b.get_width() / 2, h / scale), ha="center", va="bottom",
                    fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels([causes[i].replace("_", " ") for i in order], rotation=20, ha="right")
    ax.set_xlabel("cause: failures, restarts, checkpoints (causes with no loss left out)")
    unit = r.dataset_units.get(p, "h")
    ax.set_ylabel(f"GPU-hours lost [{prefix}GPU·{unit}]")
    ax.set_title("GPU-hours lost per training run, by cause")
    ax.legend(fontsize=8)
    return fig


def plot_phases(results, ax=None):
    """Rollout phases side by side (/phases/*, one bar per phase): GPUs, step time, mean days in the
    phase and IT power. Figure or None for a run without phases. `ax` is ignored (four panels)."""
    r = _results(results)
    names = r.labels.get("/phases/phase")
    spec = (("gpus", "GPUs per phase", "GPUs", "as configured"),
            ("step_time", "Step time per phase", "step time", "simulated"),
            ("wall_time", "Time spent in each phase", "time in the phase", "mean over failure draws"),
            ("it_power", "IT power per phase", "IT power", "steady state"))
    panels = [p for p in spec if "/phases/" + p[0] in r.datasets]
    if not names or not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 4.2), squeeze=False)
    x = np.arange(len(names))
    for a, (k, title, label, how) in zip(axes[0], panels):
        v = np.asarray(r.datasets["/phases/" + k], dtype=float)
        a.bar(x[: v.size], v, color=[f"C{i % 10}" for i in range(v.size)], label=how)
        a.set_xticks(x)
        a.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        a.set_xlabel("rollout phase")
        a.set_ylabel(f"{label} [{r.dataset_units.get('/phases/' + k, '1')}]")
        a.set_title(title)
        a.legend(fontsize=7)
    return fig


def _phase_checks(r, names, i):
    """Checklist items of phase i: "phase <name>: ..." items for an earlier phase; for the last
    phase the unprefixed items (the final site, including cooling-fault verdicts)."""
    if i < len(names) - 1:
        head = f"phase {names[i]}: "
        return [dict(c, item=c["item"][len(head):]) for c in r.checks if c.get("item", "").startswith(head)]
    return [c for c in r.checks if not c.get("item", "").startswith("phase ")]


def plot_phase_pages(results):
    """One page per rollout phase: its contribution to time-to-train (mean days in each phase,
    this one highlighted, with its share of the tokens trained) and its own checklist (headroom to
    each limit in % of the limit, pass/fail). List of (name, Figure); empty without phases."""
    from matplotlib.patches import Patch

    r = _results(results)
    names = r.labels.get("/phases/phase")
    wall = r.datasets.get("/phases/wall_time")
    if not names or wall is None or len(names) < 2:
        return []
    wall = np.asarray(wall, dtype=float)
    tokens = r.datasets.get("/phases/tokens_trained")
    gpus = r.datasets.get("/phases/gpus")
    unit = r.dataset_units.get("/phases/wall_time", "d")
    pages = []
    for i, name in enumerate(names):
        checks = _phase_checks(r, names, i)
        height = max(4.8, 0.2 * len(checks) + 1.8)  # one readable line per checklist item
        fig, (a, b) = plt.subplots(1, 2, figsize=(13, height), gridspec_kw={"width_ratios": [1, 1.6]})
        y = np.arange(len(names))
        colors = ["#4c72b0" if k == i else "0.75" for k in range(len(names))]
        a.barh(y, wall, color=colors)
        a.set_yticks(y)
        a.set_yticklabels(names)
        a.invert_yaxis()
        a.set_ylabel("rollout phase")
        a.set_xlabel(f"mean time spent in the phase [{unit}]")
        share = ""
        if tokens is not None and np.nansum(tokens) > 0:
            share = f", {100 * float(tokens[i]) / float(np.nansum(tokens)):.0f} % of the tokens"
        a.set_title(f"Contribution to time-to-train: {wall[i]:.1f} {unit} of {np.nansum(wall):.1f}{share}", fontsize=10)
        a.legend(handles=[Patch(color="#4c72b0", label=f"phase {name}"), Patch(color="0.75", label="other phases")],
                 fontsize=8, loc="lower right")
        rel = []
        for c in checks:
            lim, head = c.get("limit"), c.get("headroom")
            v = 100.0 * head / abs(lim) if lim not in (None, 0) and head is not None else (100.0 if c.get("pass") else -100.0)
            rel.append(float(np.clip(v, -100, 100)))
        yc = np.arange(len(checks))
        ok = [bool(c.get("pass")) for c in checks]
        col = ["#55a868" if o else "#c44e52" for o in ok]
        b.barh(yc, rel, color=col)
        b.scatter(rel, yc, c=col, s=14, zorder=3)  # an item exactly at its limit (0 %) still shows
        b.axvline(0, color="black", lw=0.8)
        b.set_yticks(yc)
        b.set_yticklabels([c["item"] for c in checks], fontsize=7)
        b.invert_yaxis()
        b.set_xlim(-105, 105)
        b.set_xlabel("headroom to the limit [% of the limit, clipped at ±100]")
        b.set_ylabel("checklist item")
        passed = sum(ok)
        b.set_title(f"Checklist of phase {name}: {passed} of {len(checks)} pass", fontsize=10)
        b.legend(handles=[Patch(color="#55a868", label="pass"), Patch(color="#c44e52", label="fail")],
                 fontsize=8, loc="lower right")
        n = f" ({int(gpus[i]):,} GPUs)" if gpus is not None else ""
        sub = _subtitle(r)
        fig.suptitle(f"Rollout phase {i + 1} of {len(names)}: {name}{n}" + (f" - {sub}" if sub else ""), fontsize=11)
        fig.tight_layout()
        safe = "".join(ch if ch.isalnum() else "_" for ch in str(name))
        pages.append((f"phase_{i + 1}_{safe}", fig))
    return pages


FAULTS = "/thermal/faults/"


def plot_fault_transients(results):
    """One panel per cooling fault judged alone (/thermal/faults/fault_<n>/*: sample times [s],
    hottest GPU junction, cold plate, coolant outlet and inlet, server inlet air [°C]): each series
    over time [min or h], the fault's window shaded (/thermal/faults/start, duration), its limit
    checks as dashed lines (checks "fault n: ..."), the GPU throttle and shutdown temperatures
    (summary gpu_throttle_temperature, gpu_shutdown_temperature), and the verdict in the title
    (/thermal/faults/pass, name, description). Figure or None without fault verdicts."""
    r = _results(results)
    names = r.labels.get(FAULTS + "name")
    if not names:
        return None
    what = r.labels.get(FAULTS + "description", [""] * len(names))
    verdict = r.datasets.get(FAULTS + "pass")
    start, duration = r.datasets.get(FAULTS + "start"), r.datasets.get(FAULTS + "duration")
    n = len(names)
    fig, axes = plt.subplots(n, 1, figsize=(11, 3.6 * n), squeeze=False)
    series = [("max_gpu_temperature", "GPU junction (max)"), ("max_cold_plate_temperature", "cold plate (max)"),
              ("coolant_outlet", "coolant outlet (max)"), ("coolant_inlet", "coolant inlet (max)"),
              ("max_server_inlet_air", "server inlet air (max)")]
    for i in range(n):
        ax = axes[i][0]
        g = f"{FAULTS}fault_{i + 1}/"
        t = r.datasets.get(g + "time")
        if t is None or np.size(t) < 2:
            ax.set_axis_off()
            continue
        factor, tu = _time_factor(t)
        x = np.asarray(t, dtype=float) / factor
        for k, (key, label) in enumerate(series):
            if g + key in r.datasets:
                y, _ = _as_celsius(r.datasets[g + key], r.dataset_units.get(g + key, "degC"))
                if np.any(np.isfinite(y)):
                    ax.plot(x, y, color=f"C{k}", lw=1.5, label=label)
        if start is not None and duration is not None:
            a = float(start[i])
            b = a + float(duration[i]) if np.isfinite(duration[i]) else float(t[-1])
            ax.axvspan(a / factor, min(b, float(t[-1])) / factor, color="0.85", alpha=0.6, label="fault active")
        for key, label, color in (("gpu_throttle_temperature", "GPU throttle", "#dd8452"),
                                  ("gpu_shutdown_temperature", "GPU shutdown", "#c44e52")):
            if key in r.summary:
                ax.axhline(r.summary[key], color=color, lw=1.2, label=f"{label} ({r.summary[key]:.0f} °C)")
        for k, (label, v) in enumerate(_limits(r, names[i] + ": ")):
            if "junction" in label:
                continue  # the throttle line above
            ax.axhline(v, ls="--", lw=0.9, color=f"C{(k + 5) % 10}", label=f"limit: {label} ({v:.0f} °C)")
        ok = verdict is not None and verdict[i] > 0
        ax.set_title(f"{names[i]} - {what[i]}: {'PASS' if ok else 'FAIL'}", color="black" if ok else "#c44e52",
                     fontsize=10)
        ax.set_xlabel(f"time from the training start [{tu}]")
        ax.set_ylabel("temperature [°C]")
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


PLOTS = [("link_utilization", plot_link_utilization), ("link_timeline", plot_link_timeline),
         ("step_breakdown", plot_step_breakdown),
         ("temperatures", plot_temperatures), ("fault_transients", plot_fault_transients),
         ("power_pue", plot_power),
         ("time_to_train", plot_time_to_train), ("lost_gpu_hours", plot_lost_gpu_hours),
         ("phases", plot_phases)]


def _subtitle(r):
    """"scenario, seed N" for the figures' titles ('' when the results do not say)."""
    name = r.scenario_name or os.path.basename(r.scenario_file or "")
    return f"{name}, seed {r.seed}" if name else ""


def write_report(results, out_dir):
    """Draws every plot whose datasets exist and writes <out_dir>/<name>.png. Returns the paths
    written (possibly empty). Accepts a Results or an HDF5 path."""
    r = _results(results)
    written = []
    sub = _subtitle(r)
    for name, fn in PLOTS + [("fabric", plot_fabric)]:
        fig = fn(r)
        if fig is not None:
            if sub:
                fig.suptitle(sub, fontsize=9, color="0.3")
            written.append(_save(fig, out_dir, f"{name}.png"))
    for name, fig in plot_phase_pages(r):
        written.append(_save(fig, out_dir, f"{name}.png"))
    return written


def plot_fabric(results):
    """The fabric of the run's scenario (its stored YAML) drawn at pod level
    (aidcsim.fabric_drawing); None when the results carry no scenario text or it cannot be built
    here (e.g. without the compiled module). A rollout's scenario builds its cluster.gpus."""
    r = _results(results)
    if not r.scenario_text:
        return None
    try:
        from .fabric import Fabric
        from .scenario import Scenario
        return Fabric(Scenario.from_yaml(r.scenario_text, name=r.scenario_file or "results")).draw()
    except (ImportError, Error):
        return None


def write_html(results, path):
    """One self-contained HTML file (figures embedded as PNG data URIs): title with scenario and
    seed, warnings, the checklist (failures first), the summary with units and descriptions, the
    figures of write_report, and the notes. Written through a temporary file and a rename; returns
    `path`."""
    import base64
    import html
    import io

    r = _results(results)
    esc = html.escape
    figs = []
    for name, fn in PLOTS + [("fabric", plot_fabric)]:
        fig = fn(r)
        if fig is None:
            continue
        buf = io.BytesIO()
        fig.tight_layout()
        fig.savefig(buf, format="png", dpi=100)
        plt.close(fig)
        figs.append((name, base64.b64encode(buf.getvalue()).decode("ascii")))
    for name, fig in plot_phase_pages(r):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)
        plt.close(fig)
        figs.append((name, base64.b64encode(buf.getvalue()).decode("ascii")))
    checks = sorted(r.checks, key=lambda c: bool(c.get("pass")))
    failed = sum(1 for c in checks if not c.get("pass"))

    def num(v):
        return "" if v is None else (f"{v:,.4g}" if isinstance(v, float) else esc(str(v)))

    rows = "".join(
        f"<tr class='{'pass' if c.get('pass') else 'fail'}'><td>{'PASS' if c.get('pass') else 'FAIL'}</td>"
        f"<td>{esc(str(c.get('item', '')))}</td><td>{num(c.get('value'))}</td><td>{num(c.get('limit'))}</td>"
        f"<td>{esc(str(c.get('unit', '')))}</td><td>{num(c.get('headroom'))}</td><td>{esc(str(c.get('note', '')))}</td></tr>"
        for c in checks)
    summary = "".join(f"<tr><td>{esc(k)}</td><td>{num(v)}</td><td>{esc(r.units.get(k, ''))}</td>"
                      f"<td>{esc(r.descriptions.get(k, ''))}</td></tr>" for k, v in r.summary.items())
    title = esc(_subtitle(r) or "aidcsim results")
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>aidcsim report: {title}</title><style>",
        "body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;font-size:90%}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}tr.fail td:first-child{color:#b00;font-weight:bold}"
        "tr.pass td:first-child{color:#070}img{max-width:100%;border:1px solid #eee;margin:0.5em 0}",
        "</style></head><body>",
        f"<h1>aidcsim report: {title}</h1>",
        f"<p>Scenario file: {esc(r.scenario_file or '-')}</p>",
    ]
    if r.warnings:
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{esc(w)}</li>" for w in r.warnings) + "</ul>")
    parts.append(f"<h2>Checklist: {len(checks) - failed} of {len(checks)} passed</h2>")
    parts.append("<table><tr><th></th><th>item</th><th>value</th><th>limit</th><th>unit</th><th>headroom</th>"
                 f"<th>note</th></tr>{rows}</table>")
    parts.append("<h2>Summary</h2><table><tr><th>key</th><th>value</th><th>unit</th><th>description</th></tr>"
                 f"{summary}</table>")
    parts.append("<h2>Figures</h2>")
    parts.extend(f"<h3>{esc(n.replace('_', ' '))}</h3><img alt='{esc(n)}' src='data:image/png;base64,{b}'>"
                 for n, b in figs)
    if r.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in r.notes) + "</ul>")
    parts.append("</body></html>")
    from ._files import atomic_write as _atomic_write
    text = "\n".join(parts)
    _atomic_write(path, lambda f: f.write(text.encode("utf-8")))
    return path


def main(argv=None):
    """``aidcsim report``: exit 0, 1 (error: the file cannot be read, nothing to plot, an output not
    written), 64 (usage error)."""
    ap = _cli.ArgumentParser(prog="aidcsim report", description="Writes PNG plots of a results file.")
    ap.add_argument("results", type=_cli.path_arg, help="HDF5 file written by `aidcsim run --output`")
    ap.add_argument("--out", default=None, type=_cli.path_arg, help="output directory (default: <results>-report)")
    ap.add_argument("--html", default=None, type=_cli.path_arg, help="also write one self-contained HTML report to this file")
    a = ap.parse_args(argv)
    for option, path in (("--html", a.html), ("--out", a.out)):
        clash = _cli.output_over_input(option, path, [a.results])
        if clash:  # `report x.h5 --html x.h5` wrote the page over the results file
            _cli.usage_error(ap, clash)
    out = a.out or os.path.splitext(a.results)[0] + "-report"
    try:
        if a.html:  # before any PNG is drawn, as `aidcsim run` checks its outputs (case input/13's kind)
            from . import _native
            if _native.has("check_output"):
                _native.core().check_output(a.html)
        paths = write_report(a.results, out)
        if a.html and paths:
            paths.append(write_html(a.results, a.html))
    except OSError as e:
        print(f"aidcsim report: error: {e}", file=sys.stderr)
        return 1
    if not paths:
        print("aidcsim report: no plottable datasets in " + a.results, file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
