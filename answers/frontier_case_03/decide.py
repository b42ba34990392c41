"""frontier_case_03, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

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
