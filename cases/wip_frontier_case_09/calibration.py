"""Tool calibration: raw counts to flux, from the run's lift-off reference, the tool and its temperature."""

import numpy as np

# Sensitivity of each MFL tool at 15 C (relative to MFL-B), from the vendor's sheets.
SENSITIVITY = {"MFL-A": 0.62, "MFL-B": 1.00, "MFL-C": 1.55}
COUNTS_PER_UNIT = 24.0      # counts per unit flux at sensitivity 1.00
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


def counts_to_flux(counts, reference, gain):
    """(frames, channels) flux: the counts above the lift-off reference, per unit of calibrated gain."""
    above = np.asarray(counts, dtype=np.float64) - np.asarray(reference, dtype=np.float64)
    return (above / (COUNTS_PER_UNIT * gain)).astype(np.float32)


def segment_flux(segment):
    return counts_to_flux(segment.counts, segment.reference, tool_gain(segment.tool, segment.tool_temp_c))


def gain_summary(segments):
    """Per tool: (segments, min gain, max gain)."""
    out = {}
    for tool in sorted({s.tool for s in segments}):
        g = [tool_gain(s.tool, s.tool_temp_c) for s in segments if s.tool == tool]
        out[tool] = (len(g), float(min(g)), float(max(g)))
    return out
