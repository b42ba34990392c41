"""Sanity checks on the exports before training."""

from collections import Counter, defaultdict


def check_bouts(bouts, min_len=3, max_len=62):
    problems = []
    short = sum(len(b.syllables) < min_len for b in bouts)
    if short:
        problems.append(f"{short} bouts shorter than {min_len} syllables")
    long = sum(len(b.syllables) > max_len for b in bouts)
    if long:
        problems.append(f"{long} bouts longer than {max_len} syllables (cut to the row)")
    dup = Counter((b.booth, b.session, b.bout) for b in bouts)
    n_dup = sum(c > 1 for c in dup.values())
    if n_dup:
        problems.append(f"{n_dup} (booth, session, bout) keys appear more than once")
    problems.extend(check_bout_numbering(bouts))
    problems.extend(check_syllable_alphabet(bouts))
    return problems


def check_bout_numbering(bouts):
    """Within a session the recorder numbers bouts 1, 2, 3, ...; a gap means a dropped file."""
    numbers = defaultdict(list)
    for b in bouts:
        numbers[b.booth, b.session].append(b.bout)
    gaps = sum(sorted(v) != list(range(1, len(v) + 1)) for v in numbers.values())
    return [f"{gaps} sessions with gaps in their bout numbers"] if gaps else []


def check_syllable_alphabet(bouts, alphabet="abcdefghijkl"):
    """The syllable classifier emits single lower-case letters; anything else is an export error."""
    odd = Counter(s for b in bouts for s in b.syllables if s not in alphabet)
    if not odd:
        return []
    return [f"unexpected syllable labels: " + ", ".join(f"{s!r} x{n}" for s, n in odd.most_common(5))]


def check_register(bouts, cohorts):
    """Every bird in the exports must be in the bird register."""
    missing = sorted({b.bird for b in bouts} - set(cohorts))
    return [f"birds not in birds.csv: {', '.join(missing)}"] if missing else []
