"""The samplers derive thousands of candidate models from one parsed base
(``DecisionTask.derive`` / ``edited``) instead of parsing each candidate's JSON. Each
derived model must equal ``parse_decision`` of the correspondingly edited JSON, built here
with the samplers' own dict edits (``with_source``, ``hide``, ``apply_edits``)."""
from __future__ import annotations

import random

import pytest

from prefcert.formal.decision import OBJECTIVES, STRUCTURES, parse_decision
from prefcert.formal.errors import InstanceError
from prefcert.generators.decision import (_constraint_candidates, apply_edits, base_content,
                                          hide, parties, template, with_source)


def same(model, data: dict) -> None:
    parsed = parse_decision(data)
    assert model.to_json() == parsed.to_json()
    assert model == parsed


@pytest.mark.parametrize("structure", STRUCTURES)
def test_derive_equals_parsing_the_edited_json(structure):
    rng = random.Random(f"derive-{structure}")
    for trial in range(12):
        base = base_content(structure, rng.randint(2, 5), rng)
        tm = template(base)
        objs = list(OBJECTIVES[structure])
        menu = rng.sample(objs, rng.randint(1, len(objs)))
        same(tm.derive(objectives=menu), with_source(base, "objective", menu))
        party = rng.choice(parties(base))
        pos = rng.randrange(len(base["preferences"][party]) - 1)
        obj = rng.choice(objs)
        same(tm.derive(source="preference", objectives=[obj], hide=(party, pos)),
             hide(with_source(base, "preference", [obj]), party, pos))
        for act, relax in _constraint_candidates(base, rng, 3):
            for cons in (act, relax):
                if not cons:
                    continue
                ids = [c["id"] for c in cons]
                data = with_source(base, "constraint", [obj], constraints=cons,
                                   permitted_edits=ids)
                model = tm.derive(source="constraint", objectives=[obj], constraints=cons,
                                  permitted=ids)
                same(model, data)
                drop = {"constraint": ids[0]}
                edits = [drop] if structure != "apartment" or len(ids) > 1 else []
                if edits:
                    same(model.edited(edits), apply_edits(data, edits))


def test_derive_refuses_what_parsing_refuses():
    rng = random.Random(3)
    base = base_content("allocation", 3, rng)
    tm = template(base)
    for kwargs, data in (
            ({"objectives": ["nosuch"]}, with_source(base, "objective", ["nosuch"])),
            ({"source": "guess"}, with_source(base, "guess", ["utilitarian"])),
            ({"hide": ("A1", 2)}, None)):
        with pytest.raises(InstanceError):
            tm.derive(**kwargs)
        if data is not None:
            with pytest.raises(InstanceError):
                parse_decision(data)
