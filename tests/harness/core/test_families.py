"""Shared family modules (answers/families/): found from the halves' imports and carried with their package path."""

import json
import subprocess
import sys

import pytest

from harness.core.cases import family_modules, load_case
from harness.core.errors import InputError
from harness.workspaces.verification import _bundle

FAMILY = '''"""fixture family"""
from families.helpers import double


def fixed(value):
    return double(value) == 2 * value
'''


def _use_family(root):
    """case_01's deciding half imports a family module, which imports a second one."""
    families = root / "answers" / "families"
    families.mkdir(exist_ok=True)
    (families / "__init__.py").write_text('"""fixture"""\n')
    (families / "probe.py").write_text(FAMILY)
    (families / "helpers.py").write_text("def double(x):\n    return 2 * x\n")
    decide = root / "answers" / "case_01" / "decide.py"
    decide.write_text(decide.read_text().replace("import sys\n", "import sys\nimport families.probe  # noqa\n", 1))
    return families


def test_family_modules_follow_imports_through_each_other(tmp_path):
    answers = tmp_path / "answers"
    (answers / "families").mkdir(parents=True)
    (answers / "families" / "a.py").write_text("from families.b import x\nimport os\n")
    (answers / "families" / "b.py").write_text("x = 1\n")
    (answers / "c").mkdir()
    (answers / "c" / "decide.py").write_text("import families.a as fa\nfrom verifylib import decide_main\n")
    (answers / "c" / "measure.py").write_text("import json\n")
    found = family_modules(answers, [answers / "c" / "decide.py", answers / "c" / "measure.py"])
    assert found == ["families/__init__.py", "families/a.py", "families/b.py"]
    assert family_modules(answers, [answers / "c" / "measure.py"]) == []


def test_the_bundle_carries_family_modules_with_their_package_path(mini_root, tmp_path):
    _use_family(mini_root)
    case = load_case(mini_root, "case_01")
    rels = [rel for _, rel in case.verifier_bundle]
    assert rels[:3] == ["measure.py", "decide.py", "verifylib.py"]
    shared = rels[3:]
    assert shared[0] == "families/__init__.py" and shared == [shared[0], *sorted(shared[1:])]
    assert {"families/helpers.py", "families/probe.py"} <= set(shared)  # beside case_01's own family module
    bundle, _ = _bundle(case, tmp_path / "bundle")
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); from families.probe import fixed; "
             "import json; print(json.dumps(fixed(3)))")
    out = subprocess.run([sys.executable, "-I", "-c", probe, str(bundle)], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) is True


def test_a_missing_family_module_is_named(mini_root):
    families = _use_family(mini_root)
    (families / "helpers.py").unlink()
    with pytest.raises(InputError) as err:
        load_case(mini_root, "case_01")
    assert "helpers.py" in str(err.value) and "families.helpers" in str(err.value)
