"""Find and load cases and their answers, failing with messages that name the file and field."""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from harness.core.errors import ConfigError, InputError
from harness.core.pyparse import parse
from harness.models import AnswerKey, CaseManifest, CorpusFix, FixCorpus, ReferencePlan, Symptoms

M = TypeVar("M", bound=BaseModel)
# A case id is case_NN (the standard tier), hard_case_NN (the hard tier: the same bug as case_NN in a larger
# project, docs/cases.md) or frontier_case_NN (the frontier tier: checked as hard cases are, except that the
# grep-based checks are reported, not required). Anything else in cases/ (scratch/, wip_hard_case_NN/ ...) is ignored.
CASE_ID = re.compile(r"^(hard_|frontier_)?case_\d\d$")
TIERS = ("standard", "hard", "frontier")
TIER_CHOICES = TIERS + ("all",)
HARD_PREFIX = "hard_"
FRONTIER_PREFIX = "frontier_"
# Tiers whose cases carry a [hardness] table and get the hard-tier checks (docs/cases.md, "The hard tier").
HARDENED_TIERS = ("hard", "frontier")


def tier_of(case_id: str) -> str:
    """The tier is part of the id, so every record that names a case also says its tier."""
    if case_id.startswith(HARD_PREFIX):
        return "hard"
    return "frontier" if case_id.startswith(FRONTIER_PREFIX) else "standard"


def tiers_of(case_ids) -> list[str]:
    """The tiers present among ``case_ids``, in TIERS order."""
    present = {tier_of(c) for c in case_ids}
    return [t for t in TIERS if t in present]


@dataclass(frozen=True)
class Case:
    """A case folder (what the agent sees) joined with its answer folder (what it never sees)."""

    id: str
    case_dir: Path
    answer_dir: Path
    manifest: CaseManifest
    key: AnswerKey
    reference: ReferencePlan
    corpus: tuple[CorpusFix, ...] = ()
    symptoms: Symptoms | None = None

    @property
    def tier(self) -> str:
        return tier_of(self.id)

    @property
    def corpus_dir(self) -> Path:
        return self.answer_dir / "fixes"

    @property
    def verifier_files(self) -> list[Path]:
        """Everything the two verifier processes get: both halves, their extra files, verifylib and the
        family modules they import."""
        return [src for src, _ in self.verifier_bundle]

    @property
    def verifier_bundle(self) -> list[tuple[Path, str]]:
        """Each verifier file with its place in the verifier's folder: the case's own files and verifylib
        at the top, a shared family module under ``families/`` (its package path, so the halves'
        ``from families.NAME import ...`` works in the bundle as in answers/)."""
        own = [self.key.measure, self.key.decide, *self.key.verifier_files]
        files = [(self.answer_dir / rel, Path(rel).name) for rel in own]
        files.append((self.answer_dir.parent / "verifylib.py", "verifylib.py"))
        answers = self.answer_dir.parent
        files += [(answers / rel, rel) for rel in family_modules(answers, [src for src, _ in files])]
        return files

    @property
    def gold_patch_path(self) -> Path:
        return self.answer_dir / self.key.gold_patch


FAMILY_PACKAGE = "families"


def family_modules(answers: Path, sources: list[Path]) -> list[str]:
    """The files of answers/families/ that ``sources`` import, directly or through each other, as paths
    relative to answers/ (``families/__init__.py`` first). Read from the imports, so a case never lists
    them by hand; a missing module is left for the loader's check to name."""
    import ast

    found: list[str] = []
    todo = [p for p in sources if p.suffix == ".py"]
    while todo:
        src = todo.pop()
        try:
            tree = parse(src.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for name in names:
                parts = name.split(".")
                if parts[0] != FAMILY_PACKAGE or len(parts) < 2:
                    continue
                rel = f"{FAMILY_PACKAGE}/{parts[1]}.py"
                if rel not in found:
                    found.append(rel)
                    todo.append(answers / rel)
    return [f"{FAMILY_PACKAGE}/__init__.py", *sorted(found)] if found else []


def copy_shared_verifier_code(src_answers: Path, dest_answers: Path) -> None:
    """Copy what every case's verifier may import from answers/ (verifylib.py and families/): for a
    throwaway project root that holds only some cases."""
    import shutil

    dest_answers.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src_answers / "verifylib.py", dest_answers / "verifylib.py")
    if (src_answers / FAMILY_PACKAGE).is_dir():
        shutil.copytree(src_answers / FAMILY_PACKAGE, dest_answers / FAMILY_PACKAGE, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))


def find_root(start: Path | None = None) -> Path:
    """The project root: $ML_DEBUG_BENCH_ROOT, else the nearest folder holding cases/ and answers/."""
    env = os.environ.get("ML_DEBUG_BENCH_ROOT")
    if env:
        return Path(env).resolve()
    candidates = [Path(start or Path.cwd()).resolve()]
    candidates += list(candidates[0].parents)
    candidates.append(Path(__file__).resolve().parents[2])
    for c in candidates:
        if (c / "cases").is_dir() and (c / "answers").is_dir():
            return c
    raise InputError(start or Path.cwd(), "no cases/ and answers/ folders here or above; set ML_DEBUG_BENCH_ROOT")


def _format_validation(exc: ValidationError) -> tuple[str, str]:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "(root)"
    kind = first["type"]
    msg = "unknown field (not allowed)" if kind == "extra_forbidden" else first["msg"]
    more = len(exc.errors()) - 1
    if more:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    return field, msg


def load_record(path: Path, model: type[M]) -> M:
    """Parse a TOML or JSON file into ``model``; every failure names the file and the field."""
    if not path.is_file():
        raise InputError(path, "file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read: {exc}") from exc
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"invalid TOML: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc}") from exc
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        field, msg = _format_validation(exc)
        raise InputError(path, msg, field=field) from exc


