"""Incomplete preference profiles on plain Python data: necessary and possible winners.
Re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, overload

from ..formal.errors import CertificateError
from . import arguments as arg
from .types import Certificate, Profile, Semantics

SEMANTICS = ("unknown", "truncated")


def _winner(profile: object, rule: str, item: str, items: object, semantics: object
            ) -> tuple[Any, dict[str, Any], Any]:
    from ..formal.preference import parse_preference_data, resolve, validate
    from ..oracles.preference_winner import winner
    voters = arg.mapping(profile, "profile", "voter -> list or object")
    arg.text(item, "item")
    data: dict[str, Any] = {"profile": dict(voters),
                            "semantics": arg.choice(semantics, "semantics", SEMANTICS)}
    if items is not None:
        data["items"] = arg.names(items, "items", "items")
    model = parse_preference_data(data)
    # the question as an instance would ask it: an unknown rule (or one without
    # incomplete profiles) is refused with the CLI's message
    _, params = resolve({"type": "winner", "rule": rule, "item": item})
    validate(model, "winner", params)
    return model, params, winner(model, params)


def _winner_answer(kind: str, profile: Profile, rule: str, item: str,
                   items: Sequence[str] | None, semantics: Semantics, certificate: bool
                   ) -> bool | tuple[bool, Certificate]:
    model, params, out = _winner(profile, rule, item, items, semantics)
    if out.verdict == "unknown":
        raise CertificateError("the winner question could not be settled by the oracle; "
                               "use prefcert.label for the solver engines")
    answer: bool = out.verdict == "true" if kind == "necessary" else out.verdict != "false"
    if not certificate:
        return answer
    return answer, _proved_query(model, params, out)


def _proved_query(model: Any, params: dict[str, Any], out: Any) -> Certificate:
    from ..formal import checker
    from ..pipeline.registry import spec
    checker.check(spec("preference"), model, "winner", params, out.verdict, out.solution,
                  out.certificate)
    return {"verdict": out.verdict, **out.certificate}


@overload
def necessary_winner(profile: Profile, rule: str, item: str, *,
                     items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                     certificate: Literal[False] = False) -> bool: ...
@overload
def necessary_winner(profile: Profile, rule: str, item: str, *,
                     items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                     certificate: Literal[True]) -> tuple[bool, Certificate]: ...
@overload
def necessary_winner(profile: Profile, rule: str, item: str, *,
                     items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                     certificate: bool) -> bool | tuple[bool, Certificate]: ...
def necessary_winner(profile: Profile, rule: str, item: str, *,
                     items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                     certificate: bool = False) -> bool | tuple[bool, Certificate]:
    """Does ``item`` (co-)win in every completion of incomplete preferences?

    Parameters
    ----------
    profile : dict of str to list or dict
        Voter -> a weak order (list best first, a tie = unknown order), or
        ``{"edges": [[a, b], ...]}`` (a partial order), or ``{"choices": ...}``; an
        optional ``"count"`` gives identical voters.
    rule : {"plurality", "borda", "copeland"}
        A rule that supports incomplete profiles (:func:`prefcert.formal.rules.rule_names`
        with ``incomplete=True``).
    item : str
    items : sequence of str, optional
        Every item (default: those mentioned).
    semantics : {"unknown", "truncated"}
        Reading of incomplete weak orders: unlisted items incomparable, or below the
        listed ones.
    certificate : bool, default False
        Also return the proof (per-pair bounds, a Hall violator, or two completions).

    Returns
    -------
    bool
        True when ``item`` is a necessary co-winner; with ``certificate=True`` a pair
        ``tuple[bool, dict]`` (answer, certificate) where the certificate carries the query's verdict (``true``,
        ``undetermined`` or ``false``), accepted by the trusted checker.

    Raises
    ------
    InstanceError
        A ValueError: an unknown rule (naming it and the known rules, as ``prefcert
        label`` does), item or malformed profile.

    Examples
    --------
    >>> profile = {"v1": ["a", "b", "c"], "v2": ["a", ["b", "c"]], "v3": ["b", "a", "c"]}
    >>> necessary_winner(profile, "borda", "a"), necessary_winner(profile, "plurality", "b")
    (True, False)

    Notes
    -----
    Polynomial for plurality and Borda (per-voter minimisation); Copeland uses a sound
    bound and may need the solver engines of :func:`prefcert.label`.

    References
    ----------
    Konczak & Lang 2005; Xia & Conitzer 2011, "Determining possible and necessary winners
    given partial orders", JAIR 41.
    """
    return _winner_answer("necessary", profile, rule, item, items, semantics, certificate)


@overload
def possible_winner(profile: Profile, rule: str, item: str, *,
                    items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                    certificate: Literal[False] = False) -> bool: ...
@overload
def possible_winner(profile: Profile, rule: str, item: str, *,
                    items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                    certificate: Literal[True]) -> tuple[bool, Certificate]: ...
@overload
def possible_winner(profile: Profile, rule: str, item: str, *,
                    items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                    certificate: bool) -> bool | tuple[bool, Certificate]: ...
def possible_winner(profile: Profile, rule: str, item: str, *,
                    items: Sequence[str] | None = None, semantics: Semantics = "unknown",
                    certificate: bool = False) -> bool | tuple[bool, Certificate]:
    """Does ``item`` (co-)win in some completion of incomplete preferences?

    Parameters
    ----------
    profile : dict of str to list or dict
        As for :func:`necessary_winner`.
    rule : {"plurality", "borda", "copeland"}
    item : str
    items : sequence of str, optional
        Every item (default: those mentioned).
    semantics : {"unknown", "truncated"}
        Reading of incomplete weak orders.
    certificate : bool, default False
        Also return the proof (a winning completion, or a refutation).

    Returns
    -------
    bool
        True when ``item`` is a possible co-winner; with ``certificate=True`` a pair
        ``tuple[bool, dict]`` (answer, certificate) as for :func:`necessary_winner`.

    Raises
    ------
    InstanceError
        As for :func:`necessary_winner`.

    Examples
    --------
    >>> profile = {"v1": ["a", "b", "c"], "v2": ["a", ["b", "c"]], "v3": ["b", "a", "c"]}
    >>> possible_winner(profile, "plurality", "b"), possible_winner(profile, "borda", "c")
    (False, False)

    Notes
    -----
    Plurality by max-flow (polynomial); Borda and Copeland are NP-complete in general.

    References
    ----------
    Betzler & Dorn 2010, JCSS 76; Xia & Conitzer 2011, JAIR 41.
    """
    return _winner_answer("possible", profile, rule, item, items, semantics, certificate)
