"""Cardinal and ordinal self-consistency audits of elicited willingness-to-pay judgments.

Reads a long response table (one row per completion) and a design (cells, endpoint pairs,
stress paths), and computes per audit group (model, domain, utterance) the least-squares
utility fit with its RMSE in dollars and in percent of the price scale, the null-imposed
residual bootstrap p-value with its Bonferroni decision over all groups, the P1
(path-sum) and P2 (price-adjusted item difference) residuals with their bootstrap
intervals, supported reversals and magnitude lower bounds, the k-step stress test, the
Table-2 means of the per-utterance RMSEs, and — certified by prefcert's checker — the
minimum L1 and L2 adjustments of the answers that make them exactly consistent, the
intransitive cycles of the judgments and their minimum feedback arc set (Ford et al. 2026).

Every reading the source leaves open is an :class:`AuditOptions` field; the defaults are
the documented ones (``docs/consistency.md``).
"""
from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ...api import arguments as arg
from ...formal.errors import InstanceError
from ..stats import bootstrap_chunks, bootstrap_means

FITS = ("ols", "completions", "wls")
DIVISORS = ("n", "dof")
PRICE_SCALES = ("queries", "pairs")
NORMALISATIONS = ("min_norm", "first_zero")
INTERVALS = ("t", "percentile")
RESIDUALS = ("modified", "centred")
VALUE_SOURCES = ("finite", "number_only")


@dataclass(frozen=True)
class AuditOptions:
    """The readings of the audit (each documented in ``docs/consistency.md``).

    ``fit``: ``ols`` (unweighted least squares on cell means; default), ``completions``
    (every completion a row) or ``wls`` (weights n_c / s_c², with the χ² test);
    ``rmse_divisor``: ``n`` (default) or ``dof`` (n − rank); ``price_scale``: ``queries``
    (both offers of every offer-pair query; default) or ``pairs`` (source and target of
    each endpoint pair, once per query it generates); ``normalisation``: ``min_norm``
    (default: the minimum-norm solution, i.e. utilities of a component without an item
    query average 0) or ``first_zero`` (its first item is 0); ``resamples``: bootstrap B
    (None: ``max(10000, 10·⌈G/α⌉)`` for G groups, so p = 1/(B+1) can pass α/G);
    ``alpha``: family-wise level of the Bonferroni group test and of the Holm-adjusted
    local comparisons; ``residuals``: ``modified`` (default: each cell's centred
    completions scaled by √(n/(n − 1)), so a resampled mean has the variance s²/n of
    the observed one) or ``centred`` (the plain bootstrap, whose resampled means have
    (n − 1)/n of it and so reject too often); ``interval``: the P1 / P2 intervals,
    ``t`` (Welch–Satterthwaite; default) or ``percentile`` (of the resampled means);
    ``values``: ``finite`` (every finite parse;
    default) or ``number_only``; ``threshold``: the magnitude bound as a share of the
    endpoint mean price (0.25); ``unit``: the repair unit (``cell``, ``count``,
    ``completion``); ``judgments``: ``majority`` or ``choices``; ``certify``: label the
    repairs and the ordinal questions through the checker.
    """

    fit: str = "ols"
    rmse_divisor: str = "n"
    price_scale: str = "queries"
    normalisation: str = "min_norm"
    resamples: int | None = None
    alpha: float = 0.05
    residuals: str = "modified"
    interval: str = "t"
    values: str = "finite"
    threshold: float = 0.25
    unit: str = "cell"
    judgments: str = "majority"
    seed: int = 0
    certify: bool = True

    def __post_init__(self):
        for name, allowed in (("fit", FITS), ("rmse_divisor", DIVISORS),
                              ("price_scale", PRICE_SCALES),
                              ("normalisation", NORMALISATIONS), ("interval", INTERVALS),
                              ("residuals", RESIDUALS),
                              ("values", VALUE_SOURCES),
                              ("unit", ("cell", "count", "completion")),
                              ("judgments", ("majority", "choices"))):
            if getattr(self, name) not in allowed:
                raise InstanceError(f"{name} must be one of {', '.join(allowed)}",
                                    value=getattr(self, name))
        if self.resamples is not None and self.resamples < 1:
            raise InstanceError("resamples must be at least 1", value=self.resamples)
        if not 0 < self.alpha < 1:
            raise InstanceError("alpha must lie in (0, 1)", value=self.alpha)


def auto_resamples(groups: int, alpha: float) -> int:
    """The default bootstrap size: ``max(10000, 10·⌈G/α⌉)``, so that the smallest
    attainable p-value 1/(B+1) lies at least ten times below the Bonferroni threshold α/G."""
    return max(10_000, 10 * math.ceil(groups / alpha))


# --------------------------------------------------------------------------- the inputs

def parse_amount(text: str | None, *, ranges: str = "ambiguous",
                 parse: str = "lenient") -> tuple[float | None, bool]:
    """(value, number_only) of an answer text, read by the number reader of
    :mod:`prefcert.bench.answers` (Ford et al. 2026, Table 6): ``-$1,250.50`` is −1250.5,
    ``$1.2k`` 1200, ``1e3`` 1000, ``two hundred dollars`` 200; a marked final line wins over
    the numbers of the reasoning; a range (``$30-$40``) or two different numbers are
    ambiguous and give None, unless ``ranges="midpoint"`` (then ``$30-$40`` is 35).
    ``number_only``: the whole text is a signed, optionally currency-formatted number.
    ``parse="strict"`` reads number-only answers alone."""
    value, only, _ = read_amount(text, ranges=ranges, parse=parse)
    return value, only


def read_amount(text: str | None, *, ranges: str = "ambiguous",
                parse: str = "lenient") -> tuple[float | None, bool, dict[str, str]]:
    """:func:`parse_amount` with the reading it rests on.

    Parameters
    ----------
    text : str or None
        The answer text (None: no text).
    ranges, parse : str
        As in :func:`parse_amount`.

    Returns
    -------
    tuple
        (value, number_only, ``{"kind", "rule"}``): ``kind`` one of ``value``,
        ``ambiguous``, ``invalid`` (a non-finite amount is ``invalid``, rule
        ``non_finite``), ``rule`` the number reader's rule (as ``parsed.rule`` of
        ``prefcert score``); value None unless ``kind`` is ``value``.

    Notes
    -----
    O(len(text)).

    References
    ----------
    Ford et al. (2026), "LLM-derived preference judgments are not self-consistent",
    Table 6 (finite and number-only parses).
    """
    from ..answers import read
    if text is None:
        return None, False, {"kind": "invalid", "rule": "no_text"}
    r = read("number", str(text), mode=parse, ranges=ranges)
    if r.kind != "value":
        return None, False, {"kind": r.kind, "rule": r.rule}
    v = r.value["value"]
    if not math.isfinite(v):
        return None, False, {"kind": "invalid", "rule": "non_finite"}
    return v, bool(r.value["number_only"]), {"kind": "value", "rule": r.rule}


