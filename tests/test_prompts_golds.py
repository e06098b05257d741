"""Issue 19 §2: prompts and golds that agree with each other and with the papers (K&W 2026,
Amiri-Margavi et al. 2026, Li et al. 2026). Every bench goes through the console script."""
from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path

import pytest
from conftest import HASHSEED_0, cli

STRONG_EXEMPT = {"pareto_optimal"}       # implied by core, utilitarian, rank-maximal outcomes


run = partial(cli, env=HASHSEED_0)


def read_jsonl(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


def score(bench: Path, answers: dict[str, str | None], tmp: Path) -> dict[str, dict]:
    """Scored records by prompt id, through ``prefcert score``."""
    a, out = tmp / "answers.jsonl", tmp / "scored.jsonl"
    a.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n" for k, v in answers.items()))
    run("score", str(bench / "prompts.jsonl"), str(a), "-o", str(out))
    return {r["id"]: r for r in read_jsonl(out)}


@pytest.fixture(scope="module")
def alg(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("alg") / "b"
    run("generate", "indeterminacy-algorithmic", "-o", str(out), "--per-cell", "2",
        "--sizes", "10")
    return out


@pytest.fixture(scope="module")
def pref(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pref") / "b"
    run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1")
    return out


# ------------------------------------------------------------------------------- HA-SI

def test_ha_si_gold_leaves_agents_with_unranked_houses_unmatched(alg, tmp_path):
    """K&W F.2.1: an agent is never given an alternative it did not rank and stays
    unmatched. The gold gives nobody an unranked house (their own included), the prompt says
    so and how to write it, the gold scores correct and the allocation that hands the
    unmatched agents their unranked endowments does not."""
    prompts = [p for p in read_jsonl(alg / "prompts.jsonl")
               if p["cell"].get("setting") == "HA-SI" and p["answer_shape"] == "outcome"
               and p["answer"] != "{}"]
    assert prompts
    inst = {i["id"]: i for i in read_jsonl(alg / "instances.jsonl")}
    answers, completed = {}, {}
    for p in prompts:
        hm = next(inst[i] for i in p["instance_ids"] if inst[i]["domain"] == "housing_market")
        prefs = hm["preferences"]
        listed = {a: {h for t in lst for h in (t if isinstance(t, list) else [t])}
                  for a, lst in prefs.items()}
        gold = json.loads(p["answer"])
        assert all(h in listed[a] for a, h in gold.items()), p["id"]
        assert "unacceptable" in p["prompt"] and "leave unassigned agents out" in p["prompt"]
        answers[p["id"]] = "<answer>" + p["answer"] + "</answer>"
        full = {**{a: hm["endowment"][a] for a in prefs if a not in gold
                   and hm["endowment"][a] not in gold.values()}, **gold}
        if full != gold:
            completed[p["id"]] = "<answer>" + json.dumps(full) + "</answer>"
    assert completed, "no HA-SI gold leaves an agent unmatched"
    got = score(alg, answers, tmp_path)
    assert {got[k]["verdict"] for k in answers} == {"correct"}
    (tmp_path / "c").mkdir()
    got = score(alg, completed, tmp_path / "c")
    assert "correct" not in {got[k]["verdict"] for k in completed}


# ------------------------------------------------------------------ distinctness filter

def test_standard_menu_candidates_satisfy_no_other_strong_notion(alg):
    """K&W F.2.1: the candidates of a standard menu are kept distinct — none satisfies a
    strong notion of its setting other than its own, contaminated ones none at all."""
    menus = [p["task"] for p in read_jsonl(alg / "prompts.jsonl")
             if p["cell"].get("design") == "standard" and p["answer_shape"] == "mcq"]
    assert menus
    for t in menus:
        for o in t["options"]:
            strong = set(o["satisfies"]) - STRONG_EXEMPT
            own = set() if o["source"] == "contaminated" else {o["source"]}
            assert strong <= own, (t["setting"], o["source"], o["satisfies"])


def test_core_is_stated_and_checked_as_the_weak_core(alg):
    """K&W Table 25: "core" blocks only when every member is strictly better off; the
    prompt states that condition and the answer is checked against it (prefcert-0.2 set:
    the strict core)."""
    core = [p for p in read_jsonl(alg / "prompts.jsonl") if p.get("target") == "core"]
    assert core and all(p["checked_notion"] == "weak_core" for p in core)
    core = [p for p in core if p["cell"]["task"] == "core"]         # the notion named
    assert core
    assert all("strictly better off" in p["prompt"] and "at least as" not in p["prompt"]
               for p in core)


def test_selection_without_nota_has_no_nota_gold(alg):
    prompts = read_jsonl(alg / "prompts.jsonl")
    ne = [p for p in prompts if p["answer_shape"] == "mcq" and p["cell"].get("design") == "hard"
          and not p["cell"]["feasible"] and not p["cell"]["escape"]]
    assert ne and all(p["answer"] == "none" and "None of the above" not in p["prompt"]
                      for p in ne)


def test_algorithmic_prompts_close_with_the_scratchpad_request(alg):
    """K&W App. L / K.2: the scratchpad request follows the answer format."""
    prompts = read_jsonl(alg / "prompts.jsonl")
    assert all(p["prompt"].rstrip().endswith("</scratchpad> tags.") for p in prompts)


# --------------------------------------------------------------- truncated-list counts

def test_truncated_list_counts_label_gold_and_scoring_agree(pref, tmp_path):
    """Default reading si_counts = entailed (K&W Table 8): the count on truncated lists is
    determined (label under pair_count = stated) and the gold is that number; an
    abstention is ambiguous (corpus reading R6: the paper does not settle whether
    abstaining on an SI count is wrong), never correct."""
    prompts = [p for p in read_jsonl(pref / "prompts.jsonl")
               if p["cell"]["question"] == "count" and p["cell"]["pref"] == "SI"]
    labels = {x["label_id"]: x for x in read_jsonl(pref / "labels.jsonl")}
    assert prompts
    answers = {}
    for p in prompts:
        lab = labels[p["gold_label_ids"][0]]
        assert lab["verdict"] == "determined"
        if p["cell"]["format"] == "mcq":
            assert p["answer"] != p["abstain_option"]
            assert p["options"][p["answer"]] == str(lab["solution"]["value"])
            answers[p["id"]] = f"<answer>{p['abstain_option']}</answer>"
        else:
            assert p["answer"] == str(lab["solution"]["value"])
            answers[p["id"]] = "<answer>unknown</answer>"
    got = score(pref, {p["id"]: f"<answer>{p['answer']}</answer>" for p in prompts}, tmp_path)
    assert {r["verdict"] for r in got.values()} == {"correct"}
    (tmp_path / "a").mkdir()
    got = score(pref, answers, tmp_path / "a")
    assert {r["verdict"] for r in got.values()} == {"ambiguous"}


def test_truncated_list_counts_undetermined_reading(tmp_path):
    """The other reading, --reading si_counts=undetermined: labels undetermined, only the
    abstention is the gold; the manifest records the reading."""
    out = tmp_path / "b"
    run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1",
        "--reading", "si_counts=undetermined")
    assert json.loads((out / "manifest.json").read_text())["readings"]["si_counts"] == \
        "undetermined"
    labels = {x["label_id"]: x for x in read_jsonl(out / "labels.jsonl")}
    prompts = [p for p in read_jsonl(out / "prompts.jsonl")
               if p["cell"]["question"] == "count" and p["cell"]["pref"] == "SI"]
    assert prompts
    for p in prompts:
        lab = labels[p["gold_label_ids"][0]]
        if lab["verdict"] == "undetermined":
            assert p["answer"] == (p["abstain_option"] if p["cell"]["format"] == "mcq" else "unknown")
    assert any(labels[p["gold_label_ids"][0]]["verdict"] == "undetermined" for p in prompts)


def test_unknown_reading_is_bad_input(tmp_path):
    for bad in ("si_counts=maybe", "nope=1", "si_counts"):
        r = run("generate", "indeterminacy-preference", "-o", str(tmp_path / "x"),
                "--per-cell", "1", "--reading", bad, check=False)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "Traceback" not in r.stderr and not (tmp_path / "x").exists()


# ------------------------------------------------------------------ natural language

def test_narrative_prompts_ask_in_their_own_vocabulary(tmp_path):
    """--encoding narrative: the question names the dishes the preferences name, only the
    queried agent's list is shown (K&W H.5), and an answer in the prompt's vocabulary
    scores like the gold."""
    out = tmp_path / "b"
    run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1",
        "--encoding", "narrative")
    prompts = [p for p in read_jsonl(out / "prompts.jsonl")
               if p["cell"]["family"] in ("atomic", "comparative", "bundle", "topk")]
    assert prompts
    for p in prompts:
        prefs, question = p["prompt"].split("</preferences>")
        assert not re.search(r"\bC\d+\b", p["prompt"]), p["prompt"][-300:]
        assert len(prefs.split("<preferences>")[1].strip().splitlines()) == 1
        assert p["task"]["question"]["agent"] in prefs
    vocab = [p for p in prompts if re.search(r"dish \d+", p["answer"])]
    assert vocab
    got = score(out, {p["id"]: f"<answer>{p['answer']}</answer>" for p in prompts}, tmp_path)
    assert {r["verdict"] for r in got.values()} == {"correct"}


# ----------------------------------------------------------------------- template sets

HINTS = ("nothing is known", "no other comparison", "not ranked", "if known",
         "not enough information")


def test_default_free_flow_prompts_carry_no_indeterminacy_hint(pref):
    """The paper's framing experiment (ff vs ffk vs MCQ) needs ff prompts that do not
    suggest the answer may be unknown."""
    ff = [p for p in read_jsonl(pref / "prompts.jsonl") if p["cell"]["format"] == "ff"]
    assert ff
    for p in ff:
        low = p["prompt"].lower()
        assert not any(h in low for h in HINTS), (p["cell"], [h for h in HINTS if h in low])
        assert "uncertain" not in low and "can't decide" not in low


def test_topk_prompt_3_asks_for_the_list_first_and_its_gold_is_offered(pref, tmp_path):
    """K&W H.3 prompt 3: list the top k, then yes / no only. Under the default reading
    (topk_ties = keeps_tie) its gold is "yes", one of the offered answers."""
    p3 = [p for p in read_jsonl(pref / "prompts.jsonl")
          if p["cell"]["case"] == "p3_undetermined"]
    assert p3
    for p in p3:
        assert re.search(r"First select the top-\d+ choices of A\d+\. Then say whether",
                         p["prompt"])
        assert p["answer"] == "yes" and "yes or no" in p["prompt"]
    got = score(pref, {p["id"]: "<answer>yes</answer>" for p in p3}, tmp_path)
    assert {r["verdict"] for r in got.values()} == {"correct"}


def test_prefcert_0_2_template_set_keeps_the_old_wording(tmp_path):
    out = tmp_path / "b"
    run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1",
        "--templates", "prefcert-0.2")
    prompts = read_jsonl(out / "prompts.jsonl")
    si = [p for p in prompts if p["cell"]["pref"] == "SI"]
    assert si and all("nothing is known about where it stands" in p["prompt"] for p in si)
    assert json.loads((out / "manifest.json").read_text())["templates"]["name"] == \
        "prefcert-0.2"


