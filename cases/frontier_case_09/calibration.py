"""Tool calibration: the count-to-flux gain of every segment, from the tool and its temperature."""

import numpy as np

# Sensitivity of each MFL tool at 15 C (counts per unit flux / 1000), from the vendor's sheets.
SENSITIVITY = {"MFL-A": 0.62, "MFL-B": 1.00, "MFL-C": 1.55}
TEMP_COEFF = 0.006          # relative sensitivity change per degree C
REFERENCE_TEMP_C = 15.0
TEMP_RANGE_C = (-20.0, 45.0)


def tool_gain(tool, temp_c):
    if tool not in SENSITIVITY:
        raise KeyError(f"no sensitivity on file for tool {tool!r}")
    lo, hi = TEMP_RANGE_C
    if not lo <= temp_c <= hi:
        raise ValueError(f"tool temperature {temp_c} C outside the calibrated range {TEMP_RANGE_C}")
    return SENSITIVITY[tool] * (1.0 + TEMP_COEFF * (temp_c - REFERENCE_TEMP_C))


def segment_gains(manifest):
    """(n_segments,) gain per manifest row: raw counts / 1000 / gain = flux."""
    return np.array([tool_gain(r["tool"], r["tool_temp_c"]) for r in manifest], dtype=np.float64)


def gain_summary(manifest, gains):
    """Per tool: (segments, min gain, max gain)."""
    out = {}
    for tool in sorted({r["tool"] for r in manifest}):
        g = gains[[i for i, r in enumerate(manifest) if r["tool"] == tool]]
        out[tool] = (len(g), float(g.min()), float(g.max()))
    return out
