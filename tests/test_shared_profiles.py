"""The preference suite's shared profiles (issue 24): ``--param profiles=shared`` writes
each distinct profile once to ``profiles.jsonl`` and prompts that refer to it; every
reader resolves the references, so the prompts read — through the console script, the
Python readers, the Inspect dataset of a benchmark folder and the lm-eval export — are the
self-contained ones byte for byte, and the other files are unchanged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefcert.bench.generate import (
    PROFILES_FILE,
    _dumps,
    read_profiles,
    read_prompts,
    resolve_profiles,
    text_key,
)
from prefcert.formal.errors import InstanceError
from conftest import cli as run

SUITE = "indeterminacy-preference"
SMALL = ("--sizes", "50", "--per-cell", "1", "--jobs", "1")



@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("profiles")
    run("generate", SUITE, "-o", root / "inline", *SMALL)
    run("generate", SUITE, "-o", root / "shared", *SMALL, "--param", "profiles=shared")
    return root / "inline", root / "shared"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_shared_form_resolves_to_the_self_contained_prompts_byte_for_byte(pair):
    inline, shared = pair
    assert not (inline / PROFILES_FILE).exists()          # the default: no profiles file
    assert (shared / "prompts.jsonl").stat().st_size * 4 < \
        (inline / "prompts.jsonl").stat().st_size
    raw = [json.loads(x) for x in _lines(shared / "prompts.jsonl")]
    assert all("profile_ref" in r for r in raw)           # every JSON-profile prompt shares
    profiles = read_profiles(shared / PROFILES_FILE)
    texts = [json.loads(x)["text"] for x in _lines(shared / PROFILES_FILE)]
    assert len(texts) == len(set(texts)) == len(profiles)           # each written once
    assert {r["profile_ref"]["sha256"] for r in raw} == set(profiles)
    resolve_profiles(raw, profiles)
    assert [_dumps(r) for r in raw] == _lines(inline / "prompts.jsonl")
    assert [_dumps(r) for r in read_prompts(shared)] == _lines(inline / "prompts.jsonl")
    assert read_prompts(shared / "prompts.jsonl") == read_prompts(inline / "prompts.jsonl")
    for name in ("instances.jsonl", "labels.jsonl"):
        assert (shared / name).read_bytes() == (inline / name).read_bytes()
    a, b = (json.loads((d / "manifest.json").read_text()) for d in pair)
    assert b.pop("parameters")["profiles"] == "shared" and "parameters" not in a
    assert a == b


def test_console_script_scores_and_feedback_read_the_same_prompts(pair, tmp_path):
    inline, shared = pair
    prompts = read_prompts(inline)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"]}) + "\n"
                               for p in prompts))
    outs = []
    for folder in pair:
        out = tmp_path / f"{folder.name}.scores.jsonl"
        run("score", folder / "prompts.jsonl", answers, "-o", out)
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert all(json.loads(x)["verdict"] == "correct" for x in outs[1].decode().splitlines())


def test_inspect_dataset_and_lm_eval_export_resolve_the_references(pair, tmp_path):
    from prefcert.bench.dataset import benchmark_entries
    inline, shared = pair
    assert benchmark_entries(shared) == benchmark_entries(inline)
    for folder in pair:
        run("export", "lm-eval", SUITE, tmp_path / folder.name, "--benchmark", folder)
    files = sorted(p.relative_to(tmp_path / "inline")
                   for p in (tmp_path / "inline").rglob("*") if p.is_file())
    assert files
    for f in files:
        assert (tmp_path / "shared" / f).read_bytes() == (tmp_path / "inline" / f).read_bytes()


def test_shared_spans_with_text_before_them_and_per_agent_lists(tmp_path):
    """The App. M prompts put a demonstration before the profile (the offset moves); the
    sentence encoding shows one agent's list (shared when several prompts show it)."""
    for extra in (("--param", "design=mitigation"), ("--encoding", "sentences")):
        a, b = tmp_path / f"{extra[1]}-inline", tmp_path / f"{extra[1]}-shared"
        run("generate", SUITE, "-o", a, *SMALL, *extra)
        run("generate", SUITE, "-o", b, *SMALL, *extra, "--param", "profiles=shared")
        assert [_dumps(r) for r in read_prompts(b)] == _lines(a / "prompts.jsonl")
        assert (b / PROFILES_FILE).is_file()