def test_a_user_template_file_overrides_keys(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('name = "mine"\n[preference.task]\n'
                 'count = "Count the agents that rank $a above $b."\n')
    out = tmp_path / "b"
    run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1",
        "--templates", str(f))
    prompts = read_jsonl(out / "prompts.jsonl")
    counts = [p for p in prompts if p["cell"]["question"] == "count"]
    assert counts and all("Count the agents that rank C" in p["prompt"] for p in counts)
    other = [p for p in prompts if p["cell"]["question"] == "kth"]
    assert other and all("most preferred choice?" in p["prompt"] for p in other)
    origin = json.loads((out / "manifest.json").read_text())["templates"]
    assert origin["name"] == "mine" and origin["base"] == "khanna-wang" and origin["sha256"]


@pytest.mark.parametrize("text, where", [
    ('[preference.task]\ncount = "How many prefer $x?"\n', "mine.toml:2:"),
    ('[preference.task]\nnope = "x"\n', "mine.toml:2:"),
    ('[preference]\nprompt = "no slots"\n', "mine.toml:2:"),
    ("[preference\n", "mine.toml"),
])
def test_bad_template_file_is_one_line_exit_2(tmp_path, text, where):
    f = tmp_path / "mine.toml"
    f.write_text(text)
    r = run("generate", "indeterminacy-preference", "-o", str(tmp_path / "x"),
            "--per-cell", "1", "--templates", str(f), check=False)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert where in r.stderr
    assert not (tmp_path / "x").exists()


