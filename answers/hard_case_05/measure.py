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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/experiment.toml"  # the README's --config
RUNS = {"default": [], "high_lr": ["optim.lr=0.1"]}  # the README's two commands
LOGGED = [1] + list(range(50, 301, 50))  # the steps the README's runs log (log_every 50, 300 steps)
MAX_ROWS, MAX_STDOUT = 400, 200_000


def clean_ratios(row):
    ratios = row.get("update_ratio") if isinstance(row, dict) else None
    step = row.get("step") if isinstance(row, dict) else None
    step = step if isinstance(step, int) and not isinstance(step, bool) else (None if step is None else str(step)[:20])
    if not isinstance(ratios, dict):
        return {"step": step, "update_ratio": None}
    out = {}
    for k, v in list(ratios.items())[:50]:
        try:
            out[str(k)] = float(v)
        except (TypeError, ValueError):
            out[str(k)] = str(v)[:40]
    return {"step": step, "update_ratio": out}


def run_once(seed, tag, overrides, rec):
    import contextlib
    import io
    import json
    import tempfile

    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    steps, snaps, before = [], {}, {}

    def on_pre(opt, args, kwargs):
        n = len(steps) + 1
        steps.append([type(opt).__name__,
                      [{"lr": float(g.get("lr", float("nan"))),
                        "betas": [float(b) for b in g.get("betas", ())],
                        "weight_decay": float(g.get("weight_decay", 0.0)),
                        "ndims": sorted({p.ndim for p in g["params"]})} for g in opt.param_groups]])
        before.clear()
        if n in LOGGED:
            for g in opt.param_groups:
                for p in g["params"]:
                    if p.ndim == 2:
                        before[p] = p.detach().clone()

    def on_post(opt, args, kwargs):
        n = len(steps)
        if n in LOGGED:
            snaps[n] = {p: (b, p.detach().clone()) for p, b in before.items()}
        before.clear()

    config = import_workspace_module("config")
    train = import_workspace_module("train")
    load_config = require(config, "load_config")
    run = require(train, "run")
    stdout = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        metrics = Path(tmp) / "metrics.jsonl"
        cfg = load_config(CONFIG, [f"train.seed={seed}", f"train.metrics_file={metrics}",
                                   f"train.export_dir={Path(tmp) / 'export'}", *overrides])
        h_pre, h_post = register_optimizer_step_pre_hook(on_pre), register_optimizer_step_post_hook(on_post)
        try:
            with contextlib.redirect_stdout(stdout):
                model, history = run(cfg)
        finally:
            h_pre.remove()
            h_post.remove()
        rows = []
        if metrics.is_file():
            for line in metrics.read_text(errors="replace").splitlines()[:MAX_ROWS]:
                try:
                    rows.append(clean_ratios(json.loads(line)))
                except ValueError:
                    rows.append({"step": None, "update_ratio": None})
    names = {p: n for n, p in model.named_parameters()}
    tensors = {}
    for n, pairs in snaps.items():
        for p, (b, a) in pairs.items():
            name = names.get(p, f"unnamed{len(tensors)}")
            tensors[f"{n}|{name}|before"], tensors[f"{n}|{name}|after"] = b, a
    rec.put(f"{tag}:optimizer_steps", steps)
    rec.put(f"{tag}:history", [clean_ratios(r) for r in list(history)[:MAX_ROWS]])
    rec.put(f"{tag}:metrics_file", rows)
    rec.put(f"{tag}:stdout", stdout.getvalue()[-MAX_STDOUT:])
    rec.put(f"{tag}:matrices", sorted(n for n, p in model.named_parameters() if p.ndim == 2))
    rec.save(f"{tag}_snapshots", tensors)
    rec.save(f"{tag}_model", {k: v for k, v in model.state_dict().items() if isinstance(v, torch.Tensor)})


def measure(seed, rec):
    for tag, overrides in RUNS.items():
        run_once(seed, tag, overrides, rec)


measure_main(measure)
