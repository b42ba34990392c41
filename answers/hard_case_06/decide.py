"""hard_case_06, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-h06-5c1e0a7d92b4f318

The bug: configs/experiment.toml (what the README runs) selects features.normalization =
"batch", and normalize.BatchScaler z-scores each batch with its own mean and std; batches never
mix buildings, and bldg-D has no humidity reading (0.0 on every row), so that column's batch
std is 0 and (x - mean) / std is 0/0 = NaN (inf when the constant is not exact in float32).
configs/base.toml's global scaler is fine. A fix must give the model finite, honest inputs
whenever a column has no spread, without hiding real NaNs, changing the loader, or depending
on this export. Every run below is `load_config("configs/experiment.toml", [train.seed=s, ...])`
passed to train.run. Checks per seed:

- reported: `python train.py --config configs/experiment.toml`'s configuration (3 epochs, batch 64, the export) trains
  through every building: train() returns, one history row per batch the loader yielded and
  one training forward per batch, no non-finite loss (large finite losses are fine);
- recomputed: every model input of that run is finite (from the artifact: what the model's
  first Linear layer received in every training forward);
- reported: the loader still streams one building at a time (README): every row of every
  batch data.iterate_batches yields is a row of the shard the batch names, in every run;
- recomputed: a second dead sensor, and constants float32 cannot hold: with bldg-D's
  humidity set to 0.1 and to 21.7 and bldg-A's setpoint to 21.7, each nudged by a relative
  1e-6 and 2e-6, training runs through with finite inputs, and no model input moves by more
  than 0.1 (a tenth of a standardized unit) under the nudge (an epsilon in the denominator turns the mean's rounding residual
  into a fake feature of size 1.5 to 380 that jumps under the nudge; nan_to_num gives 3e38;
  dropping the humidity column leaves the setpoint as 0/0). Whether each of these runs, and
  the units run below, trained through is reported; the inputs are recomputed from artifacts;
- recomputed: the same export in other units (deg F temperatures, humidity as a fraction)
  gives the model the same inputs (within 0.1) as the README run's first epoch: the inputs
  are standardized with statistics of the data train() is given, not constants;
  (No check at batch size 1: the case never runs it (batch 64, whole batches only), and a
  guard that is right for every batch the case runs may rightly leave a 1-row batch's unbiased
  std NaN. Issue 22 found such a check rejecting correct fixes.)
- reported: a raw NaN injected in one batch still surfaces (train() raises, or a loss is
  non-finite): it must not be hidden by nan_to_num or by skipping the batch.

Then, once, on what the README's own command (`python train.py --config configs/experiment.toml`, run by the harness on a fresh
copy of the agent's files as the user runs it: plain python, no hooks) printed (source
readme_run). Its symptom is the crash itself, so finishing is a symptom check. Code that
recognises the verifier (python -I, measure.py in argv, hooks) and is fixed only there fails:

- `readme_run_completes`: exit code 0, not timed out (under the bug the loop's non-finite
  guard raises on the first bldg-D batch, step 13 for seed 0);
- `readme_run_trains_through_three_epochs`: it prints the steps 0, 5, ..., 105 of the 3 x 36
  batches of the three epochs (epochs 0, 1 and 2 all appear), every printed nll, mae and grad
  norm finite, and a finite `final mae` (the bug prints steps 0, 5, 10 and a traceback);
- `readme_run_matches_measured_console`: the README run is seed 0 at the defaults, the
  measuring half's seed-0 `readme` run: every printed step line names the same building and
  carries the same numbers (epoch, nll, mae, grad norm) as that run's line for the step, within
  2 units of the last printed digit (honest code prints identical lines);
- `readme_run_losses_match_measured_history`: the nll printed at each step is the loss of that
  step's history row in the measured run (within 2e-4; printed with 4 decimals), the mae its
  mae_kwh (within 0.011), the building the one the loader yielded for that batch, and the
  `final mae` the mean of the measured run's last 20 mae_kwh (within 0.011).
"""

import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifylib import Unreadable, decide_main, numbers, printed_numbers, step_lines  # noqa: E402

import torch  # noqa: E402