def test_shipped_template_sets_are_complete():
    from prefcert.bench.indeterminacy import algorithmic, preference
    from prefcert.bench.templates import validate_shipped
    validate_shipped(preference.TEMPLATES)
    validate_shipped(algorithmic.TEMPLATES)


# ------------------------------------------------------------------------------ voting

def test_voting_repeated_instances_are_flagged_and_one_cluster(tmp_path):
    """At m = 3 rejection sampling draws the same election more than once: the manifest
    lists the repeats, the records carry the cluster, the bootstrap counts it once."""
    from prefcert.bench.voting_manipulation.ballots import metric
    out = tmp_path / "b"
    run("generate", "voting-manipulation", "-o", str(out), "--sizes", "3")
    dup = json.loads((out / "manifest.json").read_text())["duplicates"]
    assert dup and all(d["distinct"] < d["instances"] for d in dup)
    prompts = read_jsonl(out / "prompts.jsonl")
    later = [p for p in prompts if "duplicate_of" in p]
    assert later
    by_id = {p["instance_id"]: p for p in prompts}
    for p in later:
        first = by_id[p["duplicate_of"]]
        assert p["cluster"] == first["cluster"] == p["duplicate_of"]
        ballots = lambda q: sorted(json.dumps(b) for b in q["prompt"].splitlines()
                                   if b.startswith("- "))
        assert ballots(p) == ballots(first)
    rec = lambda iid, cl, s: {"instance_id": iid, "cluster": cl, "rule": "irv", "m": 3,
                              "stratum": "manipulable", "S": s, "O": s, "valid": True,
                              "category": "optimal" if s else "non_profitable"}
    two = [rec("x1", "x1", 1), rec("x2", "x1", 1), rec("x3", "x3", 0)]
    assert metric(two, "MDR", replicates=50)["instances"] == 2


