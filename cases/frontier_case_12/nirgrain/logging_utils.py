"""Console lines and a JSON-lines metrics file for a run."""

import json
import time
from pathlib import Path


class RunLogger:
    def __init__(self, out_dir, metrics_file, echo=True):
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.metrics_path = self.out_dir / metrics_file
        self.metrics_path.write_text("")
        self.echo = echo
        self.t0 = time.time()

    def info(self, text):
        if self.echo:
            print(text, flush=True)

    def record(self, kind, **values):
        row = {"kind": kind, "t": round(time.time() - self.t0, 3), **values}
        with self.metrics_path.open("a") as fh:
            fh.write(json.dumps(row, default=_plain) + "\n")

    def elapsed(self):
        return time.time() - self.t0


def _plain(obj):
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return str(obj)


def epoch_line(epoch, lr, train, val):
    return (f"epoch {epoch:2d} | lr {lr:.2e} | train loss {train['loss']:.4f} acc {train['acc']:.3f} | "
            f"val loss {val['loss']:.4f} acc {val['acc']:.3f} f1 {val['f1']:.3f} ece {val['ece']:.3f}")


def read_metrics(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]
