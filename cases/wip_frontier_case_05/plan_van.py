"""Turn a saved run's forecasts into the rebalancing van's morning list.

For each station, compare the forecast pickups over the weekday morning rush (07-09) with the bikes
the station holds at 06:00 (its dock capacity times the typical overnight fill) and list the stations
that would run empty, largest deficit first.

    python plan_van.py runs/x [--fill 0.6]
"""

import argparse

import numpy as np

from evaluate import predict

CAPACITY = {"harbour-front": 60, "uni-library": 24, "old-town": 30, "station-square": 36,
            "riverside-park": 30, "tech-park": 24}
MORNING = (7, 8)


def morning_demand(table, pred):
    """Mean forecast and actual pickups per weekday over the morning rush, per station."""
    out = {}
    for i, name in enumerate(table.names):
        m = (table.station == i) & (table.weekday < 5) & np.isin(table.hour, MORNING)
        days = max(1, int(m.sum()) // len(MORNING))
        out[name] = (float(pred[m].sum()) / days, float(table.y[m].sum()) / days)
    return out


def plan(demand, fill):
    rows = []
    for name, (forecast, actual) in demand.items():
        stock = CAPACITY.get(name, 30) * fill
        rows.append((name, forecast, actual, stock, max(0.0, forecast - stock)))
    return sorted(rows, key=lambda r: -r[4])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--fill", type=float, default=0.6)
    args = ap.parse_args()
    table, pred = predict(args.run_dir)
    print(f"{'station':<16}{'forecast':>9}{'actual':>8}{'stock':>7}{'bring':>7}")
    for name, forecast, actual, stock, bring in plan(morning_demand(table, pred), args.fill):
        print(f"  {name:<14}{forecast:9.1f}{actual:8.1f}{stock:7.1f}{bring:7.1f}")


if __name__ == "__main__":
    main()