def _float(v: Any) -> float | None:
    if v is None or v == "" or isinstance(v, bool):
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _bool(v: Any) -> bool | None:
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        return v
    return str(v).strip().lower() in ("1", "true", "yes", "t")


VALUE_COLUMNS = ("parsed_value", "value", "raw_text")


def read_responses(path: str | Path, *, ranges: str = "ambiguous",
                   model: str | None = None) -> list[dict]:
    """Response rows from a CSV or JSONL file: ``model``, ``cell_id``, and
    ``parsed_value`` (or ``value``; empty = a failed parse) or ``raw_text`` (parsed with
    :func:`parse_amount`, ``ranges`` as there); optional ``number_only``. ``model``, when
    given, names the model of the rows without one (a row naming another model is an
    error: the file is that model's). Returns ``{"model", "cell_id", "value",
    "number_only", "reading", "line", "file"}`` dicts, ``reading`` the ``{"kind", "rule"}``
    of :func:`read_amount` (rule ``given`` for a value column) and ``line`` the first line
    of the row in the file (a CSV field may span lines: its line breaks are kept).
    InstanceError naming the line of a row without ``model`` (and no ``model`` given) or
    ``cell_id``, or with none of the value columns (:data:`VALUE_COLUMNS`)."""
    from ...formal.files import parse_json, read_input
    p = Path(path)
    text = read_input(p)
    raw: list[tuple[int, dict]] = []
    if p.suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))   # quoted line breaks kept
        start = reader.line_num + 1 if reader.fieldnames is not None else 1
        # a field may be a whole completion: as long as the file (read within its limit)
        csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
        try:
            for row in reader:
                raw.append((start, row))
                start = reader.line_num + 1
        except csv.Error as e:
            raise InstanceError(f"malformed CSV ({e})", file=str(p),
                                line=reader.line_num or start) from None
    else:
        for i, line in enumerate(text.split("\n"), 1):
            if line.strip():
                rec = parse_json(line, str(p), i, unique_keys=False)
                if not isinstance(rec, dict):
                    raise InstanceError("a response is a JSON object", file=str(p), line=i)
                raw.append((i, rec))
    out = []
    for i, rec in raw:
        if model is not None:
            if rec.get("model") in (None, ""):
                rec = {**rec, "model": model}
            elif str(rec["model"]) != model:
                raise InstanceError(f"the row names another model than --model {model}",
                                    file=str(p), line=i, value=rec["model"])
        for key in ("model", "cell_id"):
            if rec.get(key) in (None, ""):
                hint = " (or give --model NAME for the file)" if key == "model" else ""
                raise InstanceError(f"response without {key!r}{hint}", file=str(p), line=i)
        if not any(k in rec for k in VALUE_COLUMNS):
            raise InstanceError(f"a response needs one of the columns "
                                f"{', '.join(VALUE_COLUMNS)}; this one has "
                                f"{', '.join(map(str, rec)) or 'none'}", file=str(p), line=i)
        has_value = any(k in rec for k in ("parsed_value", "value"))
        if has_value:
            value = _float(rec.get("parsed_value", rec.get("value")))
            number_only = _bool(rec.get("number_only"))
            if number_only is None and rec.get("raw_text") is not None:
                number_only = parse_amount(rec["raw_text"])[1]
            reading = {"kind": "value" if value is not None else "invalid", "rule": "given"}
        else:
            value, number_only, reading = read_amount(rec.get("raw_text"), ranges=ranges)
        out.append({"model": str(rec["model"]), "cell_id": str(rec["cell_id"]), "value": value,
                    "number_only": bool(number_only) if number_only is not None else value is not None,
                    "reading": reading, "line": i, "file": str(p)})
    return out


@dataclass(frozen=True)
class DesignCell:
    id: str
    domain: str
    utterance: str
    kind: str
    a: tuple[str, float] | None = None
    b: tuple[str, float] | None = None
    item: str | None = None
    stress: bool = False

    @property
    def group(self) -> tuple[str, str]:
        return self.domain, self.utterance


@dataclass(frozen=True)
class Design:
    """Cells (id -> :class:`DesignCell`), endpoint ``pairs`` (``id``, ``direct``,
    ``paths``: lists of step cells, ``items``: [item cell of x, item cell of y] or absent)
    and ``stress`` paths (``id``, ``k``, ``direct``, ``steps``)."""

    cells: Mapping[str, DesignCell]
    pairs: Sequence[Mapping[str, Any]] = ()
    stress: Sequence[Mapping[str, Any]] = ()


def _design_offer(d: Any, cid: str, side: str, file: str) -> tuple[str, float]:
    if not isinstance(d, dict) or not isinstance(d.get("item"), str) or \
            _float(d.get("price")) is None:
        raise InstanceError(f"cell {cid!r}: offer {side!r} must be {{\"item\", \"price\"}}",
                            file=file, value=d)
    return d["item"], float(d["price"])


#: the largest ``k`` of a stress path (the paper's longest is 16)
MAX_PATH_STEPS = 10**6