def check_tier(tier: str) -> str:
    if tier not in TIER_CHOICES:
        raise ConfigError(f"--tier must be one of {', '.join(TIER_CHOICES)}, not {tier!r}")
    return tier


def list_case_ids(root: Path, tier: str = "standard") -> list[str]:
    """The case ids of ``tier`` (standard | hard | frontier | all), sorted by tier (in TIERS order), then id."""
    check_tier(tier)
    cases = root / "cases"
    if not cases.is_dir():
        raise InputError(cases, "cases folder not found")
    ids = [p.name for p in cases.iterdir() if p.is_dir() and CASE_ID.match(p.name)]
    return sorted((c for c in ids if tier in ("all", tier_of(c))), key=lambda c: (TIERS.index(tier_of(c)), c))


def _check_consistency(case: Case) -> None:
    key_path = case.answer_dir / "key.toml"
    if case.manifest.id != case.id:
        raise InputError(case.case_dir / "case.toml", f"id '{case.manifest.id}' does not match folder '{case.id}'",
                         "id")
    if case.key.case_id != case.id:
        raise InputError(key_path, f"case_id '{case.key.case_id}' does not match folder '{case.id}'", "case_id")
    if not (case.case_dir / "README.md").is_file():
        raise InputError(case.case_dir / "README.md", "file not found (every case needs its symptom report)")
    if case.tier in HARDENED_TIERS and case.key.hardness is None:
        raise InputError(key_path, f"a {case.tier} case needs a [hardness] table (construct, anomaly_over_fix); see "
                                   "answers/README.md", "hardness")
    if case.key.hardness is not None:
        over_names = [o.name for o in case.key.over_fixes]
        if case.key.hardness.anomaly_over_fix not in over_names:
            raise InputError(key_path, f"'{case.key.hardness.anomaly_over_fix}' is not the name of an over_fixes entry "
                                       f"(known: {', '.join(over_names) or 'none'})", "hardness.anomaly_over_fix")
    for field, rel in (("gold_patch", case.key.gold_patch), ("measure", case.key.measure),
                       ("decide", case.key.decide), *(("verifier_files", r) for r in case.key.verifier_files)):
        if not (case.answer_dir / rel).is_file():
            raise InputError(key_path, f"'{rel}' not found in {case.answer_dir}", field)
    if not (case.answer_dir.parent / "verifylib.py").is_file():
        raise InputError(case.answer_dir.parent / "verifylib.py", "file not found (both verifier halves import it)")
    for src, rel in case.verifier_bundle:
        if rel.startswith(FAMILY_PACKAGE + "/") and not src.is_file():
            raise InputError(src, f"file not found ({case.id}'s verifier imports {rel[:-3].replace('/', '.')})")
    for i, over in enumerate(case.key.over_fixes):
        if not (case.answer_dir / over.patch).is_file():
            raise InputError(key_path, f"'{over.patch}' not found in {case.answer_dir}", f"over_fixes.{i}.patch")
    names = [f.name for f in case.corpus]
    for i, fix in enumerate(case.corpus):
        if not (case.corpus_dir / fix.patch).is_file():
            raise InputError(case.corpus_dir / "fixes.toml", f"'{fix.patch}' not found in {case.corpus_dir}",
                             f"fix.{i}.patch")
        if names.count(fix.name) > 1:
            raise InputError(case.corpus_dir / "fixes.toml", f"name '{fix.name}' is used twice", f"fix.{i}.name")
    for i, loc in enumerate(case.key.locations):
        target = case.case_dir / loc.file
        if not target.is_file():
            raise InputError(key_path, f"'{loc.file}' is not a file of {case.case_dir}", f"locations.{i}.file")
        n_lines = len(target.read_text(encoding="utf-8").splitlines())
        if loc.end_line > n_lines:
            raise InputError(key_path, f"end_line {loc.end_line} is past the end of {loc.file} ({n_lines} lines)",
                             f"locations.{i}.end_line")


def load_case(root: Path, case_id: str) -> Case:
    case_dir = root / "cases" / case_id
    answer_dir = root / "answers" / case_id
    if not CASE_ID.match(case_id):
        raise InputError(case_dir, f"no such case: '{case_id}' is not a case id (case_NN, hard_case_NN or "
                                   "frontier_case_NN; "
                                   f"known: {', '.join(list_case_ids(root, 'all')) or 'none'})")
    if not case_dir.is_dir():
        raise InputError(case_dir, f"no such case (known: {', '.join(list_case_ids(root, 'all')) or 'none'})")
    if not answer_dir.is_dir():
        raise InputError(answer_dir, f"case '{case_id}' has no answer folder")
    corpus_file, symptoms_file = answer_dir / "fixes" / "fixes.toml", answer_dir / "symptoms.toml"
    case = Case(
        id=case_id,
        case_dir=case_dir,
        answer_dir=answer_dir,
        manifest=load_record(case_dir / "case.toml", CaseManifest),
        key=load_record(answer_dir / "key.toml", AnswerKey),
        reference=load_record(answer_dir / "reference.toml", ReferencePlan),
        corpus=tuple(load_record(corpus_file, FixCorpus).fix) if corpus_file.exists() else (),
        symptoms=load_record(symptoms_file, Symptoms) if symptoms_file.exists() else None,
    )
    _check_consistency(case)
    return case


def load_cases(root: Path, case_ids: list[str] | None = None, tier: str = "standard") -> list[Case]:
    """The cases named (any tier), or every case of ``tier`` when none are named."""
    return [load_case(root, cid) for cid in (case_ids or list_case_ids(root, tier))]
