"""frontier_case_14, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Two layers. (A) AttentionPool (pumpwatch/models/blocks.py) drops units of the pooled embedding with
F.dropout(pooled, p), whose training flag defaults to True, so the 0.5 dropout runs at every
validation, evaluation and export. (B) The export comes as one file per year, and the loggers' capture
numbers restart at 1 every year; archive.RangeSheet (pumpwatch/data/archive.py) merges both years'
range sheets into one dict keyed by the capture number alone, so for every 2025 capture whose number
also occurs in 2026 the counts are converted with the 2026 capture's full scale (a factor 0.2-10 when
the two ranges differ), in training and validation alike. Per seed, at the README's settings:

- recomputed `model_is_the_case_architecture`, `eval_forward_has_no_dropout`: two eval-mode
  forwards of 128 validation rows, under different RNG states, equal this file's SEConvNet in eval
  mode with the returned weights (bug A: both are dropout samples);
- recomputed `training_forward_keeps_dropout`: the training-mode forward equals this file's
  SEConvNet in training mode from the recorded RNG state (every dropout at the recipe's rate: a fix
  that removes the pooled dropout fails);
- recomputed `recordings_carry_their_own_full_scale`: every recording the agent's
  pipeline.recordings returns is found again in the export (label, pump, length, position of the
  largest count) and its peak in m/s^2 equals the largest count times its own file's full scale over
  32767, within 1%. Under bug B 152/174/195 of 1800 recordings are off on seeds 0-2; the bound asks that all
  1800 are found and none is off;

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
N_EXPORT = 1800
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
    v = m.value("physical_scale", dict)
    ok = v.get("found") == N_EXPORT and v.get("returned") == N_EXPORT and v.get("wrong_scale") == 0
    checks.check("recordings_carry_their_own_full_scale", ok, value=v,
                 bound=f"all {N_EXPORT} export recordings returned and found, none whose peak differs by more than 1% "
                       "from its largest count times its own file's full scale (bug B: 152-195 off on seeds 0-2)")


def readme(run, measured, checks):
    check_epoch_lines(run, measured.get(0), checks, PRINTED, EPOCHS)


decide_main(decide, readme=readme)
