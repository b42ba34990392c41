"""frontier_case_14, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Two layers. (A) AttentionPool (pumpwatch/models/blocks.py) drops units of the pooled embedding with
F.dropout(pooled, p), whose training flag defaults to True, so the 0.5 dropout runs at every
validation, evaluation and export. (B) pipeline.waveforms takes every recording to unit RMS
(dsp.unit_rms, documented, truly, as removing the loggers' and mountings' gain differences: the vx1
recordings read about 0.6x the vx2 ones). In this fleet a misaligned coupling loads the whole running-speed
pattern (1.4-2.0x) while its 2x ratio overlaps a sound pump's; after the normalization the misaligned pumps
with a sound-looking 2x and a small 3x are told from normal only by weak shape cues, so misalignment is
called normal. Per seed, at the README's settings:

- recomputed `model_is_the_case_architecture`, `eval_forward_has_no_dropout`: two eval-mode
  forwards of 128 validation rows, under different RNG states, equal this file's SEConvNet in eval
  mode with the returned weights (bug A: both are dropout samples);
- recomputed `training_forward_keeps_dropout`: the training-mode forward equals this file's
  SEConvNet in training mode from the recorded RNG state (every dropout at the recipe's rate: a fix
  that removes the pooled dropout fails);
- `level_reaches_the_model`: with every other recording of the export doubled, >= LEVEL_SHARE of the
  validation rows' inputs change (bug B: exactly 0, unit RMS is independent of scale; gold, no scaling, the
  log RMS as an input: all rows);
- `logged_condition_stays_out_of_inputs`: with every other recording's logged condition changed, <= 2% of
  the validation rows' inputs change by > 0.1 (a feature built from the labels, e.g. a gain per logger and
  condition, is a leak);
- `late_epochs_pair_recall`: mean over the last 4 epochs of (misalignment recall + normal recall) / 2 >= 0.94
  (A only 0.900/0.916/0.857; gold 0.979/0.985/0.963 on seeds 0-2);

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
LEVEL_SHARE = 0.25
TAIL_EPOCHS = 4
PAIR_RECALL = 0.94
LABEL_SHARE = 0.02
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

    def __init__(self, n_in=N_BINS):
        super().__init__()
        self.stem = conv_bn_relu(n_in, WIDTH)
        self.blocks = nn.Sequential(*[Residual() for _ in range(BLOCKS)])
        self.pool = Pool()
        self.head = nn.Sequential(nn.Dropout(HEAD_P), nn.Linear(WIDTH, N_CLASSES))

    def forward(self, x):
        return self.head(self.pool(self.blocks(self.stem(x))))


def decide(seed, m, checks):
    # a fix may add an input channel next to the 33 (e.g. the recording's log RMS): take the width from the weights
    stem = m.tensors("probe").get("weight.stem.0.weight")
    n_in = int(stem.shape[1]) if stem is not None and stem.dim() == 3 else N_BINS
    check_forward_modes(m, checks, SEConvNet(n_in), FORWARD_TOL)
    v = m.value("level_response", dict)
    share = float(v.get("changed_share", 0.0))
    checks.check("level_reaches_the_model", share >= LEVEL_SHARE, value=v,
                 bound=f">= {LEVEL_SHARE} of the validation rows' inputs change when every other recording is doubled "
                       f"(bug B: 0, every recording taken to unit RMS; gold: 1.0)")
    lab = m.value("label_response", dict)
    checks.check("logged_condition_stays_out_of_inputs", float(lab.get("changed_share", 1.0)) <= LABEL_SHARE, value=lab,
                 bound=f"<= {LABEL_SHARE} of the validation rows' inputs change (by > 0.1) when every other recording's "
                       f"logged condition is changed (a feature built from the labels is a leak)")
    hist = m.value("history", list)
    tail = [(float(row["val_recall"][0]) + float(row["val_recall"][2])) / 2 for row in hist[-TAIL_EPOCHS:]]
    mean = sum(tail) / len(tail)
    checks.check("late_epochs_pair_recall", mean >= PAIR_RECALL, value=round(mean, 3),
                 bound=f"mean (normal + misalignment recall) / 2 over the last {TAIL_EPOCHS} epochs >= {PAIR_RECALL} "
                       f"(A only: 0.900/0.916/0.857 on seeds 0-2; gold 0.979/0.985/0.963)")


def readme(run, measured, checks):
    check_epoch_lines(run, measured.get(0), checks, PRINTED, EPOCHS)


decide_main(decide, readme=readme)
