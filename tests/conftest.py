"""Shared test setup: the test data folder, hypothesis profiles, the console script,
SMTI and house-allocation strategies.

``default``: local runs. ``ci``: loaded when the environment has CI=true (as .ci/run does)
or HYPOTHESIS_PROFILE=ci; tests marked ``heavy`` scale their budgets through ``heavy_examples``.
"""
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hypothesis import HealthCheck, settings

# Real PrefLib files and reference instances with published answers, copied into the
# repository (tests/data/SOURCES.md) so the suite runs from a bare clone.
SHARED_DATA = Path(__file__).resolve().parent / "data"

settings.register_profile("default", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=100, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or \
    ("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "default")
settings.load_profile(PROFILE)

CHROMIUM = Path("/usr/bin/chromium")

#: The console script of the environment running the tests (not whichever ``prefcert`` comes
#: first on PATH), so that CLI tests exercise the installation under test.
PREFCERT = shutil.which("prefcert", path=os.path.dirname(sys.executable)) or shutil.which("prefcert")


#: The environment with string hashing fixed, for runs whose output is compared byte for byte.
HASHSEED_0 = {**os.environ, "PYTHONHASHSEED": "0"}


def cli(*args: object, check: bool = True, code: int = 0, **kw) -> subprocess.CompletedProcess:
    """Run ``prefcert ARGS`` (each argument ``str``-ed) as a user would, capturing text.

    ``check``: fail the test, showing the end of stderr, unless the exit status is ``code``.
    Other keywords go to :func:`subprocess.run` (``env`` replaces the environment, ``cwd``,
    ``input``)."""
    r = subprocess.run([PREFCERT, *map(str, args)], capture_output=True, text=True, **kw)
    if check:
        assert r.returncode == code, r.stdout[-1000:] + r.stderr[-3000:]
    return r


def require_chromium() -> None:
    """Skip where Debian's Chromium or playwright is missing; fail instead under CI, which
    installs both."""
    if not CHROMIUM.exists() or not __import__("importlib").util.find_spec("playwright"):
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs Chromium (apt-get install chromium) and playwright")
        pytest.skip("Chromium or playwright not installed")


@contextmanager
def headless_page(tmp_path: Path) -> Iterator[tuple]:
    """(page, errors): a Playwright page in headless Chromium, in a fresh profile under
    ``tmp_path``, and the list collecting the console and page errors it raises (a test
    asserts it empty). Calls :func:`require_chromium` first."""
    require_chromium()
    from playwright.sync_api import sync_playwright
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=str(CHROMIUM), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--no-first-run"], viewport={"width": 1200, "height": 900})
        try:
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, errors
        finally:
            browser.close()


def heavy_examples(local: int, ci: int) -> int:
    """Example budget of a ``heavy`` property: smaller under CI."""
    return ci if PROFILE == "ci" else local


def labels_without_timings(text: str) -> list:
    """The labels of a JSONL text with the engines' timings dropped (to compare two runs)."""
    out = []
    for line in text.splitlines():
        lab = json.loads(line)
        for e in lab["engines"]:
            e.pop("seconds")
        out.append(lab)
    return out


# --- SMTI strategies (shared by the stable-matching property tests) -----------------------

from hypothesis import strategies as st


@st.composite
def smti_instances(draw, max_side: int = 6, min_side: int = 1):
    """A random SMTI instance as a DESIGN.md dict: 1..max_side agents a side (sides may
    differ), each list an ordered subset of the other side (possibly empty or one-sided),
    cut into ties at random; ties are drawn dense often enough that super- and strongly
    stable matchings are frequently missing."""
    n_a = draw(st.integers(min_side, max_side))
    n_b = draw(st.integers(min_side, max_side))
    side_a = [f"m{i}" for i in range(1, n_a + 1)]
    side_b = [f"w{j}" for j in range(1, n_b + 1)]
    tie_p = draw(st.sampled_from([0.0, 0.3, 0.6, 0.9]))

    def one_list(others):
        order = draw(st.permutations(others))
        k = draw(st.integers(0, len(others))) if draw(st.booleans()) else len(others)
        groups = []
        for i, x in enumerate(order[:k]):
            if i and draw(st.floats(0, 1)) < tie_p:
                groups[-1].append(x)
            else:
                groups.append([x])
        return [g[0] if len(g) == 1 else g for g in groups]

    return {"id": "hyp", "domain": "stable_matching",
            "preferences": {"A": {x: one_list(side_b) for x in side_a},
                            "B": {y: one_list(side_a) for y in side_b}}}


def smti_markets(max_side: int = 6):
    """Strategy: :class:`prefcert.formal.stable_matching.Market` built from :func:`smti_instances`."""
    from prefcert.formal.stable_matching import parse_market
    return smti_instances(max_side=max_side).map(parse_market)


@st.composite
def house_allocations(draw, max_agents: int = 7, max_objects: int = 6,
                      max_len: int | None = 4, complete: bool = False,
                      tie_rates: tuple[float, ...] = (0.0, 0.3, 0.7),
                      objects_optional: bool = False):
    """A house-allocation instance dict: 1..max_agents agents, 1..max_objects objects, each
    list an ordered subset of at most ``max_len`` objects (possibly empty), cut into ties at
    a rate drawn from ``tie_rates``. ``complete``: at least as many objects as agents, and
    every agent ranks every object. ``objects_optional``: the ``objects`` list is sometimes
    left out (then objects are taken in order of first mention), never when complete."""
    n = draw(st.integers(1, max_agents))
    p = draw(st.integers(n if complete else 1, max(max_objects, n) if complete else max_objects))
    objs = [f"h{j}" for j in range(1, p + 1)]
    tie_p = draw(st.sampled_from(tie_rates))
    prefs = {}
    for i in range(1, n + 1):
        order = draw(st.permutations(objs))
        if not complete:
            order = order[:draw(st.integers(0, p if max_len is None else min(p, max_len)))]
        groups: list[list[str]] = []
        for k, h in enumerate(order):
            if k and draw(st.floats(0, 1)) < tie_p:
                groups[-1].append(h)
            else:
                groups.append([h])
        prefs[f"a{i}"] = [g[0] if len(g) == 1 else g for g in groups]
    data: dict = {"id": "hyp", "domain": "house_allocation", "preferences": prefs}
    if complete or not objects_optional or draw(st.booleans()):
        data["objects"] = objs
    return data
