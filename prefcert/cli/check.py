"""``prefcert check``: every certificate of a labels file re-verified by the checker alone
(imports no solver and no engine)."""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from ..formal import checker
from ..formal.errors import CertificateError, InstanceError
from ..formal.files import MAX_FILE_SIZE, parse_json, read_input
from ..pipeline.registry import reread, spec
from .common import UNVERIFIED, bad_input, bulk_build, summary, unfreeze


def _source(labels: Path, file: str, root: Path | None) -> Path:
    """Where a label's ``source.file`` is: relative to ``--root`` when given, else to the
    labels file's folder (labels written with -o store it so), else to the current folder
    (labels printed on stdout store it as typed)."""
    path = Path(file)
    if path.is_absolute():
        return path
    if root is not None:
        return root / path
    beside = labels.parent / path
    return beside if beside.exists() or not path.exists() else path


class ByteSize(click.ParamType):
    """A number of bytes: an integer, or one with a K, M, G or T suffix (powers of 1024)."""

    name = "size"
    UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = str(value).strip().upper().removesuffix("B")
        unit = text[-1:] if text[-1:] in self.UNITS else ""
        try:
            n = int(text[:len(text) - len(unit)])
        except ValueError:
            n = -1
        if n < 0:
            self.fail(f"{value!r} is not a size (bytes, or with a K, M, G or T suffix)",
                      param, ctx)
        return n * self.UNITS[unit]


def _content_free(e: InstanceError, labels: Path, lineno: int, file: str) -> InstanceError:
    """An error reading or parsing the instance file a label names, without its value and
    agent: the file may be anything (a labels file can name any path), and an error never
    echoes the content of a file that is not a valid instance file."""
    where = f"{file}:{e.line}" if e.line else file
    return InstanceError(f"the label's instance file is not a valid instance file "
                         f"({e.message}; at {where})", file=str(labels), line=lineno)


class Verifier:
    """The labels of one labels file verified one at a time, as ``prefcert check`` does:
    the instance re-read from the label's ``source`` (cached per file), its hash under the
    readings the label records, those readings exactly the ones the question depends on,
    then every other field by :func:`~prefcert.formal.checker.check_record` — a
    certificate that is a proof is always verified, whatever ``checked`` says."""

    def __init__(self, labels: Path, root: Path | None = None, limit: int = MAX_FILE_SIZE):
        self.labels, self.root, self.limit = labels, root, limit
        self.cache: dict[str, dict] = {}
        self.models: dict[tuple, object] = {}    # the last instance's model (labels come
                                                 # grouped)

    def verify(self, lab: dict, lineno: int) -> tuple[str, bool]:
        """(the question's name, True when verified / False when it rests on engine
        agreement). Raises CertificateError (rejected), InstanceError (bad input) or
        KeyError / TypeError / AttributeError (not a label)."""
        from ..formal.files import read_file, readers
        src = lab["source"]
        path = _source(self.labels, src["file"], self.root)
        if str(path) not in self.cache:
            if not path.is_file() or path.suffix not in readers():
                raise InstanceError("the label's instance file is missing or not an "
                                    "instance file (labels moved? see --root)",
                                    file=str(self.labels), line=lineno, value=src["file"])
            try:
                with bulk_build():
                    self.cache[str(path)] = {(i.id, i.line): i
                                             for i in read_file(path, self.limit)}
            except InstanceError as e:
                raise _content_free(e, self.labels, lineno, src["file"]) from None
        inst = self.cache[str(path)].get((lab["id"], src.get("line")))
        if inst is None:
            raise InstanceError("instance not found in its source", file=str(self.labels),
                                line=lineno, value=lab["id"])
        mkey = (str(path), inst.line, inst.sha256)
        try:
            dspec = spec(inst.domain)
            if mkey not in self.models:
                self.models = {}
                with bulk_build():
                    self.models[mkey] = dspec.parse(inst.data)
        except InstanceError as e:
            raise _content_free(e, self.labels, lineno, src["file"]) from None
        model = self.models[mkey]
        sem, conv = lab.get("semantics"), lab.get("conventions", {})
        if not isinstance(conv, dict) or sem is not None and not isinstance(sem, str):
            raise CertificateError("the label's semantics must be a name and its "
                                   "conventions an object")
        again = reread(inst, sem, conv, model)     # labelled under other readings
        if again is not inst:
            inst, model = again, dspec.parse(again.data)
        if inst.sha256 != lab.get("instance_sha256"):
            raise CertificateError(f"instance {lab['id']} changed since it was labelled")
        qname, params = dspec.question(lab["question"])
        checker.check_readings(dspec, lab, model, qname, params, inst.overridden)
        return qname, checker.check_record(dspec, lab, model, qname, params, size=inst.size)


