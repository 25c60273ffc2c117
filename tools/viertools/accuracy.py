"""Move accuracy through the protocol: an engine's move in each position judged by the oracle."""

from __future__ import annotations

from .engine import EngineProcess, is_proven, parse_info
from .oracle import judge, keeping_share

# no move overhead, so T ms means T ms of search; WDL shows which values the engine proved
ENGINE_OPTIONS = {"MoveOverhead": "0", "UCI_ShowWDL": "true"}


def measure(binary: str, ms: int, sample: dict, oracle: dict, log,
            options: dict | None = None) -> list[dict]:
    """One engine process per thinking time; a fresh game (ucinewgame) per position.
    `options` (default ENGINE_OPTIONS) are set after the handshake."""
    eng = EngineProcess([binary], f"study-{ms}ms")
    rows = []
    try:
        eng.start()
        eng.handshake(10, 30, list((ENGINE_OPTIONS if options is None else options).items()))
        for phase, positions in sample.items():
            for moves, exact in positions:
                eng.send("ucinewgame")
                eng.send(f"position startpos moves {moves}")
                eng.isready(30)
                t0 = eng.send(f"go movetime {ms}")
                t1, lines = eng.read_until("bestmove", ms / 1000 + 30, "go")
                wall = (t1 - t0) * 1000
                infos = [parse_info(l) for l in lines if l.startswith("info depth")]
                last = infos[-1] if infos else {}
                col = int(lines[-1].split()[1])
                keeps, optimal = judge(oracle[moves], col)
                share = keeping_share(oracle[moves])
                score = " ".join(f"{k} {v}" for k, v in last.get("score", {}).items())
                proven = is_proven(last)
                rows.append({"ms": ms, "phase": phase, "moves": moves, "exact": exact,
                             "move": col, "keeps_value": keeps, "optimal": optimal,
                             "critical": share < 1.0, "random_keeps": round(share, 4),
                             "depth": last.get("depth", 0), "seldepth": last.get("seldepth", 0),
                             "nodes": last.get("nodes", 0), "score": score, "proven": proven,
                             "engine_ms": last.get("time", 0), "wall_ms": round(wall, 1)})
    finally:
        eng.quit(5)
    return rows