def test_a_timeout_is_its_own_category_not_an_invalid_generation():
    from prefcert.bench.voting_manipulation.ballots import METRICS, score_ballot
    inst = {"id": "e", "domain": "election", "candidates": ["A", "B", "C"],
            "tie_break": ["A", "B", "C"], "rule": "plurality",
            "ballots": [["B", "C", "A"], ["B", "C", "A"], ["C", "A", "B"]],
            "manipulator": {"ranking": ["C", "A", "B"]}}
    sol = {"reports": {}, "profitable": [], "optimal": [], "sincere_winner": "B",
           "best_winner": "B"}
    r = score_ballot(inst, sol, None)
    assert r["category"] == "timeout" and r["S"] == r["O"] == 0
    assert METRICS["IGR"][1](r) is None and METRICS["timeout_rate"][1](r) == 1


def test_sincere_approval_ballot_is_worded_for_one_alternative():
    from prefcert.bench.voting_manipulation.ballots import render_prompt
    inst = {"candidates": ["A", "B", "C"], "tie_break": ["A", "B", "C"], "rule": "approval",
            "approval_top": 1, "ballots": [["B", "C", "A"]],
            "manipulator": {"ranking": ["A", "B", "C"]}}
    text = render_prompt(inst, "sincere")
    assert "(s)" not in text and "top 1" not in text
    assert "approves only the top alternative of one's ranking" in text


