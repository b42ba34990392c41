"""wip_frontier_case_17, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-wip_frontier_case_17-88df9225a17914f3

Two independent defects. Layer A (models/wheelnet.py): WheelNet.adapt_to_labels, called by Trainer.setup
after load_pretrained has filled the model with the 2025 weights, builds the new 5-condition head and then
runs self.apply(self._init_weights), which re-initializes every nn.Linear of the model (normal, std 0.02,
zero bias): the backbone's two pretrained Linear layers are reset and only the PairedEmbedding (not an
nn.Linear) keeps its 2025 weights. Layer B (spectrum.relative_levels, called from dataset.with_deltas
for every pass of both splits): the twelve band levels are given to the model relative to the pass's own
mean band level (the log-ratio of each band's energy to the geometric mean of the twelve). Its stated reason
is true (the mean band level rises with speed and axle load: it correlates 0.56 / 0.59 with them, R^2 0.62),
and the code does what its docstring says, but flat spots and out-of-round wheels share one spectral shape
and the same force and crest readings and differ in their impact level at given speed and load (flat spots
hit harder): the per-pass normalization removes exactly that level, on every site and in both splits.
Every run is the README's `python train.py` at
train.seed = s (5 epochs of 45 batches of 64). Checks per seed:

- reported `readme_config_trains`, `training_forward_seen`;
- recomputed `pretrained_backbone_reaches_training`: every backbone array of the pristine pretrained file
  equals the model's at its first training forward within 1e-6 (broken: net.2 and net.5 reset);
- recomputed `every_epoch_drawn`: >= 14,400 weighted training examples drawn;
- recomputed `loss_weights_follow_examples`: the label-confidence weights still follow their passes (mean
  drawn weight of defect over sound passes >= 2.0; aligned about 3.5): guards the restored round-6 layer;
- recomputed `training_passes_complete`: the training dataset holds the 2,880 passes of the 24 training
  wagons, each an export row;
- recomputed `pass_level_reaches_model`: over those passes, the impact level at given speed and load (the
  exports' mean band level less its least-squares fit on speed_kmh and axle_load_t) is recovered linearly
  from the model's inputs (every column of the training dataset's `x`, with a constant) with R^2 >= 0.9
  (broken and A-only about 0.09; the stage removed, or one that takes out only the speed and load part, 1.0; a
  log-sum-exp share in place of the mean, about as low);
- reported `pair_f1`: the mean of the flat_spot and out_of_round F1 on the final printed line >= 0.715
  (A fixed alone 0.676-0.683, both fixed 0.748-0.752);
- reported `balanced_accuracy` >= 0.725 on the final printed line (broken 0.6635-0.7137, A fixed alone
  0.7363-0.7579, both fixed 0.7687-0.7734); `alarm_recall` is recorded with no bound.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4) and `readme_run_bal_acc` (>= 0.725).
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
    "min_weight_ratio": 2.0, "expected_ratio": 3.5, "min_bal_acc": 0.725, "alarm_label": "built_up_tread",
    "min_alarm_recall": 0.0, "print_tol": 2e-4, "train_passes": 2880, "min_level_r2": 0.9,
    "min_pair_f1": 0.715,
}


def level_r2(got, want):
    """R^2 of the exports' impact level at given speed and load, fitted linearly on the model's inputs."""
    ones = torch.ones(len(want), 1, dtype=torch.float64)
    level = want[:, :12].mean(dim=1, keepdim=True)
    design = torch.cat([ones, want[:, 12:14]], dim=1)
    resid = level - design @ torch.linalg.lstsq(design, level).solution
    x = torch.cat([ones, got], dim=1)
    fit = x @ torch.linalg.lstsq(x, resid, driver="gelsd").solution
    return float(1 - ((resid - fit) ** 2).sum() / (resid ** 2).sum().clamp_min(1e-12))


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
    found = m.value("inputs_found", bool)
    n = m.value("train_passes", int)
    known = m.value("train_ids_known", bool)
    checks.check("training_passes_complete", found and known and n == SETTINGS["train_passes"], value=n,
                 bound=f"the training dataset holds the {SETTINGS['train_passes']} passes of the 24 training wagons, "
                       "every one an export row", source="recomputed")
    d = m.tensors("inputs", keys=["got", "want"])
    got, want = d["got"], d["want"]
    r2 = float("nan")
    if found and got.shape[0] == want.shape[0] > 100 and want.shape[1] == 14 and bool(torch.isfinite(got).all()):
        r2 = level_r2(got, want)
    checks.check("pass_level_reaches_model", r2 >= SETTINGS["min_level_r2"], value=r2,
                 bound=f"R^2 of the passes' impact level at given speed and load, recovered linearly from the model's "
                       f"inputs, >= {SETTINGS['min_level_r2']}", source="recomputed",
                 limit=SETTINGS["min_level_r2"], sense=">")
    pf = pair_f1(m.value("stdout", str))
    checks.check("pair_f1", pf >= SETTINGS["min_pair_f1"], value=pf,
                 bound=f"mean flat_spot / out_of_round F1 >= {SETTINGS['min_pair_f1']}", source="reported",
                 limit=SETTINGS["min_pair_f1"], sense=">")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
