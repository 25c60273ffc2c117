"""Match statistics: Elo from scores, LOS, trinomial and pentanomial intervals, the SPRT,
Wilson intervals for proportions, and how an Elo value is printed."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal

def score_from_elo(elo: float) -> float:
    """Expected score of the logistic Elo model."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority, the classic normal approximation 0.5*(1+erf((W-L)/sqrt(2(W+L))))."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def _mean_var(values_counts):
    n = sum(c for _, c in values_counts)
    mean = sum(v * c for v, c in values_counts) / n
    var = sum(c * (v - mean) ** 2 for v, c in values_counts) / n
    return n, mean, var


def _elo_interval(mean: float, var: float, n: float):
    """(elo, low, high); low/high are None when the results have no spread yet."""
    if var <= 0.0:
        return elo_from_score(mean), None, None
    stderr = math.sqrt(var / n)
    lo = elo_from_score(mean - Z95 * stderr)
    hi = elo_from_score(mean + Z95 * stderr)
    return elo_from_score(mean), lo, hi


def trinomial_stats(wins: int, draws: int, losses: int) -> dict:
    """Elo with a 95% interval from W/D/L treated as independent games."""
    n = wins + draws + losses
    out = {"games": n, "wins": wins, "draws": draws, "losses": losses}
    if n == 0:
        return out | {"score": None, "elo": None, "elo_low": None, "elo_high": None,
                      "elo_error": None, "los": 0.5, "draw_ratio": None}
    _, mean, var = _mean_var([(1.0, wins), (0.5, draws), (0.0, losses)])
    elo, lo, hi = _elo_interval(mean, var, n)
    return out | {"score": mean, "elo": elo, "elo_low": lo, "elo_high": hi,
                  "elo_error": (hi - lo) / 2.0 if lo is not None else None, "los": los(wins, losses),
                  "draw_ratio": draws / n}


PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # pair score / 2 for [LL, LD, DD+WL, WD, WW]


def pentanomial_stats(penta) -> dict:
    """Elo with a 95% interval from pentanomial pair counts [LL, LD, DD+WL, WD, WW]."""
    pairs = sum(penta)
    if pairs == 0:
        return {"pairs": 0, "score": None, "elo": None, "elo_low": None,
                "elo_high": None, "elo_error": None}
    _, mean, var = _mean_var(list(zip(PENTA_SCORES, penta)))
    elo, lo, hi = _elo_interval(mean, var, pairs)
    return {"pairs": pairs, "score": mean, "elo": elo, "elo_low": lo, "elo_high": hi,
            "elo_error": (hi - lo) / 2.0 if lo is not None else None}


SPRT_MODEL = ("logistic Elo, GSPRT normal approximation (M. Van den Bergh) "
              "over pentanomial pairs, zero counts regularized to 1e-3 as in fishtest")


