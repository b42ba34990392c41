"""frontier_case_17, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_17-88df9225a17914f3

Two independent defects. Layer A (models/wheelnet.py): WheelNet.adapt_to_labels, called by Trainer.setup
after load_pretrained has filled the model with the 2025 weights, builds the new 5-condition head and then
runs self.apply(self._init_weights), which re-initializes every nn.Linear of the model (normal, std 0.02,
zero bias): the backbone's two pretrained Linear layers are reset and only the PairedEmbedding (not an
nn.Linear) keeps its 2025 weights. Layer B (spectrum.py, called from train.run after the split):
the feature stage replaces the twelve band levels of every pass by their projection on the leading principal
components of the training bands, the fewest that carry 97% of the variance (three here: 97.6%), written back
onto the twelve bands. The stage does exactly what its docstring says and its reason is true (the band block
is strongly collinear: neighbouring bands correlate 0.91-0.96), but flat spots and out-of-round wheels load the
bands alike except for a small opposite notch at 160-250 Hz, orthogonal to the shared level / tilt / curvature
factors and so to the kept components: the projection removes it (its score on the training passes correlates
0.19 with the exports'), on every site and in both splits, and the pair is left to the weaker cues outside the
spectrum.
Every run is the README's `python train.py` at
train.seed = s (5 epochs of 45 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `pretrained_backbone_reaches_training`: every backbone array of the pristine pretrained file
  equals the model's at its first training forward within 1e-6 (broken: net.2 and net.5 reset);
- recomputed `every_epoch_drawn`: >= 14,400 weighted training examples drawn;
- recomputed `loss_weights_follow_examples`: the label-confidence weights still follow their passes (mean
  drawn weight of defect over sound passes >= 2.0; aligned about 3.5): guards the restored round-6 layer;
- recomputed `training_passes_complete`: the training dataset holds the 2,880 passes of the 24 training
  wagons, each an export row, with the twelve band_* columns by name among its inputs;
- recomputed `band_notch_reaches_model`: the correlation, over those passes, between the notch score (the
  band levels on the unit notch direction, make_data.notch) of the bands the model receives (de-standardized)
  and of the exports' bands is >= 0.95 (broken 0.19; no stage, or every component kept, 1.0; share 0.995 keeps
  ten components, 0.994; share 0.98 keeps four, 0.51, and fails);
- reported `pair_f1`: the mean of the flat_spot and out_of_round F1 on the final printed line >= 0.665
  (A fixed alone 0.633-0.636, both fixed 0.698-0.706; share 0.995 0.681-0.699);
- reported `balanced_accuracy` >= 0.67 on the final printed line (broken 0.635-0.660, A fixed alone
  0.6847-0.6872, both fixed 0.707-0.713); `alarm_recall` is recorded with no bound (built-up tread is poor
  in every version, about 0.3-0.35).

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.67).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.orphaned_parameters import readme_checks  # noqa: E402
from families.reinit_after_load import decide_training  # noqa: E402
from verifylib import decide_main  # noqa: E402
import re  # noqa: E402

import torch  # noqa: E402

SETTINGS = {
    "n_classes": 5, "min_draws": 5 * 45 * 64, "pretrained_atol": 1e-6, "majority_class": 0,
    "min_weight_ratio": 2.0, "expected_ratio": 3.5, "min_bal_acc": 0.67, "alarm_label": "built_up_tread",
    "min_alarm_recall": 0.0, "print_tol": 2e-4, "train_passes": 2880, "min_notch_corr": 0.95,
    "min_pair_f1": 0.665,
}


def notch_direction():
    """The unit notch direction over the twelve bands (make_data.notch, restated)."""
    u = torch.linspace(-1, 1, 12, dtype=torch.float64)
    lo = torch.stack([1.0 + 0.15 * torch.cos(torch.pi * u), u, 1.5 * (u ** 2 - (u ** 2).mean())], dim=1)
    e = torch.zeros(12, dtype=torch.float64)
    e[5:9] = torch.tensor([-0.6, 1.0, 1.0, -0.6], dtype=torch.float64)
    q, _ = torch.linalg.qr(lo)
    e = e - q @ (q.T @ e)
    return e / e.norm()


def pair_f1(stdout):
    m = re.search(r"val F1 by condition: (.*)", stdout)
    if not m:
        return float("nan")
    f1 = dict(re.findall(r"(\w+) ([0-9.]+)", m.group(1)))
    try:
        return (float(f1["flat_spot"]) + float(f1["out_of_round"])) / 2
    except KeyError:
        return float("nan")


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    found = m.value("bands_found", bool)
    n = m.value("train_passes", int)
    known = m.value("train_ids_known", bool)
    checks.check("training_passes_complete", found and known and n == SETTINGS["train_passes"], value=n,
                 bound=f"the training dataset holds the {SETTINGS['train_passes']} passes of the 24 training wagons, "
                       "every one an export row, with the twelve band columns by name", source="recomputed")
    d = m.tensors("bands", keys=["got", "want"])
    got, want = d["got"], d["want"]
    corr = float("nan")
    if found and got.shape == want.shape and got.shape[0] > 10 and bool(torch.isfinite(got).all()):
        nd = notch_direction()
        a, b = got @ nd, want @ nd
        a, b = a - a.mean(), b - b.mean()
        corr = float((a * b).sum() / (a.norm() * b.norm()).clamp_min(1e-12))
    checks.check("band_notch_reaches_model", corr >= SETTINGS["min_notch_corr"], value=corr,
                 bound=f"correlation of the bands' notch score, as the model receives them vs the exports, "
                       f">= {SETTINGS['min_notch_corr']}", source="recomputed",
                 limit=SETTINGS["min_notch_corr"], sense=">")
    pf = pair_f1(m.value("stdout", str))
    checks.check("pair_f1", pf >= SETTINGS["min_pair_f1"], value=pf,
                 bound=f"mean flat_spot / out_of_round F1 >= {SETTINGS['min_pair_f1']}", source="reported",
                 limit=SETTINGS["min_pair_f1"], sense=">")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