def parse_design(data: Any, file: str = "<design>") -> Design:
    """A design from its JSON object (see ``docs/consistency.md``). InstanceError naming
    the cell or the pair for a malformed entry, an unknown cell or a path whose steps do
    not chain from a to b."""
    if not isinstance(data, dict) or not isinstance(data.get("cells"), (dict, list)):
        raise InstanceError("a design is an object with 'cells'", file=file)
    raw = data["cells"]
    items = raw.items() if isinstance(raw, dict) else [(c.get("id"), c) for c in raw
                                                       if isinstance(c, dict)]
    cells: dict[str, DesignCell] = {}
    for cid, c in items:
        if not isinstance(cid, str) or not isinstance(c, dict):
            raise InstanceError("a design cell needs an id and an object", file=file, value=cid)
        dom, utt = str(c.get("domain", "")), str(c.get("utterance_id", c.get("utterance", "")))
        kind = c.get("type", c.get("query_type"))
        stress = bool(c.get("stress", False))
        if kind == "pair":
            cells[cid] = DesignCell(cid, dom, utt, "pair", _design_offer(c.get("a"), cid, "a", file),
                                    _design_offer(c.get("b"), cid, "b", file), stress=stress)
        elif kind == "item":
            if not isinstance(c.get("item"), str):
                raise InstanceError(f"cell {cid!r}: an item cell needs 'item'", file=file,
                                    value=c.get("item"))
            cells[cid] = DesignCell(cid, dom, utt, "item", item=c["item"], stress=stress)
        else:
            raise InstanceError(f"cell {cid!r}: type must be 'pair' or 'item'", file=file,
                                value=kind)

    def known(cid, where):
        if not isinstance(cid, str) or cid not in cells:
            raise InstanceError(f"{where} names an unknown cell", file=file, value=cid)
        return cells[cid]
    def listed(v, what):
        if not isinstance(v, list):
            raise InstanceError(f"{what} must be a list", file=file, value=v)
        return v
    pairs = []
    for p in listed(data.get("pairs", []), "'pairs'"):
        pid = p.get("id", f"pair{len(pairs) + 1}") if isinstance(p, dict) else None
        if pid is None:
            raise InstanceError("a pair is an object", file=file, value=p)
        d = known(p.get("direct"), f"pair {pid!r}")
        if d.kind != "pair":
            raise InstanceError(f"pair {pid!r}: the direct cell must be an offer-pair query",
                                file=file, value=d.id)
        for path in listed(p.get("paths", []), f"pair {pid!r}: 'paths'"):
            steps = [known(s, f"pair {pid!r}") for s in listed(path, f"pair {pid!r}: a path")]
            chain = [d.a] + [s.b for s in steps]
            if not steps or any(s.kind != "pair" for s in steps) or \
                    any(s.a != prev for s, prev in zip(steps, chain)) or chain[-1] != d.b:
                raise InstanceError(f"pair {pid!r}: path steps must chain from a to b",
                                    file=file, value=path)
        for cid in listed(p.get("items", []) or [], f"pair {pid!r}: 'items'"):
            if known(cid, f"pair {pid!r}").kind != "item":
                raise InstanceError(f"pair {pid!r}: 'items' must be item cells", file=file,
                                    value=cid)
        pairs.append(dict(p, id=pid))
    stress = []
    for s in listed(data.get("stress_paths", []), "'stress_paths'"):
        sid = s.get("id", f"stress{len(stress) + 1}") if isinstance(s, dict) else None
        if sid is None:
            raise InstanceError("a stress path is an object", file=file, value=s)
        d = known(s.get("direct"), f"stress path {sid!r}")
        steps = [known(c, f"stress path {sid!r}")
                 for c in listed(s.get("steps", []), f"stress path {sid!r}: 'steps'")]
        chain = [d.a] + [c.b for c in steps]
        if not steps or any(c.a != prev for c, prev in zip(steps, chain)) or chain[-1] != d.b:
            raise InstanceError(f"stress path {sid!r}: steps must chain from a to b",
                                file=file, value=s.get("steps"))
        k = s.get("k", len(steps))
        if isinstance(k, float) and k.is_integer() or isinstance(k, str) and k.isdigit():
            k = int(k)                     # 4.0 and "4" read as 4, as before
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_PATH_STEPS:
            raise InstanceError(f"stress path {sid!r}: 'k' (its length) must be an integer "
                                f"from 1 to {MAX_PATH_STEPS}", file=file, value=k)
        stress.append(dict(s, id=sid, k=k))
    return Design(cells, pairs, stress)


def read_design(path: str | Path) -> Design:
    from ...formal.files import read_json_file
    p = Path(path)
    return parse_design(read_json_file(p, unique_keys=False), str(p))


# ----------------------------------------------------------------------------- the fit

@dataclass
class GroupFit:
    """The least-squares fit of one group: ``items``, ``cells`` (design cells, fit order),
    ``a`` (n × p design matrix), ``r`` (responses with prices moved across), ``w``
    (weights), ``proj`` (p × n: û = proj @ r), ``u`` (fitted utilities), ``fitted``,
    ``residuals``, ``rank``, and the statistic's pieces."""

    items: list[str]
    cells: list[DesignCell]
    values: list[np.ndarray]
    a: np.ndarray
    r: np.ndarray
    w: np.ndarray
    proj: np.ndarray
    u: np.ndarray
    fitted: np.ndarray
    residuals: np.ndarray
    rank: int
    within_ss: np.ndarray


def _shift(c: DesignCell) -> float:
    return c.b[1] - c.a[1] if c.kind == "pair" else 0.0


def fit_group(cells: Sequence[DesignCell], values: Sequence[np.ndarray],
              options: AuditOptions = AuditOptions()) -> GroupFit:
    """Least-squares utilities for one group. Pair cells are rows e_y − e_x with response
    Ȳ(a, b) + q − p, item cells rows e_x with response Ȳ(x); weights by ``options.fit``;
    the minimum-norm solution (``pinv``), then ``options.normalisation``. O(n p²)."""
    items: dict[str, None] = {}
    for c in cells:
        for x in ((c.a[0], c.b[0]) if c.kind == "pair" else (c.item,)):
            items.setdefault(x)
    names = list(items)
    idx = {x: i for i, x in enumerate(names)}
    n, p = len(cells), len(names)
    a = np.zeros((n, p))
    for i, c in enumerate(cells):
        if c.kind == "pair":
            a[i, idx[c.b[0]]] += 1.0
            a[i, idx[c.a[0]]] -= 1.0
        else:
            a[i, idx[c.item]] = 1.0
    means = np.array([v.mean() for v in values])
    r = means + np.array([_shift(c) for c in cells])
    counts = np.array([len(v) for v in values], float)
    within = np.array([((v - v.mean()) ** 2).sum() for v in values])
    if options.fit == "ols":
        w = np.ones(n)
    elif options.fit == "completions":
        w = counts
    else:
        var = np.array([v.var(ddof=1) if len(v) > 1 else 0.0 for v in values])
        positive = var[var > 0]
        floor = 1e-3 * float(np.median(positive)) if len(positive) else 1.0
        w = counts / np.maximum(var, floor)
    sw = np.sqrt(w)
    proj = np.linalg.pinv(a * sw[:, None]) * sw[None, :]
    if options.normalisation == "first_zero":
        proj = _first_zero(a, names) @ proj
    u = proj @ r
    fitted = a @ u
    rank = int(np.linalg.matrix_rank(a)) if n else 0
    return GroupFit(names, list(cells), list(values), a, r, w, proj, u, fitted, r - fitted,
                    rank, within)


