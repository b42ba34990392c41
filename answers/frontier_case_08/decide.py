"""frontier_case_08, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_08-3c7e1f09a2d45b68

Two independent defects. Layer A (trainer + callbacks): the GradientClip callback clips in on_step_end,
which the Trainer calls after optimizer.step(), so every update applies the unclipped gradients (the
clip rescales gradients already used, and the next step's zero_grad discards them); the storm windows'
rare large gradients jolt AdamW's moments. Layer B (sampling + dataset): build_train_loader computes the
balanced draw weights (every state, and every house within a state, the same share) from the table's
rows in the exports' order, while WindowDataset stores its rows regrouped by (house, zone) and time; the
WeightedRandomSampler attaches weight i to dataset row i, so every weight belongs to another window and
the epoch is drawn at the states' natural shares: the rare valve_hunting state is hardly learned. Every run is the README's `python train.py` at
train.seed = s (10 epochs of 45 batches of 64). Checks per seed:

- reported `readme_config_trains`, `every_step_seen` (>= 450 optimizer steps), `config_clips_at_readme_value`;
- recomputed `every_update_clipped`: the largest global gradient norm any optimizer step applied is at
  most grad_clip (1.0) x (1 + 1e-4) (broken: 24 at the largest on seed 0; a lower learning rate or clip_grad_value_ leave it > 1);
- reported `balanced_accuracy` >= 0.76 and `state_f1` (valve_hunting) >= 0.40 on the final printed lines
  (broken 0.64-0.65 and 0.000; A fixed alone 0.66-0.68 and 0.10-0.22; both fixed 0.815-0.832 and 0.50-0.63).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.76).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.unclipped_update import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_steps": 10 * 45, "grad_clip": 1.0, "clip_rtol": 1e-4,
    "min_bal_acc": 0.76, "state": "valve_hunting", "min_state_f1": 0.40, "print_tol": 2e-4,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
