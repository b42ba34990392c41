"""The zero-spread z-score family (case_06, hard_case_06): each batch is z-scored with its own mean and
std, batches never mix buildings, and bldg-D's humidity column holds one value, so its std is 0 and
(x - mean) / std feeds the model NaN (inf when the constant is not exact in float32).

Both cases stream the same six-building export through data.iterate_batches and are verified the same
way; they differ in their entry points (train.Config/train.train against config.load_config/train.run),
which modules hold the loader, case_06's extra run at a seed whose first batch is bldg-D's, and the
bounds and wording of the checks. The measuring half runs the README configuration and variants of the
export, recording what the model's first Linear layer received (``input_recording_run``,
``export_variants``); the deciding half recomputes from those inputs and reads the README run
(``readme``). torch is imported inside the functions, as verifylib does, so importing this module from
measure.py loads nothing before ``measure_main`` has set the process up.
"""

import math
import re
from pathlib import Path

from verifylib import Unreadable, numbers, printed_numbers, step_lines

# --- shared by both halves ------------------------------------------------------------------------

CONST_VALUES, NUDGES = (0.1, 21.7), (0.0, 1e-6, 2e-6)


def tag_of(v, k):
    return f"const_{v:g}_{k:g}".replace(".", "p").replace("-", "m")


# --- measuring (called by measure.py, beside the agent's code) -------------------------------------

COLUMNS = ("outdoor_temp_c", "humidity_pct", "solar_wm2", "occupancy", "hour", "setpoint_c", "lag_kwh")
SETPOINT = 21.7
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


def export_variants(export):
    """{tag: (config overrides, shards, poisoned batch index)}: the export in other units, with dead
    sensors holding constants float32 cannot represent (nudged), and with a raw NaN in one batch."""
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
            runs[tag_of(v, k)] = ({"epochs": 1}, shards, None)
    runs["poison"] = ({"epochs": 1}, copy(), POISON_BATCH)
    return runs


def input_recording_run(rec, start):
    """``run(tag, overrides, shards, poison)``: one training run recorded under ``tag``.

    ``start()`` reaches the case's entry points (after this function has imported what it needs, so
    nothing the agent's modules do at import changes it) and returns (data, original_iter, train_call,
    other_holders): the agent's data module and its iterate_batches; ``train_call(overrides, shards)``,
    which starts the agent's training and returns (model, history); and ``other_holders()``, the
    workspace modules besides ``data`` that hold ``original_iter``. The loader's function is swapped
    there and in ``data`` for a wrapper that records each batch's shard and whether its rows are that
    shard's (and, when ``poison`` is a batch index, sets one raw value of that batch to NaN). Global
    module hooks keep what the outermost training forward received and what its first Linear layer
    received; the run's error, history counts and batches go to ``rec``, the inputs to the artifact
    ``tag``."""
    import contextlib
    import io

    import torch
    import torch.nn as nn
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

    data, original_iter, train_call, other_holders = start()
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
        patched += [(mod, "iterate_batches", original_iter) for mod in other_holders()]
        for module, name, _ in patched:
            setattr(module, name, recording_iter)
        try:
            with contextlib.redirect_stdout(stdout):
                _, history = train_call(overrides, shards)
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

    return run


def run_readme_and_variants(run, export):
    """The README configuration, then every variant of the export ``export()`` loads (called after the
    README run)."""
    run("readme", {}, None, None)
    for tag, (overrides, shards, poison) in export_variants(export()).items():
        run(tag, overrides, shards, poison)


# --- deciding (called by decide.py; never imports the agent's code) -------------------------------

