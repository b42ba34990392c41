"""frontier_case_12, deciding half (never imports the agent's code; see verifylib). MLDB-CANARY-f12-7d41c9a2e08b53f6

Two independent defects (layer A in the weight average, layer B in the feature pipeline).

Layer A: nirgrain/engine/averaging.py's ExponentialAverage lists the model's state tensors once,
when the average starts, and lerps towards those tensor objects after every step. PreciseBatchNorm
(nirgrain/engine/precise_bn.py, on in configs/experiment.toml) replaces the model's BatchNorm
buffers by assigning new tensors after every epoch, so from the first epoch end on the average
lerps its running statistics towards buffers the model no longer uses: the evaluated, saved and
exported model normalizes the averaged weights with the statistics of the epoch-1 network.

Layer B: the Absorbance stage (nirgrain/data/transforms.py) clips every absorbance above
``max_absorbance`` = 0.6, about 5% of the values of these scans (the deepest bands of dark and
wet lots, twice as often on the bench with the highest baseline), in both splits. The depth
differences between varieties sit in those bands, so the features lose part of the signal: with A
fixed, seed 0's validation loss ends at 0.322 (acc 0.892) against 0.295 (acc 0.910) uncapped.

The invariants, per seed, at the README's settings (the measuring half holds ema.*,
trainer.precise_bn_batches and data.instrument_baseline at them):

- recomputed `checkpoint_is_the_case_architecture`: the checkpoint's state has exactly the keys and
  shapes of this file's own SpectralCNN (64 wavelengths, 5 classes, 16 channels, 96 hidden);
- recomputed `averaged_running_mean_fits_averaged_weights` and `..._var_...` (layer A): for every
  BatchNorm layer, the checkpoint's running mean/var against the statistics of that layer's input
  computed here with the checkpoint's weights over the clean training features
  (families/stale_average_buffers.py): the worst channel-averaged mean shift (in standard
  deviations) < 0.15 and |log variance ratio| < 0.5 (the average re-reading the model's buffers gives
  0.03-0.04; copying the raw model's buffers instead of averaging them, also correct, 0.076-0.090; the
  broken average 0.24-0.33);
- recomputed `features_are_the_scans_absorbance` (layer B): the per-wavelength mean and standard
  deviation the checkpoint saved for its standardization stage are those of the training split's
  absorbance, -log10 R, computed here (rms difference < 1e-4 for each, among the saved static
  tensors, any order): any absorbance cap inside the scans' range moves them (A fixed alone: see
  NOTES), while a cap above every value the scans reach, or none, passes;
- recomputed `running_means_describe_the_whole_training_split` (a guard on precise BatchNorm's sample,
  iteration 4's layer B, fixed in the case since iteration 5): the least-squares share, over every
  BatchNorm channel in units of the whole split's sd, of the checkpoint's running means (minus the
  statistics its weights give on the whole training split, shuffled) along the offset of the
  statistics of the split's first 8 stored batches < 0.12 (a representative sample gives about 0.00);
- recomputed `logged_val_loss_is_the_checkpoints`: the checkpoint's cross-entropy on the validation
  features built here within 0.002 of the validation loss the agent's run logged for the checkpoint's
  epoch (a guard against fixes that change how validation is measured);
- recomputed `checkpoint_val_loss_within_bound`: that recomputed loss < 0.36 (gold 0.27-0.30 on
  seeds 0-2);
- recomputed `checkpoint_keeps_instrument_baselines`: each of the five per-instrument offset rows fitted
  here on the training split is found (rms difference < 0.01, in any row order, so any consistent
  numbering passes) among the rows of the tensors the checkpoint saved for its static feature stages: a
  fix that drops the baseline stage (no table, so nothing to number) is rejected by this check, not by
  the thin margin of the logged-loss gap;
- reported `training_ran_readme_configuration`: 8 epochs.

And once, on what the README's command printed (seed 0): `readme_run_val_loss_keeps_falling` (the
last epoch's printed val loss within 0.01 of the run's lowest: the README's symptom is a val loss
that turns up after epoch 6-7) and `readme_run_matches_verifier_run` (every printed val loss equals
the measuring process's seed-0 history within 2e-4).
"""

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.stale_average_buffers import buffer_mismatch, input_statistics, worst_mismatch  # noqa: E402
from verifylib import decide_main  # noqa: E402

import math  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

