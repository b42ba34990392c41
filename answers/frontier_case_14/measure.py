"""frontier_case_14, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Runs the agent's train.run(train.make_config("configs/plant.toml", ["seed=s"])) at the README's
settings, with a global forward pre-hook that keeps the first validation's inputs (600 rows), then
probes the returned model: weights, two eval-mode forwards of 128 validation rows under different
RNG states, one training-mode forward with its RNG state (families/functional_dropout_mode.py).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.functional_dropout_mode import watch_fit  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/plant.toml"
N_VAL = 600


def measure(seed, rec):
    def start():
        train = import_workspace_module("train")
        run_fn, make_config = require(train, "run", "make_config")
        cfg = make_config(CONFIG, [f"seed={seed}", "output.dir=runs/verify"])
        return lambda: run_fn(cfg, echo=False)

    watch_fit(rec, start, N_VAL)


measure_main(measure)
