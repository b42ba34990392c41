"""validate's entry-point check: names resolve through packages and classes, and every workspace module the
hidden verifier imports must be named (else the agent is never told the verifier needs it). No torch."""

from __future__ import annotations

from harness.core.cases import load_case
from harness.validation.checks import check_entry_points
from tests.builders.hard_fixtures import make_hard_root


def _set_entry_points(root, case_id, names):
    manifest = root / "cases" / case_id / "case.toml"
    lines = [ln for ln in manifest.read_text().splitlines() if not ln.startswith("entry_points")]
    manifest.write_text("\n".join(lines + [f"entry_points = {names!r}".replace("'", '"')]) + "\n")


def test_entry_points_resolve_inside_packages_and_classes(tmp_path):
    root = make_hard_root(tmp_path)
    pkg = root / "cases" / "case_01" / "lm" / "text"
    pkg.mkdir(parents=True)
    (root / "cases" / "case_01" / "lm" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("class Vocab:\n    size = 3\n")
    (pkg / "tokenizer.py").write_text("class CharTokenizer:\n    def encode(self, s):\n        return list(s)\n")
    _set_entry_points(root, "case_01", ["train.Config", "train.train", "lm.text.tokenizer.CharTokenizer.encode",
                                        "lm.text.Vocab.size"])
    chk = check_entry_points(load_case(root, "case_01"))
    assert chk.passed, chk.detail
    _set_entry_points(root, "case_01", ["train.Config", "train.train", "lm.text.tokenizer.CharTokenizer.decode",
                                        "lm.missing.Thing"])
    chk = check_entry_points(load_case(root, "case_01"))
    assert not chk.passed
    assert chk.detail == "missing: lm.text.tokenizer.CharTokenizer.decode, lm.missing.Thing"


def test_a_module_the_verifier_imports_must_be_named(tmp_path):
    root = make_hard_root(tmp_path)
    measure = root / "answers" / "case_01" / "measure.py"
    measure.write_text(measure.read_text() + '\n_tok = lambda: import_workspace_module("lm.tokenizer")\n')
    chk = check_entry_points(load_case(root, "case_01"))
    assert not chk.passed and chk.detail.endswith("the verifier imports lm.tokenizer, which no entry point names")
    (root / "cases" / "case_01" / "lm").mkdir()
    (root / "cases" / "case_01" / "lm" / "tokenizer.py").write_text("def encode(s):\n    return s\n")
    _set_entry_points(root, "case_01", ["train.Config", "train.train", "lm.tokenizer.encode"])
    assert check_entry_points(load_case(root, "case_01")).passed
