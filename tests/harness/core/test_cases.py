"""Every malformed-input path names the file and the field."""

import shutil

import pytest

from harness.core.cases import list_case_ids, load_case
from harness.core.errors import InputError


def _load_error(root) -> str:
    with pytest.raises(InputError) as info:
        load_case(root, "case_01")
    return str(info.value)


def test_valid_case_loads(mini_root):
    case = load_case(mini_root, "case_01")
    assert case.manifest.run == "python train.py"
    assert case.key.requires_localization is True
    assert case.reference.steps


def test_missing_manifest_names_file(mini_root):
    (mini_root / "cases/case_01/case.toml").unlink()
    msg = _load_error(mini_root)
    assert "cases/case_01/case.toml" in msg and "file not found" in msg


def test_bad_toml_names_file(mini_root):
    (mini_root / "cases/case_01/case.toml").write_text('id = "case_01"\nrun = \n')
    msg = _load_error(mini_root)
    assert "case.toml" in msg and "invalid TOML" in msg


def test_unknown_field_is_an_error(mini_root):
    path = mini_root / "answers/case_01/key.toml"
    path.write_text(path.read_text().replace("requires_localization = true", "requires_localization = true\nrequires_localisation = true"))
    msg = _load_error(mini_root)
    assert "answers/case_01/key.toml" in msg and "requires_localisation" in msg and "unknown field" in msg


def test_wrong_type_names_field(mini_root):
    path = mini_root / "cases/case_01/case.toml"
    path.write_text(path.read_text().replace("timeout_seconds = 60", 'timeout_seconds = "soon"'))
    msg = _load_error(mini_root)
    assert "case.toml" in msg and "timeout_seconds" in msg


def test_missing_required_field_names_field(mini_root):
    path = mini_root / "answers/case_01/key.toml"
    text = "\n".join(ln for ln in path.read_text().splitlines() if not ln.startswith("discriminating_test"))
    path.write_text(text)
    msg = _load_error(mini_root)
    assert "key.toml" in msg and "discriminating_test" in msg


def test_case_without_answer(mini_root):
    shutil.rmtree(mini_root / "answers/case_01")
    msg = _load_error(mini_root)
    assert "answers/case_01" in msg and "no answer folder" in msg


def test_bad_reference_names_field(mini_root):
    path = mini_root / "answers/case_01/reference.toml"
    path.write_text(path.read_text().replace("[report]\nroot_cause", "[report]\nroot_kause"))
    msg = _load_error(mini_root)
    assert "reference.toml" in msg and "report" in msg


def test_id_mismatch_names_field(mini_root):
    path = mini_root / "cases/case_01/case.toml"
    path.write_text(path.read_text().replace('id = "case_01"', 'id = "case_02"'))
    msg = _load_error(mini_root)
    assert "case.toml" in msg and "'id'" in msg


def test_location_past_end_of_file(mini_root):
    path = mini_root / "answers/case_01/key.toml"
    path.write_text(path.read_text().replace("end_line = 19", "end_line = 9999"))
    msg = _load_error(mini_root)
    assert "key.toml" in msg and "locations.0.end_line" in msg


def test_missing_gold_patch_names_field(mini_root):
    (mini_root / "answers/case_01/gold.patch").unlink()
    msg = _load_error(mini_root)
    assert "key.toml" in msg and "gold_patch" in msg


def test_missing_over_fix_patch_names_field(mini_root):
    (mini_root / "answers/case_01/overfix_adam.patch").unlink()
    msg = _load_error(mini_root)
    assert "over_fixes.1.patch" in msg


def test_unknown_case_lists_known(mini_root):
    with pytest.raises(InputError, match="known: case_01"):
        load_case(mini_root, "case_99")


def test_list_case_ids_ignores_other_folders(mini_root):
    (mini_root / "cases" / "notes").mkdir()
    assert list_case_ids(mini_root) == ["case_01"]
