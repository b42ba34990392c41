"""frontier_case_03, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_03-5694cfb8c940728e

Two independent defects. Layer A (dataset.py + augment.py): WindowDataset scales every window once into
one stored tensor and __getitem__ hands the augmentation self.x[i], a view of that tensor; CollarAugment
works in place (mul_, add_, masked assignment), so every draw's gain, noise and dropped readings are
written back and compound epoch after epoch, while the validation inputs are untouched. Layer B
(dataset.motion_shape, called by model_inputs): the collar accelerometer's four band energies reach the model
only as log10 shares of the window's own total ("collar fit changes the level tenfold": true), so the window's
motion level is gone. A lame cow nods at every step: her windows carry more motion energy in every band alike
(the same shape), at every collar fit; with the level erased lameness and normal blur on every farm.
Every run is the README's `python train.py` at train.seed = s (12 epochs of 55 batches of 64).
Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `every_epoch_trained`: >= 600 training forwards;
- recomputed `input_scale_stationary`: mean square of the training inputs (clipped at +-4), last quarter of
  training forwards / first quarter, <= 1.015;
- recomputed `augmentation_still_applied`: early share of zero inputs in [0.015, 0.06];
- reported `balanced_accuracy` >= 0.74 and `alert_recall` (heat) >= 0.40 on the final printed lines (floors only: the absolute log bands instead of the shares, a correct fix, give heat recall 0.479 on seed 0);
- recomputed `val_rows_matched`: the inputs of the model's last evaluation pass, row for row against the
  held-out windows (the exports read and split here, from the case's own files, as the case does), reproduce
  at least 5 of the 9 non-band readings linearly (R^2 >= 0.99 each): the matching the next check relies on;
- recomputed `inputs_carry_motion_level` (layer B's mechanism): each held-out window's log10 total band
  energy, recomputed from the exports, regressed linearly on the model's inputs, both taken within each cow
  (minus the cow's mean, the cow keyed by farm and ear tag): R^2 >= 0.75. Within the cow, because a level
  measured against the cow's own baseline (her median over her windows, or over her last 7 days) is as correct
  a fix as the absolute level: it keeps the lame cow's extra motion and drops the collar's fit, which is what
  the stage meant to drop. At the freeze commit this check took the absolute level (R^2 >= 0.90) and rejected
  two blind solves' cow-relative levels; measured on seed 0 with the within-cow form: A only 0.41, a baseline
  over the cow's last 7 days 0.84, over all her windows 1.0 (see NOTES);
- recomputed `inputs_ignore_labels`: the same run on the exports with each farm's `state` column shuffled
  gives the model bit-for-bit the same held-out inputs (max difference <= 1e-5): features built with labels
  (a baseline from a cow's windows labelled normal, say) are a leak and fail here. Measured on seed 0 (the
  rerun costs a training run); the other seeds' artifact repeats the first inputs and passes trivially.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.74).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.compounding_augmentation import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main, linear_fit_r2, minus_group_means, pristine_case  # noqa: E402

SETTINGS = {
    "min_forwards": 600, "window_div": 4, "max_sq_ratio": 1.015,
    "dropout_share": (0.015, 0.06), "min_bal_acc": 0.74, "alarm_label": "heat", "min_alarm_recall": 0.40,
    "print_tol": 2e-4,
}
MIN_R2, MIN_MATCH_R2, MIN_MATCHED_COLUMNS, MAX_LABEL_DIFF = 0.75, 0.99, 5, 1e-5
VAL_FRACTION, SPLIT_SEED = 0.25, 2026


def held_out_windows(export_dir):
    """(readings, log10 total band energy, cow) of the held-out windows, in the order the case's loader and split
    give them: files by name; within a farm, cow by cow in order of first appearance, each cow's windows by
    start; a quarter of each farm's cows held out by numpy's default_rng(2026)."""
    import csv

    import numpy as np

    rows, farms, cows = [], [], []
    names = None
    for path in sorted(Path(export_dir).glob("*.csv")):
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            recs = list(reader)
        names = header[4:]
        first = {}
        for i, r in enumerate(recs):
            first.setdefault(r[1], i)
        order = sorted(range(len(recs)), key=lambda i: (first[recs[i][1]], int(recs[i][2])))
        for i in order:
            rows.append([float(v) for v in recs[i][4:]])
            farms.append(path.stem)
            cows.append(recs[i][1])
    x, farms, cows = np.array(rows), np.array(farms), np.array(cows)
    rng = np.random.default_rng(SPLIT_SEED)
    is_val = np.zeros(len(x), dtype=bool)
    for farm in sorted(set(farms)):
        on_farm = farms == farm
        herd = sorted(set(cows[on_farm]))
        k = max(1, int(round(VAL_FRACTION * len(herd))))
        held = rng.choice(herd, size=k, replace=False)
        is_val |= on_farm & np.isin(cows, held)
    bands = [i for i, n in enumerate(names) if n.startswith("acc_")]
    other = [i for i in range(len(names)) if i not in bands]
    x = x[is_val]
    herd_keys = np.char.add(np.char.add(farms, "/"), cows)  # ear tags repeat between farms
    return x[:, other], np.log10(x[:, bands].sum(axis=1)), herd_keys[is_val]


def decide(seed, m, checks):
    import numpy as np

    decide_training(m, checks, SETTINGS)
    t = m.tensors("val_inputs", keys=["val", "relabelled"])
    x, relabelled = t["val"].double().numpy(), t["relabelled"].double().numpy()
    readings, level, cows = held_out_windows(pristine_case() / "data" / "exports")
    same_rows = x.ndim == 2 and x.shape[0] == len(level) and x.shape[1] > 0 and np.isfinite(x).all()
    fits = [linear_fit_r2(x, readings[:, j]) for j in range(readings.shape[1])] if same_rows else []
    matched = sum(f >= MIN_MATCH_R2 for f in fits)
    checks.check("val_rows_matched", same_rows and matched >= MIN_MATCHED_COLUMNS, value=matched,
                 bound=f">= {MIN_MATCHED_COLUMNS} of the held-out windows' non-band readings reproduced linearly "
                       f"(R^2 >= {MIN_MATCH_R2}) by the last evaluation pass's {x.shape[0] if x.ndim == 2 else 0} "
                       f"input rows (need {len(level)})", source="recomputed")
    fit = linear_fit_r2(minus_group_means(x, cows), minus_group_means(level, cows)) if same_rows else 0.0
    checks.check("inputs_carry_motion_level", fit >= MIN_R2, value=fit,
                 bound=f">= {MIN_R2} (R^2 of each held-out window's log10 total band energy, recomputed from the "
                       f"exports, regressed linearly on the model's inputs, both within each cow: a level "
                       f"against the cow's own baseline counts as much as the absolute one)",
                 source="recomputed", limit=MIN_R2, sense=">")
    diff = float(np.abs(x - relabelled).max()) if x.shape == relabelled.shape and x.size else float("inf")
    checks.check("inputs_ignore_labels", diff <= MAX_LABEL_DIFF, value=diff,
                 bound=f"<= {MAX_LABEL_DIFF} (max difference of the held-out inputs when the exports' state column "
                       f"is shuffled within each farm: features must not be built from labels)",
                 source="recomputed", limit=MAX_LABEL_DIFF, sense="<")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
