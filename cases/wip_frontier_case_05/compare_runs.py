"""Compare saved runs side by side: `python compare_runs.py runs/a runs/b ...`."""

import sys

from export import load_report


def main(paths):
    reports = {p: load_report(p) for p in paths}
    stations = list(next(iter(reports.values())))
    print(f"{'station':<16}" + "".join(f"{p[-18:]:>20}" for p in paths))
    for key in ("mae", "rush_bias"):
        print(f"-- {key}")
        for st in stations:
            print(f"  {st:<14}" + "".join(f"{reports[p][st][key]:20.2f}" for p in paths))


if __name__ == "__main__":
    main(sys.argv[1:])
