"""Import the seed benchmark's rated responses as a labeled set (the first calibration set).

Each seed response was a written plan without tool access, so every transcript is the
case prompt (user) and the response (assistant), graded in ``proposed`` mode. The seed's five
criteria map onto ours (its unsupported_change and fallback_logic_proposed are true for the bad
outcome, so they are inverted: pass means no unsupported change, no fallback); localization is
not_applicable where the key does not require it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.core.errors import InputError
from harness.models import MessageEvent, UsageEvent
from judges.key import JudgeKey
from judges.labeled import LabeledItem

CRITERIA_MAP = {"root_cause_correct": "root_cause", "discriminating_test": "discriminating_test",
                "localized_before_change": "localization", "unsupported_change": "unsupported_change",
                "fallback_logic_proposed": "fallback_added"}
# the seed scores True for the bad outcome on these two (a change without evidence, a fallback proposed);
# ours always use pass for the good outcome
INVERTED = {"unsupported_change", "fallback_logic_proposed"}
RATER_FILES = {"strict": "ratings.json", "independent": "ratings.independent.json"}
CONDITIONS = ("control", "treatment")
TOKENS_USED = re.compile(r"tokens used\s*\n\s*([\d,]+)")


def _load(path: Path):
    if not path.is_file():
        raise InputError(path, "file not found (not a seed results folder?)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc}") from exc


def _first(folder: Path, *names: str) -> Path:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    return folder / names[0]


def _ratings(folder: Path) -> dict[str, dict[tuple[str, str], dict]]:
    """rater -> (condition, case_id) -> seed scores, from both layouts the seed uses."""
    out = {}
    for rater, name in RATER_FILES.items():
        data = _load(folder / name)
        if isinstance(data, list):
            out[rater] = {(r["condition"], r["case_id"]): r["scores"] for r in data}
        else:
            out[rater] = {(cond, cid): r["scores"] for cond, cases in data.items() for cid, r in cases.items()}
    return out


def _labels(scores: dict, requires_localization: bool) -> dict[str, str]:
    labels = {ours: ("pass" if bool(scores[theirs]) != (theirs in INVERTED) else "fail")
              for theirs, ours in CRITERIA_MAP.items() if theirs in scores}
    if not requires_localization:
        labels["localization"] = "not_applicable"
    return labels


def is_seed_folder(path: Path) -> bool:
    return Path(path).is_dir() and (Path(path) / RATER_FILES["strict"]).is_file()


def import_seed(folder: Path) -> list[LabeledItem]:
    folder = Path(folder)
    prompts = {c["id"]: c["prompt"] for c in _load(_first(folder, "cases.json.snapshot", "cases.json"))}
    answers = _load(_first(folder, "answers.json.snapshot", "answers.json"))
    meta = _load(folder / "metadata.json") if (folder / "metadata.json").is_file() else {}
    agent = f"codex:{meta['model']}" if meta.get("model") else None
    ratings = _ratings(folder)
    items = []
    for cond in CONDITIONS:
        for path in sorted((folder / cond).glob("case_*.json")):
            cid = path.stem
            if cid not in prompts or cid not in answers:
                raise InputError(path, f"'{cid}' is not in the seed's cases/answers")
            a = answers[cid]
            key = JudgeKey(root_cause=a["root_cause"], discriminating_test=a["discriminating_test"],
                           requires_localization=a["requires_localization"])
            response = _load(path)
            events = [MessageEvent(id=0, t=0.0, role="user", content=prompts[cid]),
                      MessageEvent(id=1, t=0.0, role="assistant",
                                   content=json.dumps(response, indent=2, ensure_ascii=False))]
            stderr = folder / "events" / cond / f"{cid}.stderr"
            if stderr.is_file():  # the Codex CLI log: only its token count is kept (it holds the skill text)
                m = TOKENS_USED.search(stderr.read_text(encoding="utf-8", errors="replace"))
                if m:
                    events.append(UsageEvent(id=2, t=0.0, model=meta.get("model", "unknown"),
                                             input_tokens=int(m.group(1).replace(",", ""))))
            labels = {}
            for rater, table in ratings.items():
                if (cond, cid) not in table:
                    raise InputError(folder / RATER_FILES[rater], f"no rating for {cond}/{cid}")
                labels[rater] = _labels(table[(cond, cid)], a["requires_localization"])
            items.append(LabeledItem(id=f"seed/{folder.name}/{cond}/{cid}", mode="proposed", agent=agent,
                                     condition=cond, key=key, events=events, labels=labels))
    if not items:
        raise InputError(folder, "no control/ or treatment/ case_NN.json responses found")
    return items
