"""Compare the metrics histories of two runs (history.json written by the Checkpoint callback).

    python -m tools.compare_runs runs/a runs/b
"""

import argparse
import json
from pathlib import Path

FIELDS = ("loss", "acc", "bal_acc")


def load_history(run_dir):
    path = Path(run_dir) / "history.json"
    if not path.exists():
        raise FileNotFoundError(f"{path}: run train.py with --set train.out_dir={run_dir}")
    return json.loads(path.read_text())


def per_class_recall(row):
    return row.get("recall") or []


def compare(a, b, classes=None):
    lines = [f"{'epoch':>5s} " + " ".join(f"{f + ' a':>10s} {f + ' b':>10s}" for f in FIELDS)]
    for ra, rb in zip(a, b):
        lines.append(f"{ra['epoch']:5d} " + " ".join(f"{ra[f]:10.4f} {rb[f]:10.4f}" for f in FIELDS))
    if len(a) != len(b):
        lines.append(f"(runs have {len(a)} and {len(b)} epochs; compared the first {min(len(a), len(b))})")
    ra, rb = per_class_recall(a[-1]), per_class_recall(b[-1])
    if ra and rb:
        names = classes or [str(i) for i in range(len(ra))]
        lines.append("final recall: " + " | ".join(f"{n} {x:.3f} -> {y:.3f}" for n, x, y in zip(names, ra, rb)))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_a")
    parser.add_argument("run_b")
    parser.add_argument("--classes", default="normal,heat,lame,mastitis,ketosis")
    args = parser.parse_args(argv)
    print(compare(load_history(args.run_a), load_history(args.run_b), args.classes.split(",")))


if __name__ == "__main__":
    main()
