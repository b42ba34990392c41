"""frontier_case_03, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

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
