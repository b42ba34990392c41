"""frontier_case_17, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_17-88df9225a17914f3

Two independent defects. Layer A (models/wheelnet.py): WheelNet.adapt_to_labels, called by Trainer.setup
after load_pretrained has filled the model with the 2025 weights, builds the new 5-condition head and then
runs self.apply(self._init_weights), which re-initializes every nn.Linear of the model (normal, std 0.02,
zero bias): the backbone's two pretrained Linear layers are reset and only the PairedEmbedding (not an
nn.Linear) keeps its 2025 weights. Layer B (data.py load_exports, feeding dataset.with_deltas):
the whole pass table, every export column after the labels, is made a tensor with torch.tensor(feats) from
lists of Python floats, which is float32. One of those columns, `odo_revs`, is each wagon's hubodometer
(cumulative wheel revolutions, 1.4e8-3.4e8): on a float32 grid of 16-32 revolutions. with_deltas then
takes every column's change since the wagon's previous pass, and the change of odo_revs (one shuttle loop,
about 20,760 revolutions, of which a sliding flat-spot wagon loses about 15) is rounded by up to a grid step:
the few revolutions that tell flat spots from out-of-round wheels (their band readings are alike) are lost on
every site and split.
Every run is the README's `python train.py` at
train.seed = s (5 epochs of 45 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `pretrained_backbone_reaches_training`: every backbone array of the pristine pretrained file
  equals the model's at its first training forward within 1e-6 (broken: net.2 and net.5 reset);
- recomputed `every_epoch_drawn`: >= 14,400 weighted training examples drawn;
- recomputed `loss_weights_follow_examples`: the label-confidence weights still follow their passes (mean
  drawn weight of defect over sound passes >= 2.0; aligned about 3.5): guards the restored round-6 layer;
- recomputed `training_passes_complete`: the training dataset holds the 2,880 passes of the 24 training
  wagons, each an export row, with the odo_revs column by name among its inputs (dropping the column fails);
- recomputed `odo_change_reaches_model`: the share of those passes (each wagon's first left out) whose
  de-standardized odo_revs change, as the model receives it, differs by more than 0.5 revolutions from the
  integer change in the pristine exports (is <= 0.002; broken about 0.8; a float64 table in any form gives 0;
  .double() after the float32 tensor, or dropping the column, fails);
- reported `balanced_accuracy` >= 0.67 on the final printed line (broken 0.640-0.653, A fixed alone
  0.6827-0.6857, both fixed 0.734-0.738); `alarm_recall` is recorded with no bound (built-up tread is poor
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
import torch  # noqa: E402

SETTINGS = {
    "n_classes": 5, "min_draws": 5 * 45 * 64, "pretrained_atol": 1e-6, "majority_class": 0,
    "min_weight_ratio": 2.0, "expected_ratio": 3.5, "min_bal_acc": 0.67, "alarm_label": "built_up_tread",
    "min_alarm_recall": 0.0, "print_tol": 2e-4, "train_passes": 2880, "odo_atol": 0.5,
    "max_odo_mismatch": 0.002,
}


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    found = m.value("odo_column_found", bool)
    n = m.value("train_passes", int)
    known = m.value("train_ids_known", bool)
    checks.check("training_passes_complete", found and known and n == SETTINGS["train_passes"], value=n,
                 bound=f"the training dataset holds the {SETTINGS['train_passes']} passes of the 24 training wagons, "
                       "every one an export row, with the odo_revs column by name", source="recomputed")
    d = m.tensors("odo_changes", keys=["got", "want"])
    got, want = d["got"], d["want"]
    bad = float("nan")
    if found and got.shape == want.shape and got.numel():
        off = ((got - want).abs() > SETTINGS["odo_atol"]) | ~torch.isfinite(got)
        bad = float(off.double().mean())
    checks.check("odo_change_reaches_model", bad <= SETTINGS["max_odo_mismatch"], value=bad,
                 bound=f"share of training passes whose odo_revs change, as the model receives it, differs by more "
                       f"than {SETTINGS['odo_atol']} revolutions from the exports' integer change "
                       f"<= {SETTINGS['max_odo_mismatch']}", source="recomputed",
                 limit=SETTINGS["max_odo_mismatch"], sense="<")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
