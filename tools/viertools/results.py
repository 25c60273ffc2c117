"""A match's results: the summary from A's view, the printed report, the JSONL file read back."""

from __future__ import annotations

import json
import math

from .stats import SPRT_MODEL, Sprt, fmt_elo, joint_elo, pentanomial_stats, trinomial_stats

def summarize(records: dict) -> dict:
    """W/D/L from A's view, pentanomial over complete pairs, terminations."""
    w = d = l = 0
    terms: dict[str, int] = {}
    for rec in records.values():
        s = rec["score_a"]
        if s == 1.0:
            w += 1
        elif s == 0.0:
            l += 1
        else:
            d += 1
        terms[rec["termination"]] = terms.get(rec["termination"], 0) + 1
    penta = [0, 0, 0, 0, 0]
    for g, rec in records.items():
        if g % 2 == 0 and g + 1 in records:
            total = rec["score_a"] + records[g + 1]["score_a"]
            penta[int(round(total * 2))] += 1
    return {"wins": w, "draws": d, "losses": l, "penta": penta, "terminations": terms}


def report(records: dict, names: dict, sprt: Sprt | None, sprt_state: dict | None) -> str:
    s = summarize(records)
    tri = trinomial_stats(s["wins"], s["draws"], s["losses"])
    pen = pentanomial_stats(s["penta"])
    n = tri["games"]
    out = [f"Match {names['A']} (A) vs {names['B']} (B): {n} games, results from {names['A']}'s view"]
    if n == 0:
        out.append("No games finished.")
        return "\n".join(out)
    out.append(f"  W/D/L: {s['wins']} / {s['draws']} / {s['losses']}   "
               f"score {100 * tri['score']:.1f}%   draw ratio {100 * tri['draw_ratio']:.1f}%")

    def elo_line(label, st):
        if st.get("elo") is None:
            return f"  Elo ({label}): n/a"
        err = st["elo_error"]
        if err is None:
            return f"  Elo ({label}): {fmt_elo(st['elo'])} +/- n/a (no spread in the results yet)"
        err_txt = "inf" if math.isinf(err) or math.isnan(err) else f"{err:.1f}"
        return (f"  Elo ({label}): {fmt_elo(st['elo'])} +/- {err_txt} "
                f"(95% interval {fmt_elo(st['elo_low'])} .. {fmt_elo(st['elo_high'])})")

    if pen["pairs"]:
        out.append(elo_line(f"pentanomial, {pen['pairs']} pairs", pen))
    out.append(elo_line("trinomial", tri))
    out.append(f"  LOS: {100 * tri['los']:.1f}%")
    p = s["penta"]
    out.append(f"  Pentanomial [0, 0.5, 1, 1.5, 2] (pair score of A): {p}")
    out.append("  Terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(s["terminations"].items())))
    if sprt is not None and sprt_state is not None:
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}[sprt_state["decision"]]
        out.append(f"  SPRT ({sprt.describe()}; model: {SPRT_MODEL}):")
        out.append(f"    LLR {sprt_state['llr']:.3f}  bounds [{sprt_state['lower']:.3f}, "
                   f"{sprt_state['upper']:.3f}]  -> {verdict}")
    return "\n".join(out + memory_lines(records))


def read_results(path: str):
    """(header or None, {game index: record}, number of unreadable lines)."""
    header, games, bad = None, {}, 0
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            raw = raw.strip()
            if not raw:
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError:
                bad += 1
                continue
            if obj.get("type") == "match" and header is None:
                header = obj
            elif obj.get("type") == "game" and isinstance(obj.get("game"), int) \
                    and obj.get("score_a") in (0.0, 0.5, 1.0):
                games[obj["game"]] = obj
            else:
                bad += 1
    return header, games, bad


def memory_by_engine(records: dict) -> dict:
    """Per engine name: resident memory (kB) sampled at the end of its first and last game
    (in the order the games finished) and the peak of all samples."""
    out: dict[str, dict] = {}
    for rec in records.values():
        for role, kb in (rec.get("rss_kb") or {}).items():
            if kb is None:
                continue
            m = out.setdefault(rec["engines"][role], {"first": kb, "last": kb, "peak": kb, "samples": 0})
            m["last"] = kb
            m["peak"] = max(m["peak"], kb)
            m["samples"] += 1
    return out


def memory_lines(records: dict) -> list[str]:
    mem = memory_by_engine(records)
    if not mem:
        return []
    return ["  Resident memory (kB) at the end of a game, first / last / peak: "
            + "; ".join(f"{name} {m['first']} / {m['last']} / {m['peak']}" for name, m in mem.items())]


def tournament_table(records: dict, names: list[str], pairings: list) -> dict:
    """Per pairing W/D/L (from the first engine's view) and the joint Elo of every engine."""
    pairs = {tuple(p): [0, 0, 0] for p in pairings}
    for rec in records.values():
        wdl = pairs[tuple(rec["pairing"])]
        wdl[{1.0: 0, 0.5: 1, 0.0: 2}[rec["score_a"]]] += 1
    elo = joint_elo(len(names), [(i, j, w + d / 2, w + d + l) for (i, j), (w, d, l) in pairs.items()])
    return {"pairs": pairs, **elo}


def tournament_report(records: dict, names: list[str], pairings: list) -> str:
    t = tournament_table(records, names, pairings)
    out = [f"Tournament of {len(names)} engines: {len(records)} games; Elo by maximum likelihood "
           "from all games at once (average 0), 95% interval"]
    wdl = {k: [0, 0, 0] for k in range(len(names))}
    for (i, j), (w, d, l) in t["pairs"].items():
        wdl[i] = [wdl[i][0] + w, wdl[i][1] + d, wdl[i][2] + l]
        wdl[j] = [wdl[j][0] + l, wdl[j][1] + d, wdl[j][2] + w]
    order = sorted(range(len(names)), key=lambda k: (-t["elo"][k], names[k]))
    width = max(len(n) for n in names)
    out.append(f"  {'rank':>4}  {'engine':<{width}}  {'games':>5}  {'score':>11}  {'W/D/L':>11}  "
               "Elo (95% interval)")
    for rank, k in enumerate(order, 1):
        games, points = t["games"][k], t["points"][k]
        pct = f"{points:g} ({100 * points / games:.1f}%)" if games else "-"
        interval = (f" ({fmt_elo(t['low'][k])} .. {fmt_elo(t['high'][k])})"
                    if t["low"][k] is not None else "")
        out.append(f"  {rank:>4}  {names[k]:<{width}}  {games:>5}  {pct:>11}  "
                   f"{'/'.join(map(str, wdl[k])):>11}  {fmt_elo(t['elo'][k])}{interval}")
    out.append("  Pairwise (W/D/L from the first engine's view):")
    for (i, j), (w, d, l) in t["pairs"].items():
        n = w + d + l
        score = f"  score {100 * (w + d / 2) / n:.1f}%" if n else ""
        out.append(f"    {names[i]} vs {names[j]}: +{w} ={d} -{l}{score}")
    return "\n".join(out + memory_lines(records))