BUILDINGS = {"bldg-A", "bldg-B", "bldg-C", "bldg-D", "bldg-E", "bldg-F"}
ROWS = {"bldg-A": 420, "bldg-B": 384, "bldg-C": 450, "bldg-D": 400, "bldg-E": 372, "bldg-F": 436}
BATCH, EPOCHS = 64, 3
EPOCH_BATCHES = sum(n // BATCH for n in ROWS.values())  # 36
CONST_VALUES, NUDGES = (0.1, 21.7), (0.0, 1e-6, 2e-6)
# Model inputs are standardized to unit spread, so 0.1 is a tenth of a real feature. The wrong fixes move
# inputs by a feature's size or more (std clamped at 1e-6: 1.9 on this machine, up to 380 in the docstring's
# account; constants fitted to this export: O(1) in other units); a BatchNorm-style epsilon under the
# square root, a standard and harmless form, moves them by 6e-4 under the nudge and 8e-4 in other units.
# Until issue 22 both bounds were 1e-3, within a factor 1.2-1.7 of that correct fix.
NUDGE_TOL, UNITS_TOL = 0.1, 0.1
README_SEED, LOG_EVERY, FINAL_LAST = 0, 5, 20  # `python train.py --config configs/experiment.toml`: seed 0
README_STEPS = list(range(0, EPOCHS * EPOCH_BATCHES, LOG_EVERY))
NLL_TOL, MAE_TOL = 2e-4, 0.011
README_MEASURED = {}  # seed 0's measured readme run, for the checks on the README's own run


def tag_of(v, k):
    return f"const_{v:g}_{k:g}".replace(".", "p").replace("-", "m")


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
    return bool(xs) and all(bool(torch.isfinite(x).all()) for x in xs)


def decide(seed, m, checks):
    # 1. the README's run
    if seed == README_SEED:
        README_MEASURED.clear()
        README_MEASURED.update(stdout=m.value("readme:stdout", str), losses=m.value("readme:losses", list),
                               maes=m.value("readme:maes", list), shards=m.value("readme:batch_shards", list))
    ok, value = trained_through(m, "readme", EPOCHS * EPOCH_BATCHES)
    checks.check("readme:trains_through_every_building", ok, value=value,
                 bound=f"no error, {EPOCHS * EPOCH_BATCHES} batches, one history row and one forward each, "
                       "every loss finite (the bug stops the README's run at the first bldg-D batch)", source="reported")
    readme = inputs(m, "readme", m.number("readme:forwards"))
    bad = [k for k, x in enumerate(readme) if not torch.isfinite(x).all()]
    checks.check("readme:model_inputs_finite", bool(readme) and not bad,
                 value={"forwards": len(readme), "non_finite": bad[:5]},
                 bound="every input finite (the bug's (x - mean) / 0 makes every bldg-D batch NaN or inf)")

    # 2. the loader's contract, in every run that streams the export
    tags = ["readme", "units", "poison"] + [tag_of(v, k) for v in CONST_VALUES for k in NUDGES]
    foreign = {t: m.number(f"{t}:foreign_rows") for t in tags}
    names = {t: set(m.value(f"{t}:batch_shards", list)) for t in tags}
    unknown = sorted({n for t in tags for n in names[t]} - BUILDINGS)[:5]
    checks.check("loader_streams_one_building_per_batch",
                 not any(foreign.values()) and not unknown,
                 value={"rows_not_from_the_named_shard": sum(foreign.values()), "unknown_shard_names": unknown},
                 bound="every row of every batch comes from the one building the batch names", source="reported")

    # 3. dead sensors holding values float32 cannot represent, nudged
    for v in CONST_VALUES:
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
        checks.check(f"dead_sensor_{v:g}:trains_through_with_finite_inputs", not problems,
                     value={"problems": problems} if problems else "every nudge trained through, inputs finite",
                     bound="every run trains through with finite model inputs: a second dead sensor and a constant "
                           "float32 cannot hold are what the README's bldg-D column is, in other columns and values",
                     source="reported")
        checks.check(f"dead_sensor_{v:g}:inputs_stable_under_nudge", jump < NUDGE_TOL,
                     value=jump if math.isfinite(jump) else "n/a (a run did not train through)",
                     limit=NUDGE_TOL if math.isfinite(jump) else None, sense="<" if math.isfinite(jump) else None,
                     bound=f"< {NUDGE_TOL:g}: the largest change of any model input when the constants move by "
                           "1e-6 relative, inputs being standardized to unit spread. A flat column carries no signal; a "
                           "clamp of the std at 1e-6 turns the mean's rounding residual into a fake feature of size "
                           "1.5-380 that jumps here (a BatchNorm-style epsilon: 6e-4)")

    # 4. the same export in other units
    ok, value = trained_through(m, "units", EPOCH_BATCHES)
    units = inputs(m, "units", m.number("units:forwards"))
    diff = math.inf
    if ok and len(readme) >= len(units) and all(tuple(a.shape) == tuple(b.shape) for a, b in zip(units, readme)):
        diff = max((a - b).abs().nan_to_num(math.inf).max().item() for a, b in zip(units, readme))
    checks.check("units:trains_through", ok, value=value,
                 bound=f"no error, {EPOCH_BATCHES} batches, every loss finite", source="reported")
    checks.check("units:model_inputs_independent_of_units", diff < UNITS_TOL,
                 value=diff if math.isfinite(diff) else "n/a (shapes differ or the run did not train through)",
                 limit=UNITS_TOL if math.isfinite(diff) else None, sense="<" if math.isfinite(diff) else None,
                 bound=f"< {UNITS_TOL:g}: max |inputs(deg F, fraction) - inputs(deg C, %)| over the first epoch; "
                       "standardizing with statistics of the data given makes the units cancel, constants "
                       "tuned to this export do not")

    # 5. a genuinely broken raw value
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


decide_main(decide, readme=readme)
