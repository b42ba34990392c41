"""Side-by-side table of exported runs' per-site MAE and WAPE on the held-out week.

    python compare_runs.py runs/base runs/fleet-mlp ...
"""

import json
import sys
from pathlib import Path


def load_report(run_dir):
    run = Path(run_dir)
    report = json.loads((run / "report.json").read_text())
    name = json.loads((run / "config.json").read_text()).get("name", run.name)
    return name, report["per_site"]


def table(reports):
    names = [n for n, _ in reports]
    sites = sorted({s for _, r in reports for s in r})
    lines = [f"{'site':<14}" + "".join(f"{n[:22]:>24}" for n in names)]
    for s in sites:
        cells = []
        for _, r in reports:
            m = r.get(s)
            cells.append(f"{m['mae_kwh']:8.2f} kWh {m['wape']:6.1%}" if m else "-")
        lines.append(f"{s:<14}" + "".join(f"{c:>24}" for c in cells))
    return "\n".join(lines)


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    print(table([load_report(d) for d in argv]))


if __name__ == "__main__":
    main(sys.argv[1:])
