"""frontier_case_17, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_17-88df9225a17914f3

Two independent defects. Layer A (models/wheelnet.py): WheelNet.adapt_to_labels, called by Trainer.setup
after load_pretrained has filled the model with the 2025 weights, builds the new 5-condition head and then
runs self.apply(self._init_weights), which re-initializes every nn.Linear of the model (normal, std 0.02,
zero bias): the backbone's two pretrained Linear layers are reset and only the PairedEmbedding (not an
nn.Linear) keeps its 2025 weights. Layer B (data.py read_export, feeding impacts.revolution_features):
each impact's int64 sample-counter stamp and the axle's two stamps are converted to seconds with
torch.tensor(counts) / SAMPLE_RATE_HZ, an int64 tensor true-divided, which is float32; the counters are the
detectors' uptime at 25.6 kHz (6e9-7e10), so the seconds (2.5e5-2.7e6) land on a float32 grid of
0.016-0.25 s, a large share of a 0.4-0.7 s wheel revolution: the impacts fall into the wrong revolutions
and flat spots (once per revolution) and oval wheels (twice) are blurred into each other on every site.
Every run is the README's `python train.py` at
train.seed = s (5 epochs of 45 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `pretrained_backbone_reaches_training`: every backbone array of the pristine pretrained file
  equals the model's at its first training forward within 1e-6 (broken: net.2 and net.5 reset);
- recomputed `every_epoch_drawn`: >= 14,400 weighted training examples drawn;
- recomputed `loss_weights_follow_examples`: the label-confidence weights still follow their passes (mean
  drawn weight of defect over sound passes >= 2.0; aligned about 3.5): guards the restored round-6 layer;
- recomputed `training_passes_complete`: the table the training loader is built from holds the 2,880 passes of
  the 24 training wagons, each an export row, with the three impact features by name (dropping the viaduct
  or the features fails);
- recomputed `impact_features_by_revolution`: the share of those passes whose hits_per_rev / max_hits_rev /
  rev_peak_cv differ by more than 1e-3 from a float64 recomputation from the pristine export's raw columns
  (is <= 0.002; broken 0.136; float64 seconds, counts taken relative to axle_in before the division, a
  reference subtracted in int64, python floats all give 0; dropping or zeroing the features fails);
- reported `balanced_accuracy` >= 0.67 on the final printed line (broken 0.610-0.619, A fixed alone
  0.6832-0.6846, both fixed 0.691-0.712); `alarm_recall` is recorded with no bound (built-up tread is poor
  in every version, about 0.13-0.35).

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
import torch  # noqa: E402

SETTINGS = {
    "n_classes": 5, "min_draws": 5 * 45 * 64, "pretrained_atol": 1e-6, "majority_class": 0,
    "min_weight_ratio": 2.0, "expected_ratio": 3.5, "min_bal_acc": 0.67, "alarm_label": "built_up_tread",
    "min_alarm_recall": 0.0, "print_tol": 2e-4, "train_passes": 2880, "impact_atol": 1e-3,
    "max_impact_mismatch": 0.002,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    found = m.value("impact_columns_found", bool)
    n = m.value("train_passes", int)
    known = m.value("train_ids_known", bool)
    checks.check("training_passes_complete", found and known and n == SETTINGS["train_passes"], value=n,
                 bound=f"the training table holds the {SETTINGS['train_passes']} passes of the 24 training wagons, "
                       "every one an export row, with the three impact features by name", source="recomputed")
    d = m.tensors("impacts", keys=["got", "want"])
    got, want = d["got"], d["want"]
    bad = float("nan")
    if got.shape == want.shape and got.numel():
        off = ((got - want).abs() > SETTINGS["impact_atol"]).any(dim=1) | ~torch.isfinite(got).all(dim=1)
        bad = float(off.double().mean())
    checks.check("impact_features_by_revolution", bad <= SETTINGS["max_impact_mismatch"], value=bad,
                 bound=f"share of training passes whose impact features differ by more than {SETTINGS['impact_atol']} "
                       f"from a float64 recomputation from the export's sample counters "
                       f"<= {SETTINGS['max_impact_mismatch']}", source="recomputed",
                 limit=SETTINGS["max_impact_mismatch"], sense="<")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