def _first_zero(a: np.ndarray, names: list[str]) -> np.ndarray:
    """The p × p map shifting every component without an item query so that its first
    item is 0 (components of the item graph; grounded ones are left alone)."""
    p = len(names)
    parent = list(range(p))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    grounded = set()
    for row in a:
        nz = np.flatnonzero(row)
        if len(nz) == 2:
            x, y = find(nz[0]), find(nz[1])
            parent[x] = y
    for row in a:
        nz = np.flatnonzero(row)
        if len(nz) == 1:
            grounded.add(int(nz[0]))
    grounded_roots = {find(i) for i in grounded}
    t = np.eye(p)
    first: dict[int, int] = {}
    for i in range(p):
        root = find(i)
        if root in grounded_roots:
            continue
        f = first.setdefault(root, i)
        t[i, f] -= 1.0
    return t


def _statistic(fit: GroupFit, res: np.ndarray, within: np.ndarray | None,
               options: AuditOptions) -> np.ndarray:
    """The bootstrap test statistic (residuals n × B): SSE, completion SS, or weighted SSE."""
    if options.fit == "ols":
        return (res ** 2).sum(0)
    if options.fit == "completions":
        counts = np.array([len(v) for v in fit.values], float)
        return within.sum(0) + (counts[:, None] * res ** 2).sum(0)
    return (fit.w[:, None] * res ** 2).sum(0)


def rmse_of(fit: GroupFit, options: AuditOptions) -> tuple[float, float, int]:
    """(RMSE in dollars, its sum of squares, its divisor) for the fit's options."""
    if options.fit == "completions":
        ss = float(fit.within_ss.sum() + (np.array([len(v) for v in fit.values]) *
                                          fit.residuals ** 2).sum())
        n = int(sum(len(v) for v in fit.values))
    else:
        ss = float((fit.residuals ** 2).sum())
        n = len(fit.cells)
    d = n if options.rmse_divisor == "n" else n - fit.rank
    return (math.sqrt(ss / d) if d > 0 else 0.0), ss, d


def price_scale(cells: Sequence[DesignCell], pairs: Sequence[Mapping[str, Any]],
                design: Design, reading: str = "queries") -> float | None:
    """S_g: the mean endpoint listed price over the group's offer-pair queries, each offer
    weighted by how often it appears (``queries``: both offers of every pair query;
    ``pairs``: the source and target of each endpoint pair, counted once per query the pair
    generates)."""
    if reading == "queries":
        prices = [x for c in cells if c.kind == "pair" for x in (c.a[1], c.b[1])]
    else:
        prices = []
        for p in pairs:
            d = design.cells[p["direct"]]
            queries = 1 + sum(len(path) for path in p.get("paths", []))
            prices += [d.a[1], d.b[1]] * queries
    return float(np.mean(prices)) if prices else None


# -------------------------------------------------------------------------- resampling

def _cell_seed(seed: int, model: str, cell: str) -> int:
    from ..design import derive_seed
    return derive_seed(seed, "consistency", model, cell)


