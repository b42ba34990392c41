"""Side-by-side table of exported runs' per-building MAE and coverage.

    python compare_runs.py runs/base runs/mlp-per-building ...
"""

import json
import sys
from pathlib import Path


def load_report(run_dir):
    run = Path(run_dir)
    report = json.loads((run / "report.json").read_text())
    name = json.loads((run / "config.json").read_text()).get("name", run.name)
    return name, report["per_building"]


def table(reports):
    names = [n for n, _ in reports]
    buildings = sorted({b for _, r in reports for b in r})
    lines = [f"{'building':<10}" + "".join(f"{n[:22]:>24}" for n in names)]
    for b in buildings:
        cells = []
        for _, r in reports:
            m = r.get(b)
            cells.append(f"{m['mae_kwh']:8.2f} kWh cov {m['coverage90']:.2f}" if m else "-")
        lines.append(f"{b:<10}" + "".join(f"{c:>24}" for c in cells))
    return "\n".join(lines)


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    print(table([load_report(d) for d in argv]))


if __name__ == "__main__":
    main(sys.argv[1:])
