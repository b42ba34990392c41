"""Print one record from the exports by id: its station, time, label and band energies.

    python -m tools.inspect_record KR00042 [--export-dir data/exports]
"""

import argparse

import numpy as np

from catalog import load_exports


def find(table, record_id):
    hits = np.flatnonzero(table.record_ids == record_id)
    if len(hits) == 0:
        raise SystemExit(f"no record {record_id}")
    return int(hits[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record_id")
    parser.add_argument("--export-dir", default="data/exports")
    args = parser.parse_args(argv)
    table = load_exports(args.export_dir)
    i = find(table, args.record_id)
    print(f"{table.record_ids[i]} | station {table.stations[i]} | day {table.t_hours[i] / 24:.2f} "
          f"| {table.classes[table.labels[i]]}")
    for name, v in zip(table.band_names, table.bands[i]):
        print(f"  {name}: {v:.4f}")


if __name__ == "__main__":
    main()