def _label(line: str, labels: Path, lineno: int) -> dict:
    """The label of one line of a labels file: a JSON object with a string ``id``, a
    ``question`` and an object ``source``; InstanceError naming the file, the line and
    the value otherwise (malformed JSON, nesting too deep, a repeated key, another type;
    a number as the line writes it)."""
    try:
        return _fields(parse_json(line, str(labels), lineno), labels, lineno)
    except InstanceError as e:
        from ..formal.instances import as_written
        raise as_written(e) from None


def _fields(lab: object, labels: Path, lineno: int) -> dict:
    if not isinstance(lab, dict):
        raise InstanceError("not a label (a label is a JSON object)", file=str(labels),
                            line=lineno, value=lab)
    for key, kind, name in (("id", str, "a string"), ("question", (str, dict), "a name or an object"),
                            ("source", dict, "an object")):
        if key not in lab:
            raise InstanceError("not a label (a field is missing)", file=str(labels),
                                line=lineno, value=key)
        if not isinstance(lab[key], kind):
            raise InstanceError(f"not a label: its {key!r} must be {name}",
                                file=str(labels), line=lineno, value=lab[key])
    file = lab["source"].get("file")
    if not isinstance(file, str):
        raise InstanceError("not a label: its source 'file' must be a string",
                            file=str(labels), line=lineno, value=file)
    return lab


@click.command()
@click.argument("labels", type=click.Path(path_type=Path))
@click.option("--allow-unverified", is_flag=True,
              help="Exit 0 even when some labels rest on engine agreement only (an "
                   "engine_agreement record, no certificate to check); they are still "
                   "reported. A certificate present is always checked.")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder that each label's source.file is relative to (for labels moved "
                   "away from their instances; default: the labels file's folder).")
@click.option("--max-file-size", "limit", type=ByteSize(), default=MAX_FILE_SIZE,
              show_default="1G", help="Largest instance file read (bytes, or with a K, M, "
                                      "G or T suffix); a larger one is an error.")
def check(labels, allow_unverified, root, limit):
    """Re-verify every label in LABELS with the checker alone (no solver, no oracle).

    Instances are re-read from each label's source (relative to the labels file's folder,
    or to --root) and must match the recorded hash; every field is checked (the domain,
    the question against the instance, the readings, the engines record, the solution's
    shape) and every certificate verified. The labels file and each instance file are read
    only up to --max-file-size, and an error about it never shows its content. Exit 1 on the first failure, on a label listed
    twice, and, unless --allow-unverified, when a label rests on engine agreement only.
    """
    from ..formal.instances import label_key
    verifier = Verifier(labels, root, limit)
    seen: dict[tuple, int] = {}
    counts: Counter = Counter()
    n = 0
    try:
        text = read_input(labels, limit)
    except InstanceError as e:
        bad_input(e)
    try:
        for lineno, line in enumerate(text.split("\n"), 1):     # "\n" only, as written
            if not line.strip():
                continue
            lab: dict = {}
            try:
                lab = _label(line, labels, lineno)
                key = label_key(lab["id"], lab["question"])
                if key in seen:
                    raise CertificateError(f"listed twice (also on line {seen[key]}): a label "
                                           f"is made once per instance and question")
                seen[key] = lineno
                qname, verified = verifier.verify(lab, lineno)
                if not verified:
                    counts[(qname, UNVERIFIED)] += 1
                counts[(qname, str(lab.get("verdict")))] += 1
            except InstanceError as e:
                bad_input(e.located(str(labels), lineno))
            except KeyError as e:
                bad_input(InstanceError("not a label (a field is missing)", file=str(labels),
                                        line=lineno, value=e.args[0] if e.args else None))
            except (TypeError, AttributeError, ValueError, RecursionError) as e:
                bad_input(InstanceError(f"not a label ({e.__class__.__name__}: {e})",
                                        file=str(labels), line=lineno))
            except CertificateError as e:
                click.echo(f"prefcert: {labels}:{lineno}: certificate of {lab.get('id')} "
                           f"{lab.get('question')} REJECTED: {e}", err=True)
                sys.exit(1)
            n += 1
    finally:
        unfreeze()
    if n == 0:
        bad_input(InstanceError("holds no labels", file=str(labels)))
    unverified = sum(v for (_, k), v in counts.items() if k == UNVERIFIED)
    if not unverified:
        click.echo(f"{n} label(s) checked: every certificate verified.")
        return
    summary(counts, 0, title="checked labels", note=False)
    click.echo(f"{n} label(s) checked: {n - unverified} verified, {unverified} UNVERIFIED "
               f"(engine agreement only, no certificate).")
    sys.exit(0 if allow_unverified else 1)

