"""frontier_case_02, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-frontier_case_02-dec7404a818ca084

Two independent defects. Layer A (model building): configs/collar_mlp.toml is the Keras original's
architecture file, where bn_momentum = 0.99 means "keep 99% of the running statistic"; build_collarnet
passes it to nn.BatchNorm1d(momentum=...), where it is the share of the NEW batch, so the running mean and
variance the model evaluates with are essentially the last training batch's (16 windows): a jumpy validation
curve and val acc 0.809-0.813 instead of v0.3's 0.810-0.820. Layer B (input features): dataset.jaw_spectrum
turns the six jaw-microphone band energies into shares of their own sum ("the gain depends on how the collar
sits": true, a collar's typical total spans about 6x), which erases the window's loudness; lame windows are
about 1.3x louder than the same cow's normal ones with the same spectral shape, so lame vs normal loses the
one input that tells them apart beyond the gait channels. Keeping the level (the log total beside the shares,
log band energies, the raw bands, a mean log level) fixes it. Checks per seed on the README's
`python train.py` at train.seed = s:

- reported `readme_config_trains`, `training_forward_seen`, `batch_norm_kept` (>= 3 BatchNorm layers
  tracking running statistics: removing batch norm hides A);
- reported `running_stats_average_many_batches`: every BatchNorm momentum <= 0.1 (None, a cumulative
  average, counts as 0; broken 0.99; the correct translation 0.01; PyTorch's default 0.1);
- reported `val_accuracy`, `alert_recall` (heat) and `lame_f1` floors on the printed lines (see NOTES.md for
  the per-seed table; floors, the mechanism check carries layer B);
- seed 0, `loudness_in_inputs`: each window's log10 jaw-band total (from the raw CSVs) is recovered by a
  least-squares fit on the model inputs and log10 of their absolute values, both taken within each cow (minus
  the cow's mean; the cow is farm and collar), with R^2 >= 0.75. Within the cow, because a loudness against the
  cow's own baseline (her median window, or her earlier windows) drops the collar's gain and keeps the lame
  window's extra loudness: as correct a fix as the absolute level, which blind and hinted solves chose and
  which the absolute-level form of this check (R^2 >= 0.95) rejected at the freeze commit. Measured with the
  within-cow form on seed 0: A only 0.45, the cow's median 0.9997, the log total 1.0;
- seed 0, `inputs_ignore_labels`: the model inputs rebuilt from exports whose state column is shuffled
  within each farm differ by at most 1e-6 from the real ones: a loudness taken against the cow's windows
  labelled normal (a label leak the within-cow fit alone would accept) fails here.

Then, on what the README's own command printed (source readme_run): `readme_run_exit_ok`,
`readme_run_matches_measured_training` (every epoch row and the final line equal the seed-0 run measured
here, within 2e-4), `readme_run_val_acc` (>= 0.77) and `readme_run_alert_recall` (>= 0.35).
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.keras_bn_momentum import decide_training, readme_checks  # noqa: E402
from verifylib import decide_main  # noqa: E402

SETTINGS = {
    "min_bn_layers": 3, "max_momentum": 0.1, "min_acc": 0.77, "alert_label": "heat",
    "min_alert_recall": 0.35, "print_tol": 2e-4,
}
MIN_LAME_F1 = 0.30
MIN_LOUDNESS_R2 = 0.75
MAX_LABEL_DIFF = 1e-6


def decide(seed, m, checks):
    decide_training(m, checks, SETTINGS)
    out = m.value("stdout", str)
    f1 = re.search(r"lame ([0-9.]+)", next((ln for ln in out.splitlines() if "F1 by state" in ln), ""))
    f1 = float(f1.group(1)) if f1 else float("nan")
    checks.check("lame_f1", f1 >= MIN_LAME_F1, value=f1, bound=f">= {MIN_LAME_F1}", source="reported",
                 limit=MIN_LAME_F1, sense=">")
    if seed == 0:
        r2 = m.value("loudness_r2", float)
        checks.check("loudness_in_inputs", r2 >= MIN_LOUDNESS_R2, value=r2,
                     bound=f">= {MIN_LOUDNESS_R2} R^2 of the windows' log10 jaw-band total (raw exports) fitted on "
                           "the inputs and log10 |inputs|, both within each cow (farm and collar)", source="reported")
        diff = m.value("label_shuffle_diff", float)
        checks.check("inputs_ignore_labels", diff <= MAX_LABEL_DIFF, value=diff,
                     bound=f"<= {MAX_LABEL_DIFF} (max change of the model inputs when each farm's state column is "
                           "shuffled: features must not be built from labels)", source="reported",
                     limit=MAX_LABEL_DIFF, sense="<")


def readme(run, measured, checks):
    readme_checks(run, measured, checks, SETTINGS)


decide_main(decide, readme=readme)