N_WAVELENGTHS, N_CLASSES, N_INSTRUMENTS, CHANNELS, HIDDEN, DROPOUT = 64, 5, 5, 16, 96, 0.2
N_TRAIN, N_VAL, VAL_SEED_OFFSET, BATCH, EPOCHS = 2048, 1024, 1000, 64, 8
SHIFT_BOUND, LOG_VAR_BOUND = 0.15, 0.5
LOGGED_GAP_BOUND, VAL_LOSS_BOUND, OFFSET_RMS_BOUND = 0.002, 0.36, 0.01
PRECISE_BATCHES, INTAKE_SHARE_BOUND = 8, 0.12
STANDARDIZATION_RMS_BOUND = 1e-4
BANDS = ((0.12, 0.05), (0.24, 0.04), (0.37, 0.06), (0.48, 0.03), (0.61, 0.05), (0.73, 0.04), (0.86, 0.06))
WATER_BANDS = (2, 5)
CAMPAIGN_WIDTH = 0.03


def make_recordings(n, seed):
    """The case's synthetic scans (nirgrain/data/synth.py), reproduced so the agent cannot change them:
    (reflectance, labels, instrument index into the fixed instrument table)."""
    axis = torch.linspace(0.0, 1.0, N_WAVELENGTHS)
    shapes = torch.stack([torch.exp(-0.5 * ((axis - c) / w) ** 2) for c, w in BANDS])
    gs = torch.Generator().manual_seed(71)
    shared = 0.5 + torch.rand(len(BANDS), generator=gs)
    depths_by_class = shared + 0.25 * torch.randn(N_CLASSES, len(BANDS), generator=gs)
    gi = torch.Generator().manual_seed(72)
    offset = 0.6 * torch.rand(N_INSTRUMENTS, 1, generator=gi) - 0.3
    slope = 0.8 * torch.rand(N_INSTRUMENTS, 1, generator=gi) - 0.4
    baselines = offset + slope * (axis - 0.5)
    g = torch.Generator().manual_seed(seed)
    season = (torch.arange(n) + 0.5) / n
    centres = (torch.arange(N_CLASSES) + 0.5) / N_CLASSES
    campaign = torch.softmax(-0.5 * ((season[:, None] - centres) / CAMPAIGN_WIDTH) ** 2, dim=1)
    y = torch.multinomial(campaign, 1, generator=g).squeeze(1)  # intake order: varieties arrive in turn
    instrument = torch.randint(0, N_INSTRUMENTS, (n,), generator=g)
    moisture = torch.rand(n, 1, generator=g)
    depths = depths_by_class[y] * (0.8 + 0.4 * moisture)
    depths[:, list(WATER_BANDS)] += 0.6 * moisture
    noise = torch.randn(n, N_WAVELENGTHS, generator=g)
    absorbance = depths @ shapes + baselines[instrument] + 0.4 * noise + 0.5 * moisture
    return torch.exp(-absorbance * math.log(10.0) / 4.0), y, instrument


def features(seed):
    """(training features, validation features, validation labels): absorbance, standardized with
    the training split's statistics, minus each instrument's baseline fitted on the training split
    (the same instrument, by serial number, in both splits)."""
    raw_train, _, inst_train = make_recordings(N_TRAIN, seed)
    raw_val, y_val, inst_val = make_recordings(N_VAL, seed + VAL_SEED_OFFSET)
    a_train, a_val = (-torch.log10(r.clamp_min(1e-6)) for r in (raw_train, raw_val))
    mean, std = a_train.mean(dim=0), a_train.std(dim=0).clamp_min(1e-6)
    z_train, z_val = (a_train - mean) / std, (a_val - mean) / std
    sums = torch.zeros(N_INSTRUMENTS, N_WAVELENGTHS).index_add_(0, inst_train, z_train)
    counts = torch.bincount(inst_train, minlength=N_INSTRUMENTS).clamp_min(1).unsqueeze(1)
    offsets = sums / counts - z_train.mean(dim=0)
    return z_train - offsets[inst_train], z_val - offsets[inst_val], y_val, offsets, torch.stack([mean, std])


def offsets_kept(static, offsets):
    """Worst rms difference between one of ``offsets``' rows and its nearest row among the saved static
    tensors (every tensor whose size is a multiple of the wavelength count, read as rows); inf if none."""
    rows = [t.detach().double().reshape(-1, N_WAVELENGTHS) for t in static.values()
            if t.is_floating_point() and t.numel() > 0 and t.numel() % N_WAVELENGTHS == 0]
    if not rows:
        return float("inf")
    table = torch.cat(rows)
    rms = ((offsets.double()[:, None, :] - table[None, :, :]) ** 2).mean(dim=2).sqrt()
    worst = rms.min(dim=1).values.max().item()
    return worst if math.isfinite(worst) else float("inf")


