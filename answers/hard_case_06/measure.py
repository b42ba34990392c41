"""hard_case_06, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-h06-5c1e0a7d92b4f318

Calls the agent's code only through config.load_config("configs/experiment.toml", overrides),
train.run(cfg, shards=None), data.load_shards (inside run, as the README runs it) and
data.iterate_batches (wrapped, on the data module and on every workspace module that holds the
same function). Per seed, runs:
- readme: run(load_config(experiment.toml, [train.seed=seed])), the README's `python train.py
  --config configs/experiment.toml` (3 epochs, batch 64);
- units: one epoch on the same export in other units (outdoor and setpoint temperatures in
  deg F, humidity as a fraction), passed as shards=;
- const_<v>_<k>: one epoch on the export with bldg-D's humidity set to the constant
  v * (1 + k) and bldg-A's setpoint to 21.7 * (1 + k) (a second dead sensor, in another
  column and building), for v in 0.1, 21.7 (not exact in float32) and k in 0, 1e-6, 2e-6;
- poison: one epoch on the export, with one raw value of the 3rd batch set to NaN.
(No run at a batch size the case never uses: every batch it runs holds 64 rows of one building.)
The variant datasets are built from this file's own copy of the case's CSV loader. Recorded
per run: whether train() raised, how many history rows and non-finite losses, the batches the
loader yielded (shard names, and whether every row of a batch is a row of the shard it
names), and as an artifact what the model received in every training forward: the input of
its first Linear layer (the model's input if it has none).
For the readme run it also records the loss and MAE of every history row and what train()
printed (the decider compares them with what the README's own command printed: seed 0 at
the defaults is that command's run).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/experiment.toml"  # the README's --config
COLUMNS = ("outdoor_temp_c", "humidity_pct", "solar_wm2", "occupancy", "hour", "setpoint_c", "lag_kwh")
CONST_VALUES, NUDGES, SETPOINT = (0.1, 21.7), (0.0, 1e-6, 2e-6), 21.7
DEAD = {"bldg-D": "humidity_pct", "bldg-A": "setpoint_c"}
POISON_BATCH = 2
MAX_ROWS, MAX_STDOUT = 1000, 200_000


def load_export(folder="data"):
    """The case's load_shards as shipped (so the variants do not depend on the agent's loader)."""
    import csv

    import torch

    shards = []
    for path in sorted(Path(folder).glob("bldg-*.csv")):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        x = torch.tensor([[float(r[c]) for c in COLUMNS] for r in rows], dtype=torch.float32)
        y = torch.tensor([float(r["next_kwh"]) for r in rows], dtype=torch.float32)
        shards.append({"name": path.stem, "x": x, "y": y})
    return shards


def variants(export):
    import torch

    def copy():
        return [{"name": s["name"], "x": s["x"].clone(), "y": s["y"].clone()} for s in export]

    runs = {}
    units = copy()
    for s in units:
        for col in ("outdoor_temp_c", "setpoint_c"):
            j = COLUMNS.index(col)
            s["x"][:, j] = s["x"][:, j] * 1.8 + 32.0
        j = COLUMNS.index("humidity_pct")
        s["x"][:, j] = s["x"][:, j] / 100.0
    runs["units"] = ({"epochs": 1}, units, None)
    for v in CONST_VALUES:
        for k in NUDGES:
            shards = copy()
            for s in shards:
                if s["name"] == "bldg-D":
                    s["x"][:, COLUMNS.index("humidity_pct")] = torch.tensor(v * (1 + k), dtype=torch.float32)
                if s["name"] == "bldg-A":
                    s["x"][:, COLUMNS.index("setpoint_c")] = torch.tensor(SETPOINT * (1 + k), dtype=torch.float32)
            runs[f"const_{v:g}_{k:g}".replace(".", "p").replace("-", "m")] = ({"epochs": 1}, shards, None)
    runs["poison"] = ({"epochs": 1}, copy(), POISON_BATCH)
    return runs


def measure(seed, rec):
    import contextlib
    import io
    import math

    import torch
    import torch.nn as nn
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

    config = import_workspace_module("config")
    train = import_workspace_module("train")
    data = import_workspace_module("data")
    load_config = require(config, "load_config")
    run_fn = require(train, "run")
    require(data, "load_shards")
    original_iter = require(data, "iterate_batches")

    state = {"depth": 0, "current": None, "forwards": [], "batches": [], "poison": None}

    def pre(module, args):
        if state["depth"] == 0:
            if torch.is_grad_enabled() and args and torch.is_tensor(args[0]):
                state["current"] = {"outer": args[0].detach().clone(), "linear": None}
                state["forwards"].append(state["current"])
            else:
                state["current"] = None
        elif state["current"] is not None and state["current"]["linear"] is None and isinstance(module, nn.Linear) \
                and args and torch.is_tensor(args[0]):
            state["current"]["linear"] = args[0].detach().clone()
        state["depth"] += 1

    def post(module, args, out):
        state["depth"] -= 1

    def recording_iter(*args, **kwargs):
        shards = args[0] if args else kwargs.get("shards")
        rows = {}
        for s in shards:
            rows[s["name"]] = {tuple(r) for r in s["x"].tolist()}
        for k, item in enumerate(original_iter(*args, **kwargs)):
            epoch, name, i, raw, y = item
            own = rows.get(name)
            foreign = len(raw) if own is None else sum(tuple(r) not in own for r in raw.tolist())
            if state["poison"] is not None and k == state["poison"]:
                raw = raw.clone()
                raw[min(3, len(raw) - 1), 0] = float("nan")
            state["batches"].append({"shard": str(name)[:40], "rows": len(raw), "foreign_rows": foreign})
            yield epoch, name, i, raw, y

    def run(tag, overrides, shards, poison):
        state.update(depth=0, current=None, forwards=[], batches=[], poison=poison)
        error, history, stdout = None, [], io.StringIO()
        pre_h = register_module_forward_pre_hook(pre)
        post_h = register_module_forward_hook(post, always_call=True)
        patched = [(data, "iterate_batches", original_iter)]
        ws = str(Path.cwd())
        for mod in list(sys.modules.values()):
            if mod is not data and getattr(mod, "iterate_batches", None) is original_iter \
                    and str(getattr(mod, "__file__", "") or "").startswith(ws):
                patched.append((mod, "iterate_batches", original_iter))
        for module, name, _ in patched:
            setattr(module, name, recording_iter)
        try:
            with contextlib.redirect_stdout(stdout):
                cfg = load_config(CONFIG, [f"train.seed={seed}", "train.export_dir=",
                                           *(f"train.{k}={v}" for k, v in overrides.items())])
                _, history = run_fn(cfg, shards=shards)
        except Exception as exc:  # the loop's own non-finite guard, or any other failure
            error = f"{type(exc).__name__}: {exc}"[:300]
        finally:
            pre_h.remove()
            post_h.remove()
            for module, name, fn in patched:
                setattr(module, name, fn)
        losses, maes = [], []
        for row in list(history or []):
            try:
                losses.append(float(row["loss"]))
            except (TypeError, KeyError, ValueError, IndexError):
                losses.append(float("nan"))
            try:
                maes.append(float(row["mae_kwh"]))
            except (TypeError, KeyError, ValueError, IndexError):
                maes.append(float("nan"))
        if tag == "readme":
            rec.put(f"{tag}:losses", [v if math.isfinite(v) else str(v) for v in losses[:MAX_ROWS]])
            rec.put(f"{tag}:maes", [v if math.isfinite(v) else str(v) for v in maes[:MAX_ROWS]])
            rec.put(f"{tag}:stdout", stdout.getvalue()[-MAX_STDOUT:])
        batches = state["batches"]
        rec.put(f"{tag}:error", error)
        rec.put(f"{tag}:history_rows", len(losses))
        rec.put(f"{tag}:non_finite_losses", sum(not torch.isfinite(torch.tensor(v)).item() for v in losses))
        rec.put(f"{tag}:batches", len(batches))
        rec.put(f"{tag}:batch_shards", [b["shard"] for b in batches])
        rec.put(f"{tag}:foreign_rows", sum(b["foreign_rows"] for b in batches))
        rec.put(f"{tag}:forwards", len(state["forwards"]))
        inputs = [f["linear"] if f["linear"] is not None else f["outer"] for f in state["forwards"]]
        rec.save(tag.replace(":", "_"), {f"{k:05d}": x for k, x in enumerate(inputs)})

    run("readme", {}, None, None)
    for tag, (overrides, shards, poison) in variants(load_export("data")).items():
        run(tag, overrides, shards, poison)


measure_main(measure)