def test_overwrite_without_sharing_drops_the_old_profiles_file(pair, tmp_path):
    out = tmp_path / "b"
    run("generate", SUITE, "-o", out, *SMALL, "--param", "profiles=shared")
    assert (out / PROFILES_FILE).is_file()
    run("generate", SUITE, "-o", out, *SMALL, "--overwrite")
    assert not (out / PROFILES_FILE).exists()
    assert (out / "prompts.jsonl").read_bytes() == (pair[0] / "prompts.jsonl").read_bytes()


def test_bad_references_and_profiles_are_refused_in_one_line(pair, tmp_path):
    shared = pair[1]
    raw = _lines(shared / "prompts.jsonl")
    # a missing profiles file
    (tmp_path / "prompts.jsonl").write_text("\n".join(raw[:3]) + "\n")
    with pytest.raises(InstanceError, match="missing beside the prompts"):
        read_prompts(tmp_path / "prompts.jsonl")
    # a profile whose text is not its key
    rec = json.loads(_lines(shared / PROFILES_FILE)[0])
    (tmp_path / PROFILES_FILE).write_text(json.dumps({**rec, "text": rec["text"] + " "}) + "\n")
    with pytest.raises(InstanceError, match="SHA-256"):
        read_prompts(tmp_path / "prompts.jsonl")
    # a reference to no profile, and a malformed one
    with pytest.raises(InstanceError, match="does not hold"):
        resolve_profiles([{"id": "1", "prompt": "ab",
                           "profile_ref": {"sha256": text_key("x"), "offset": 1}}], {})
    for ref in ({"sha256": text_key("x"), "offset": 9}, {"sha256": 3, "offset": 0}, "x"):
        with pytest.raises(InstanceError, match="malformed"):
            resolve_profiles([{"id": "1", "prompt": "ab", "profile_ref": ref}],
                             {text_key("x"): "x"})
    r = run("generate", SUITE, "-o", tmp_path / "c", *SMALL, "--param", "profiles=some",
            check=False)
    assert r.returncode == 2 and "profiles is inline or shared" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_parquet_rows_are_self_contained_under_shared_profiles(pair, tmp_path):
    """Also the regression test of the dataset card of splits whose schemas differ (here
    ``size_50`` and the size-free partial orders): the card's split list was shadowed by
    a set of field names (TypeError)."""
    pytest.importorskip("pyarrow")
    out = tmp_path / "pq"
    run("generate", SUITE, "-o", out, *SMALL, "--format", "parquet", "--param",
        "profiles=shared")
    assert not (out / PROFILES_FILE).exists()
    assert read_prompts(out) == read_prompts(pair[0])


@pytest.mark.parametrize("seed", range(30))
def test_spliced_lines_equal_the_plain_encoding(seed):
    """_LineWriter's lines (a cached span's encoding spliced in) are _dumps's, byte for
    byte, on texts full of what JSON escapes (quotes, backslashes, control characters,
    NUL, non-ASCII), with the span anywhere, repeated and not."""
    import random

    from prefcert.bench.generate import _LineWriter, _Spanned
    rng = random.Random(seed)
    alphabet = ['"', "\\", "\n", "\t", "\x00", "\x1f", "é", "→", "a", " ", "{", "}", "\u2028"]
    write = _LineWriter(keep=2)
    shared = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
              for _ in range(3)]
    for _ in range(20):
        mid = rng.choice(shared)
        before = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 10)))
        after = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 10)))
        rec = _Spanned({"id": "00001", "x": rng.choice(alphabet), "prompt": before + mid + after,
                        "answer": rng.choice(alphabet)})
        rec.span = (len(before), len(before) + len(mid))
        assert write(rec) == _dumps(dict(rec))
