"""Text dashboard over a metrics file (the JSONL the trainer writes with train.metrics_file).

    python dashboard.py runs/metrics.jsonl [--panel update_ratio|grad_data_ratio|tanh_saturation]

Prints one row per logged step and, per layer, the median over the run with a health flag.
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

# (low, high) of the healthy band per panel, from the makemore lectures' rules of thumb
BANDS = {"update_ratio": (-4.0, -2.0), "grad_data_ratio": (-4.0, -1.0), "tanh_saturation": (0.0, 0.05)}
SPARK = " .:-=+*#%@"


def read_rows(path):
    """(config or None, logged rows) from a metrics file; the first line may carry the config."""
    config, rows = None, []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            raise SystemExit(f"{path}:{n}: not JSON") from None
        if "config" in obj and "step" not in obj:
            config = obj["config"]
        else:
            rows.append(obj)
    return config, rows


def sparkline(values):
    finite = [v for v in values if v == v]
    if not finite:
        return ""
    lo, hi = min(finite), max(finite)
    span = (hi - lo) or 1.0
    return "".join(SPARK[int((v - lo) / span * (len(SPARK) - 1))] if v == v else "?" for v in values)


def flag(value, band):
    lo, hi = band
    if value < lo:
        return "LOW"
    if value > hi:
        return "HIGH"
    return "ok"


def summarize(rows, panel):
    """{layer: (values over logged steps, median)} for one panel."""
    layers = {}
    for row in rows:
        for name, value in (row.get(panel) or {}).items():
            layers.setdefault(name, []).append(float(value))
    return {name: (values, statistics.median(values)) for name, values in layers.items()}


def render(config, rows, panel):
    band = BANDS[panel]
    lines = []
    if config:
        optim = config.get("optim", {})
        lines.append(f"run {config.get('name')}: {config.get('model', {}).get('name')} / {optim.get('name')} "
                     f"lr {optim.get('lr')}")
    lines.append(f"{'step':>6} {'loss':>7} {'val':>7}  {panel}")
    for row in rows:
        values = " ".join(f"{v:+.2f}" for v in (row.get(panel) or {}).values())
        val = row.get("val_loss")
        lines.append(f"{row['step']:6d} {row['loss']:7.3f} {val if val is None else format(val, '7.3f'):>7}  {values}")
    lines.append(f"per layer (healthy {band[0]:+.1f} .. {band[1]:+.1f}):")
    for name, (values, median) in summarize(rows, panel).items():
        lines.append(f"  {name:<16} median {median:+.2f} {flag(median, band):<4} {sparkline(values)}")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("metrics_file")
    parser.add_argument("--panel", default="update_ratio", choices=sorted(BANDS))
    args = parser.parse_args(argv)
    config, rows = read_rows(args.metrics_file)
    if not rows:
        raise SystemExit(f"{args.metrics_file}: no logged rows")
    print(render(config, rows, args.panel))


if __name__ == "__main__":
    main(sys.argv[1:])
