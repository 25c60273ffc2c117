"""PGN for Connect Four as cutechess-cli writes it for its `cfour` variant: the referee's game
records as PGN games (drops, the engines' scores and times as comments), and PGN read back."""

from __future__ import annotations

import re

from .rules import FIRST, Board, IllegalMove, board_from_opening, parse_move_list

# the referee's terminations under the names cutechess gives them in the Termination tag
TERMINATION_TAG = {"win": "normal", "draw": "normal", "time_forfeit": "time forfeit",
                   "illegal_move": "illegal move", "crash": "abandoned", "stall": "stalled connection"}


def tc_tag(tc: str) -> str:
    """A referee time control in PGN's TimeControl form."""
    kind, _, value = tc.partition("=")
    if kind == "movetime":
        return f"{int(value) / 1000:g}/move"
    if kind in ("depth", "nodes"):
        return "-"  # no clock
    return tc  # BASE+INC is already PGN's "seconds+increment"


def score_comment(ply: dict) -> str:
    """{+0.62/16 0.101s}: score in pawns (or mate in N), depth, time used."""
    parts = []
    score = ply.get("score") or {}
    if "cp" in score:
        text = f"{score['cp'] / 100:+.2f}"
    elif "mate" in score:
        text = f"{'+' if score['mate'] > 0 else '-'}M{abs(score['mate'])}"
    else:
        text = None
    if text is not None:
        parts.append(text + (f"/{ply['depth']}" if ply.get("depth") is not None else ""))
    parts.append(f"{ply['time_ms'] / 1000:.3f}s")
    return "{" + " ".join(parts) + "}"


def game_to_pgn(rec: dict, header: dict | None = None) -> str:
    """One game record (a JSONL line) as one PGN game, ending with an empty line."""
    width, height = (int(x) for x in rec["size"].split("x"))
    board = board_from_opening(rec["opening"], width, height)
    start = board.to_cfour_fen()
    tcs = {rec["first"]: rec["tc"][rec["first"]], rec["second"]: rec["tc"][rec["second"]]}
    tags = [("Event", (header or {}).get("event") or "?"), ("Site", "?"),
            ("Date", rec["started"][:10].replace("-", ".")), ("Round", str(rec["game"] + 1)),
            ("White", rec["first_name"]), ("Black", rec["second_name"]),
            ("Result", rec["result"]), ("Variant", "cfour")]
    if rec["opening"]:
        tags += [("FEN", start), ("SetUp", "1")]
    if tcs[rec["first"]] == tcs[rec["second"]]:
        tags.append(("TimeControl", tc_tag(tcs[rec["first"]])))
    else:
        tags += [("WhiteTimeControl", tc_tag(tcs[rec["first"]])),
                 ("BlackTimeControl", tc_tag(tcs[rec["second"]]))]
    if (width, height) != (7, 6):
        tags.append(("BoardSize", rec["size"]))  # not cutechess's: cfour is 7x6 there
    already = len(board.moves) if "/" not in rec["opening"] else 0
    played = parse_move_list(rec["moves"], width)[already:]
    tags += [("Termination", TERMINATION_TAG[rec["termination"]]), ("PlyCount", str(len(played)))]

    tokens = []
    for i, (col, ply) in enumerate(zip(played, rec["plies"])):
        number = board.ply // 2 + 1
        prefix = f"{number}. " if board.side_to_move() == FIRST else f"{number}... " if i == 0 else ""
        tokens.append(prefix + board.move_text(col, "cfour"))  # a number stays with its move
        tokens.append(score_comment(ply))
        board.play(col)
    if rec.get("reason"):
        tokens.append("{" + rec["reason"].replace("}", ")") + "}")
    tokens.append(rec["result"])
    lines, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > 79:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    lines.append(line)
    head = "".join(f'[{k} "{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]\n'
                   for k, v in tags)
    return head + "\n" + "\n".join(lines) + "\n\n"


TOKEN = re.compile(r'\{[^}]*\}|;[^\n]*|\(|\)|\$\d+|\d+\.(?:\.\.)?|1-0|0-1|1/2-1/2|\*|[^\s{}();]+')


def read_pgn(text: str) -> list[dict]:
    """PGN games as {"tags": {...}, "moves": [SAN...], "comments": [...], "result": ...};
    variations and NAGs are skipped."""
    games, game, in_moves = [], None, False
    for line in text.splitlines():
        m = re.fullmatch(r'\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*', line)
        if m:
            if game is None or in_moves:
                game = {"tags": {}, "moves": [], "comments": [], "result": None}
                games.append(game)
                in_moves = False
            game["tags"][m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
            continue
        if not line.strip():
            continue
        if game is None:
            game = {"tags": {}, "moves": [], "comments": [], "result": None}
            games.append(game)
        in_moves = True
        depth = 0
        for tok in TOKEN.findall(line):
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth = max(0, depth - 1)
            elif depth or tok.startswith(";") or tok.startswith("$") or re.fullmatch(r"\d+\.+", tok):
                continue
            elif tok.startswith("{"):
                game["comments"].append(tok[1:-1].strip())
            elif tok in ("1-0", "0-1", "1/2-1/2", "*"):
                game["result"] = tok
            else:
                game["moves"].append(tok)
    return games


def column_of(board: Board, san: str) -> int:
    """The column of a drop written `P@d1`, `d1` or `d` (with any +#!? suffix) on `board`."""
    san = re.sub(r"[+#!?]+$", "", san)
    m = re.fullmatch(r"(?:[Pp]@)?([a-z])([0-9]+)?", san)
    if not m:
        raise IllegalMove(f"'{san}' is not a drop")
    col = ord(m.group(1)) - ord("a") + 1
    rank = m.group(2) or (board.heights[col - 1] + 1 if 1 <= col <= board.width else 1)
    return board.parse_move(f"P@{m.group(1)}{rank}", "cfour")


def pgn_game_board(game: dict, width: int, height: int, plies: int | None = None) -> Board:
    """The board after a PGN game's moves (the first `plies` of them), from its FEN if any."""
    fen = game["tags"].get("FEN")
    board = Board.from_fen(fen, width, height) if fen else Board(width, height)
    for san in game["moves"][:plies]:
        board.play(column_of(board, san))
    return board
