"""frontier_case_14, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Two layers. (A) AttentionPool (pumpwatch/models/blocks.py) drops units of the pooled embedding with
F.dropout(pooled, p), whose training flag defaults to True, so the 0.5 dropout runs at every
validation, evaluation and export. (B) The training windows (pumpwatch/data/windows.py) are redrawn
while they are "saturated", judged against FULL_SCALE = 16.0 (g, the sensors' range) but compared with
samples in m/s^2: every window above 16 m/s^2 (~1.6 g) is redrawn, which on the stand-in means every
window in which a spalled bearing knocks the casing (band-limited 160-230 Hz, 7-11 m/s^2 RMS), so
the bearing class trains on its quiet stretches only. Per seed, at the README's settings:

- recomputed `model_is_the_case_architecture`, `eval_forward_has_no_dropout`: two eval-mode
  forwards of 128 validation rows, under different RNG states, equal this file's SEConvNet in eval
  mode with the returned weights (bug A: both are dropout samples);
- recomputed `training_forward_keeps_dropout`: the training-mode forward equals this file's
  SEConvNet in training mode from the recorded RNG state (every dropout at the recipe's rate: a fix
  that removes the pooled dropout fails);
- recomputed `training_windows_keep_the_casing_knocks`: the training split's rows (log power before
  standardization, from the agent's build_splits) whose mean log power over the casing band's bins
  (10-15, 156-234 Hz) and all frames exceeds CASING_LOG_POWER: none under bug B on seeds 0-2, 22-35
  with the check in the sensors' unit (nothing else on the stand-in reaches 2.3 there); the bound
  asks for at least MIN_CASING_ROWS;

and once, on what the README's command printed (seed 0): `readme_run_matches_measured_training`.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.functional_dropout_mode import check_epoch_lines, check_forward_modes  # noqa: E402
from verifylib import decide_main  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

N_BINS, N_CLASSES, WIDTH, BLOCKS = 33, 5, 32, 2
GATE_P, POOL_P, HEAD_P = 0.1, 0.5, 0.1
FORWARD_TOL = 1e-4
EPOCHS = 16
CASING_BINS = slice(10, 16)
CASING_LOG_POWER = 3.0
MIN_CASING_ROWS = 15
PRINTED = {"train loss": ("train_loss", 2e-4), "val loss": ("val_loss", 2e-4), "val f": ("val_f1", 2e-3)}


def conv_bn_relu(c_in, c_out):
    return nn.Sequential(nn.Conv1d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm1d(c_out), nn.ReLU())


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(WIDTH, WIDTH // 4), nn.Linear(WIDTH // 4, WIDTH)

    def forward(self, x):
        g = torch.sigmoid(self.fc2(F.relu(self.fc1(x.mean(dim=-1)))))
        return x * F.dropout(g, GATE_P, training=self.training).unsqueeze(-1)


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.se = conv_bn_relu(WIDTH, WIDTH), Gate()

    def forward(self, x):
        return x + self.se(self.conv(x))


class Pool(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Conv1d(WIDTH, 1, 1)

    def forward(self, x):
        pooled = (x * torch.softmax(self.score(x), dim=-1)).sum(dim=-1)
        return F.dropout(pooled, POOL_P, training=self.training)


class SEConvNet(nn.Module):
    """The case's SEConvNet (pumpwatch/models/convnet.py) at the README's sizes, dropout only in training."""

    def __init__(self):
        super().__init__()
        self.stem = conv_bn_relu(N_BINS, WIDTH)
        self.blocks = nn.Sequential(*[Residual() for _ in range(BLOCKS)])
        self.pool = Pool()
        self.head = nn.Sequential(nn.Dropout(HEAD_P), nn.Linear(WIDTH, N_CLASSES))

    def forward(self, x):
        return self.head(self.pool(self.blocks(self.stem(x))))


def decide(seed, m, checks):
    check_forward_modes(m, checks, SEConvNet(), FORWARD_TOL)
    feats = m.tensors("training_features")
    band = feats["log_power"].double()[:, CASING_BINS, :].mean(dim=(1, 2))
    loud = band > CASING_LOG_POWER
    n_loud = int(loud.sum().item())
    by_label = {int(c): int((loud & (feats["label"] == c)).sum().item()) for c in feats["label"].unique()}
    checks.check("training_windows_keep_the_casing_knocks", n_loud > MIN_CASING_ROWS - 0.5,
                 value={"rows": n_loud, "by_label": by_label, "of": int(band.numel())},
                 bound=f">= {MIN_CASING_ROWS} training windows with casing-band log power above {CASING_LOG_POWER} "
                       "(a saturation check in the sensors' unit keeps 22-35 on seeds 0-2; judged in m/s^2 "
                       "against a limit in g it redraws every one of them: 0)", limit=MIN_CASING_ROWS - 0.5, sense=">")


def readme(run, measured, checks):
    check_epoch_lines(run, measured.get(0), checks, PRINTED, EPOCHS)


decide_main(decide, readme=readme)
