"""answers/README.md documents every field an author writes, as the models define it (harness/keydoc.py)."""

from harness import keydoc
from harness.core.cases import find_root
from harness.validation.checks import HINT_WORDS

README = find_root() / "answers" / "README.md"


def test_readme_section_is_what_the_models_generate():
    text = README.read_text(encoding="utf-8")
    start, end = text.index(keydoc.BEGIN), text.index(keydoc.END) + len(keydoc.END)
    assert text[start:end] == keydoc.generated_section(), "run `python -m harness.keydoc --write`"


def test_every_field_of_every_model_has_a_row_with_type_default_and_meaning():
    assert keydoc.undocumented() == []
    section = keydoc.generated_section()
    for _, model in keydoc.TABLES:
        for name, field in model.model_fields.items():
            row = next(line for line in section.splitlines() if line.startswith(f"| `{field.alias or name}` |"))
            cells = [c.strip() for c in row.strip("|").split(" | ")]
            assert len(cells) == 4 and all(cells), row
    for required in ("instrumentation", "oracle_symbols", "legitimate_guards", "gold_patch", "recognises"):
        assert f"| `{required}` |" in section


def test_hint_words_are_the_leak_scans():
    words = keydoc.hint_words()
    section = keydoc.generated_section()
    for word in words:
        assert f"`{word}`" in section
    for plain in ("bug", "fixme", "hack", "answer key", "intentionally", "deliberate"):
        assert HINT_WORDS.search(plain), plain


def test_replace_section_needs_the_markers():
    import pytest

    with pytest.raises(ValueError, match="keydoc markers"):
        keydoc.replace_section("no markers", "x")
    assert keydoc.replace_section(f"a\n{keydoc.BEGIN}\nold\n{keydoc.END}\nb", "NEW") == "a\nNEW\nb"
