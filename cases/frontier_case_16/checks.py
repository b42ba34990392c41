"""Checks on the export before training: errors stop the run, warnings are printed."""

from collections import Counter


class ExportError(Exception):
    pass


def check_sessions(sessions, activities, min_events=2, max_events=64):
    """Errors for unusable sessions, warnings for odd ones; returns the warnings."""
    warnings = []
    ids = Counter((s.home, s.id) for s in sessions)
    dup = [f"{h}/{i}" for (h, i), c in ids.items() if c > 1]
    if dup:
        raise ExportError(f"{len(dup)} session ids appear twice in one home (first: {dup[0]})")
    for s in sessions:
        if not 0 <= s.label < len(activities):
            raise ExportError(f"session {s.id}: unknown activity {s.label}")
        if len(s.events) < min_events:
            raise ExportError(f"session {s.id}: {len(s.events)} events, fewer than {min_events}")
        if len(s.events) > max_events:
            raise ExportError(f"session {s.id}: {len(s.events)} events, more than the model's {max_events}")
    counts = Counter(activities[s.label] for s in sessions if s.split == "train")
    total = sum(counts.values())
    for name in activities:
        share = counts.get(name, 0) / max(total, 1)
        if share < 0.15:
            warnings.append(f"warning: '{name}' is {share:.0%} of the training sessions (under 15%)")
    homes = {s.home for s in sessions if s.split == "val"} - {s.home for s in sessions if s.split == "train"}
    if homes:
        warnings.append(f"warning: homes only in val: {sorted(homes)}")
    return warnings
