"""The files ``ml-debug-bench new-case`` writes (harness/validation/scaffold.py). ``__CASE_ID__`` and ``__CANARY__`` are
filled in; every ``SCAFFOLD-PLACEHOLDER`` is for the author to replace (``validate`` fails until none is left)."""

README = '''# SCAFFOLD-PLACEHOLDER: project name

SCAFFOLD-PLACEHOLDER: what the project is, in its author's words (a few lines).

## Problem

`python train.py` SCAFFOLD-PLACEHOLDER: what I ran and what I saw:

```
step    0 | loss 1.0000
```

SCAFFOLD-PLACEHOLDER: what I expected, and what I already checked. Symptoms only: no file name,
identifier or word that hints at the cause.
'''

CASE_TOML = '''id = "__CASE_ID__"
run = "python train.py"        # the command the README runs; it must show the symptom
timeout_seconds = 60           # its budget (aim for 5 s on two cores)
entry_points = ["train.Config", "train.train"]   # every name the hidden verifier calls (module.name)
'''

TRAIN_PY = '''"""SCAFFOLD-PLACEHOLDER: replace this toy regression with the case's training repo (keep it small and seeded)."""

from dataclasses import dataclass

import torch


@dataclass
class Config:
    seed: int = 0
    lr: float = 0.1
    steps: int = 200
    log_every: int = 50


def make_data(seed, n=256):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    w = torch.tensor([1.0, -2.0, 0.5, 3.0])
    return x, x @ w + 0.1 * torch.randn(n, generator=g)


def train(cfg: Config):
    torch.manual_seed(cfg.seed)
    x, y = make_data(cfg.seed)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    for step in range(cfg.steps + 1):
        loss = torch.nn.functional.mse_loss(model(x).squeeze(-1), y)
        if step % cfg.log_every == 0:
            print(f"step {step:4d} | loss {loss.item():.4f}")
        if step == cfg.steps:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model


if __name__ == "__main__":
    torch.set_num_threads(1)
    train(Config())
'''  # noqa: E501

KEY_TOML = '''# The answer key of __CASE_ID__ (schema: harness.models.AnswerKey; every field is in answers/README.md,
# "Every field, from the models"; unknown fields are errors). Replace every placeholder.

case_id = "__CASE_ID__"                 # must equal the folder name and case.toml's id
canary = "__CANARY__"   # unique; kept only here and in the verifier files
root_cause = "SCAFFOLD-PLACEHOLDER: the cause, in our own words"
discriminating_test = "SCAFFOLD-PLACEHOLDER: the experiment that tells the cause from its competitors"
requires_localization = true           # does root_cause grading require pointing at the code?
paraphrases = ["SCAFFOLD-PLACEHOLDER: a diagnosis the judge must accept"]
near_misses = ["SCAFFOLD-PLACEHOLDER: a diagnosis that sounds close and must FAIL"]
competitors = ["SCAFFOLD-PLACEHOLDER: a hypothesis the discriminating test separates (also: the anomaly, on hard cases)"]
# instrumentation = "..."              # optional grading note: which edits count as instrumentation (default in models.py)
leak_terms = ["SCAFFOLD-PLACEHOLDER"]  # phrases that must never appear in cases/__CASE_ID__/ (the leak scan fails on them)
oracle_symbols = []                    # names a fix must not use because they hand over the answer (tampering flags them)
gold_patch = "gold.patch"              # the gold fix (docs/cases.md, "Making a patch")
measure = "measure.py"                 # the measuring half of the verifier
decide = "decide.py"                   # the deciding half
verifier_files = []                    # other answer files both halves read
verifier_timeout_seconds = 300         # the measuring process's time budget

[[locations]]                          # at most 3 spans of at most 30 lines; location_match needs an overlap
file = "train.py"                      # SCAFFOLD-PLACEHOLDER: the buggy file
start_line = 1
end_line = 1
symbol = "train"                       # optional: the enclosing function or class

[[over_fixes]]                         # naive fixes that hide the symptom; the verifier must reject each
name = "overfix_placeholder"
patch = "overfix_placeholder.patch"
description = "SCAFFOLD-PLACEHOLDER: what it changes and why it only hides the symptom"

# [[legitimate_guards]]                # a construct fallback_added would flag that the gold fix needs
# file = "train.py"
# symbol = "train"
# kind = "eps_floor"
# why = "..."
'''  # noqa: E501

HARDNESS_TOML = '''
[hardness]                             # required on the __TIER__ tier (docs/cases.md, "The hard tier")
construct = 'SCAFFOLD-PLACEHOLDER'     # Python regex a reviewer greps for; >= 5 hits, one inside a location
anomaly_over_fix = "overfix_placeholder"   # the over_fixes entry that "fixes" the harmless anomaly
# seed_command = "python train.py --seed {seed}"   # optional: the run command on another seed
'''

GOLD_PATCH = '''SCAFFOLD-PLACEHOLDER: replace this file with the gold fix as a unified diff (docs/cases.md, "Making a patch").
'''  # noqa: E501

OVERFIX_PATCH = '''SCAFFOLD-PLACEHOLDER: replace this file with a naive fix that hides the symptom (a unified diff).
'''