# ---------------------------------------------------------------------------- decision

def test_constrained_matching_prompt_follows_the_task_reading():
    """Li et al. O.1 read as ``da_only``: the prompt must not promise the sublattice."""
    from prefcert.bench.actionable.responses import render_prompt
    task = {"structure": "stable_matching", "source": "constraint", "agents": ["a1", "a2"],
            "items": ["b1", "b2"],
            "preferences": {"a1": ["b1", "b2"], "a2": ["b1", "b2"], "b1": ["a2", "a1"],
                            "b2": ["a1", "a2"]},
            "objectives": ["a_optimal"],
            "constraints": [{"id": "C1", "type": "forced", "agent": "a1", "item": "b1"}],
            "permitted_edits": ["C1"]}
    assert "stable matchings that meet every hard constraint" in render_prompt(task)
    da = render_prompt({**task, "reading": {"matching_constraints": "da_only"}})
    assert "meet every hard constraint" not in da and "computed without the hard" in da


# -------------------------------------------------------------------- formal conventions

HM = {"id": "t", "domain": "housing_market",
      "preferences": {"A1": ["H2"], "A2": ["H2"], "A3": ["H1", "H3"]},
      "endowment": {"A1": "H1", "A2": "H2", "A3": "H3"}}


def test_housing_market_with_unacceptable_own_houses_leaves_agents_unmatched():
    """unlisted_own_house = unacceptable (K&W F.2.1): A1 ranks only H2 (held by A2, who keeps
    it), so A1 stays unmatched; A3 may then take A1's H1 in the strict core ({A1, A3}
    weakly blocks: A1 is indifferent between nothing and H1, A3 gains)."""
    import prefcert
    m = {**HM, "conventions": {"unlisted_own_house": "unacceptable"}}
    weak = prefcert.label(m, "weak_core", engines=["oracle", "brute_force"])
    strict = prefcert.label(m, "strict_core", engines=["oracle", "brute_force"])
    assert weak["solution"] == {"A2": "H2", "A3": "H3"}
    assert strict["solution"] == {"A2": "H2", "A3": "H1"}
    assert weak["conventions"] == {"unlisted_own_house": "unacceptable"}
    assert prefcert.check(weak, m) and prefcert.check(strict, m)
    for bad in ({"A1": "H1", "A2": "H2", "A3": "H3"},    # an unranked house given
                {"A2": "H2", "A3": "H3"}):               # blocked by {A1, A3}
        with pytest.raises(prefcert.CertificateError):
            prefcert.check({**strict, "solution": bad}, m)
    # the default reading keeps the own house acceptable
    assert prefcert.label(HM, "weak_core", engines=["oracle", "brute_force"])["solution"] == \
        {"A1": "H1", "A2": "H2", "A3": "H3"}


def test_pair_count_stated_counts_the_voters_whose_lists_entail_the_pair():
    import prefcert
    m = {"id": "p", "domain": "preference", "items": ["a", "b", "c"], "semantics": "unknown",
         "profile": {"X": ["a", "b"], "Y": ["a"], "Z": ["b", "a"]}}
    q = {"type": "count", "items": ["a", "b"]}
    lab = prefcert.label(m, q)
    assert (lab["verdict"], lab["solution"]) == ("undetermined", {"min": 1, "max": 2})
    assert "conventions" not in lab               # the default is not recorded: old bytes
    m2 = {**m, "conventions": {"pair_count": "stated"}}
    lab = prefcert.label(m2, q)
    assert (lab["verdict"], lab["solution"]) == ("determined", {"value": 1})
    assert lab["conventions"] == {"pair_count": "stated"} and prefcert.check(lab, m2)
    with pytest.raises(prefcert.CertificateError):
        prefcert.check({**lab, "solution": {"value": 2}}, m2)
