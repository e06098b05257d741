"""Rational value risk of a deployed reasoning strategy, with prefcert as the verifier.

RVR = REU − DEU: how far the expected utility of the deployed strategy (DEU, the mean
utility of its sampled answers) falls short of a rational strategy's (REU) under a value
function (Qian & He 2026). prefcert is a *deterministic* verifier: each sampled answer to a
generated prompt is scored by the suite's certificate-backed scorer, U = 1 when correct, so
L = 1 and the verification error term is 0. The rational expected utility has two
readings, reported side by side and never mixed:

- ``certified``: REU_i = 1 exactly where prefcert certifies that a correct answer exists
  (the prompt's gold answer, built from checked labels, scores correct); RVR is then
  1 − accuracy of the deployed strategy.
- ``best_of_k``: REU_i = max_k U_ik, the oracle best-of-K over the model's own samples
  (pass@K by truncation for binary U), the released code's reading.

Each comes with a 95 % prompt-bootstrap interval (B = 1000 by default, seed recorded) and
the Hoeffding half-widths of the three error terms at a stated δ (the union bound gives δ/3
to each term; see :func:`error_bounds`).
"""
from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...api import arguments as arg
from ...api.types import Reading
from ...formal.errors import InstanceError

READINGS = ("certified", "best_of_k")


