"""frontier_case_17, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_17-88df9225a17914f3

Two independent defects. Layer A (models/wheelnet.py): WheelNet.adapt_to_labels, called by Trainer.setup
after load_pretrained has filled the model with the 2025 weights, builds the new 5-condition head and then
runs self.apply(self._init_weights), which re-initializes every nn.Linear of the model (normal, std 0.02,
zero bias): the backbone's two pretrained Linear layers are reset and only the PairedEmbedding (not an
nn.Linear) keeps its 2025 weights. Layer B (impacts.py, fed by data.read_export): each pass's impacts are
grouped into wheel revolutions with (along / circumference).astype(int), truncation toward zero; at Stroud
Viaduct the first impacts fall before the axle counter's reference (negative `along`), so revolutions -1 and 0
merge and the viaduct's flat spots read like oval wheels. Every run is the README's `python train.py` at
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
  with revolution = floor(along / 2.89) is <= 0.002 (broken about 0.10; floor, //, math.floor, float64, a
  reference moved back a whole revolution all give 0; clipping or dropping the negative offsets fail);
- reported `balanced_accuracy` >= 0.69 on the final printed line (broken 0.644-0.662, A fixed alone
  0.6955-0.6971, both fixed 0.708-0.711); `alarm_recall` is recorded with no bound (built-up tread is poor
  in every version, about 0.1-0.24).

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
from families.orphaned_parameters import readme_checks  # noqa: E402
from families.reinit_after_load import decide_training  # noqa: E402
from verifylib import decide_main  # noqa: E402
import torch  # noqa: E402

SETTINGS = {
    "n_classes": 5, "min_draws": 5 * 45 * 64, "pretrained_atol": 1e-6, "majority_class": 0,
    "min_weight_ratio": 2.0, "expected_ratio": 3.5, "min_bal_acc": 0.69, "alarm_label": "built_up_tread",
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
                       f"from a float64 recomputation from the export (revolution = floor(along / 2.89)) "
                       f"<= {SETTINGS['max_impact_mismatch']}", source="recomputed",
                 limit=SETTINGS["max_impact_mismatch"], sense="<")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
