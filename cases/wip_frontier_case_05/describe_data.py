"""Summarise the station exports: hours, mean and peak pickups, weekday/weekend split, zero share,
and the weather feed's range. `python describe_data.py [--data data]`"""

import argparse

import numpy as np

from checks import check_stations
from data import load_stations, split_holdout


def summary(st):
    days = st.time.astype("datetime64[D]").astype(np.int64)
    weekend = ((days + 3) % 7) >= 5
    return {"hours": len(st), "mean": float(st.pickups.mean()), "peak": float(st.pickups.max()),
            "weekday_mean": float(st.pickups[~weekend].mean()), "weekend_mean": float(st.pickups[weekend].mean()),
            "zero_share": float(np.mean(st.pickups == 0))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--holdout-weeks", type=int, default=2)
    args = ap.parse_args()
    stations = load_stations(args.data)
    check_stations(stations)
    train, held = split_holdout(stations, args.holdout_weeks)
    print(f"{'station':<16}{'part':>6}{'hours':>7}{'mean':>7}{'peak':>6}{'wkday':>7}{'wkend':>7}{'zeros':>7}")
    for part, group in (("train", train), ("held", held)):
        for st in group:
            s = summary(st)
            print(f"  {st.name:<14}{part:>6}{s['hours']:7d}{s['mean']:7.2f}{s['peak']:6.0f}"
                  f"{s['weekday_mean']:7.2f}{s['weekend_mean']:7.2f}{100 * s['zero_share']:6.1f}%")
    temp = stations[0].temp_c
    rain = stations[0].rain_mm
    print(f"weather: temp {temp.min():.1f}..{temp.max():.1f} C, rain > 0 on {100 * np.mean(rain > 0):.1f}% of hours")


if __name__ == "__main__":
    main()
