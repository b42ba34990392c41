"""Sanity checks on the station exports: errors for broken files, warnings for odd stations."""

import numpy as np

MAX_GAP_WARN = 24


class ExportError(ValueError):
    pass


def longest_zero_run(values):
    best = run = 0
    for v in values:
        run = run + 1 if v == 0 else 0
        best = max(best, run)
    return best


def check_stations(stations, warn=print):
    """Raise on malformed exports; warn about stations worth a look. Returns the warnings."""
    warnings = []
    for st in stations:
        if len(st) == 0:
            raise ExportError(f"{st.name}: empty export")
        steps = np.diff(st.time).astype(np.int64)
        if np.any(steps != 1):
            raise ExportError(f"{st.name}: timestamps are not hourly and in order")
        for name in ("pickups", "temp_c", "rain_mm"):
            if not np.all(np.isfinite(getattr(st, name))):
                raise ExportError(f"{st.name}: non-finite {name}")
        if np.any(st.pickups < 0):
            raise ExportError(f"{st.name}: negative pickups")
        run = longest_zero_run(st.pickups)
        if run > MAX_GAP_WARN:
            start = int(np.argmax(np.convolve(st.pickups == 0, np.ones(run), "valid") == run))
            msg = (f"warning: {st.name}: {run} consecutive hours with 0 pickups "
                   f"from {st.time[start]} (dock offline?)")
            warnings.append(msg)
            warn(msg)
    return warnings


def check_weather(stations, warn=print, temp_range=(-30.0, 45.0)):
    """The weather attached to every station comes from one city gauge: it must agree across stations
    on the hours they share and stay in a plausible range."""
    ref = stations[0]
    for st in stations[1:]:
        _, a, b = np.intersect1d(ref.time, st.time, return_indices=True)
        if not np.allclose(st.temp_c[b], ref.temp_c[a]):
            raise ExportError(f"{st.name}: temperature feed differs from {ref.name}'s")
    lo, hi = temp_range
    if ref.temp_c.min() < lo or ref.temp_c.max() > hi:
        raise ExportError(f"temperature outside {lo}..{hi} C")
    if np.any(ref.rain_mm < 0):
        raise ExportError("negative rainfall")
    wet = float(np.mean(ref.rain_mm > 0))
    if wet > 0.5:
        msg = f"warning: rain recorded on {100 * wet:.0f}% of hours (feed stuck?)"
        warn(msg)
        return [msg]
    return []
