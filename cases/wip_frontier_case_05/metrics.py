"""Forecast metrics in bikes per hour, overall and per station."""

import numpy as np


def mae(y, p):
    return float(np.mean(np.abs(p - y))) if len(y) else float("nan")


def bias(y, p):
    return float(np.mean(p - y)) if len(y) else float("nan")


def wape(y, p):
    denom = float(np.sum(np.abs(y)))
    return float(np.sum(np.abs(p - y)) / denom) if denom > 0 else float("nan")


RUSH_HOURS = (7, 8, 17, 18)


def rush_mask(table):
    """Weekday commute hours (07-09 and 17-19 local time)."""
    return (table.weekday < 5) & np.isin(table.hour, RUSH_HOURS)


def station_report(table, pred):
    """Per station (and over all stations): mae, wape, bias, and the bias over weekday rush hours."""
    out = {}
    rush = rush_mask(table)
    for i, name in enumerate(table.names):
        m = table.station == i
        r = m & rush
        out[name] = {"mae": mae(table.y[m], pred[m]), "wape": wape(table.y[m], pred[m]),
                     "bias": bias(table.y[m], pred[m]), "rush_bias": bias(table.y[r], pred[r])}
    out["all"] = {"mae": mae(table.y, pred), "wape": wape(table.y, pred), "bias": bias(table.y, pred),
                  "rush_bias": bias(table.y[rush], pred[rush])}
    return out


def format_report(report, title="held-out"):
    lines = [f"{title:<16} {'mae':>6} {'wape':>7} {'bias':>7} {'rush-hour bias':>15}"]
    for name, r in report.items():
        if name == "all":
            lines.append(f"  {'all stations':<14} {r['mae']:6.2f} {100 * r['wape']:6.1f}% {r['bias']:+7.2f} "
                         f"{r['rush_bias']:+15.2f}")
        else:
            lines.append(f"  {name:<14} {r['mae']:6.2f} {100 * r['wape']:6.1f}% {r['bias']:+7.2f} "
                         f"{r['rush_bias']:+15.2f}")
    return "\n".join(lines)
