"""frontier_case_14, measuring half (runs the agent's code; see verifylib). MLDB-CANARY-frontier_case_14-63650fbbfce09824

Runs the agent's train.run(train.make_config("configs/plant.toml", ["seed=s"])) at the README's
settings, with a global forward pre-hook that keeps the first validation's inputs (600 rows), then
probes the returned model: weights, two eval-mode forwards of 128 validation rows under different
RNG states, one training-mode forward with its RNG state (families/functional_dropout_mode.py).
It then runs the agent's pumpwatch.data.pipeline.waveforms on the export and compares, for every bearing
recording, the high band (above 120 Hz) of what the pipeline keeps with the raw export resampled to the
model's clock with nothing removed (the workspace's data/ files read directly).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if not (HERE / "families").is_dir():  # in the repository, not the verifier's bundle: answers/families/
    sys.path.append(str(HERE.parent))
from families.functional_dropout_mode import watch_fit  # noqa: E402
from verifylib import import_workspace_module, measure_main, require  # noqa: E402

CONFIG = "configs/plant.toml"
N_VAL = 600


HI_BAND_HZ = 120.0


def raw_recordings(root, n):
    """The export's first ``n`` recordings (the pipeline's order: year by year, capture order), read
    from the raw files: (label, logger, native rate, acceleration in m/s^2 as float64)."""
    import csv

    import numpy as np

    out = []
    years = sorted(int(p.stem.split("_")[1]) for p in Path(root).glob("captures_*.npz"))
    for y in years:
        with np.load(Path(root) / f"captures_{y}.npz") as z:
            cols = {k: z[k] for k in z.files}
        with open(Path(root) / f"sheet_{y}.csv", newline="") as fh:
            scale = {int(r["capture"]): float(r["full_scale"]) for r in csv.DictReader(fh)}
        ends = np.cumsum(cols["length"])
        for i, c in enumerate(cols["capture"]):
            counts = cols["counts"][ends[i] - cols["length"][i]:ends[i]].astype(np.float64)
            out.append((int(cols["label"][i]), str(cols["logger"][i]), int(cols["rate"][i]),
                        counts * (scale[int(c)] / 32767)))
    return out[:n]


def reference_wave(wave, rate, target):
    """The recording on the model's clock with nothing removed (polyphase resampling, offset off)."""
    from fractions import Fraction

    import numpy as np
    from scipy.signal import resample_poly

    if rate != target:
        r = Fraction(int(target), int(rate))
        n = len(wave) * int(target) // int(rate)
        wave = resample_poly(wave, r.numerator, r.denominator)[:n]
    return wave - wave.mean()


def high_band(wave, rate):
    import numpy as np

    power = np.abs(np.fft.rfft(np.asarray(wave, dtype=np.float64))) ** 2
    return float(power[np.fft.rfftfreq(len(wave), 1.0 / rate) > HI_BAND_HZ].sum())


def bearing_impacts(rec, cfg):
    """How much of the bearing recordings' high band (above 120 Hz: the impacts at the ball-pass
    rate) the agent's pipeline.waveforms keeps, against the raw export resampled with nothing removed.

    Per logger generation, the median over the export's bearing recordings of (high-band energy of
    the pipeline's wave) / (high-band energy of the reference). The old loggers' glitches are a few
    samples among thousands, so removing them (or not) moves the ratio by little.
    """
    import numpy as np

    pipeline = import_workspace_module("pumpwatch.data.pipeline")
    recordings, waveforms = require(pipeline, "recordings", "waveforms")
    n = cfg.data.n_train + cfg.data.n_val
    raw = raw_recordings(getattr(cfg.data, "export", "data"), n)
    recs = recordings(cfg)
    got = waveforms(recs, cfg)
    ratios = {}
    for i, (label, logger, rate, wave) in enumerate(raw):
        if label != 3:
            continue
        ref = reference_wave(wave, rate, cfg.data.rate)
        ratios.setdefault(logger, []).append(high_band(got[i], cfg.data.rate) / high_band(ref, cfg.data.rate))
    rec.put("bearing_high_band", {"recordings": len(got),
                                   "median_kept": {k: float(np.median(v)) for k, v in sorted(ratios.items())},
                                   "count": {k: len(v) for k, v in sorted(ratios.items())}})


def measure(seed, rec):
    train = import_workspace_module("train")
    run_fn, make_config = require(train, "run", "make_config")
    cfg = make_config(CONFIG, [f"seed={seed}", "output.dir=runs/verify"])
    watch_fit(rec, lambda: (lambda: run_fn(cfg, echo=False)), N_VAL)
    bearing_impacts(rec, cfg)


measure_main(measure)