def intake_share(model, whole, head):
    """How much of the intake head's bias the checkpoint's running means carry: the least-squares
    coefficient of (running_mean - whole-split mean) on (head-batches mean - whole-split mean), over
    every BatchNorm channel, each in units of the whole split's standard deviation. About 0 for
    statistics of a representative sample, about 1 for statistics of the first scans in intake order."""
    found, direction = [], []
    for name, layer in model.named_modules():
        if name not in whole:
            continue
        sd = whole[name][1].clamp_min(1e-8).sqrt()
        found.append((layer.running_mean - whole[name][0]) / sd)
        direction.append((head[name][0] - whole[name][0]) / sd)
    if not found:
        return float("nan")
    found, direction = torch.cat(found).double(), torch.cat(direction).double()
    return (found @ direction / (direction @ direction).clamp_min(1e-12)).item()


class SpectralCNN(nn.Module):
    """The case's SpectralCNN (nirgrain/models/cnn.py) at the experiment's sizes."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, CHANNELS, kernel_size=5, padding=2), nn.BatchNorm1d(CHANNELS), nn.ReLU(),
            nn.Conv1d(CHANNELS, CHANNELS, kernel_size=5, padding=2, stride=2), nn.BatchNorm1d(CHANNELS), nn.ReLU(),
        )
        self.head = nn.Sequential(
            nn.Flatten(), nn.Dropout(DROPOUT),
            nn.Linear(CHANNELS * ((N_WAVELENGTHS + 1) // 2), HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(),
            nn.Dropout(DROPOUT), nn.Linear(HIDDEN, N_CLASSES),
        )

    def forward(self, x):
        return self.head(self.features(x.unsqueeze(1)))


def decide(seed, m, checks):
    epochs = m.number("epochs")
    checks.check("training_ran_readme_configuration", epochs == EPOCHS, value=epochs,
                 bound=f"{EPOCHS} epochs: the README's configuration", source="reported")
    model = SpectralCNN()
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    state = m.tensors("checkpoint_state")
    got = {k: tuple(v.shape) for k, v in state.items()}
    same = got == expected
    checks.check("checkpoint_is_the_case_architecture", same,
                 value="same keys and shapes" if same else {"missing": sorted(set(expected) - set(got))[:5],
                                                            "unexpected": sorted(set(got) - set(expected))[:5]},
                 bound="the keys and shapes of SpectralCNN(64 wavelengths, 5 classes, 16 channels, 96 hidden)")
    if not same:
        return
    model.load_state_dict(state)
    x_train, x_val, y_val, offsets, standardization = features(seed)
    static = m.tensors("static_tensors")
    worst_std = offsets_kept(static, standardization)
    found = math.isfinite(worst_std)
    checks.check("features_are_the_scans_absorbance", found and worst_std < STANDARDIZATION_RMS_BOUND,
                 value=round(worst_std, 6) if found else "no per-wavelength statistics saved",
                 bound=f"< {STANDARDIZATION_RMS_BOUND}: worst rms difference between the per-wavelength mean / standard "
                       "deviation of the training split's absorbance (-log10 R of every scan, nothing clipped) computed "
                       "here and the nearest row among the tensors the checkpoint saved for its static feature stages",
                 limit=STANDARDIZATION_RMS_BOUND if found else None, sense="<" if found else None)
    worst = offsets_kept(static, offsets)
    kept = math.isfinite(worst)
    checks.check("checkpoint_keeps_instrument_baselines", kept and worst < OFFSET_RMS_BOUND,
                 value=round(worst, 5) if kept else "no per-instrument table saved",
                 bound=f"< {OFFSET_RMS_BOUND}: worst rms difference between an instrument's baseline offset fitted here "
                       "on the training split and the nearest row of the tensors the checkpoint saved for its static "
                       "feature stages (row order free): the README's baseline correction is part of the model",
                 limit=OFFSET_RMS_BOUND if kept else None, sense="<" if kept else None)
    # the stored training split is in intake order (varieties in turn): batches of a fixed shuffle
    shuffled = x_train[torch.randperm(len(x_train), generator=torch.Generator().manual_seed(12345))]
    stats = input_statistics(model, shuffled, BATCH)
    mismatch = buffer_mismatch(model, stats)
    shift, log_var = worst_mismatch(mismatch)
    finite = math.isfinite(shift) and math.isfinite(log_var)
    per_layer = {k: (round(a, 3), round(b, 3)) for k, (a, b) in mismatch.items()}
    checks.check("averaged_running_mean_fits_averaged_weights", finite and shift < SHIFT_BOUND,
                 value=round(shift, 4) if finite else "n/a",
                 bound=f"< {SHIFT_BOUND}: worst channel-averaged |running_mean - mean| / sd between the checkpoint's "
                       "BatchNorm buffers and the statistics of its own weights' layer inputs on the clean training "
                       f"split, recomputed here (per layer: mean shift, |log var ratio|) {per_layer}",
                 limit=SHIFT_BOUND if finite else None, sense="<" if finite else None)
    checks.check("averaged_running_var_fits_averaged_weights", finite and log_var < LOG_VAR_BOUND,
                 value=round(log_var, 4) if finite else "n/a",
                 bound=f"< {LOG_VAR_BOUND}: worst channel-averaged |log(running_var / var)|, same statistics; a "
                       "correct average of the buffers sits near 0.2 (averaged weights give slightly different "
                       "activations than the average of the raw models' statistics)",
                 limit=LOG_VAR_BOUND if finite else None, sense="<" if finite else None)
    head = input_statistics(model, x_train[:PRECISE_BATCHES * BATCH], BATCH)
    share = intake_share(model, stats, head)
    finite_share = math.isfinite(share)
    checks.check("running_means_describe_the_whole_training_split", finite_share and share < INTAKE_SHARE_BOUND,
                 value=round(share, 4) if finite_share else "n/a",
                 bound=f"< {INTAKE_SHARE_BOUND}: least-squares share of the checkpoint's BatchNorm running means "
                       "(minus the statistics of its weights on the whole clean training split) along the offset of "
                       f"the statistics of the split's first {PRECISE_BATCHES} batches in stored (intake) order; "
                       "statistics from a representative sample give 0.00 +- 0.02, statistics recomputed from the "
                       "first scans after every epoch 0.23-0.25",
                 limit=INTAKE_SHARE_BOUND if finite_share else None, sense="<" if finite_share else None)
    model.eval()
    with torch.no_grad():
        val_loss = nn.functional.cross_entropy(model(x_val), y_val).item()
    logged = m.value("val_losses", list)
    epoch = int(m.number("checkpoint_epoch"))
    logged_loss = float(logged[epoch - 1]) if 1 <= epoch <= len(logged) else float("nan")
    gap = abs(val_loss - logged_loss)
    ok = math.isfinite(gap) and gap < LOGGED_GAP_BOUND
    checks.check("logged_val_loss_is_the_checkpoints", ok,
                 value={"recomputed": round(val_loss, 4), "logged": round(logged_loss, 4), "epoch": epoch},
                 bound=f"|recomputed - logged| < {LOGGED_GAP_BOUND}: the checkpoint's cross-entropy on validation "
                       "features built here (training-split standardization and per-instrument baselines, each "
                       "instrument identified by its serial number in both splits) against the validation loss "
                       "the run logged for the checkpoint's epoch",
                 limit=LOGGED_GAP_BOUND if math.isfinite(gap) else None, sense="<" if math.isfinite(gap) else None)
    finite_loss = math.isfinite(val_loss)
    checks.check("checkpoint_val_loss_within_bound", finite_loss and val_loss < VAL_LOSS_BOUND,
                 value=round(val_loss, 4) if finite_loss else "n/a",
                 bound=f"< {VAL_LOSS_BOUND}: the checkpoint's validation cross-entropy recomputed here (a correct "
                       "fix gives 0.27-0.30 on seeds 0-2)",
                 limit=VAL_LOSS_BOUND if finite_loss else None, sense="<" if finite_loss else None)

EPOCH_LINE = re.compile(r"^epoch\s+(\d+) \|.*\| val loss ([0-9.]+) acc", re.M)


def readme(run, measured, checks):
    """Checks on what `python train.py --config configs/experiment.toml` printed (seed 0)."""
    printed = {int(e): float(v) for e, v in EPOCH_LINE.findall(run["stdout"])}
    shape_ok = sorted(printed) == list(range(1, EPOCHS + 1))
    last = printed.get(EPOCHS, float("nan"))
    gap = last - min(printed.values()) if shape_ok else float("nan")
    checks.check("readme_run_val_loss_keeps_falling", shape_ok and gap <= 0.01,
                 value=round(gap, 4) if shape_ok else {"epochs_printed": sorted(printed)},
                 bound=f"{EPOCHS} epoch lines; last epoch's val loss within 0.01 of the lowest printed "
                       f"({printed}): the README's symptom is a val loss turning up after epoch 6",
                 source="readme_run", limit=0.01 if shape_ok else None, sense="<" if shape_ok else None)
    seed0 = measured.get(0)
    logged = seed0.value("val_losses", list) if seed0 is not None else []
    worst = max((abs(printed.get(i + 1, float("inf")) - v) for i, v in enumerate(logged)), default=float("inf"))
    ok = shape_ok and len(logged) == EPOCHS and worst <= 2e-4
    checks.check("readme_run_matches_verifier_run", ok,
                 value=round(worst, 6) if math.isfinite(worst) else "n/a",
                 bound="every printed val loss equals the measuring process's seed-0 history within 2e-4 (code "
                       "that behaves differently under the verifier fails)", source="readme_run")


decide_main(decide, readme=readme)
