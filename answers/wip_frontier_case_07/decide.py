"""wip_frontier_case_07, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-f07-de143537f11d4bc0

The bug: after each periodic validation, leafscan's evaluating() context puts the model back into
training through set_training(), which leaves every module it considers frozen in eval mode; its
is_frozen() test is vacuously true for a layer without parameters, so both Dropout layers stay in
eval mode from the first validation (step 50) to the end of the fit while model.training reads True.
The invariants, per seed, at the README's settings (configs/houses.toml: LeafMLP, dropout 0.5, 500
steps, validation every 50):

- reported `training_ran_readme_configuration`: 500 optimizer steps;
- reported `dropout_trains_after_validation`: every Dropout call of a training forward ran in
  training mode (2 per step, 1000); bug: 900 in eval mode, from step 51 on;
- reported `batchnorm_trains_after_validation`: the same for the two BatchNorm layers;
- recomputed `model_is_the_case_architecture`, `training_forward_after_validation_is_train_mode`:
  step 51's training forward, recorded with its weights, input and global RNG state, equals this
  file's own LeafMLP run in training mode from that RNG state (bug: it is the eval-mode forward);

and once, on what the README's command printed (seed 0): `readme_run_matches_measured_training`
(every printed validation row equals the measuring process's seed-0 run: code that behaves
differently under the verifier fails).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.mode_after_evaluation import check_layer_modes, check_readme, recompute_probe  # noqa: E402
from verifylib import decide_main  # noqa: E402

import torch.nn as nn  # noqa: E402

N_BANDS, N_CLASSES, HIDDEN, DROPOUT = 48, 5, 128, 0.5
STEPS, PROBE_AFTER_STEPS = 500, 50
PROBE_TOL = 1e-5
PRINTED = {"train loss": ("train_loss", 2e-4), "train acc": ("train_acc", 2e-3),
           "val loss": ("val_loss", 2e-4), "val acc": ("val_acc", 2e-3)}


class LeafMLP(nn.Module):
    """The case's LeafMLP (leafscan/models/mlp.py) at the README's sizes."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(N_BANDS, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
            nn.Linear(HIDDEN, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
        )
        self.head = nn.Linear(HIDDEN, N_CLASSES)

    def forward(self, x):
        return self.head(self.encoder(x))


def decide(seed, m, checks):
    check_layer_modes(m, checks, STEPS, dropout_per_step=2, batchnorm_per_step=2)
    recompute_probe(m, checks, LeafMLP(), PROBE_TOL, PROBE_AFTER_STEPS)


def readme(run, measured, checks):
    check_readme(run, measured, checks, readme_seed=0, fields=PRINTED)


decide_main(decide, readme=readme)
