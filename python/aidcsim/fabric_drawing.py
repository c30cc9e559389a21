"""A pod-level drawing of a built fabric: tiers as rows (GPUs in NVLink domains, leaves, spines,
cores), one column per pod (the first pods and the last when there are many), link counts and
rates per tier, oversubscription as built, the wiring (rails) and the fabric warnings.

    fig = aidcsim.Fabric("scenarios/stargate-uk-8k.yaml").draw("fabric.png")

Everything drawn comes from the fabric graph (Fabric.nodes(), links(), bom()), not from the
scenario's request, so a fabric built otherwise than asked is drawn as built.
"""

import math
import textwrap

_TIER_STYLE = {  # link tier -> (colour, line style, label)
    "access": ("#4c72b0", "-", "access (NIC - leaf)"),
    "leaf_spine": ("#55a868", "-", "leaf - spine"),
    "spine_core": ("#c44e52", "-", "spine - core"),
}
_MAX_PODS = 4  # columns drawn: the first pods, an ellipsis, the last


def _gbps(rate):
    return f"{rate * 8 / 1e9:,.0f} Gb/s"


def _box(ax, x, y, w, h, text, color):
    from matplotlib.patches import FancyBboxPatch
    ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.02", fc=color, ec="0.3", lw=0.8))
    ax.text(x, y, text, ha="center", va="center", fontsize=8)