def resample_means(values: np.ndarray, b: int, rng: np.random.Generator,
                   want_ss: bool = False, residuals: str = "modified"
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """B bootstrap means of one cell's residuals e_j = y_j − ȳ, resampled with
    replacement (and, if asked, the within-resample sums of squares).

    ``modified`` (default) scales the residuals by √(n/(n − 1)), the leverage correction
    of a cell-means model (every completion has leverage 1/n): the resampled mean then
    has expected variance s²/n, the unbiased variance of the observed mean. ``centred``
    resamples e_j as they are, whose mean has (n − 1)/n of it — too narrow, so a test
    built on it rejects too often (8.1 % at α = 0.05 for the group test on the paper's
    design with 15 completions; ``benchmarks/bench_consistency_size.py``). O(B·n) time,
    O(B) memory beside one block of draws (:func:`~prefcert.bench.stats.bootstrap_chunks`).

    References: Davison & Hinkley (1997), *Bootstrap Methods and their Application*,
    §6.2.3 (modified residuals); Efron & Tibshirani (1993), §5.2 (the bootstrap
    variance of a mean).
    """
    n = len(values)
    if n == 1:
        return np.zeros(b), (np.zeros(b) if want_ss else None)
    m = np.empty(b)
    ss = np.empty(b) if want_ss else None
    for start, idx in bootstrap_chunks(rng, n, b):      # a block of resamples at a time
        draws = values[idx]
        block = draws.mean(1)
        m[start:start + len(idx)] = block
        if ss is not None:
            ss[start:start + len(idx)] = ((draws - block[:, None]) ** 2).sum(1)
    f = n / (n - 1) if residuals == "modified" else 1.0
    return math.sqrt(f) * (m - values.mean()), (None if ss is None else f * ss)


def _interval(est: float, boot: np.ndarray, var: float, df: float, options: AuditOptions,
              level: float = 0.95) -> tuple[float, float]:
    if options.interval == "percentile":
        lo, hi = np.percentile(boot, [50 * (1 - level), 50 * (1 + level)])
        return float(lo), float(hi)
    if var <= 0:
        return est, est
    h = float(_t_cdf_inverse(df, 0.5 + level / 2) * math.sqrt(var))
    return est - h, est + h


def _t_cdf_inverse(df: float, q: float) -> float:
    from scipy import special
    return float(special.stdtrit(df, q) if df > 0 and math.isfinite(df) else special.ndtri(q))


def _t_cdf(df: float, x: float) -> float:
    from scipy import special
    return float(special.stdtr(df, x) if df > 0 and math.isfinite(df) else special.ndtr(x))


def _pvalue(est: float, boot: np.ndarray, var: float, df: float,
            options: AuditOptions) -> float:
    """The two-sided p-value of R = 0 dual to the interval: the smallest α at which the
    equal-tailed interval of level 1 − α excludes 0 (percentile:
    2·min(1 + #{R* ≤ 0}, 1 + #{R* ≥ 0}) / (B + 1), capped at 1; t: Welch's test)."""
    if options.interval == "percentile":
        below, above = int(np.sum(boot <= 0)), int(np.sum(boot >= 0))
        return min(1.0, 2 * (1 + min(below, above)) / (len(boot) + 1))
    if var <= 0:
        return 1.0 if est == 0 else 0.0
    return min(1.0, 2 * _t_cdf(df, -abs(est) / math.sqrt(var)))


def _welch(coef: Mapping[int, float], values: Sequence[np.ndarray]) -> tuple[float, float]:
    """Var = Σ a² s²/n over the cells of a linear estimate, with Welch–Satterthwaite df."""
    parts = []
    for c, k in coef.items():
        v = values[c]
        if len(v) > 1 and k:
            parts.append((k * k * v.var(ddof=1) / len(v), len(v) - 1))
    var = sum(p for p, _ in parts)
    den = sum(p * p / d for p, d in parts)
    return var, (var * var / den if den > 0 else math.inf)


def abs_lower_bound(lo: float, hi: float) -> float:
    """The lower end of |R| implied by an interval [lo, hi] for R."""
    return lo if lo > 0 else (-hi if hi < 0 else 0.0)


# --------------------------------------------------------------------------- the audit

@dataclass
class _ModelData:
    """One model's cell values, and its parseability counted over the elicitation calls
    (responses to the audit's cells; Ford et al. Table 6) and, apart, over the calls of
    stress-only cells."""

    values: dict[str, np.ndarray] = field(default_factory=dict)
    calls: int = 0
    finite: int = 0
    number_only: int = 0
    stress_calls: int = 0
    stress_finite: int = 0
    stress_number_only: int = 0


def _collect(responses: Sequence[dict], design: Design, options: AuditOptions,
             file: str | None) -> dict[str, _ModelData]:
    models: dict[str, _ModelData] = {}
    raw: dict[str, dict[str, list[float]]] = {}
    for row in responses:
        if row["cell_id"] not in design.cells:
            raise InstanceError("response to a cell the design does not have",
                                file=row.get("file") or file, line=row.get("line"),
                                value=row["cell_id"])
        m = models.setdefault(row["model"], _ModelData())
        stress = design.cells[row["cell_id"]].stress
        if stress:
            m.stress_calls += 1
        else:
            m.calls += 1
        if row["value"] is not None:
            if stress:
                m.stress_finite += 1
                m.stress_number_only += bool(row["number_only"])
            else:
                m.finite += 1
                m.number_only += bool(row["number_only"])
            if options.values == "finite" or row["number_only"]:
                raw.setdefault(row["model"], {}).setdefault(row["cell_id"], []).append(row["value"])
    for name, m in models.items():
        m.values = {c: np.array(v, float) for c, v in raw.get(name, {}).items()}
    return models


def offer_name(item: str, price: float) -> str:
    """``item@price``, the price as an integer when it is one."""
    return f"{item}@{int(price) if float(price).is_integer() else repr(float(price))}"


def group_instance(gid: str, cells: Sequence[DesignCell], values: Sequence[np.ndarray]) -> dict:
    """The group as a ``consistency`` instance: every cell with its completions, and the
    choices they imply between offers (Y > 0: b ≻ a; Y < 0: a ≻ b), offers named
    ``item@price``."""
    out_cells, choices = [], {}
    for c, v in zip(cells, values):
        d = {"id": c.id, "type": c.kind, "values": [float(x) for x in v]}
        if c.kind == "pair":
            d["a"] = {"item": c.a[0], "price": c.a[1]}
            d["b"] = {"item": c.b[0], "price": c.b[1]}
            oa, ob = offer_name(*c.a), offer_name(*c.b)
            for y in v:
                if y > 0:
                    choices[(ob, oa)] = choices.get((ob, oa), 0) + 1
                elif y < 0:
                    choices[(oa, ob)] = choices.get((oa, ob), 0) + 1
        else:
            d["item"] = c.item
        out_cells.append(d)
    inst = {"id": gid, "domain": "consistency", "cells": out_cells}
    if choices:
        inst["choices"] = [[a, b, k] for (a, b), k in choices.items()]
    return inst


def judgment_counts(inst: Mapping[str, Any], mode: str = "majority") -> dict[str, int]:
    """The size of a group's judgment graph under ``mode``: ``judgments``, the total
    weight a feedback arc set is counted out of (``majority``: the pairs of offers whose
    choices have a strict majority, one judgment each — a pair chosen equally often both
    ways gives none; ``choices``: every completion that chose a direction), and
    ``judgment_arcs``, the number of arcs (equal to ``judgments`` under ``majority``;
    under ``choices``, the directions chosen at least once). O(choices).

    Examples
    --------
    >>> inst = {"choices": [["b", "a", 3], ["a", "b", 1], ["c", "a", 2], ["a", "c", 2]]}
    >>> judgment_counts(inst), judgment_counts(inst, "choices")
    ({'judgments': 1, 'judgment_arcs': 1}, {'judgments': 8, 'judgment_arcs': 4})
    """
    from ...formal.consistency import ConsistencyData, judgment_arcs
    choices = tuple((str(a), str(b), int(k)) for a, b, k in inst.get("choices", []))
    data = ConsistencyData(cells=(), choices=choices, nodes=())
    arcs = judgment_arcs(data, mode)
    return {"judgments": sum(arcs.values()), "judgment_arcs": len(arcs)}


def _certify(inst: dict, options: AuditOptions, line: int | None = None
             ) -> tuple[dict, list[dict]]:
    """Label the group's repairs (and ordinal questions) through the pipeline: every label
    is accepted by the checker or the disagreement is reported."""
    from ...formal.errors import Disagreement, Undecided
    from ...formal.instances import from_object
    from ...pipeline.jobs import label, plan
    qs: list[Any] = [{"type": "l1_repair", "unit": options.unit},
                     {"type": "l2_repair", "unit": options.unit}]
    if inst.get("choices"):
        qs += [{"type": "transitive", "judgments": options.judgments},
               {"type": "feedback_arc_set", "judgments": options.judgments}]
    out: dict[str, Any] = {}
    labels = []
    for job in plan([from_object(inst, "instances.jsonl", line, inst["id"])], qs):
        name = job.question.name
        try:
            lab = label(job)
        except (Disagreement, Undecided) as e:
            out[name] = {"verdict": None, "error": str(e)}
            continue
        labels.append(lab)
        sol = lab["solution"]
        rec: dict[str, Any] = {"verdict": lab["verdict"], "checked": lab["checked"],
                               "certificate": lab["certificate"]["type"]}
        if name in ("l1_repair", "l2_repair"):
            if lab["verdict"] == "optimal":
                rec["cost"] = sol["cost"]
                rec["value"] = float(Fraction(sol["cost"]))
            else:
                rec.update(lower=sol["lower"], upper=sol["upper"],
                           value=float(Fraction(sol["upper"])))
        elif name == "transitive":
            rec["cycle"] = lab["certificate"].get("cycle")
        else:
            rec["value"] = sol["reversed"]
            rec.update(judgment_counts(inst, options.judgments))
        out[name] = rec
    return out, labels


def consistency_audit(responses: Sequence[Mapping[str, Any]], design: Design | Mapping[str, Any],
                      options: AuditOptions | None = None, *, file: str | None = None,
                      progress: bool = False, **settings: Any) -> dict[str, Any]:
    """Audit the self-consistency of elicited willingness-to-pay answers.

    Parameters
    ----------
    responses : sequence of dict
        One row per completion: ``model``, ``cell_id`` and ``value`` (a float, or None for
        a failed parse; ``parsed_value`` is read when ``value`` is absent, so the rows of
        ``simulate_responses`` go in as they are; rows read by :func:`read_responses`
        also carry ``number_only``).
    design : Design or dict
        The design: ``cells`` (id -> ``domain``, ``utterance_id``, ``type`` ``pair`` with
        offers ``a``, ``b`` = ``{"item", "price"}`` or ``item`` with ``item``; ``stress``
        for cells used only by stress paths), optional ``pairs`` (``direct``, ``paths``,
        ``items``) and ``stress_paths`` (``k``, ``direct``, ``steps``).
    options : AuditOptions, optional
        The readings (fit, RMSE divisor, price scale, normalisation, resamples, …); or
        give them as keyword arguments.
    file : str, optional
        The responses' file name, for error messages.
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    dict
        JSON-able: ``settings`` (with the Bonferroni threshold and whether the smallest
        attainable p-value reaches it), ``parse`` (per model: ``calls``, ``finite``,
        ``number_only`` over the elicitation calls, i.e. the responses to cells that are
        not stress-only, as Ford et al. Table 6 counts them), ``parse_stress`` (the same
        over the stress-only cells, for models that answered any), ``groups`` (utilities with intervals,
        RMSE in $ and %, price scale, p-value, Bonferroni decision, and the ``certified``
        L1 / L2 repairs, transitivity and minimum feedback arc set), ``comparisons`` (P1
        and P2), ``local`` (counts), ``table2``, ``stress``, ``bonferroni``, and
        ``instances`` / ``labels`` (each group as a ``consistency`` instance with its
        certified labels, sourced at the lines of ``instances.jsonl`` in this order).

    Raises
    ------
    InstanceError
        A response to a cell the design does not have, or an unknown option value.

    Examples
    --------
    >>> design = {"cells": {
    ...     "xy": {"domain": "d", "utterance_id": "1", "type": "pair",
    ...            "a": {"item": "x", "price": 10}, "b": {"item": "y", "price": 12}},
    ...     "x": {"domain": "d", "utterance_id": "1", "type": "item", "item": "x"},
    ...     "y": {"domain": "d", "utterance_id": "1", "type": "item", "item": "y"}}}
    >>> rows = [{"model": "m", "cell_id": c, "value": v}
    ...         for c, v in (("xy", 3), ("xy", 5), ("x", 20), ("y", 25))]
    >>> a = consistency_audit(rows, design, resamples=200)
    >>> g = a["groups"][0]
    >>> round(g["rmse"], 3), g["certified"]["l1_repair"]["cost"]
    (0.333, '1')

    Notes
    -----
    O(cells · (B · completions + items²)) for B resamples, plus the certified labels (an
    LP and a min-cost flow per group; exact rationals in the checker).

    References
    ----------
    Ford, Bahk, Wang, Jovine, Ye, Shmoys & Frazier (2026), "LLM-derived preference
    judgments are not self-consistent". Efron & Tibshirani (1993), *An Introduction to the
    Bootstrap*, ch. 16 (null-imposed residual bootstrap).
    """
    rows = [arg.mapping(r, f"responses[{i}]", "column -> value")
            for i, r in enumerate(arg.sequence(responses, "responses", "response rows"))]
    if options is not None and not isinstance(options, AuditOptions):
        raise arg.ArgumentError("options", f"options must be an AuditOptions, got "
                                           f"{type(options).__name__}", options)
    arg.text(file, "file", optional=True)
    if options is None:
        options = AuditOptions(**settings)
    elif settings:
        from dataclasses import replace
        options = replace(options, **settings)
    if not isinstance(design, Design):
        design = parse_design(design, file or "<design>")
    responses = [dict(r, value=v, number_only=r.get("number_only", v is not None))
                 for r in rows             # rows as read_responses or simulate_responses give
                 for v in [r["value"] if "value" in r else r.get("parsed_value")]]
    models = _collect(responses, design, options, file)
    audit_cells = [c for c in design.cells.values() if not c.stress]
    group_keys = list(dict.fromkeys(c.group for c in audit_cells))
    plan_groups = [(m, g) for m in models for g in group_keys
                   if any(c.id in models[m].values for c in audit_cells if c.group == g)]
    n_groups = len(plan_groups)
    b = options.resamples or auto_resamples(max(1, n_groups), options.alpha)
    threshold = options.alpha / max(1, n_groups)
    min_p = 1.0 / (b + 1)
    settings = {**asdict(options), "resamples": b, "groups": n_groups,
                "bonferroni_threshold": threshold, "min_attainable_p": min_p,
                "bonferroni_reachable": min_p <= threshold}
    if not settings["bonferroni_reachable"]:
        settings["warning"] = (f"with {b} resamples the smallest attainable p-value "
                               f"1/(B+1) = {min_p:.3g} is above the Bonferroni threshold "
                               f"{options.alpha}/{n_groups} = {threshold:.3g}: no group can "
                               f"be rejected; use at least {math.ceil(1 / threshold) - 1} "
                               f"resamples")
    groups, comparisons, labels, instances = [], [], [], []
    from rich.progress import Progress
    with Progress(transient=True, disable=not progress) as bar:
        task = bar.add_task("groups", total=n_groups)
        for model, g in plan_groups:
            md = models[model]
            cells = [c for c in audit_cells if c.group == g and c.id in md.values]
            vals = [md.values[c.id] for c in cells]
            boot = {c.id: resample_means(md.values[c.id], b,
                                         np.random.default_rng(_cell_seed(options.seed, model, c.id)),
                                         want_ss=options.fit == "completions",
                                         residuals=options.residuals)
                    for c in cells}
            grec, fit = _group(model, g, cells, vals, boot, design, options, b)
            grec["reject_bonferroni"] = grec["pvalue"] <= threshold
            if options.certify:
                inst = group_instance(grec["id"], cells, vals)
                grec["certified"], labs = _certify(inst, options, len(instances) + 1)
                instances.append(inst)
                labels += labs
            groups.append(grec)
            comparisons += _local(model, g, md, boot, design, options)
            bar.advance(task)
    largest = max(_holm(comparisons, options.alpha), default=0)
    if options.interval == "percentile" and largest and 2 / (b + 1) > options.alpha / largest:
        note = (f"with {b} resamples a percentile p-value is at least 2/(B+1) = "
                f"{2 / (b + 1):.3g}, above {options.alpha}/{largest}: Holm cannot reject any "
                f"of {largest} comparisons; use at least "
                f"{math.ceil(2 * largest / options.alpha) - 1} resamples")
        settings["warning"] = " ".join(filter(None, [settings.get("warning"), note]))
    stress = _stress(models, design, options, b)
    return {"settings": settings,
            "parse": [{"model": m, "calls": d.calls, "finite": d.finite,
                       "number_only": d.number_only,
                       "finite_share": d.finite / d.calls if d.calls else None}
                      for m, d in models.items()],
            "parse_stress": [{"model": m, "calls": d.stress_calls, "finite": d.stress_finite,
                              "number_only": d.stress_number_only}
                             for m, d in models.items() if d.stress_calls],
            "groups": groups, "comparisons": comparisons,
            "local": local_summary(comparisons),
            "table2": table2(groups), "stress": stress,
            "bonferroni": {m: sum(1 for x in groups if x["model"] == m and x["reject_bonferroni"])
                           for m in models},
            "instances": instances, "labels": labels}


def _group(model: str, g: tuple[str, str], cells, vals, boot, design: Design,
           options: AuditOptions, b: int) -> tuple[dict, GroupFit]:
    fit = fit_group(cells, vals, options)
    rmse, ss, divisor = rmse_of(fit, options)
    pairs = [p for p in design.pairs if design.cells[p["direct"]].group == g]
    scale = price_scale(cells, pairs, design, options.price_scale)
    d = np.stack([boot[c.id][0] for c in cells])                 # n × B centred means
    hat = fit.a @ fit.proj
    null_res = d - hat @ d                                        # (I − H)(f + d*)
    within = np.stack([boot[c.id][1] for c in cells]) if options.fit == "completions" else None
    t_obs = float(_statistic(fit, fit.residuals[:, None], fit.within_ss[:, None], options)[0])
    t_star = _statistic(fit, null_res, within, options)
    exceed = int(np.sum(t_star >= t_obs * (1 - 1e-12) - 1e-12))
    pvalue = (1 + exceed) / (b + 1)
    u_star = fit.proj @ (fit.r[:, None] + d)
    lo, hi = np.percentile(u_star, [2.5, 97.5], axis=1)
    rec = {"id": f"{model}|{g[0]}|{g[1]}", "model": model, "domain": g[0], "utterance_id": g[1],
           "cells": len(cells), "completions": int(sum(len(v) for v in vals)),
           "items": len(fit.items), "rank": fit.rank,
           "utilities": {x: float(v) for x, v in zip(fit.items, fit.u)},
           "utility_ci": {x: [float(a), float(c)] for x, a, c in zip(fit.items, lo, hi)},
           "rmse": rmse, "sum_squares": ss, "divisor": divisor,
           "price_scale": scale, "rmse_pct": 100 * rmse / scale if scale else None,
           "statistic": t_obs, "pvalue": pvalue}
    if options.fit == "wls":
        from scipy import stats
        df = len(cells) - fit.rank
        rec["chi2"] = {"statistic": t_obs, "df": df,
                       "pvalue": float(stats.chi2.sf(t_obs, df)) if df > 0 else None}
    return rec, fit


def _local(model: str, g, md: _ModelData, boot, design: Design, options: AuditOptions
           ) -> list[dict]:
    """P1 and P2 comparisons of the group's endpoint pairs (from the design's ``pairs``;
    without them, every two-step path and every pair cell with both item cells)."""
    cells = {c.id: c for c in design.cells.values() if c.group == g and not c.stress
             and c.id in md.values}
    specs = []           # (pair id, kind, path index, direct cell, {cell: coef}, const)
    pairs = [p for p in design.pairs if p["direct"] in cells]
    item_cell = {}
    for c in cells.values():
        if c.kind == "item":
            item_cell.setdefault(c.item, c.id)
    if not design.pairs:
        by_a: dict = {}
        for c in cells.values():
            if c.kind == "pair":
                by_a.setdefault(c.a, []).append(c)
        for c in cells.values():
            if c.kind != "pair":
                continue
            paths = [[s1.id, s2.id] for s1 in by_a.get(c.a, []) if s1.id != c.id
                     for s2 in by_a.get(s1.b, []) if s2.b == c.b and s2.id != c.id]
            pairs.append({"id": c.id, "direct": c.id, "paths": paths})
    for p in pairs:
        d = cells[p["direct"]]
        for k, path in enumerate(p.get("paths", [])):
            if all(s in cells for s in path):
                coef: dict[str, float] = {}
                for s in path:
                    coef[s] = coef.get(s, 0.0) + 1.0
                specs.append((p["id"], "P1", k, d, coef, 0.0))
        ix = p.get("items") or [item_cell.get(d.a[0]), item_cell.get(d.b[0])]
        if len(ix) == 2 and all(c in cells for c in ix if c) and all(ix):
            coef = {ix[1]: 1.0}
            coef[ix[0]] = coef.get(ix[0], 0.0) - 1.0
            specs.append((p["id"], "P2", 0, d, coef, -(d.b[1] - d.a[1])))
    out = []
    ids = list(cells)
    vals = [md.values[c] for c in ids]
    pos = {c: i for i, c in enumerate(ids)}
    for pid, kind, k, d, coef, const in specs:
        yd = float(md.values[d.id].mean())
        bd = yd + boot[d.id][0]
        yc = const + sum(a * float(md.values[c].mean()) for c, a in coef.items())
        bc = const + sum(a * (float(md.values[c].mean()) + boot[c][0]) for c, a in coef.items())
        br = bd - bc
        var_d, df_d = _welch({pos[d.id]: 1.0}, vals)
        var_c, df_c = _welch({pos[c]: a for c, a in coef.items()}, vals)
        rc = {pos[c]: -a for c, a in coef.items()}
        rc[pos[d.id]] = rc.get(pos[d.id], 0.0) + 1.0
        var_r, df_r = _welch(rc, vals)
        ci_d = _interval(yd, bd, var_d, df_d, options)
        ci_c = _interval(yc, bc, var_c, df_c, options)
        ci_r = _interval(yd - yc, br, var_r, df_r, options)
        pval = _pvalue(yd - yc, br, var_r, df_r, options)
        scale = (d.a[1] + d.b[1]) / 2
        resid = yd - yc
        lb = abs_lower_bound(*ci_r)
        out.append({
            "model": model, "domain": g[0], "utterance_id": g[1], "pair": pid, "kind": kind,
            "path": k, "direct_cell": d.id, "direct": yd, "direct_ci": list(ci_d),
            "constructed": yc, "constructed_ci": list(ci_c), "residual": resid,
            "residual_ci": list(ci_r), "reject": not (ci_r[0] <= 0 <= ci_r[1]),
            "pvalue": pval,
            "reversal": (ci_d[0] > 0 and ci_c[1] < 0) or (ci_d[1] < 0 and ci_c[0] > 0),
            "scale": scale, "normalised": abs(resid) / scale if scale else None,
            "lower_bound": lb, "lower_bound_normalised": lb / scale if scale else None,
            "exceeds_threshold": bool(scale and lb >= options.threshold * scale)})
    return out


def _holm(comparisons: list[dict], alpha: float) -> list[int]:
    """Add ``pvalue_holm`` and ``reject_holm`` to every comparison: Holm's adjustment
    over the family of one model's comparisons of one kind (P1 or P2), valid whatever
    their dependence (the two P1 paths of a pair share the direct cell; P2 comparisons
    share item cells). Returns the family sizes."""
    from ..stats import adjusted_pvalues
    families: dict[tuple, list[dict]] = {}
    for c in comparisons:
        families.setdefault((c["model"], c["kind"]), []).append(c)
    for fam in families.values():
        for c, p in zip(fam, adjusted_pvalues([c["pvalue"] for c in fam], "holm")):
            c["pvalue_holm"] = p
            c["reject_holm"] = p <= alpha
    return [len(fam) for fam in families.values()]


def local_summary(comparisons: Sequence[dict]) -> list[dict]:
    """Counts per (model, kind) and per (model, kind, domain): n, supported reversals,
    residual intervals excluding 0 (uncorrected, as in the paper), Holm rejections (the
    family is the model's comparisons of that kind), and lower bounds above the
    threshold (Tables 3, 8)."""
    rows: dict[tuple, dict] = {}
    for c in comparisons:
        for key in ((c["model"], c["kind"], None), (c["model"], c["kind"], c["domain"])):
            r = rows.setdefault(key, {"model": key[0], "kind": key[1], "domain": key[2],
                                      "n": 0, "reversals": 0, "rejects": 0,
                                      "rejects_holm": 0, "exceeds_threshold": 0})
            r["n"] += 1
            r["reversals"] += c["reversal"]
            r["rejects"] += c["reject"]
            r["rejects_holm"] += c.get("reject_holm", False)
            r["exceeds_threshold"] += c["exceeds_threshold"]
    return list(rows.values())


def table2(groups: Sequence[dict]) -> list[dict]:
    """Per (model, domain): the arithmetic mean of the per-utterance group RMSEs, in
    dollars and in percent separately (not a pooled fit)."""
    cells: dict[tuple, list[dict]] = {}
    for g in groups:
        cells.setdefault((g["model"], g["domain"]), []).append(g)
    out = []
    for (m, d), gs in cells.items():
        pct = [g["rmse_pct"] for g in gs if g["rmse_pct"] is not None]
        out.append({"model": m, "domain": d, "groups": len(gs),
                    "rmse": sum(g["rmse"] for g in gs) / len(gs),
                    "rmse_pct": sum(pct) / len(pct) if pct else None})
    return out


def _stress(models: Mapping[str, _ModelData], design: Design, options: AuditOptions,
            b: int) -> list[dict]:
    """Per (model, domain, k): mean over paths of 100·|R₁,ₖ| / ((p + q)/2) with a
    bootstrap interval over the paths (resampled with replacement)."""
    out = []
    for model, md in models.items():
        groups: dict[tuple, list[float]] = {}
        for s in design.stress:
            cells = [s["direct"], *s["steps"]]
            if not all(c in md.values for c in cells):
                continue
            d = design.cells[s["direct"]]
            r = float(md.values[s["direct"]].mean()) - sum(float(md.values[c].mean())
                                                           for c in s["steps"])
            groups.setdefault((d.domain, s["k"]), []).append(
                100 * abs(r) / ((d.a[1] + d.b[1]) / 2))
        for (dom, k), vals in sorted(groups.items(), key=lambda t: (t[0][0], t[0][1])):
            v = np.array(vals)
            rng = np.random.default_rng(_cell_seed(options.seed, model, f"stress|{dom}|{k}"))
            means = bootstrap_means(v, b, rng)
            lo, hi = np.percentile(means, [2.5, 97.5])
            out.append({"model": model, "domain": dom, "k": k, "paths": len(v),
                        "mean_pct": float(v.mean()), "ci": [float(lo), float(hi)]})
    return out


def threshold_curve(comparisons: Sequence[dict], kind: str, ts: Sequence[float],
                    lower: bool = False) -> list[float]:
    """The share of ``kind`` comparisons whose normalised |R| (or its lower bound) is at
    least each threshold t (Fig. 3; not simultaneous bands)."""
    key = "lower_bound_normalised" if lower else "normalised"
    vals = [c[key] for c in comparisons if c["kind"] == kind and c[key] is not None]
    if not vals:
        return [0.0 for _ in ts]
    return [sum(v >= t for v in vals) / len(vals) for t in ts]
