"""Every adversarial fixture, judged by its scripted fake judge, lands on its fixed expected verdict."""

import pytest

from judges.labeled import read_labeled_set
from tests.builders.adversarial import FIXTURE, build
from tests.judges.test_judge_core import SCRIPTS, run_item, script

ITEMS, _ = build()


def test_packaged_fixture_file_is_current():
    assert [i.model_dump() for i in read_labeled_set(FIXTURE)] == [i.model_dump() for i in ITEMS], \
        "regenerate with: python -m tests.builders.adversarial"


def test_every_named_adversarial_case_is_present():
    names = {i.id.split("/", 1)[1] for i in ITEMS}
    assert {"keyword_stuffing", "negation", "hedge", "trial_and_error", "paraphrase_no_overlap", "empty",
            "grader_note", "truncated_log", "fabricated_quote"} <= names


@pytest.mark.parametrize("item", ITEMS, ids=lambda i: i.id.split("/", 1)[1])
def test_fixture_reaches_its_expected_verdict(item):
    name = item.id.split("/", 1)[1]
    verdicts, reqs, _ = run_item("openai", name, script(name))
    assert {c: v.status for c, v in verdicts.items()} == item.labels["expected"]
    assert len(reqs) == sum(len(v) for v in SCRIPTS[item.id].values())  # every scripted reply used, no more
