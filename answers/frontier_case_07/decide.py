"""frontier_case_07, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-f07-de143537f11d4bc0

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

- recomputed `validation_features_are_the_scans_as_measured`: the features of the first
  validation's forwards (1000 x 48) equal this file's own rebuild of the validation split: the
  synthetic scans as measured, 2 log, standardized with the training split's per-band statistics
  (bug B: the static stages subtract each scan's own mean over its bands (NormalizeBrightness)
  before standardizing, which removes every condition's broadband shift; chlorosis, whose band
  pattern is faint and whose signature is mostly a broadband brightening, loses most of what
  tells it apart, recall about 0.61-0.67 instead of 0.78-0.84);

- reported `frozen_encoder_batchnorm_stays_in_eval`: in a second, short fit (150 steps, the encoder
  frozen for the first 100, a validation at step 50) every BatchNorm call of a training forward whose
  parameters are frozen ran in eval mode (200): a fix must not give up the documented frozen-encoder
  warm start (restoring training with a plain model.train() after validation, or calling it before
  every step, puts the frozen encoder's BatchNorm back in training mode: its statistics move);

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
from families.mode_after_evaluation import check_frozen_batchnorm, check_layer_modes, check_readme, recompute_probe  # noqa: E402
from verifylib import decide_main  # noqa: E402

import math  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

N_BANDS, N_CLASSES, HIDDEN, DROPOUT = 48, 5, 128, 0.5
STEPS, PROBE_AFTER_STEPS = 500, 50
WARM_START_FROZEN_STEPS, BATCHNORMS = 100, 2
PROBE_TOL = 1e-5
FEATURE_TOL = 1e-3
N_TRAIN, N_VAL, N_HOUSES, VAL_SEED_OFFSET = 1500, 1000, 6, 1000
SIGNATURE_SEED, HOUSE_SEED, SENSOR_NOISE, CAMERA_NOISE = 99, 98, 2.5, {5: 1.5}
PATTERN, BROADBAND = (1.0, 1.0, 1.0, 1.0, 0.4), (0.0, 0.0, 0.0, -0.2, 2.0)
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


def scans_as_measured(n, seed):
    """The case's synthetic scans (leafscan/data/synth.py), as measured (the labels are not needed)."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    house = torch.randint(0, N_HOUSES, (n,), generator=g)
    vigour = torch.rand(n, 1, generator=g) * 2.0
    noise = torch.randn(n, N_BANDS, generator=g)
    pattern = torch.randn(N_CLASSES, N_BANDS, generator=torch.Generator().manual_seed(SIGNATURE_SEED))
    signatures = torch.tensor(PATTERN).unsqueeze(1) * pattern + torch.tensor(BROADBAND).unsqueeze(1)
    gh = torch.Generator().manual_seed(HOUSE_SEED)
    tilts = (0.8 * torch.rand(N_HOUSES, 1, generator=gh) - 0.4) * torch.linspace(-1.0, 1.0, N_BANDS)
    camera = torch.tensor([CAMERA_NOISE.get(h, 1.0) for h in range(N_HOUSES)]).unsqueeze(1)
    log_reflectance = (signatures[y] * (0.6 + 0.4 * vigour) + tilts[house] + SENSOR_NOISE * camera[house] * noise + vigour)
    return torch.exp(0.5 * log_reflectance), house


def validation_features(seed):
    train, _ = scans_as_measured(N_TRAIN, seed)
    val, house = scans_as_measured(N_VAL, seed + VAL_SEED_OFFSET)
    log_train, log_val = 2.0 * torch.log(train.clamp_min(1e-6)), 2.0 * torch.log(val.clamp_min(1e-6))
    mean, std = log_train.mean(dim=0), log_train.std(dim=0).clamp_min(1e-6)
    return (log_val - mean) / std, house


def check_validation_features(seed, m, checks):
    """Recomputed: the model is validated on the validation scans as measured, through log and the
    training split's per-band standardization only (bug B: each scan's mean over its bands is
    subtracted first, which removes the conditions' broadband shifts)."""
    expected, _ = validation_features(seed)
    got = m.tensors("validation_input").get("x")
    if got is None or tuple(got.shape) != tuple(expected.shape):
        checks.check("validation_features_are_the_scans_as_measured", False,
                     value={"shape": None if got is None else list(got.shape)}, bound=f"shape {list(expected.shape)}")
        return
    diff = (got.double() - expected.double()).abs().nan_to_num(math.inf).amax(dim=1)
    gap = diff.max().item()
    spread = {"got": got.double().mean(dim=1).std().item(), "expected": expected.double().mean(dim=1).std().item()}
    checks.check("validation_features_are_the_scans_as_measured", gap < FEATURE_TOL,
                 value={"max_abs_diff": gap, "rows_differing": int((diff >= FEATURE_TOL).sum().item()),
                        "spread_of_scan_means": spread},
                 bound=f"< {FEATURE_TOL} (the first validation's inputs equal this file's rebuild of the validation "
                       "features: the scans as measured, log, training statistics)",
                 limit=FEATURE_TOL, sense="<")


def decide(seed, m, checks):
    check_layer_modes(m, checks, STEPS, dropout_per_step=2, batchnorm_per_step=2)
    recompute_probe(m, checks, LeafMLP(), PROBE_TOL, PROBE_AFTER_STEPS)
    check_validation_features(seed, m, checks)
    check_frozen_batchnorm(m, checks, BATCHNORMS * WARM_START_FROZEN_STEPS)


def readme(run, measured, checks):
    check_readme(run, measured, checks, readme_seed=0, fields=PRINTED)


decide_main(decide, readme=readme)
