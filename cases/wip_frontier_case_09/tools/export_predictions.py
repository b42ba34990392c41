"""Write the predicted defect spans of a saved tagger on the held-out runs as a CSV for the dig planners.

    python -m tools.export_predictions runs/s0 [--out predicted_spans.csv] [--min-frames 2]
"""

import argparse
import contextlib
import csv
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from config import load_config  # noqa: E402
from evaluate import predict  # noqa: E402
from export import TAGS  # noqa: E402
from model import FrameTagger  # noqa: E402
from spans import find_spans  # noqa: E402
from train import build_datasets  # noqa: E402

def predicted_rows(seg_ids, preds, min_frames):
    rows = []
    for seg_id, pred in zip(seg_ids, preds):
        for s in find_spans(pred, skip=(0, TAGS.index("weld"))):
            if s.length >= min_frames:
                rows.append({"segment": seg_id, "tag": TAGS[s.tag], "first_frame": int(s.start),
                             "frames": int(s.length)})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("run_dir")
    parser.add_argument("--config", default="configs/ili.toml")
    parser.add_argument("--out", default="predicted_spans.csv")
    parser.add_argument("--min-frames", type=int, default=2)
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    with contextlib.redirect_stdout(io.StringIO()):
        _, val_ds = build_datasets(cfg)
    m = cfg.model
    model = FrameTagger(width=m.width, n_tags=len(TAGS), kernel=m.kernel, dropout=m.dropout)
    model.load_state_dict(torch.load(Path(args.run_dir) / "tagger.pt"))
    rows = predicted_rows(val_ds.seg_ids, predict(model, val_ds), args.min_frames)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["segment", "tag", "first_frame", "frames"])
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} predicted spans written to {args.out}")


if __name__ == "__main__":
    main()
