"""Time controls as the referee understands them."""

from __future__ import annotations

import re

class TimeControl:
    """movetime=MS | depth=N | nodes=N | BASE+INC (seconds per game + seconds per move)."""

    def __init__(self, kind: str, value: int = 0, base_ms: int = 0, inc_ms: int = 0, text: str = ""):
        self.kind, self.value, self.base_ms, self.inc_ms, self.text = kind, value, base_ms, inc_ms, text

    @staticmethod
    def parse(text: str) -> "TimeControl":
        t = text.strip()
        m = re.fullmatch(r"(movetime|depth|nodes)=(\d+)", t)
        if m:
            if int(m.group(2)) <= 0:
                raise ValueError(f"time control '{text}': value must be positive")
            return TimeControl(m.group(1), int(m.group(2)), text=t)
        m = re.fullmatch(r"(\d+(?:\.\d*)?)(?:\+(\d+(?:\.\d*)?))?", t)
        if m:
            base = round(float(m.group(1)) * 1000)
            inc = round(float(m.group(2) or 0) * 1000)
            if base <= 0:
                raise ValueError(f"time control '{text}': base time must be positive")
            return TimeControl("clock", base_ms=base, inc_ms=inc, text=t)
        raise ValueError(f"bad time control '{text}' (want movetime=MS, depth=N, nodes=N or SEC+INC)")

    def __str__(self):
        return self.text

    def to_json(self):
        return self.text
