"""Statistics of benchmark scores, from scipy and statsmodels: Wilson intervals, exact
McNemar, Fisher, and the Holm and Benjamini–Hochberg adjustments of a family of tests.

One draw per prompt, so intervals describe uncertainty over instances (Khanna & Wang 2026,
App. J).
"""
from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any


def _scipy_stats() -> Any:
    """``scipy.stats``, imported on first use (about 1 s: commands that only generate a
    suite never need it)."""
    from scipy import stats
    return stats


#: Indices drawn at once by :func:`bootstrap_chunks` (8 MiB of int64, and as much again
#: for the values they pick): a bootstrap's memory does not grow with its resample count.
BOOTSTRAP_CHUNK = 1 << 20


def bootstrap_chunks(rng: Any, m: int, resamples: int, chunk: int | None = None
                     ) -> Iterator[tuple[int, Any]]:
    """The resample indices ``rng.integers(0, m, size=(resamples, m))`` in blocks of
    consecutive rows: the same numbers, drawn in the same order from ``rng``, never more
    than about ``chunk`` of them held at once (one block of ``max(1, chunk // m)`` rows).

    Parameters
    ----------
    rng : numpy.random.Generator
        The generator; it ends in the state one whole draw would leave it in (a
        Generator's integer draws keep their buffered half-word in the bit generator's
        state, so consecutive draws continue one stream).
    m : int
        Items resampled (each row draws ``m`` of them with replacement); at least 1.
    resamples : int
        Rows in all.
    chunk : int, optional
        Indices per block at most (a single row of more than ``chunk`` indices is one
        block); default :data:`BOOTSTRAP_CHUNK`.

    Yields
    ------
    (int, numpy.ndarray)
        The first row's number and the block, an int64 array of shape (rows, m).
        O(resamples · m) time in all; O(max(chunk, m)) memory at a time.
    """
    rows = max(1, (BOOTSTRAP_CHUNK if chunk is None else chunk) // max(1, m))
    for start in range(0, resamples, rows):
        yield start, rng.integers(0, m, size=(min(rows, resamples - start), m))


def bootstrap_means(values: Any, resamples: int, rng: Any, chunk: int | None = None) -> Any:
    """The means of ``resamples`` resamples of ``values`` with replacement:
    ``values[rng.integers(0, len(values), size=(resamples, len(values)))].mean(1)``,
    the same floats, computed a block of rows at a time (:func:`bootstrap_chunks`).

    Parameters
    ----------
    values : numpy.ndarray
        One-dimensional, at least one value.
    resamples : int
        Resamples drawn.
    rng : numpy.random.Generator
        The generator the indices are drawn from.
    chunk : int, optional
        Indices drawn at once at most (default :data:`BOOTSTRAP_CHUNK`).

    Returns
    -------
    numpy.ndarray
        ``resamples`` floats. O(resamples · len(values)) time; O(resamples + chunk)
        memory, not O(resamples · len(values)).
    """
    import numpy as np
    out = np.empty(resamples)
    for start, idx in bootstrap_chunks(rng, len(values), resamples, chunk):
        out[start:start + len(idx)] = values[idx].mean(1)
    return out


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval of ``k`` successes in ``n`` trials (None when n = 0)
    (Wilson 1927), by :meth:`scipy.stats.binomtest(...).proportion_ci`."""
    if n <= 0:
        return None
    ci = _scipy_stats().binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence,
                                                     method="wilson")
    return float(ci.low), float(ci.high)


def proportion(metric: str, group: Mapping[str, Any], k: int, n: int) -> dict:
    """One metric row: ``{"metric", "group", "k", "n", "value", "low", "high"}`` with the
    95 % Wilson interval (value, low and high None when n = 0)."""
    ci = wilson(k, n)
    return {"metric": metric, "group": dict(group), "k": int(k), "n": int(n),
            "value": k / n if n else None, "low": ci[0] if ci else None,
            "high": ci[1] if ci else None}


def mcnemar_exact(first: Sequence[bool], second: Sequence[bool]) -> dict:
    """Exact McNemar test of paired outcomes (correct / not) of two answer sets on the same
    prompts: a two-sided binomial test of the discordant pairs at p = 1/2 (McNemar 1947; the
    exact form of statsmodels' ``mcnemar(exact=True)``). Returns ``{"n", "only_first",
    "only_second", "pvalue"}`` (pvalue 1.0 without discordant pairs)."""
    if len(first) != len(second):
        raise ValueError("paired outcomes must have the same length")
    b = sum(1 for x, y in zip(first, second) if x and not y)
    c = sum(1 for x, y in zip(first, second) if y and not x)
    p = 1.0 if b + c == 0 else float(_scipy_stats().binomtest(b, b + c, 0.5).pvalue)
    return {"n": len(first), "only_first": b, "only_second": c, "pvalue": p}


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> dict:
    """Fisher's exact test of the 2×2 table (correct / incorrect) × (group 1 / group 2), two
    sided (:func:`scipy.stats.fisher_exact`). Returns ``{"odds_ratio", "pvalue"}``. A table
    seen before is not recomputed (the cells of a design share few distinct tables)."""
    odds, p = _fisher_table(int(k1), int(n1), int(k2), int(n2))
    return {"odds_ratio": odds, "pvalue": p}


@functools.lru_cache(maxsize=65536)
def _fisher_table(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    res = _scipy_stats().fisher_exact([[k1, n1 - k1], [k2, n2 - k2]])
    return float(res.statistic), float(res.pvalue)


#: adjustment name -> statsmodels ``multipletests`` method
ADJUSTMENTS = {"holm": "holm", "bh": "fdr_bh"}


def adjusted_pvalues(pvalues: Sequence[float], method: str) -> list[float]:
    """The adjusted p-values of a family of tests (statsmodels' ``multipletests``):
    ``holm`` controls the family-wise error rate under any dependence between the tests
    (Holm 1979); ``bh`` the false discovery rate when the tests are independent or
    positively dependent (Benjamini & Hochberg 1995; Benjamini & Yekutieli 2001). A test
    is rejected at level α when its adjusted p-value is ≤ α. O(n log n)."""
    if method not in ADJUSTMENTS:
        raise ValueError(f"unknown adjustment {method!r} (known: {', '.join(ADJUSTMENTS)})")
    if not len(pvalues):
        return []
    import gc

    from statsmodels.stats.multitest import multipletests
    # statsmodels' Holm branch calls gc.collect(): a full pass over every object of the
    # process (0.45 s with a scored run in memory, for a few hundred p-values). Frozen
    # objects are not walked, so freeze around the call; thaw only what this call froze.
    thaw = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        adjusted = multipletests(list(pvalues), method=ADJUSTMENTS[method])[1]
    finally:
        if thaw:
            gc.unfreeze()
    return [float(x) for x in adjusted]


def accuracy_rows(scores: Sequence[dict], by: Sequence[str], metric: str = "accuracy",
                  where=None, success=None) -> list[dict]:
    """Proportion rows of ``success(score)`` (default: verdict correct) grouped by the cell
    factors ``by``, over the scores for which ``where(score)`` holds."""
    groups: dict[str, list] = {}
    import json
    for s in scores:
        if where is not None and not where(s):
            continue
        key = {f: s["cell"].get(f) for f in by}
        groups.setdefault(json.dumps(key, sort_keys=True), [key, 0, 0])
        g = groups[json.dumps(key, sort_keys=True)]
        g[1] += 1 if (success(s) if success else s["verdict"] == "correct") else 0
        g[2] += 1
    return [proportion(metric, key, k, n) for key, k, n in groups.values()]
