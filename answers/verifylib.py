"""Shared plumbing for the hidden verifiers (answers/case_NN/verify.py).

A verifier is run as ``python verify.py WORKSPACE`` with WORKSPACE as its working
directory. It imports the agent's code from there, checks bug-invariant bounds on
several seeds, prints one JSON line ``{"passed", "seeds", "checks"}`` last, and exits
0 only when every check on every seed passed.
"""

import json
import os
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path

SEEDS = (0, 1, 2)


def setup():
    """Point imports at the workspace and pin threads; returns the workspace path."""
    ws = Path(sys.argv[1]).resolve()
    os.chdir(ws)
    sys.path.insert(0, str(ws))
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    torch.set_num_threads(1)
    return ws


class Checks:
    def __init__(self):
        self.rows = []
        self.seeds = {}
        self._seed = None

    def check(self, name, passed, value=None, bound=None):
        row = {"name": name, "seed": self._seed, "passed": bool(passed), "value": value, "bound": bound}
        self.rows.append(row)
        if self._seed is not None:
            self.seeds[str(self._seed)] = self.seeds.get(str(self._seed), True) and bool(passed)
        return bool(passed)

    @contextmanager
    def seed(self, seed):
        """Checks inside belong to ``seed``; an exception fails that seed, not the whole verifier."""
        self._seed = seed
        self.seeds.setdefault(str(seed), True)
        try:
            yield seed
        except Exception as exc:
            self.check("no_exception", False, value=f"{type(exc).__name__}: {exc}")
            traceback.print_exc(file=sys.stderr)
        finally:
            self._seed = None

    def finish(self):
        passed = bool(self.rows) and all(r["passed"] for r in self.rows)
        print(json.dumps({"passed": passed, "seeds": self.seeds, "checks": self.rows}, default=str))
        sys.exit(0 if passed else 1)
