"""Stage 1 of the data pipeline: raw name lists from the generators we have, cleaned.

Each source is a deterministic generator of made-up names; `build_corpus` concatenates the
configured sources, normalises, filters by length and drops duplicates (keeping first
occurrences, so the order, and therefore the split, is stable).
"""

import random
import unicodedata

SYLLABLES = ["ka", "ri", "to", "mi", "sa", "lo", "ne", "vu", "da", "el", "an", "or",
             "is", "ju", "be", "qua", "th", "ny", "ce", "pho", "gri", "st", "ul", "ez"]
PLACE_ROOTS = ["brook", "stone", "ash", "wick", "ford", "ham", "mere", "dale", "thorn", "by"]


def syllable_names(n, seed):
    """Chains of syllables; each syllable prefers a few successors, so there is structure to learn."""
    rng = random.Random(seed)
    table = random.Random(1234)
    follow = [[table.random() ** 6 for _ in SYLLABLES] for _ in SYLLABLES]
    words = []
    for _ in range(n):
        k = rng.randrange(len(SYLLABLES))
        parts = [SYLLABLES[k]]
        for _ in range(rng.randint(1, 3)):
            k = rng.choices(range(len(SYLLABLES)), weights=follow[k])[0]
            parts.append(SYLLABLES[k])
        words.append("".join(parts))
    return words


def place_names(n, seed):
    """Two-root place names ("ashford", "stonewick"), a second, more regular source."""
    rng = random.Random(seed + 7919)
    return [rng.choice(PLACE_ROOTS) + rng.choice(PLACE_ROOTS) for _ in range(n)]


SOURCES = {"syllables": syllable_names, "places": place_names}


def normalise(word):
    """Lower case, accents stripped, letters only."""
    word = unicodedata.normalize("NFKD", word.strip().lower())
    return "".join(ch for ch in word if "a" <= ch <= "z")


def build_corpus(sources, n_words, seed, min_len=3, max_len=16):
    """The cleaned word list: `n_words` drawn from each source, normalised, filtered, deduplicated."""
    words, seen = [], set()
    for name in sources:
        if name not in SOURCES:
            raise ValueError(f"unknown corpus source '{name}' (known: {', '.join(SOURCES)})")
        for raw in SOURCES[name](n_words, seed):
            word = normalise(raw)
            if min_len <= len(word) <= max_len and word not in seen:
                seen.add(word)
                words.append(word)
    return words
