"""Compare metrics files of two runs (train.metrics_file): final accuracy, macro-F1 and per-queue recall.

python compare_runs.py runs/a/metrics.jsonl runs/b/metrics.jsonl"""

import json
import sys


def final_record(path):
    final = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                record = json.loads(line)
                if record.get("final"):
                    final = record
    if final is None:
        raise SystemExit(f"{path}: no final record (did the run finish?)")
    return final


def compare(a, b):
    lines = [f"{'':16s} {'A':>7s} {'B':>7s} {'B-A':>7s}"]
    for key in ("accuracy", "macro_f1"):
        lines.append(f"{key:16s} {a[key]:7.3f} {b[key]:7.3f} {b[key] - a[key]:+7.3f}")
    for q in a["recall"]:
        ra, rb = a["recall"][q], b["recall"].get(q, float("nan"))
        lines.append(f"{q:16s} {ra:7.3f} {rb:7.3f} {rb - ra:+7.3f}")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        raise SystemExit(__doc__)
    print(compare(final_record(argv[0]), final_record(argv[1])))


if __name__ == "__main__":
    main()