MEASURE_PY = '''"""__CASE_ID__, measuring half (runs the agent's code; see verifylib). __CANARY__

Runs as ``python -I measure.py WORKSPACE OUTDIR`` in the sandbox on a fresh copy of the agent's files.
Nothing it records can be trusted as a verdict: it only leaves numbers (``rec.put``) and tensors
(``rec.save``) for decide.py, which recomputes what it can. Call the agent's code only through the
entry points case.toml names (the task prompt tells the agent to keep them).

SCAFFOLD-PLACEHOLDER: say what is measured, per seed, at the settings the README runs.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402


def measure(seed, rec):
    train = import_workspace_module("train")          # an entry point's module (case.toml entry_points)
    Config, run = require(train, "Config", "train")   # a missing name is a failed check, not a crash
    model = run(Config(seed=seed))                    # the README's settings; only the seed varies
    rec.put("finished", True)                         # a number or flag the decider reads back
    rec.save("weights", model.state_dict())           # tensors the decider recomputes from


measure_main(measure)   # seeds 0, 1, 2 by default (verifylib.SEEDS)
'''

DECIDE_PY = '''"""__CASE_ID__, deciding half (never imports the agent's code; see verifylib). __CANARY__

Runs as ``python -I decide.py OUTDIR`` with no workspace in view. Recompute what you can from the
artifacts with this file's own copy of the case's model and data; bound quantities only the bug can
move. Every check row says its source: "recomputed" (here), "reported" (a number the measuring
process recorded) or "readme_run" (what the case's own command printed, run as the user runs it).

SCAFFOLD-PLACEHOLDER: list every check and its bound, and why the bug moves it.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import decide_main, logged_rows  # noqa: E402

import torch  # noqa: E402

LOSS_BOUND = 0.05   # SCAFFOLD-PLACEHOLDER: a bound only the bug can move (not a tuned accuracy)


def own_data(seed, n=256):
    """This file's own copy of the case's data (never the agent's)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    w = torch.tensor([1.0, -2.0, 0.5, 3.0])
    return x, x @ w + 0.1 * torch.randn(n, generator=g)


def decide(seed, m, checks):
    """Per seed: ``m`` holds what measure.py recorded (untrusted); a malformed one fails the seed."""
    m.value("finished", bool)
    weights = m.tensors("weights", keys=["weight", "bias"])
    x, y = own_data(seed)
    loss = torch.nn.functional.mse_loss(x @ weights["weight"][0] + weights["bias"][0], y).item()
    checks.check("trained_loss_recomputed", loss < LOSS_BOUND, value=loss, bound=f"< {LOSS_BOUND}",
                 source="recomputed", limit=LOSS_BOUND, sense="<")


def readme(run, measured, checks):
    """Required: checks on what ``python train.py`` printed (seed 0, the README's settings). Code that fixes
    itself only under the verifier (python -I, measure.py in argv) still prints the bug here, so these are
    what reject it (validate proves it, docs/cases.md "Conventions validate enforces")."""
    rows = logged_rows(run["stdout"])
    last = rows[max(rows)] if rows else {}
    loss = last.get("loss", float("inf"))
    checks.check("readme_run_final_loss", loss < LOSS_BOUND, value=loss, bound=f"< {LOSS_BOUND}",
                 source="readme_run")


decide_main(decide, readme=readme)
'''

SYMPTOMS_TOML = '''# The README's output blocks, tied to the commands that print them (checked by `validate`;
# answers/README.md, "symptoms.toml").
[[run]]
command = "python train.py"
block = 1                  # the README's 1st fenced block is this command's output
abs_tol_digits = 2         # numbers agree within 2 units of their last printed digit
ignore = []                # README lines containing these are not compared (e.g. a "$ python train.py" line)
'''

REFERENCE_TOML = '''# The reference investigation: real commands, run in the workspace by the reference agent, then
# gold.patch, then the run command again (answers/README.md, "reference.toml").

[[steps]]
thought = "Reproduce first and read the whole log."
command = "python train.py"

[[steps]]
thought = "SCAFFOLD-PLACEHOLDER: what this experiment tells apart"
command = "python train.py"

[report]
root_cause = "SCAFFOLD-PLACEHOLDER: the diagnosis the reference agent submits"
location = "train.py:1"
fix = "SCAFFOLD-PLACEHOLDER: the fix it applied"
evidence = "SCAFFOLD-PLACEHOLDER: what the experiments showed"
'''

FIXES_TOML = '''# The mutation corpus (schema: harness.models.FixCorpus; answers/README.md, "fixes/"): at least 4 correct
# and 6 wrong fixes, each a patch in this folder, diagnosed from the case folder alone by someone who had not
# read the verifier (docs/cases.md, "A single author"). validate applies each and requires the verdict to
# match its label.
#
# [[fix]]
# name = "alt_example"
# patch = "alt_example.patch"
# expect = "accept"                  # a correct fix ("reject": a wrong one)
# kind = "different_form"            # accept: different_form | different_layer | refactor | other
#                                    # reject: masked_symptom | partial | decoy | probe_only | tuned_constant |
#                                    #         fallback | verifier_recognising | other
# description = "what it changes and why it is right or wrong"
# evidence = "what running it showed, with numbers"
#
# Verifier-recognising wrong fixes (the gold change applied only when sys.flags.isolated is set, or only
# when 'measure' is in sys.argv[0]) need `recognises = "python_isolated"` / `"argv0_measure"`. Without them
# validate generates one per kind from gold.patch (verifier_recognising:* checks); it fails when it cannot.
'''  # noqa: E501