def sprt_bounds(alpha: float, beta: float):
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(penta, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0), logistic Elo.

    With N pairs, per-pair mean score m and variance v (pair scores in
    {0, 1/4, 1/2, 3/4, 1}) and s_i = 1/(1+10^(-elo_i/400)):
        LLR = N * (s1 - s0) * (2m - s0 - s1) / (2 v)
    which is the log of the ratio of two normal likelihoods with the observed
    variance.  Buckets with zero count get 1e-3 (fishtest's regularization)
    so the variance never vanishes.
    """
    if sum(penta) == 0:
        return 0.0
    counts = [c if c > 0 else 1e-3 for c in penta]
    n, mean, var = _mean_var(list(zip(PENTA_SCORES, counts)))
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


class Sprt:
    def __init__(self, elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05):
        if elo1 <= elo0:
            raise ValueError("SPRT needs elo1 > elo0")
        if not (0 < alpha < 1 and 0 < beta < 1):
            raise ValueError("SPRT alpha and beta must be between 0 and 1")
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.lower, self.upper = sprt_bounds(alpha, beta)

    @staticmethod
    def parse(tokens) -> "Sprt":
        vals = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
        for tok in tokens:
            key, eq, val = tok.partition("=")
            if not eq or key not in vals:
                raise ValueError(f"bad --sprt parameter '{tok}' (want elo0= elo1= alpha= beta=)")
            vals[key] = float(val)
        return Sprt(**vals)

    def state(self, penta) -> dict:
        llr = sprt_llr(penta, self.elo0, self.elo1)
        decision = None
        if llr >= self.upper:
            decision = "H1"
        elif llr <= self.lower:
            decision = "H0"
        return {"llr": llr, "lower": self.lower, "upper": self.upper, "decision": decision}

    def describe(self) -> str:
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of the proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def fmt_elo(value, digits: int = 1) -> str:
    """'+12.3', '-inf', 'n/a' (None); `digits` after the point."""
    if value is None:
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.{digits}f}"


ELO_SCALE = math.log(10.0) / 400.0  # d/dElo of the logistic's log-odds


def joint_elo(n: int, results: list[tuple[int, int, float, int]]) -> dict:
    """Maximum-likelihood Elo of n players from all their games at once (the logistic model of
    Ordo and BayesElo without a prior), ratings averaging 0.

    results: (i, j, points of i, games) per pairing.  Returns {"elo": [...], "low": [...],
    "high": [...]} with 95% intervals from the inverse Fisher information (its pseudo-inverse
    under the zero-mean constraint).  A player with all or none of its points is +inf / -inf and
    is left out of the fit of the others; an interval that cannot be had is None."""
    points, games = [0.0] * n, [0] * n
    for i, j, s, g in results:
        points[i] += s
        points[j] += g - s
        games[i] += g
        games[j] += g
    elo: list[float] = [0.0] * n
    fit = [k for k in range(n) if games[k] and 0 < points[k] < games[k]]
    for k in range(n):
        if k not in fit:
            elo[k] = math.inf if games[k] and points[k] == games[k] else -math.inf if games[k] else 0.0
    index = {k: a for a, k in enumerate(fit)}
    m = len(fit)
    info = [[0.0] * m for _ in range(m)]
    for _ in range(200):  # Newton's method on the log-likelihood
        grad = [0.0] * m
        info = [[0.0] * m for _ in range(m)]
        for i, j, s, g in results:
            if i not in index or j not in index:
                continue
            p = score_from_elo(elo[i] - elo[j])
            a, b = index[i], index[j]
            grad[a] += ELO_SCALE * (s - g * p)
            grad[b] -= ELO_SCALE * (s - g * p)
            w = ELO_SCALE ** 2 * g * p * (1 - p)
            info[a][a] += w
            info[b][b] += w
            info[a][b] -= w
            info[b][a] -= w
        step = _solve([[info[r][c] + 1.0 / m for c in range(m)] for r in range(m)], grad) if m else []
        big = max((abs(x) for x in step), default=0.0)
        scale = min(1.0, 200.0 / big) if big else 1.0  # damped: no step over 200 Elo
        for k in fit:
            elo[k] += scale * step[index[k]]
        mean = sum(elo[k] for k in fit) / m if m else 0.0
        for k in fit:
            elo[k] -= mean
        if big < 1e-9:
            break
    low, high = [None] * n, [None] * n
    if m > 1:
        # pseudo-inverse of the (Laplacian) information: (I + J/m)^-1 - J/m
        inv = _inverse([[info[r][c] + 1.0 / m for c in range(m)] for r in range(m)])
        for k in fit:
            var = inv[index[k]][index[k]] - 1.0 / m
            if var > 0:
                low[k] = elo[k] - Z95 * math.sqrt(var)
                high[k] = elo[k] + Z95 * math.sqrt(var)
    return {"elo": elo, "low": low, "high": high, "points": points, "games": games}


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[r]] for r, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[r][n] / m[r][r] if m[r][r] else 0.0 for r in range(n)]


def _inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    cols = [_solve(a, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[cols[c][r] for c in range(n)] for r in range(n)]
