"""The study's plots (SVG, with matplotlib, which only the plots need)."""

from __future__ import annotations

import math
import os

from .depth import depth_table
from .design import BRANCHING, LEVEL_NAMES, LEVELS, PHASE_NAMES
from .strength import strength_of, strength_points
from .sweep import level_times

PLOTS = ["nodes.svg", "depth.svg", "proven.svg", "accuracy.svg", "elo.svg", "levels_elo.svg",
         "strength.svg"]


def finite(x):
    return x is not None and math.isfinite(x)


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401  (optional: only the plots need it)
    except ImportError:
        return False
    return True


def plot(out_dir: str, res: dict):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "vier-study"
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("viridis")
    color = {l: cmap((l - 1) / 6.5) for l in LEVELS}
    meta, sweep, matches = res["meta"], res["sweep"], res["matches"]
    table = depth_table({int(l): v for l, v in res["depth"].items()})
    sub = f"vier {meta['commit']}, 2 shared cores"
    written = []

    def logx(ax, ticks):
        ax.set_xscale("log")
        ticks = sorted(set(ticks))
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}" for t in ticks])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, name))
        plt.close(fig)
        written.append(name)

    # 1. the cost of a depth: one panel per phase, nodes on a log axis beside the theory
    if table:
        fig, axes = plt.subplots(1, len(PHASE_NAMES), figsize=(13, 4.4), sharey=True)
        ymax = 10
        for ax, phase in zip(axes, PHASE_NAMES):
            top = 1
            for level in sorted(table):
                t = table[level].get(phase)
                if not t or not t["rows"]:
                    continue
                d = [r["depth"] for r in t["rows"]]
                top = max(top, max(d))
                y = [r["nodes"] for r in t["rows"]]
                ymax = max([ymax] + y)
                ax.plot(d, y, marker="o", color=color[level], label=LEVEL_NAMES[level])
                c = t.get("common_depth")
                if t.get("ebf_common") and c:
                    ax.annotate(f"{t['ebf_common']:.1f}", (c, y[d.index(c)]),
                                textcoords="offset points", xytext=(-4, 6), fontsize=8,
                                color=color[level], ha="right")
            ds = list(range(1, top + 1))
            ax.plot(ds, [BRANCHING ** x for x in ds], color="grey", linestyle="--",
                    label=f"theory b^d (b = {BRANCHING})")
            ax.plot(ds, [BRANCHING ** (x / 2) for x in ds], color="grey", linestyle=":",
                    label="theory b^(d/2): perfect ordering")
            ax.set_yscale("log")
            n = next((table[l][phase]["positions"] for l in table if phase in table[l]), 0)
            c = next((table[l][phase].get("common_depth") for l in table if phase in table[l]), None)
            ax.set_title(f"{phase} positions ({n})" + (f"; numbers: EBF over depths {max(1, c - 4)}-{c}"
                                                       if c and c > 1 else ""), fontsize=10)
            ax.set_xlabel("depth finished (plies)")
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
            ax.set_xlim(0.5, top + 1.5)
            ax.grid(True, which="both", alpha=0.3)
        axes[0].set_ylim(1, ymax * 20)
        axes[0].set_ylabel("nodes to finish the depth (geometric mean, log scale)")
        axes[0].legend(fontsize=7, loc="upper left")
        fig.suptitle(f"Each step of the lecture makes a ply cheaper ({sub})")
        save(fig, "nodes.svg")

    def sweep_plot(name, title, ylabel, value, phase, ylim=None, random_line=None):
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
        for level in LEVELS:
            ts = level_times(sweep, level)
            pts = [(t, value(sweep[str(level)][str(t)][phase])) for t in ts]
            pts = [(t, v) for t, v in pts if v is not None]
            if not pts:
                continue
            x = [t for t, _ in pts]
            y = [v[0] for _, v in pts]
            lo = [v[0] - v[1] for _, v in pts]
            hi = [v[0] + (v[2] if len(v) > 2 else v[1]) for _, v in pts]
            ax.plot(x, y, marker="o", color=color[level], label=LEVEL_NAMES[level])
            ax.fill_between(x, lo, hi, color=color[level], alpha=0.08)
        if random_line is not None:
            ax.axhline(random_line, color="grey", linestyle=":", label="a random move")
        logx(ax, [int(t) for lv in sweep.values() for t in lv])
        ax.set_xlabel("thinking time per move (ms, log scale)")
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, name)

    if sweep:
        n_begin = next(iter(next(iter(sweep.values())).values()))["begin"]["positions"]
        sweep_plot("depth.svg", f"Depth reached in the same time ({n_begin} begin positions; "
                   "band: 95% interval of the mean)", "depth of the last iteration (plies)",
                   lambda s: (s["depth"]["mean"], s["depth"]["ci"]) if s["depth"]["n"] else None,
                   "begin")
        n_all = next(iter(next(iter(sweep.values())).values()))["all"]["positions"]
        sweep_plot("proven.svg", f"Share of positions proven ({n_all} positions, all phases; "
                   "band: 95% Wilson)", "positions whose value is proven (%)",
                   lambda s: (100 * s["proven"], 100 * (s["proven"] - s["proven_low"]),
                              100 * (s["proven_high"] - s["proven"])), "all", (-2, 102))
        first = next(iter(next(iter(sweep.values())).values()))["all"]
        sweep_plot("accuracy.svg", f"Move accuracy on {first['critical']} critical positions "
                   "(band: 95% Wilson)", "moves that keep the exact game value (%)",
                   lambda s: None if s["critical_keeps_value"] is None else
                   (100 * s["critical_keeps_value"],
                    100 * (s["critical_keeps_value"] - s["critical_keeps_value_low"]),
                    100 * (s["critical_keeps_value_high"] - s["critical_keeps_value"])),
                   "all", (0, 102),
                   None if first["critical_random"] is None else 100 * first["critical_random"])

    def errbar(ax, x, m, c, label, cap, marker="o"):
        e = m["elo"]
        if label:
            ax.plot([], [], marker=marker, color=c, label=label)
        if e is None:
            return
        if math.isinf(e):
            ax.plot([x], [math.copysign(cap, e)], marker="^" if e > 0 else "v", color=c,
                    markersize=9, linestyle="none")
            return
        lo = m["elo_low"] if finite(m["elo_low"]) else (e if m["elo_low"] is None else -cap)
        hi = m["elo_high"] if finite(m["elo_high"]) else (e if m["elo_high"] is None else cap)
        ax.errorbar([x], [e], yerr=[[max(0, e - lo)], [max(0, hi - e)]], fmt=marker, color=c,
                    capsize=4)

    def cap_of(ms):
        seen = [abs(v) for m in ms for v in (m["elo"], m["elo_low"], m["elo_high"]) if finite(v)]
        return min(1000, max(seen + [100.0]) * 1.15)

    # 4. Elo against time, vier and Fairy-Stockfish against one reference; and head to head
    series = [("vier", "tab:red"), ("fsf", "tab:blue")]
    if any(k.startswith(("vier-", "fsf-", "h2h-")) for k in matches):
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.6),
                                     gridspec_kw={"width_ratios": [3, 2]})
        allm = [m for k, m in matches.items() if k.startswith(("vier-", "fsf-"))]
        cap = cap_of(allm)
        for prefix, c in series:
            ms = sorted((m["a_ms"], m) for k, m in matches.items() if k.startswith(prefix + "-"))
            label = {"vier": "vier (full engine)", "fsf": "Fairy-Stockfish"}[prefix]
            for i, (t, m) in enumerate(ms):
                errbar(ax, t, m, c, label if i == 0 else None, cap)
            fin = [(t, m["elo"]) for t, m in ms if finite(m["elo"])]
            if fin:
                ax.plot([t for t, _ in fin], [e for _, e in fin], color=c, alpha=0.4)
        ref = meta["args"]["ref_ms"]
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.axvline(ref, color="grey", linewidth=0.8, linestyle=":")
        logx(ax, [m["a_ms"] for m in allm])
        ax.set_ylim(-cap - 50, cap + 50)
        ax.set_xlabel("thinking time per move (ms, log scale)")
        ax.set_ylabel(f"Elo against vier at {ref} ms (95% interval)")
        ax.set_title(f"Strength against time, one reference ({meta['args']['games']} games a point)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        h2h = sorted((m["a_ms"], m) for k, m in matches.items() if k.startswith("h2h-"))
        cap2 = cap_of([m for _, m in h2h])
        for i, (t, m) in enumerate(h2h):
            errbar(bx, t, m, "tab:purple", None, cap2, "s")
            y = m["elo"] if finite(m["elo"]) else math.copysign(cap2, m["elo"] or 0)
            bx.annotate(f"{100 * m['score']:.0f}%", (t, y),
                        textcoords="offset points", xytext=(8, -4), fontsize=8)
        bx.axhline(0, color="grey", linewidth=0.8)
        if h2h:
            logx(bx, [t for t, _ in h2h])
            bx.set_xlim(min(t for t, _ in h2h) / 2, max(t for t, _ in h2h) * 2)
        bx.set_ylim(-cap2 - 50, cap2 + 50)
        bx.set_xlabel("time per move for both (ms, log scale)")
        bx.set_ylabel("Elo of vier against Fairy-Stockfish (95% interval)")
        bx.set_title("vier vs Fairy-Stockfish at equal time (vier's score)")
        bx.grid(True, which="both", alpha=0.3)
        save(fig, "elo.svg")

    # 5. what each level is worth in games, at one time per move
    lv = sorted(((int(k[5:].split("-")[0]), m) for k, m in matches.items()
                 if k.startswith("level")), key=lambda x: (x[0], x[1]["a_ms"]))
    if lv:
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
        cap = cap_of([m for _, m in lv])
        times_ = sorted({m["a_ms"] for _, m in lv})
        shades = ["tab:orange", "tab:red", "tab:purple", "tab:brown"]
        for i, ms in enumerate(times_):
            c = shades[i % len(shades)]
            pts = [(l, m) for l, m in lv if m["a_ms"] == ms]
            dx = (i - (len(times_) - 1) / 2) * 0.15
            for j, (level, m) in enumerate(pts):
                errbar(ax, level + dx, m, c, f"{ms} ms per move" if j == 0 else None, cap)
            fin = [(l + dx, m["elo"]) for l, m in pts if finite(m["elo"])]
            ax.plot([l for l, _ in fin], [e for _, e in fin], color=c, alpha=0.4)
        ax.axhline(0, color="grey", linewidth=0.8)
        levels_ = sorted({l for l, _ in lv})
        ax.set_xticks(levels_)
        ax.set_xticklabels([LEVEL_NAMES[l].replace(" ", "\n", 1) for l in levels_], fontsize=8)
        ax.set_ylim(-cap - 50, cap + 50)
        ax.set_xlabel("search level (each adds one technique)")
        ax.set_ylabel(f"Elo against vier at {meta['args']['ref_ms']} ms (95% interval)")
        ax.set_title(f"What each step is worth in games ({lv[0][1]['games']} games a point)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
        save(fig, "levels_elo.svg")

    # 6. the strength levels people play against: the Elo of each Skill Level
    cal = strength_of(res)
    pts = strength_points(cal) if cal else []
    if pts:
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
        xs = [x for x, _, _ in pts]
        ys = [p["elo"] for _, _, p in pts]
        ax.errorbar(xs, ys, yerr=[[p["elo"] - p["low"] for _, _, p in pts],
                                  [p["high"] - p["elo"] for _, _, p in pts]],
                    fmt="o-", color="tab:blue", capsize=3)
        anchor = cal.get("settings", {}).get("anchor", 1000)
        ax.axhline(anchor, color="grey", linestyle="--", linewidth=0.8,
                   label=f"the win-and-block player (anchor, {anchor:g})")
        ax.set_xticks(xs)
        ax.set_xticklabels([label for _, label, _ in pts])
        ax.set_xlabel("Skill Level (full: the engine as it ships)")
        ax.set_ylabel("Elo (95% interval)")
        st = cal.get("settings", {})
        ax.set_title(f"Strength levels: {st.get('games', '?')} games per match, "
                     f"each level against the next")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
        save(fig, "strength.svg")
    return written