def draw_fabric(fabric, path=None, ax=None):
    """Draws `fabric` (an aidcsim.Fabric) at pod level; saves a PNG to `path` if given (temp file +
    rename) and returns the matplotlib Figure."""
    import matplotlib
    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    nodes, links, bom = fabric.nodes(), fabric.links(), fabric.bom()
    pod_of = dict(zip(nodes["name"], nodes["pod"]))
    counts = nodes[nodes["pod"] >= 0].groupby(["kind", "pod"]).size()
    pods = sorted(int(p) for p in nodes.loc[nodes["kind"] == "leaf", "pod"].unique())
    shown = pods if len(pods) <= _MAX_PODS else pods[: _MAX_PODS - 1] + [pods[-1]]
    per_pod_links = {}
    for tier in ("access", "leaf_spine", "spine_core"):
        sub = links[links["tier"] == tier]
        # a link belongs to the pod of its lower end (a: GPU for access, leaf, spine)
        per_pod_links[tier] = sub["a"].map(pod_of).value_counts().to_dict()
    rates = links.groupby("tier")["rate"].agg(lambda r: sorted(set(r)))

    fig, ax = plt.subplots(figsize=(11, 6)) if ax is None else (ax.figure, ax)
    width = 1.0 / (len(shown) + (1 if len(shown) < len(pods) else 0))
    xs = {}
    col = 0
    for i, p in enumerate(shown):
        if len(shown) < len(pods) and i == len(shown) - 1:
            ax.text((col + 0.5) * width, 1.5, f"… {len(pods) - len(shown)} more pods …", ha="center", va="center",
                    fontsize=9, color="0.4")
            col += 1
        xs[p] = (col + 0.5) * width
        col += 1
    bw = width * 0.7
    y_gpu, y_leaf, y_spine, y_core = 0.0, 1.0, 2.0, 3.0
    domain = int(fabric.scenario.get("cluster.nvlink_domain", 0) or 0)
    gpus = nodes[nodes["kind"] == "gpu"]
    domains = {}  # pod -> NVLink domains its GPUs belong to (a domain may span two pods)
    if domain > 1:
        for p in xs:
            domains[p] = len({fabric.nvlink_domain_of(int(i)) for i in gpus.loc[gpus["pod"] == p, "index"]})
    for p, x in xs.items():
        g = int(counts.get(("gpu", p), 0))
        dom = f"\nin {domains[p]:,} NVLink domains of {domain}" if domain > 1 else ""
        _box(ax, x, y_gpu, bw, 0.42, f"pod {p}: {g:,} GPUs{dom}", "#eeeeee")
        _box(ax, x, y_leaf, bw, 0.3, f"{int(counts.get(('leaf', p), 0)):,} leaves", "#dce6f2")
        n_spine = int(counts.get(("spine", p), 0))
        if n_spine:
            _box(ax, x, y_spine, bw, 0.3, f"{n_spine:,} spines", "#dff0e0")
        for tier, y0, y1 in (("access", y_gpu + 0.21, y_leaf - 0.15), ("leaf_spine", y_leaf + 0.15, y_spine - 0.15)):
            n = per_pod_links[tier].get(p, 0)
            if n:
                c, ls, _ = _TIER_STYLE[tier]
                ax.plot([x, x], [y0, y1], color=c, ls=ls, lw=1.5 + math.log10(n))
                ax.text(x + 0.01, (y0 + y1) / 2, f"{n:,} links", fontsize=7, va="center")
    if bom["cores"] > 0:
        _box(ax, 0.5, y_core, 0.6, 0.3, f"{bom['cores']:,} core switches (shared by all pods)", "#f6dcdc")
        c, ls, _ = _TIER_STYLE["spine_core"]
        for p, x in xs.items():
            n = per_pod_links["spine_core"].get(p, 0)
            ax.plot([x, 0.5 + (x - 0.5) * 0.5], [y_spine + 0.15, y_core - 0.15], color=c, ls=ls,
                    lw=1.5 + math.log10(max(n, 1)))
            ax.text(x + 0.01, y_spine + 0.5, f"{n:,} links", fontsize=7, va="center")

    spec_rows = []
    wiring = str(fabric.scenario.get("fabric.wiring", ""))
    per_node = int(fabric.scenario.get("cluster.gpus_per_node", 0) or 0)
    if wiring == "rail_optimized":
        spec_rows.append(f"rail-optimized: NIC k of every {per_node}-GPU node on rail leaf k ({per_node} rails)")
    elif wiring:
        spec_rows.append(f"{wiring.replace('_', '-')}: every NIC of a rack on the same leaves")
    spec_rows.append(f"oversubscription as built: leaf {bom['oversub_leaf']:.2f}:1"
                     + (f", spine {bom['oversub_spine']:.2f}:1" if bom["tiers"] == 3 else ""))
    spec_rows.append(f"bisection {bom['bisection_bandwidth'] * 8 / 1e12:,.1f} Tb/s; diameter {bom['diameter']} switches")
    for w in fabric.warnings:
        spec_rows.extend(textwrap.wrap("built otherwise than asked: " + w, 140))
    ax.text(0.0, -0.4, "\n".join(spec_rows), fontsize=8, va="top", ha="left")

    handles = []
    for tier, (c, ls, label) in _TIER_STYLE.items():
        if tier in rates.index:
            r = ", ".join(_gbps(x) for x in rates[tier])
            handles.append(Line2D([], [], color=c, ls=ls, lw=2, label=f"{label}: {int((links['tier'] == tier).sum()):,} x {r}"))
    ax.legend(handles=handles, loc="lower right", fontsize=8, title="links (count x rate per direction)",
              title_fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.5 - 0.12 * len(spec_rows), 3.4 if bom["cores"] > 0 else 2.4)
    ax.axis("off")
    name = fabric.scenario.get("name", "")
    kind = "3-tier Clos" if bom["tiers"] == 3 else ("leaf-spine" if bom["tiers"] == 2 else "single leaf")
    ax.set_title(f"Fabric as built{': ' + str(name) if name else ''} - {bom['gpus']:,} GPUs, {kind}, "
                 f"{bom['switches']:,} switches ({bom['leaves']:,} leaf, {bom['spines']:,} spine, {bom['cores']:,} core), "
                 f"{len(pods)} pod(s)", fontsize=10)
    if path is not None:
        from ._files import atomic_write as _atomic_write
        fig.tight_layout()
        _atomic_write(path, lambda f: fig.savefig(f, dpi=110, format="png"))
    return fig
