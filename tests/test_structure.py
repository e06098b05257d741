"""The package's structure as promised: one installed package, layers whose imports run one
way, a trusted checker that stands alone, one registry, a one-hop API with runnable docs."""
from __future__ import annotations

import ast
import doctest
import json
import pkgutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import PREFCERT

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("formal", "oracles", "encodings", "generators", "prefcert")
HEAVY = ("numpy", "scipy", "networkx", "ortools", "z3", "pulp")


def _modules() -> list[str]:
    """Every module of the installed package (each layer walked on its own path)."""
    import importlib
    out = set()
    for pkg in ("prefcert", "prefcert.formal", "prefcert.oracles", "prefcert.encodings",
                "prefcert.generators"):
        out.add(pkg)
        out |= {m.name for m in pkgutil.walk_packages(importlib.import_module(pkg).__path__,
                                                      pkg + ".")}
    return sorted(out)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(level, absolute-or-relative module name) of every import in a source file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(0, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or ""))
            if node.module is None or node.level:
                out += [(node.level, f"{node.module or ''}.{a.name}".lstrip("."))
                        for a in node.names]
    return out


def _resolve(path: Path, level: int, name: str) -> str:
    """The installed dotted name an import in ``path`` refers to (relative ones resolved)."""
    if level == 0:
        return name
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] != "prefcert":
        parts.insert(0, "prefcert")
    package = parts[:-1]                     # the package holding the module
    base = package[:len(package) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _sources(layer: str):
    return sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("module", _modules())
def test_every_module_imports_first_in_a_fresh_interpreter(module):
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                       text=True, cwd="/")
    assert r.returncode == 0, r.stderr[-2000:]


def test_trusted_checker_imports_only_the_standard_library_and_formal_models():
    stdlib = set(sys.stdlib_module_names)
    for f in _sources("formal"):
        for level, name in _imports(f):
            target = _resolve(f, level, name)
            if level == 0:
                assert name.split(".")[0] in stdlib, f"{f}: imports {name}"
            else:
                assert target.startswith("prefcert.formal"), f"{f}: imports {target}"


def test_arrows_run_one_way():
    """prefcert → {oracles, encodings, generators} → formal; encodings never import
    oracles; engines never import a check module; nothing imports the application."""
    for layer in ("oracles", "encodings", "generators"):
        for f in _sources(layer):
            for level, name in _imports(f):
                t = _resolve(f, level, name)
                if not t.startswith("prefcert"):
                    continue
                assert not t.startswith("prefcert.formal.checker"), f"{f} imports {t}"
                assert t.startswith(("prefcert.formal", f"prefcert.{layer}")) or \
                    (layer == "generators" and t.startswith("prefcert.generators")), \
                    f"{f} imports {t}"
    for f in _sources("formal"):
        for level, name in _imports(f):
            assert not _resolve(f, level, name).startswith(
                ("prefcert.oracles", "prefcert.encodings", "prefcert.generators",
                 "prefcert.domains", "prefcert.pipeline.jobs", "prefcert.cli")), f