def error_bounds(m: int, k: int, delta: float = 0.05, *, verifier_calls: int = 1,
                 deterministic: bool = True, reading: Reading = "certified",
                 k_max: int | None = None) -> dict[str, Any]:
    """The half-widths of the three error terms of |RVR_hat − RVR|, with their formulas.

    Parameters
    ----------
    m : int
        Prompts M.
    k : int
        Sampled responses per prompt K (the fewest, when prompts differ).
    delta : float, default 0.05
        Failure probability of the sum; each term holds with probability ≥ 1 − δ/3.
    verifier_calls : int, default 1
        Verifier calls L per response (used only for a stochastic verifier).
    deterministic : bool, default True
        A deterministic verifier (prefcert's) has no verification error.
    reading : {"certified", "best_of_k"}, default "certified"
        With REU fixed at 1 only the deployed side is random; best-of-K has two.
    k_max : int, optional
        The most responses of any prompt (default ``k``); the best-of-K terms use it.

    Returns
    -------
    dict
        ``prompt_sampling`` (I), ``reasoning_sampling`` (II), ``verification`` (III),
        ``total`` and ``formulas``.

    Raises
    ------
    ValueError
        M, K or L below 1, ``k_max`` below K, δ outside (0, 1) or an unknown reading
        (the message names the argument and its value).

    Examples
    --------
    >>> b = error_bounds(100, 8)
    >>> round(b["prompt_sampling"], 4), round(b["reasoning_sampling"], 4), b["verification"]
    (0.3094, 0.0547, 0.0)
    >>> round(error_bounds(100, 8, reading="best_of_k")["reasoning_sampling"], 4)
    0.1354

    Notes
    -----
    Hoeffding's inequality: n independent terms in ranges of width c give a two-sided
    half-width c·√(ln(2/δ') / (2n)) for their mean, δ' = δ/3 per term.

    (I), the prompts: the M per-prompt gaps G_i ∈ [−1, 1] are iid, √(2 ln(6/δ)/M).

    (II), the responses given the prompts. ``certified``: the MK utilities are
    independent in [0, 1], √(ln(6/δ)/(2MK)). ``best_of_k``: the per-prompt gap
    Ĝ_i = max_k U_ik − (1/K) Σ_k U_ik is *not* an average of K independent terms (the
    maximum couples them), so the MK differences do not enter Hoeffding's inequality
    separately; only the M gaps are independent. Each lies in [0, 1 − 1/K_i] (the term
    of the maximising response is 0), so (II) = (1 − 1/K_max)·√(ln(6/δ)/(2M)); it is 0
    at K = 1, where the best-of-1 gap is 0. (The earlier √(2 ln(6/δ)/(MK)) treated the
    MK paired differences as independent and is exceeded far more often than δ/3:
    ``benchmarks/bench_risk_bounds.py``.)

    (III), the verifier given the responses (0 for a deterministic verifier). Let v_ik
    be the verifier's expected outcome of response k and Ū_ik the mean of its L calls.
    ``certified``: MKL outcomes in [0, 1], √(ln(12/δ)/(2MKL)). ``best_of_k``: the
    maximum of noisy means is biased upwards, and this bias does not shrink with M.
    |max_k Ū_ik − max_k v_ik| ≤ max_k |Ū_ik − v_ik|, a maximum of 2K sub-Gaussian
    variables of variance proxy 1/(4L), whose expectation is at most √(ln(2K)/(2L))
    (the maximal inequality); its mean over the M independent prompts exceeds that by
    at most √(ln(6/δ)/(2M)) with probability 1 − δ/6 (Hoeffding, one-sided), and the
    mean side adds √(ln(12/δ)/(2MKL)) at δ/6. Both gaps lie in [0, 1 − 1/K], so the
    term is capped there (it is 0 at K = 1).

    Verifier bias is bounded by no term. O(1).

    References
    ----------
    Hoeffding (1963), "Probability inequalities for sums of bounded random variables",
    JASA 58. Boucheron, Lugosi & Massart (2013), *Concentration Inequalities*, §2.5
    (the maximal inequality). Qian & He (2026), "In LLM reasoning, there is irrationality
    on top of value misalignment" (the decomposition; their constants are not in the
    text we have).
    """
    arg.integer(m, "m", minimum=1)
    arg.integer(k, "k", minimum=1)
    arg.integer(verifier_calls, "verifier_calls", minimum=1)
    arg.number(delta, "delta", minimum=0, maximum=1, min_open=True, max_open=True)
    arg.choice(reading, "reading", READINGS)
    kx = k if k_max is None else arg.integer(k_max, "k_max", minimum=k)
    lg = math.log(6 / delta)
    one = math.sqrt(2 * lg / m)
    calls = 1 if deterministic else verifier_calls
    if reading == "certified":
        two, f2 = math.sqrt(lg / (2 * m * k)), "√(ln(6/δ) / (2MK))"
        three = math.sqrt(math.log(12 / delta) / (2 * m * k * calls))
        f3 = "√(ln(12/δ) / (2MKL))"
    else:
        two, f2 = (1 - 1 / kx) * math.sqrt(lg / (2 * m)), "(1 − 1/K) √(ln(6/δ) / (2M))"
        three = min(1 - 1 / kx, math.sqrt(math.log(2 * kx) / (2 * calls))
                    + math.sqrt(lg / (2 * m))
                    + math.sqrt(math.log(12 / delta) / (2 * m * k * calls)))
        f3 = "min(1 − 1/K, √(ln(2K) / (2L)) + √(ln(6/δ) / (2M)) + √(ln(12/δ) / (2MKL)))"
    if deterministic:
        three, f3 = 0.0, "0 (deterministic verifier, L = 1)"
    return {"delta": delta, "M": m, "K": k, "L": calls,
            "prompt_sampling": one, "reasoning_sampling": two, "verification": three,
            "total": one + two + three,
            "formulas": {"prompt_sampling": "√(2 ln(6/δ) / M)", "reasoning_sampling": f2,
                         "verification": f3, "total": "(I) + (II) + (III), each at δ/3"}}


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate from n samples of which c are correct.

    Parameters
    ----------
    n : int
        Samples drawn.
    c : int
        Correct samples.
    k : int
        Budget k ≤ n.

    Returns
    -------
    float
        1 − C(n − c, k) / C(n, k): the probability that k of the n samples drawn without
        replacement contain a correct one.

    Raises
    ------
    ValueError
        A count that is not a non-negative integer, c > n or k > n.

    Examples
    --------
    >>> pass_at_k(4, 1, 2)
    0.5

    Notes
    -----
    O(k) big-integer arithmetic.

    References
    ----------
    Chen et al. (2021), "Evaluating large language models trained on code", arXiv:2107.03374.
    """
    arg.integer(n, "n", minimum=0)
    arg.integer(c, "c", minimum=0, maximum=n)
    arg.integer(k, "k", minimum=0, maximum=n)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _bootstrap(g: np.ndarray, resamples: int, seed: int, confidence: float
               ) -> tuple[float, float, float]:
    """(low, high, mean) of the prompt bootstrap: percentile interval and the mean of
    the resampled means (the released code's reported value)."""
    from ..stats import bootstrap_means
    means = bootstrap_means(g, resamples, np.random.default_rng(seed))
    lo, hi = np.percentile(means, [50 * (1 - confidence), 50 * (1 + confidence)])
    return float(lo), float(hi), float(means.mean())


def k_budgets(k: int) -> list[int]:
    """The budgets of the k-curve: 1, 2, 4, … below ``k``, then ``k`` itself."""
    out = [1 << j for j in range(k.bit_length()) if 1 << j < k]
    return out + [k]


def rational_value_risk(utilities: Sequence[Sequence[Any]], *,
                        reu: Sequence[float | None] | None = None, delta: float = 0.05,
                        resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
                        deterministic: bool | None = None) -> dict[str, Any]:
    """Deployed and rational expected utility, and the rational value risk, under both
    readings of the rational strategy.

    Parameters
    ----------
    utilities : sequence of sequences
        The M × K utility matrix in [0, 1] (rows may differ in K); an entry may be a list
        of L verifier outcomes, averaged.
    reu : sequence of float or None, optional
        The certified REU of each prompt, in [0, 1] (default 1 for every prompt; None
        leaves a prompt out of the certified reading).
    delta : float, default 0.05
        Failure probability of the error bounds.
    resamples : int, default 1000
        Prompt-bootstrap resamples.
    seed : int, default 0
        Bootstrap seed.
    confidence : float, default 0.95
        Interval level.
    deterministic : bool, optional
        Whether the verifier is deterministic (default: when no entry is a list).

    Returns
    -------
    dict
        ``M``, ``K`` (the fewest samples of a prompt), ``K_max``, ``L``, ``deu`` with
        ``deu_ci`` and ``deu_bootstrap_mean``, ``readings`` (``certified`` and
        ``best_of_k``: ``reu``, ``rvr`` — the point estimate —, ``rvr_ci``,
        ``rvr_bootstrap_mean`` — the mean of the resampled means, which the released code
        reports —, ``bounds``) and ``k_curve``: per budget k = 1, 2, 4, …, K, best-of-k
        by truncation (the first k samples of every prompt), ``rvr_certified`` and
        ``rvr_best_of_k`` (REU − mean utility of the first k samples under each
        reading) and, for binary utilities, the unbiased ``pass_at_k`` with
        ``rvr_pass_at_k`` (pass@k − DEU over all samples).

    Raises
    ------
    InstanceError
        No prompts, an empty row, a utility outside [0, 1], or an REU that is not a
        number in [0, 1] (or None), or a list of REUs of another length than the rows.

    Examples
    --------
    >>> r = rational_value_risk([[1, 0], [0, 0], [1, 1]], resamples=200)
    >>> round(r["deu"], 3), round(r["readings"]["certified"]["rvr"], 3)
    (0.5, 0.5)
    >>> round(r["readings"]["best_of_k"]["reu"], 3), round(r["readings"]["best_of_k"]["rvr"], 3)
    (0.667, 0.167)
    >>> [(c["k"], round(c["rvr_best_of_k"], 3)) for c in r["k_curve"]]
    [(1, 0.0), (2, 0.167)]

    Notes
    -----
    RVR_hat = (1/M) Σ_i (REU_i − (1/K) Σ_k U_ik); the interval resamples the M
    per-prompt gaps with replacement and takes percentiles. The bootstrap mean differs
    from the point estimate only by resampling noise; the point estimate is the
    estimator the error bounds are about. O(B·M + M·K).

    References
    ----------
    Qian & He (2026), "In LLM reasoning, there is irrationality on top of value
    misalignment". Efron & Tibshirani (1993), *An Introduction to the Bootstrap*.
    """
    arg.sequence(utilities, "utilities", "rows of utilities")
    arg.optional_sequence(reu, "reu", "REU values (float or None)")
    arg.number(delta, "delta", minimum=0, maximum=1, min_open=True, max_open=True)
    arg.integer(resamples, "resamples", minimum=1)
    arg.integer(seed, "seed", minimum=0)
    arg.number(confidence, "confidence", minimum=0, maximum=1, min_open=True, max_open=True)
    rows = []
    for i, row in enumerate(utilities):
        arg.sequence(row, f"utilities[{i}]", "utilities")
        try:
            vals = [float(np.mean(x)) if isinstance(x, (list, tuple)) else float(x)
                    for x in row]
        except (TypeError, ValueError):
            raise InstanceError("a utility is not a number (or a list of numbers)",
                                value=i) from None
        if not vals or any(not 0 <= v <= 1 for v in vals):
            raise InstanceError("every prompt needs at least one utility, each in [0, 1]",
                                value=i)
        rows.append(vals)
    if not rows:
        raise InstanceError("no prompts to estimate from")
    m = len(rows)
    reus = [1.0] * m if reu is None else list(reu)
    if len(reus) != m:
        raise InstanceError(f"reu has {len(reus)} values for {m} prompts")
    for i, x in enumerate(reus):
        if x is not None and (isinstance(x, bool) or not isinstance(x, numbers.Real)
                              or not 0 <= x <= 1):
            raise InstanceError(f"reu[{i}] must be a number in [0, 1] or None", value=x)
    calls = [len(x) if isinstance(x, (list, tuple)) else 1 for row in utilities for x in row]
    if deterministic is None:
        deterministic = not any(isinstance(x, (list, tuple)) for row in utilities for x in row)
    k = min(len(r) for r in rows)
    k_max = max(len(r) for r in rows)
    deu_i = np.array([np.mean(r) for r in rows])
    best_i = np.array([max(r) for r in rows])
    cert = np.array([np.nan if x is None else float(x) for x in reus])
    lo, hi, mean = _bootstrap(deu_i, resamples, seed, confidence)
    out: dict[str, Any] = {"M": m, "K": k, "K_max": k_max,
                           "L": min(calls), "resamples": resamples, "seed": seed,
                           "confidence": confidence, "deterministic_verifier": deterministic,
                           "deu": float(deu_i.mean()), "deu_ci": [lo, hi],
                           "deu_bootstrap_mean": mean}
    readings = {}
    for name, reu_i in (("certified", cert), ("best_of_k", best_i)):
        keep = ~np.isnan(reu_i)
        g = reu_i[keep] - deu_i[keep]
        if not len(g):
            readings[name] = {"prompts": 0}
            continue
        lo, hi, mean = _bootstrap(g, resamples, seed, confidence)
        readings[name] = {
            "prompts": int(keep.sum()), "reu": float(reu_i[keep].mean()),
            "rvr": float(g.mean()), "rvr_ci": [lo, hi], "rvr_bootstrap_mean": mean,
            "bounds": error_bounds(int(keep.sum()), k, delta, verifier_calls=min(calls),
                                   deterministic=deterministic, reading=name, k_max=k_max)}
    out["readings"] = readings
    binary = all(v in (0.0, 1.0) for r in rows for v in r)
    certified = ~np.isnan(cert)
    curve = []
    for kk in k_budgets(k):
        first = np.array([np.mean(r[:kk]) for r in rows])
        best = np.array([max(r[:kk]) for r in rows])
        row: dict[str, Any] = {
            "k": kk, "best_of_k": float(best.mean()),
            "rvr_certified": (float((cert[certified] - first[certified]).mean())
                              if certified.any() else None),
            "rvr_best_of_k": float((best - first).mean())}
        if binary:
            row["pass_at_k"] = float(np.mean([pass_at_k(len(r), int(sum(r)), kk) for r in rows]))
            row["rvr_pass_at_k"] = row["pass_at_k"] - out["deu"]
        curve.append(row)
    out["k_curve"] = curve
    return out


# ------------------------------------------------------------------ prefcert as verifier

def read_samples(path: str | Path,
                 known: Mapping[str, Any] | None = None) -> dict[str, list[str | None]]:
    """prompt id -> its sampled answers, in file order: records ``{"id", "answer"}`` (one
    per sample; ``"answer": null`` or ``"timeout": true`` is a timeout) or ``{"id",
    "answers": [...]}``. InstanceError naming the line of a record that
    :func:`~prefcert.bench.score.answer_id` refuses."""
    from ..generate import numbered_jsonl
    from ..score import answer_id, answer_text, single_answer
    out: dict[str, list[str | None]] = {}
    for i, rec in numbered_jsonl(path, unique_keys=True):
        pid = answer_id(rec, path, i, known)
        if known is not None:
            single_answer(known[pid], path, i)
        if "answers" in rec:
            if not isinstance(rec["answers"], list):
                raise InstanceError("'answers' must be a list", file=str(path), line=i)
            got = [answer_text(a) for a in rec["answers"]]
        else:
            got = [answer_text(None if rec.get("timeout") else rec.get("answer"))]
        out.setdefault(pid, []).extend(got)
    return out


def score_samples(bench, samples: Mapping[str, Sequence[str | None]]) -> list[dict]:
    """Score every sample with prefcert (the suite's scorer on certified labels): one
    record per prompt with ``utilities`` (1 correct, else 0), ``verdicts``, and
    ``reu_certified`` (1 when the prompt's gold answer scores correct and every gold label
    is checked; None otherwise). InstanceError for an answer to an unknown prompt."""
    unknown = [k for k in samples if k not in bench.by_id]
    if unknown:
        raise InstanceError("answer to an unknown prompt id", value=unknown[0])
    return [prompt_samples(p, bench.entry(p), samples[p["id"]]) for p in bench.prompts
            if p["id"] in samples]


def prompt_samples(prompt: Mapping[str, Any], entry, answers: Sequence[str | None]) -> dict:
    """The record of one prompt's sampled answers (see :func:`score_samples`)."""
    from ..score import score_prompt
    scores = [score_prompt(prompt, a, entry) for a in answers]
    verdicts = [x["verdict"] for x in scores]
    # the answer key of the SC(n) vote: the parsed answer's canonical JSON (None when the
    # answer does not parse or timed out), so equivalent answers vote together
    keys = [None if x["verdict"] in ("invalid", "timeout") or x.get("parsed") is None
            else json.dumps(x["parsed"], sort_keys=True, default=str) for x in scores]
    gold_ok = all(lab.get("checked") is True for lab in entry.labels) and \
        score_prompt(prompt, prompt.get("answer"), entry)["verdict"] == "correct"
    return {"id": prompt["id"], "suite": prompt["suite"], "cell": prompt["cell"],
            "verdicts": verdicts, "utilities": [1 if v == "correct" else 0 for v in verdicts],
            "keys": keys,
            "reu_certified": 1 if gold_ok else None}


def risk_table(scored: Sequence[dict], *, delta: float = 0.05, resamples: int = 1000,
               seed: int = 0, by: str | None = None) -> dict:
    """The estimate over every scored prompt, the parse-failure and timeout rates, and,
    with ``by`` (a cell factor such as ``size``), one estimate per level."""
    if not scored:
        raise InstanceError("no answered prompts")
    res = rational_value_risk([s["utilities"] for s in scored],
                              reu=[s["reu_certified"] for s in scored], delta=delta,
                              resamples=resamples, seed=seed)
    n = sum(len(s["verdicts"]) for s in scored)
    res["samples"] = n
    res["parse_failure_rate"] = sum(v == "invalid" for s in scored for v in s["verdicts"]) / n
    res["timeout_rate"] = sum(v == "timeout" for s in scored for v in s["verdicts"]) / n
    res["uncertified_prompts"] = sum(s["reu_certified"] is None for s in scored)
    res["suites"] = sorted({s["suite"] for s in scored})
    if by:
        strata = {}
        for s in scored:
            strata.setdefault(json.dumps(s["cell"].get(by)), []).append(s)
        res["by"] = by
        res["strata"] = [{by: json.loads(key), **rational_value_risk(
            [s["utilities"] for s in group], reu=[s["reu_certified"] for s in group],
            delta=delta, resamples=resamples, seed=seed)}
            for key, group in sorted(strata.items())]
    return res


# ------------------------------------------------- self-consistency, the M and L sweeps

def _tie_first(tied: Sequence[str], block: Sequence[str | None],
               rng: np.random.Generator) -> str:
    """The tied key whose first vote comes earliest in the block (the released code's
    rule: the first sample carrying a modal key)."""
    return min(tied, key=lambda t: block.index(t))


def _tie_random(tied: Sequence[str], block: Sequence[str | None],
                rng: np.random.Generator) -> str:
    """A tied key drawn uniformly (the generator is seeded, so the draw is reproducible)."""
    order = sorted(tied, key=lambda t: block.index(t))
    return order[int(rng.integers(0, len(order)))]


#: tie rule of the self-consistency vote -> chooser of the winning key among the tied ones
TIE_RULES = {"first": _tie_first, "random": _tie_random}


def majority_vote(keys: Sequence[str | None], *, ties: str = "first",
                  rng: np.random.Generator | None = None) -> int | None:
    """The index of the answer a majority vote over ``keys`` outputs, or None.

    Parameters
    ----------
    keys : sequence of str or None
        The canonical answer keys of n sampled answers (None: unparseable, no vote).
    ties : {"first", "random"}, default "first"
        Among keys with the most votes, ``first`` takes the one voted first, ``random``
        one drawn uniformly with ``rng``.
    rng : numpy.random.Generator, optional
        The generator of ``random`` (default: seeded 0).

    Returns
    -------
    int or None
        The position of the first answer carrying the winning key; None when no answer
        has a key (the strategy then scores U = 0).

    Examples
    --------
    >>> majority_vote(["a", "b", "b", None])
    1
    >>> majority_vote(["a", "b"]), majority_vote([None, None])
    (0, None)

    Notes
    -----
    O(n).

    References
    ----------
    Wang et al. (2023), "Self-consistency improves chain of thought reasoning in language
    models", ICLR. Qian & He (2026), §5.4 (SC(n) as the deployed strategy).
    """
    arg.choice(ties, "ties", TIE_RULES)
    votes: dict[str, int] = {}
    for key in keys:
        if key is not None:
            votes[key] = votes.get(key, 0) + 1
    if not votes:
        return None
    top = max(votes.values())
    tied = [key for key, c in votes.items() if c == top]
    win = tied[0] if len(tied) == 1 else TIE_RULES[ties](
        tied, list(keys), rng if rng is not None else np.random.default_rng(0))
    return list(keys).index(win)


def _rows(utilities: Sequence[Sequence[Any]]) -> list[list[float]]:
    return [[float(np.mean(x)) if isinstance(x, (list, tuple)) else float(x) for x in row]
            for row in utilities]


def self_consistency(utilities: Sequence[Sequence[Any]], keys: Sequence[Sequence[str | None]],
                     n: int, *, reu: Sequence[float | None] | None = None,
                     ties: str = "first", delta: float = 0.05, resamples: int = 1000,
                     seed: int = 0, confidence: float = 0.95,
                     deterministic: bool | None = None) -> dict[str, Any]:
    """Rational value risk of self-consistency SC(n) as the deployed strategy.

    Parameters
    ----------
    utilities : sequence of sequences
        The M × K utility matrix (an entry may be a list of L verifier outcomes).
    keys : sequence of sequences
        The canonical answer key of every sample, parallel to ``utilities`` (None:
        unparseable, no vote).
    n : int
        Votes per SC draw.
    reu : sequence of float or None, optional
        Certified REU per prompt (default 1; None leaves the prompt out).
    ties : {"first", "random"}, default "first"
        The tie rule of :func:`majority_vote`; ``random`` is seeded with ``seed``.
    delta, resamples, seed, confidence
        As in :func:`rational_value_risk`.
    deterministic : bool, optional
        Whether the verifier is deterministic (default: when no entry is a list).

    Returns
    -------
    dict
        ``n``, ``ties``, ``M`` (prompts with at least n samples and a certified REU),
        ``draws`` (K_n = ⌊K/n⌋, the fewest SC draws of a prompt), ``skipped`` (prompts
        with fewer than n samples), ``deu`` with ``deu_ci``, ``reu``, ``rvr`` with
        ``rvr_ci`` and ``rvr_bootstrap_mean``, ``no_vote_rate`` (draws without a key)
        and ``bounds`` (:func:`error_bounds`, certified reading, with K = K_n).

    Raises
    ------
    InstanceError
        ``keys`` not parallel to ``utilities``, or no prompt with n samples.

    Notes
    -----
    The K samples of prompt i are cut into ⌊K_i/n⌋ consecutive disjoint blocks of n
    (a remainder is left out); each block is one SC(n) draw: the majority key's first
    answer, its utility (mean of its L outcomes), 0 when no answer of the block parses.
    Blocks of iid samples are iid SC(n) outputs given the prompt, so Theorem 1 carries
    over with the draws in place of the samples: (I) √(2 ln(6/δ)/M) unchanged,
    (II) √(ln(6/δ)/(2 M K_n)), (III) √(ln(12/δ)/(2 M K_n L)) — the vote uses the keys,
    not the verifier's outcomes, so the chosen answer's L outcomes are still independent
    given the responses. The best-of-K reading is not given for SC: its REU (the best of
    the K raw samples) and the SC draws reuse the same samples, and the (II) of
    :func:`error_bounds` does not cover that coupling. SC(1) is the plain sampling
    strategy. The released code instead resamples n of the K samples with replacement
    per draw (draws not independent); not implemented. O(M·K + B·M).

    References
    ----------
    Qian & He (2026), §5.4, Fig. 1. Wang et al. (2023), ICLR (self-consistency).
    Hoeffding (1963), JASA 58.
    """
    arg.integer(n, "n", minimum=1)
    arg.choice(ties, "ties", TIE_RULES)
    arg.integer(seed, "seed", minimum=0)
    arg.sequence(keys, "keys", "rows of answer keys")
    if len(keys) != len(utilities) or any(len(a) != len(b) for a, b in zip(keys, utilities)):
        raise InstanceError("keys must be parallel to utilities (one key per sample)")
    rows = _rows(utilities)
    m_all = len(rows)
    reus = [1.0] * m_all if reu is None else list(reu)
    if deterministic is None:
        deterministic = not any(isinstance(x, (list, tuple)) for row in utilities for x in row)
    calls = min([len(x) if isinstance(x, (list, tuple)) else 1 for row in utilities
                 for x in row] or [1])
    rng = np.random.default_rng(seed)
    deu_i, gaps, draws, none, total = [], [], [], 0, 0
    skipped = 0
    for row, kk, r in zip(rows, keys, reus):
        b = len(row) // n
        if b == 0:
            skipped += 1
            continue
        if r is None:
            continue
        us = []
        for j in range(b):
            pos = majority_vote(kk[j * n:(j + 1) * n], ties=ties, rng=rng)
            total += 1
            if pos is None:
                none += 1
                us.append(0.0)
            else:
                us.append(row[j * n + pos])
        deu_i.append(float(np.mean(us)))
        gaps.append(float(r) - deu_i[-1])
        draws.append(b)
    if not gaps:
        raise InstanceError(f"no certified prompt has {n} samples for SC({n})", value=n)
    d, g = np.array(deu_i), np.array(gaps)
    dlo, dhi, _ = _bootstrap(d, resamples, seed, confidence)
    lo, hi, mean = _bootstrap(g, resamples, seed, confidence)
    b = error_bounds(len(g), min(draws), delta, verifier_calls=calls,
                     deterministic=deterministic, reading="certified")
    b["formulas"] = {k: v.replace("MK", "MK_n") for k, v in b["formulas"].items()}
    return {"n": n, "ties": ties, "M": len(g), "draws": min(draws), "skipped": skipped,
            "deu": float(d.mean()), "deu_ci": [dlo, dhi], "reu": float(g.mean() + d.mean()),
            "rvr": float(g.mean()), "rvr_ci": [lo, hi], "rvr_bootstrap_mean": mean,
            "no_vote_rate": none / total, "bounds": b}


def m_grid(m: int) -> list[int]:
    """The prompt counts of the M sweep: 2, 4, 8, … below ``m``, then ``m``."""
    arg.integer(m, "m", minimum=1)
    return [1 << j for j in range(1, m.bit_length()) if 1 << j < m] + [m]


def m_sweep(utilities: Sequence[Sequence[Any]], *, reu: Sequence[float | None] | None = None,
            delta: float = 0.05, resamples: int = 1000, seed: int = 0,
            confidence: float = 0.95, grid: Sequence[int] | None = None) -> list[dict]:
    """Convergence of the RVR estimate as the number of prompts M grows (Table 14).

    Parameters
    ----------
    utilities : sequence of sequences
        The M × K utility matrix.
    reu : sequence of float or None, optional
        Certified REU per prompt (default 1).
    delta, resamples, seed, confidence
        As in :func:`rational_value_risk`; ``seed`` also draws the subsets.
    grid : sequence of int, optional
        Prompt counts (default :func:`m_grid`: 2, 4, … up to the full M).

    Returns
    -------
    list of dict
        Per (M, reading): ``M``, ``reading``, ``prompts`` (of the subset, with a certified
        REU for that reading), ``rvr``, ``rvr_ci``, ``ci_width`` and ``bound_prompts``,
        the term (I) √(2 ln(6/δ)/M) of the subset.

    Notes
    -----
    One permutation of the prompts is drawn with ``numpy.random.default_rng(seed)``; the
    subset of size M is its first M prompts, so the subsets are nested and the same seed
    gives the same subsets. Each subset is bootstrapped with the same seed. The interval
    width should shrink like 1/√M. O(|grid| · (B·M + M·K)).

    References
    ----------
    Qian & He (2026), App. D.1, Table 14.
    """
    rows = _rows(utilities)
    m = len(rows)
    if not m:
        raise InstanceError("no prompts to estimate from")
    reus = [1.0] * m if reu is None else list(reu)
    sizes = m_grid(m) if grid is None else [arg.integer(x, "grid", minimum=1, maximum=m)
                                            for x in grid]
    perm = np.random.default_rng(seed).permutation(m)
    out = []
    for size in sizes:
        sub = perm[:size]
        deu = np.array([np.mean(rows[i]) for i in sub])
        for name, reu_i in (("certified", [reus[i] for i in sub]),
                            ("best_of_k", [max(rows[i]) for i in sub])):
            keep = np.array([x is not None for x in reu_i])
            row: dict[str, Any] = {"M": int(size), "reading": name, "prompts": int(keep.sum())}
            if keep.any():
                g = np.array([x for x in reu_i if x is not None], dtype=float) - deu[keep]
                lo, hi, _ = _bootstrap(g, resamples, seed, confidence)
                row.update(rvr=float(g.mean()), rvr_ci=[lo, hi], ci_width=hi - lo,
                           bound_prompts=math.sqrt(2 * math.log(6 / delta) / int(keep.sum())))
            out.append(row)
    return out


def verification_term(m: int, k: int, l: int, delta: float = 0.05, *,
                      reading: Reading = "certified") -> float:
    """Term (III) of Theorem 1, the verification error, for a stochastic verifier of L
    outcomes per response.

    Parameters
    ----------
    m, k, l : int
        Prompts M, responses per prompt K, verifier calls per response L.
    delta : float, default 0.05
        Failure probability of the whole bound (the term holds at δ/3).
    reading : {"certified", "best_of_k"}
        The REU reading (see :func:`error_bounds`).

    Returns
    -------
    float
        ``certified``: √(ln(12/δ) / (2MKL)); ``best_of_k``:
        min(1 − 1/K, √(ln(2K)/(2L)) + √(ln(6/δ)/(2M)) + √(ln(12/δ)/(2MKL))).

    Examples
    --------
    >>> round(verification_term(100, 8, 1), 4)
    0.0585
    >>> round(verification_term(100, 8, 4), 4)
    0.0293

    Notes
    -----
    The value of :func:`error_bounds` with ``deterministic=False``. It falls like
    1/√L in the certified reading and only its first part does in best-of-K. It bounds
    the verifier's variance, never its bias. O(1).

    References
    ----------
    Qian & He (2026), Theorem 1, App. D (Table 17). Hoeffding (1963), JASA 58.
    """
    return error_bounds(m, k, delta, verifier_calls=l, deterministic=False,
                        reading=reading)["verification"]


def l_sweep(utilities: Sequence[Sequence[Any]], *, reu: Sequence[float | None] | None = None,
            delta: float = 0.05, resamples: int = 1000, seed: int = 0,
            confidence: float = 0.95, grid: Sequence[int] | None = None) -> list[dict]:
    """The verification term and the RVR estimate across the verifier budget L (Table 17).

    Parameters
    ----------
    utilities : sequence of sequences
        The M × K utility matrix; entries that are lists of L outcomes make the verifier
        stochastic.
    reu, delta, resamples, seed, confidence
        As in :func:`rational_value_risk`.
    grid : sequence of int, optional
        Budgets (default 1, 2, 4, … up to the fewest outcomes L of a response for a
        stochastic verifier; 1, 2, 4, …, 32 otherwise).

    Returns
    -------
    list of dict
        Per (L, reading): ``L``, ``reading``, ``verification`` (term III at that L, from
        the data's M and K), ``total`` (the bound at that L) and, where every response
        has L outcomes, ``rvr`` and ``rvr_ci`` estimated from the first L outcomes of
        each response (``rvr`` None otherwise).

    Notes
    -----
    For a deterministic verifier (prefcert's) term (III) is 0 at every L; the rows then
    give the term a stochastic verifier of L calls would add at this M and K.
    O(|grid| · (B·M + M·K·L)).

    References
    ----------
    Qian & He (2026), Theorem 1, App. D, Table 17.
    """
    m = len(utilities)
    if not m:
        raise InstanceError("no prompts to estimate from")
    stochastic = any(isinstance(x, (list, tuple)) for row in utilities for x in row)
    l_min = min(len(x) if isinstance(x, (list, tuple)) else 1
                for row in utilities for x in row)
    k = min(len(row) for row in utilities)
    k_max = max(len(row) for row in utilities)
    if grid is None:
        grid = k_budgets(l_min) if stochastic else [1, 2, 4, 8, 16, 32]
    out = []
    for ll in grid:
        arg.integer(ll, "L", minimum=1)
        est = None
        if stochastic and ll <= l_min:
            first = [[list(x)[:ll] if isinstance(x, (list, tuple)) else [x] for x in row]
                     for row in utilities]
            est = rational_value_risk(first, reu=reu, delta=delta, resamples=resamples,
                                      seed=seed, confidence=confidence, deterministic=False)
        for name in READINGS:
            b = error_bounds(m, k, delta, verifier_calls=ll, deterministic=False,
                             reading=name, k_max=k_max)
            row: dict[str, Any] = {"L": ll, "reading": name,
                                   "verification": b["verification"], "total": b["total"],
                                   "formula": b["formulas"]["verification"], "rvr": None}
            x = est["readings"][name] if est else {}
            if x.get("prompts"):
                row.update(rvr=x["rvr"], rvr_ci=x["rvr_ci"])
            out.append(row)
    return out


def add_analyses(res: dict, scored: Sequence[Mapping[str, Any]], *, sc: Sequence[int] = (),
                 ties: str = "first", m_sweep_on: bool = False, l_sweep_on: bool = False,
                 delta: float = 0.05, resamples: int = 1000, seed: int = 0) -> dict:
    """Add to an estimate ``res`` (of :func:`risk_table`) the SC(n) estimates
    (``self_consistency``: one per n of ``sc``, SC(1) first), the M sweep (``m_sweep``)
    and the L sweep (``l_sweep``) of the per-prompt records ``scored`` (``utilities``,
    ``reu_certified`` and, for SC, ``keys``). InstanceError when SC is asked of records
    without keys."""
    us = [s["utilities"] for s in scored]
    reu = [s["reu_certified"] for s in scored]
    if sc:
        if any(s.get("keys") is None for s in scored):
            raise InstanceError("SC(n) needs the answer key of every sample (\"keys\" in "
                                "the utilities records)")
        keys = [s["keys"] for s in scored]
        res["self_consistency"] = [
            self_consistency(us, keys, n, reu=reu, ties=ties, delta=delta,
                             resamples=resamples, seed=seed)
            for n in sorted({1, *sc})]
    if m_sweep_on:
        res["m_sweep"] = m_sweep(us, reu=reu, delta=delta, resamples=resamples, seed=seed)
    if l_sweep_on:
        res["l_sweep"] = l_sweep(us, reu=reu, delta=delta, resamples=resamples, seed=seed)
    return res
