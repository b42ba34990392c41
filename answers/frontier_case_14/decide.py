"""frontier_case_14, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Two layers. (A) AttentionPool (pumpwatch/models/blocks.py) drops units of the pooled embedding with
F.dropout(pooled, p), whose training flag defaults to True, so the 0.5 dropout runs at every
validation, evaluation and export. (B) assemble() (pumpwatch/data/pipeline.py) screens the training
recordings for length with len(wave) >= MIN_SECONDS * rec.rate, but the waves are already on the
model's 1 kHz clock while rec.rate is the logger's native rate: every recording of the 2560 Hz vx1
loggers (the old pumps) fails and its training slot is silently given to a recording of the same
condition from the 1 kHz loggers; validation keeps them. Per seed, at the README's settings:

- recomputed `model_is_the_case_architecture`, `eval_forward_has_no_dropout`: two eval-mode
  forwards of 128 validation rows, under different RNG states, equal this file's SEConvNet in eval
  mode with the returned weights (bug A: both are dropout samples);
- recomputed `training_forward_keeps_dropout`: the training-mode forward equals this file's
  SEConvNet in training mode from the recorded RNG state (every dropout at the recipe's rate: a fix
  that removes the pooled dropout fails);
- recomputed `training_rows_include_the_old_loggers`: the training split's rows (log power before
  standardization, from the agent's build_splits) whose mean log power over bins 22-25 (344-391 Hz)
  and all frames is below OLD_FLOOR_LOG_POWER: the vx1 loggers' mount rolls their background off
  there (the 1 kHz loggers' rows sit at -3.3 +- 0.2). 0-1 under bug B on seeds 0-2, 348/388/375 with
  the screen on the waves' own clock, 53-61 with MIN_SECONDS lowered to 0.9 in the wrong unit; the
  bound asks for at least MIN_OLD_ROWS;

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
FLOOR_BINS = slice(22, 26)
OLD_FLOOR_LOG_POWER = -4.1
MIN_OLD_ROWS = 200
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
    band = feats["log_power"].double()[:, FLOOR_BINS, :].mean(dim=(1, 2))
    quiet = band < OLD_FLOOR_LOG_POWER
    n_old = int(quiet.sum().item())
    by_label = {int(c): int((quiet & (feats["label"] == c)).sum().item()) for c in feats["label"].unique()}
    checks.check("training_rows_include_the_old_loggers", n_old > MIN_OLD_ROWS - 0.5,
                 value={"rows": n_old, "by_label": by_label, "of": int(band.numel())},
                 bound=f">= {MIN_OLD_ROWS} training rows with log power below {OLD_FLOOR_LOG_POWER} over bins "
                       "22-25 (the vx1 loggers' rolled-off background: 348-388 on seeds 0-2 with the length "
                       "screen on the waves' own clock; 0-1 when the screen uses the loggers' native rate)",
                 limit=MIN_OLD_ROWS - 0.5, sense=">")


def readme(run, measured, checks):
    check_epoch_lines(run, measured.get(0), checks, PRINTED, EPOCHS)


decide_main(decide, readme=readme)
