"""Synthetic instruction data: small string tasks with a deterministic answer.

The tasks differ a lot in reply length on purpose (a one-digit count up to three repeated words),
so the pipeline sees the mix of short and long answers real chat data has.
"""

import random

from chatft.template import render

WORDS = ("apple river stone cloud tiger lemon piano rocket garden silver candle "
         "forest window monkey pepper castle dragon yellow orange planet").split()


def _count(rng):
    words = rng.sample(WORDS, rng.randint(2, 4))
    return f"count: {' '.join(words)}", str(len(words))


def _first(rng):
    words = rng.sample(WORDS, rng.randint(2, 3))
    return f"initials of {' '.join(words)}", "".join(w[0] for w in words)


def _reverse(rng):
    w = rng.choice(WORDS)
    return f"reverse the word {w}", w[::-1]


def _dashes(rng):
    w = rng.choice(WORDS)
    return f"spell {w} with dashes", "-".join(w)


def _sort(rng):
    words = rng.sample(WORDS, rng.randint(2, 3))
    return f"sort: {' '.join(words)}", " ".join(sorted(words))


def _repeat(rng):
    w, n = rng.choice(WORDS), rng.randint(2, 4)
    return f"say {w} {n} times", " ".join([w] * n)


TASKS = {"count": _count, "first": _first, "reverse": _reverse, "dashes": _dashes, "sort": _sort,
         "repeat": _repeat}


def parse_tasks(text):
    """``"count, sort"`` -> ("count", "sort"), refusing unknown names."""
    tasks = tuple(t.strip() for t in text.split(",") if t.strip())
    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        raise ValueError(f"unknown or no tasks {unknown or text!r} (known: {', '.join(TASKS)})")
    return tasks


def make_conversations(n, seed, tasks=tuple(TASKS), max_turns=1, max_length=None):
    """``n`` conversations of 1..max_turns (question, answer) turns drawn from ``tasks``.

    With ``max_length`` (the model's context) a conversation that would not fit is drawn again
    rather than kept: cutting it to the context would train on a reply without its end.
    """
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise ValueError(f"unknown tasks {unknown} (known: {', '.join(TASKS)})")
    rng = random.Random(seed)
    convs = []
    while len(convs) < n:
        msgs = []
        for _ in range(rng.randint(1, max_turns)):
            q, a = TASKS[rng.choice(tasks)](rng)
            msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
        if max_length is not None and len(render(msgs)) > max_length:
            continue
        convs.append(msgs)
    return convs