def _label_one_per_domain(tmp_path: Path) -> Path:
    out = tmp_path / "labels.jsonl"
    paths = [ROOT / "instances" / d / "reference.jsonl"
             for d in ("stable_matching", "housing_market", "house_allocation")]
    paths.append(ROOT / "instances" / "preflib" / "00009-00000002.soc")
    r = subprocess.run([PREFCERT, "label", *map(str, paths), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


def test_check_loads_no_solver_no_numeric_library_and_no_engine(tmp_path):
    labels = _label_one_per_domain(tmp_path)
    domains = {json.loads(t)["domain"] for t in labels.read_text().splitlines()}
    assert domains == {"stable_matching", "housing_market", "house_allocation", "preference"}
    code = ("import sys\nfrom prefcert.cli import main\n"
            f"try:\n    main(['check', {str(labels)!r}])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "print(' '.join(sorted(sys.modules)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = set(r.stdout.splitlines()[-1].split())
    assert "every certificate verified" in r.stdout
    bad = sorted(m for m in loaded if m.split(".")[0] in HEAVY
                 or m.startswith(("prefcert.oracles", "prefcert.encodings",
                                  "prefcert.generators", "prefcert.domains")))
    assert not bad, bad


def test_one_installed_top_level_package(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                        str(tmp_path), str(ROOT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("prefcert-*.whl")
    tops = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"prefcert"}
    names = zipfile.ZipFile(wheel).namelist()
    for layer in ("formal", "oracles", "encodings", "generators"):
        assert f"prefcert/{layer}/py.typed" in names
        for f in (ROOT / layer).rglob("*.py"):           # every module of the layer ships
            assert f"prefcert/{f.relative_to(ROOT).as_posix()}" in names, f
    assert not any(n.startswith("prefcert/scripts") or "make_bundled" in n for n in names)


def test_registry_is_one_table_enumerated_by_cli_and_docs():
    from prefcert.pipeline.registry import DOMAINS, domain, spec
    listed = json.loads(subprocess.run([PREFCERT, "domains", "--json"], capture_output=True,
                                       text=True, check=True).stdout)
    assert [d["domain"] for d in listed] == list(DOMAINS)
    docs = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "registry_docs.py"), "--check"])
    assert r.returncode == 0, "docs/architecture.md is out of date: run scripts/registry_docs.py"
    for name in DOMAINS:
        s, d = spec(name), domain(name)
        assert set(d.questions) == set(s.questions)
        assert s.certificates, name
        for q in s.questions.values():
            assert q.verdicts, (name, q.name)
            assert any(q.name in c.proves for c in s.certificates.values()), (name, q.name)
        assert f"`{name}`" in docs
        for t in s.certificates:
            assert f"`{t}`" in docs, (name, t)


#: bundled instance files this large are validated by the heavy test below
BIG_FILE = 2**20


def _bundled_instances(big: bool) -> list[dict]:
    """The bundled JSON / JSONL instances in files smaller (or not) than BIG_FILE, as decoded."""
    out = []
    for f in sorted((ROOT / "instances").rglob("*")):
        if f.suffix in (".json", ".jsonl") and (f.stat().st_size >= BIG_FILE) == big:
            text = f.read_text()
            out += [json.loads(text)] if f.suffix == ".json" else \
                [json.loads(x) for x in text.splitlines() if x.strip()]
    assert out
    return out


def _validators():
    """``validate(domain, data)``: one jsonschema validator per domain, its schema checked once."""
    jsonschema = pytest.importorskip("jsonschema")
    from prefcert.pipeline.registry import spec
    made: dict = {}

    def validate(domain: str, data: dict) -> None:
        if domain not in made:
            schema = spec(domain).schema
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            made[domain] = cls(schema)
        made[domain].validate(data)
    return validate


def test_bundled_instances_follow_their_domain_schema():
    validate = _validators()
    insts = _bundled_instances(big=False)
    assert len(insts) > 50
    for inst in insts:
        validate(inst["domain"], inst)


@pytest.mark.heavy
def test_large_bundled_instances_follow_their_domain_schema():
    """The n = 1000 markets (2·10⁶ list entries; pure-Python jsonschema takes minutes):
    every agent locally, under CI every 100th agent of each side with its whole list (the
    schema is the same for every agent, so a sample checks the same rules)."""
    from conftest import heavy_examples
    validate = _validators()
    step = heavy_examples(1, 100)
    insts = _bundled_instances(big=True)
    assert {i["domain"] for i in insts} >= {"stable_matching", "housing_market"}
    for data in insts:
        prefs = dict(data["preferences"])
        sides = ("A", "B") if data["domain"] == "stable_matching" else (None,)
        for side in sides:
            lists = prefs[side] if side else prefs
            kept = {k: v for i, (k, v) in enumerate(lists.items()) if i % step == 0}
            if side:
                prefs[side] = kept
            else:
                prefs = kept
        validate(data["domain"], {**data, "preferences": prefs})
    bad = {"domain": "housing_market", "preferences": {"a0": ["h1", 7]}, "endowment": {}}
    with pytest.raises(Exception, match="7"):          # the validators can fail
        validate("housing_market", bad)


def test_api_is_one_hop_with_runnable_numpydoc_examples(monkeypatch):
    import importlib

    import prefcert
    monkeypatch.chdir(ROOT)
    for name in prefcert.__all__:
        obj = getattr(prefcert, name)
        if callable(obj) and not isinstance(obj, type):
            doc = obj.__doc__ or ""
            for section in ("Parameters", "Returns", "Examples"):
                assert f"\n    {section}\n    ---" in doc, (name, section)
    total = 0
    for module in sorted({m for m in prefcert._EXPORTS.values() if m.startswith("prefcert.api")}):
        failures, tried = doctest.testmod(importlib.import_module(module))
        assert failures == 0, module
        total += tried
    assert total > 30


def test_readme_python_session_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    failures, tried = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert tried >= 5 and failures == 0


def test_nothing_reads_shared_data():
    """The suite runs from a bare clone: no test reaches for the shared folder beside it."""
    needles = (".." + "/shared", "PREFCERT_" + "SHARED_DATA")
    for f in (ROOT / "tests").rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert not any(n in text for n in needles), f


def test_subpackages_are_reachable_from_import_prefcert():
    """Regression: an application module named in the README raised AttributeError after a
    plain ``import prefcert``; the subpackages load on first use."""
    code = ("import prefcert; print(prefcert.api.__name__, prefcert.pipeline.__name__, "
            "prefcert.bench.__name__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["prefcert.api", "prefcert.pipeline", "prefcert.bench"]


def _module_files() -> dict[str, Path]:
    """Installed dotted name -> source file, for every module of the package."""
    out = {}
    for top in LAYERS:
        pkg = "prefcert" if top == "prefcert" else f"prefcert.{top}"
        for f in (ROOT / top).rglob("*.py"):
            rel = f.relative_to(ROOT / top).with_suffix("").parts
            if top == "prefcert" and rel and rel[0] in LAYERS:
                continue                         # prefcert/formal … are the layer symlinks
            name = ".".join([pkg, *rel]).removesuffix(".__init__")
            out[name] = f
    return out


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere (function bodies included; blocks
    under ``if TYPE_CHECKING`` left out, since they never run)."""
    files = _module_files()
    graph: dict[str, set[str]] = {m: set() for m in files}
    for m, f in files.items():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and getattr(node.test, "id", getattr(node.test, "attr", None))
                       == "TYPE_CHECKING" for n in ast.walk(node)}
        package = m.split(".") if f.name == "__init__.py" else m.split(".")[:-1]
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                graph[m] |= {a.name for a in node.names if a.name in files}
            elif isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                full = ".".join(base + ([node.module] if node.module else []))
                for a in node.names:
                    sub = f"{full}.{a.name}"
                    if sub in files:
                        graph[m].add(sub)
                    elif full in files:
                        graph[m].add(full)
    return graph


def test_no_import_cycles():
    graph = _import_graph()
    state: dict[str, int] = {}              # 1 on the current path, 2 done
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            assert state.get(n) != 1, "import cycle: " + " -> ".join(path[path.index(n):] + [n])
            if n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert len(graph) > 100


def test_every_domain_provides_each_hook_or_declares_it_absent():
    from prefcert.domains.base import Absent, PeerAdapter, Shrinker, Space
    from prefcert.pipeline.registry import DOMAINS, domain
    kinds = {"shrinker": Shrinker, "space": Space, "peers": PeerAdapter}
    provided = {h: [] for h in (*kinds, "properties")}
    for name in DOMAINS:
        d = domain(name)
        for hook, kind in kinds.items():
            value = getattr(d, hook)
            assert isinstance(value, (kind, Absent)), (name, hook)
            if isinstance(value, Absent):
                assert len(value.reason) > 20, (name, hook)
            else:
                provided[hook].append(name)
        props = d.properties
        if isinstance(props, Absent):
            assert len(props.reason) > 20, name
        else:
            table = props()
            assert table and all(p.domain == name and p.name == k for k, p in table.items())
            provided["properties"].append(name)
    # which domains provide a hook is listed in docs/architecture.md (generated, kept
    # current by test_registry_is_one_table_enumerated_by_cli_and_docs)
    assert all(provided.values())


def test_readme_lists_every_registered_suite():
    """Regression (a new user): the README's list of suites left out two that ``prefcert
    suites`` shows. Every suite of the registry is named in the bullet of ``prefcert
    suites`` (in full, or as ``-<suffix>`` right after the suite it extends)."""
    from prefcert.bench.suites import SUITES
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("- `prefcert suites` lists the suites")
    bullet = text[start:text.index("\n- ", start + 1)]
    missing = []
    for name in SUITES:
        base, _, suffix = name.partition("actionable-indeterminacy-")
        if f"`{name}`" not in bullet and not (suffix and not base and f"`-{suffix}`" in bullet):
            missing.append(name)
    assert missing == []
    assert {"actionable-indeterminacy-completion", "self-consistency"} <= set(SUITES)