BUILDINGS = {"bldg-A", "bldg-B", "bldg-C", "bldg-D", "bldg-E", "bldg-F"}
ROWS = {"bldg-A": 420, "bldg-B": 384, "bldg-C": 450, "bldg-D": 400, "bldg-E": 372, "bldg-F": 436}
BATCH, EPOCHS = 64, 3
EPOCH_BATCHES = sum(n // BATCH for n in ROWS.values())  # 36
README_SEED, LOG_EVERY, FINAL_LAST = 0, 5, 20  # the README's command: the default configuration, seed 0
README_STEPS = list(range(0, EPOCHS * EPOCH_BATCHES, LOG_EVERY))
NLL_TOL, MAE_TOL = 2e-4, 0.011
README_MEASURED = {}  # seed 0's measured readme run, for the checks on the README's own run


def inputs(m, tag, n):
    """The n recorded model inputs of a run, as float64 tensors (checked for shape and count)."""
    art = m.tensors(tag)
    keys = sorted(art)
    if keys != [f"{k:05d}" for k in range(len(keys))]:
        raise Unreadable(f"artifact '{tag}' is not a sequence of forwards")
    if len(keys) != n:
        raise Unreadable(f"artifact '{tag}' holds {len(keys)} forwards, the run reported {n}")
    out = [art[k].double() for k in keys]
    if any(x.dim() != 2 for x in out):
        raise Unreadable(f"artifact '{tag}' has a model input that is not (rows, features)")
    return out


def trained_through(m, tag, want_batches=None):
    error = m.value(f"{tag}:error")
    rows, bad = m.number(f"{tag}:history_rows"), m.number(f"{tag}:non_finite_losses")
    batches, forwards = m.number(f"{tag}:batches"), m.number(f"{tag}:forwards")
    ok = (error is None and batches > 0 and rows == batches == forwards and bad == 0
          and (want_batches is None or batches == want_batches))
    return ok, {"error": error, "history_rows": rows, "batches": batches, "forwards": forwards,
                "non_finite_losses": bad}


def all_finite(xs):
    import torch

    return bool(xs) and all(bool(torch.isfinite(x).all()) for x in xs)


def check_readme_configuration(seed, m, checks, trains_bound, finite_bound):
    """The README configuration's run: trains through (reported), every model input finite
    (recomputed); keeps seed 0's run for ``readme``. Returns the run's model inputs."""
    import torch

    if seed == README_SEED:
        README_MEASURED.clear()
        README_MEASURED.update(stdout=m.value("readme:stdout", str), losses=m.value("readme:losses", list),
                               maes=m.value("readme:maes", list), shards=m.value("readme:batch_shards", list))
    ok, value = trained_through(m, "readme", EPOCHS * EPOCH_BATCHES)
    checks.check("readme:trains_through_every_building", ok, value=value, bound=trains_bound, source="reported")
    readme_inputs = inputs(m, "readme", m.number("readme:forwards"))
    bad = [k for k, x in enumerate(readme_inputs) if not torch.isfinite(x).all()]
    checks.check("readme:model_inputs_finite", bool(readme_inputs) and not bad,
                 value={"forwards": len(readme_inputs), "non_finite": bad[:5]}, bound=finite_bound)
    return readme_inputs


def check_loader_streams_one_building(m, checks, extra_tags=()):
    """The loader's contract, in every run that streams the export (``extra_tags``: the case's own runs)."""
    tags = ["readme", "units", "poison", *extra_tags] + [tag_of(v, k) for v in CONST_VALUES for k in NUDGES]
    foreign = {t: m.number(f"{t}:foreign_rows") for t in tags}
    names = {t: set(m.value(f"{t}:batch_shards", list)) for t in tags}
    unknown = sorted({n for t in tags for n in names[t]} - BUILDINGS)[:5]
    checks.check("loader_streams_one_building_per_batch",
                 not any(foreign.values()) and not unknown,
                 value={"rows_not_from_the_named_shard": sum(foreign.values()), "unknown_shard_names": unknown},
                 bound="every row of every batch comes from the one building the batch names", source="reported")


def nudged_dead_sensors(m, v):
    """(problems, jump) of the runs with dead sensors at the constant ``v``, nudged: the runs that did
    not train through or fed the model a non-finite input, and the largest change of any model input
    across the nudges (inf when a run has a problem or the runs' inputs differ in shape)."""
    import torch

    runs, problems = [], {}
    for k in NUDGES:
        tag = tag_of(v, k)
        ok, value = trained_through(m, tag, EPOCH_BATCHES)
        xs = inputs(m, tag, m.number(f"{tag}:forwards"))
        if not ok:
            problems[tag] = value
        elif not all_finite(xs):
            problems[tag] = "non-finite model input"
        runs.append(xs)
    jump = math.inf
    if not problems and len({len(xs) for xs in runs}) == 1 and all(
            tuple(a.shape) == tuple(b.shape) for xs in runs[1:] for a, b in zip(runs[0], xs)):
        jump = max((torch.stack([xs[j] for xs in runs]).amax(0) - torch.stack([xs[j] for xs in runs]).amin(0))
                   .max().item() for j in range(len(runs[0])))
    return problems, jump


def units_difference(m, readme_inputs):
    """(trained through, its value, diff): the largest |model input of the units run - the README
    run's| over the first epoch (inf when the run did not train through or the shapes differ)."""
    ok, value = trained_through(m, "units", EPOCH_BATCHES)
    units = inputs(m, "units", m.number("units:forwards"))
    diff = math.inf
    if ok and len(readme_inputs) >= len(units) and all(tuple(a.shape) == tuple(b.shape)
                                                      for a, b in zip(units, readme_inputs)):
        diff = max((a - b).abs().nan_to_num(math.inf).max().item() for a, b in zip(units, readme_inputs))
    return ok, value, diff


def check_raw_nan_surfaces(m, checks):
    """A genuinely broken raw value must still surface."""
    error, bad_losses = m.value("poison:error"), m.number("poison:non_finite_losses")
    checks.check("raw_nan_still_surfaces", m.number("poison:batches") >= 3 and (error is not None or bad_losses > 0),
                 value={"error": error, "non_finite_losses": bad_losses, "history_rows": m.number("poison:history_rows")},
                 bound="train() raises or records a non-finite loss", source="reported")


def parse_line(line):
    """{label: first number} of a step line's segments, plus the building it names."""
    row = {}
    for seg in line.split("|")[1:]:
        seg = seg.strip()
        if seg in BUILDINGS:
            row["building"] = seg
            continue
        label, values = re.match(r"[A-Za-z ]*", seg).group().strip(), numbers(seg)
        if label and values:
            row[label] = values[0]
    return row


def final_mae(text):
    for line in text.splitlines():
        if line.strip().startswith("final mae"):
            values = numbers(line)
            return values[0] if values else math.nan
    return None


def as_float(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def readme(run, measured, checks):
    """The checks on what the README's own command printed (decide_main's ``readme``), against seed 0's
    measured readme run."""
    lines = step_lines(run["stdout"])
    rows = {s: parse_line(line) for s, line in lines.items()}
    logged, final = sorted(lines), final_mae(run["stdout"])
    fields = ("epoch", "nll", "mae", "grad norm")
    finite = all(all(math.isfinite(rows[s].get(f, math.nan)) for f in fields) and "building" in rows[s]
                 for s in logged)
    epochs = sorted({int(rows[s]["epoch"]) for s in logged if math.isfinite(rows[s].get("epoch", math.nan))})
    checks.check("readme_run_trains_through_three_epochs",
                 logged == README_STEPS and finite and epochs == list(range(EPOCHS))
                 and final is not None and math.isfinite(final),
                 value={"steps": f"{logged[:3]} ... {logged[-2:]} ({len(logged)} lines)", "epochs": epochs,
                        "every_row_finite": finite, "final_mae": final},
                 bound=f"steps {README_STEPS[0]}, {LOG_EVERY}, ..., {README_STEPS[-1]}, epochs 0-{EPOCHS - 1}, every "
                       "nll, mae, grad norm finite, a finite final mae", source="readme_run")

    if not README_MEASURED:
        raise Unreadable(f"seed {README_SEED}'s readme run has no usable measurement to compare with")
    measured_lines = step_lines(str(README_MEASURED["stdout"]))
    bad = {}
    for s in README_STEPS:
        got, want = printed_numbers(lines.get(s, "")), printed_numbers(measured_lines.get(s, ""))
        same_building = parse_line(lines.get(s, "")).get("building") == parse_line(measured_lines.get(s, "")).get("building")
        if not want or not same_building or len(got) != len(want) or not all(
                abs(a - b) <= 2 * max(ua, ub) + 1e-9 * abs(b) for (a, ua), (b, ub) in zip(got, want)):
            bad[f"step {s}"] = {"printed": lines.get(s, "")[:160], "measured": measured_lines.get(s, "")[:160]}
    checks.check("readme_run_matches_measured_console", not bad,
                 value={"mismatched_steps": len(bad), "first": dict(list(bad.items())[:2])} if bad
                 else "every printed step line matches",
                 bound=f"each printed step line (building, epoch, nll, mae, grad norm) = the measured seed-{README_SEED} "
                       "run's, within 2 units of the last printed digit", source="readme_run")

    losses = [as_float(v) for v in README_MEASURED["losses"]]
    maes = [as_float(v) for v in README_MEASURED["maes"]]
    shards = README_MEASURED["shards"]
    bad = {}
    for s in README_STEPS:
        row = rows.get(s, {})
        if not (s < len(losses) and s < len(maes) and s < len(shards)
                and abs(row.get("nll", math.nan) - losses[s]) < NLL_TOL
                and abs(row.get("mae", math.nan) - maes[s]) < MAE_TOL and row.get("building") == shards[s]):
            bad[f"step {s}"] = {"printed": [row.get("building"), row.get("nll"), row.get("mae")],
                                "measured": [shards[s] if s < len(shards) else None,
                                             round(losses[s], 5) if s < len(losses) else None,
                                             round(maes[s], 3) if s < len(maes) else None]}
    last = maes[-FINAL_LAST:]
    want_final = sum(last) / len(last) if last else math.nan
    final_ok = final is not None and abs(final - want_final) < MAE_TOL
    if not final_ok:
        bad["final mae"] = {"printed": final, "measured": round(want_final, 3) if math.isfinite(want_final) else None}
    checks.check("readme_run_losses_match_measured_history", not bad,
                 value={"mismatches": len(bad), "first": dict(list(bad.items())[:3])} if bad
                 else "every printed nll, mae, building and the final mae match",
                 bound=f"printed nll within {NLL_TOL}, mae within {MAE_TOL} of the measured seed-{README_SEED} history "
                       f"rows, same building; final mae within {MAE_TOL} of the mean of its last {FINAL_LAST} mae_kwh",
                 source="readme_run")
