"""hard_case_05, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h05-0ffbdfc30d69f03b

Runs the agent's code through its entry points (config.load_config, train.run) in the two
configurations the README runs: `python train.py --config configs/experiment.toml` and the same
with `--set optim.lr=0.1`, each for every seed (`train.seed`), with the metrics file (the
dashboard's input) and the export folder in a private temporary folder. Per run:
- every optimizer step (global step hooks, so any optimizer and any helper that calls step()
  is seen): the optimizer's class and, per param group, lr, betas, weight decay and whether
  the group holds matrices or vectors;
- artifacts: copies of every weight matrix just before and just after the optimizer steps
  the dashboard logs (1, 50, ..., 300), and the trained model's state_dict;
- what the dashboard shows: the `update_ratio` of every history row, of every metrics-file
  row, and the console lines (stdout) of the run.
The decider computes the real update ratios from the snapshots itself.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # the verifier's bundle, or answers/<case>/ in the repository
sys.path[:0] = [str(HERE)] if (HERE / "families").is_dir() else [str(HERE), str(HERE.parent)]  # families/ beside
from families.update_ratio import measure_run  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/experiment.toml"  # the README's --config
RUNS = {"default": [], "high_lr": ["optim.lr=0.1"]}  # the README's two commands
LOGGED = [1] + list(range(50, 301, 50))  # the steps the README's runs log (log_every 50, 300 steps)


def run_once(seed, tag, overrides, rec):
    def start(tmp, metrics):
        config = import_workspace_module("config")
        train = import_workspace_module("train")
        load_config = require(config, "load_config")
        run = require(train, "run")
        cfg = load_config(CONFIG, [f"train.seed={seed}", f"train.metrics_file={metrics}",
                                   f"train.export_dir={tmp / 'export'}", *overrides])
        return lambda: run(cfg)

    measure_run(tag, rec, start, LOGGED)


def measure(seed, rec):
    for tag, overrides in RUNS.items():
        run_once(seed, tag, overrides, rec)


measure_main(measure)
