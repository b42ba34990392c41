"""Judge verdicts on disk, so re-judging an unchanged transcript with the same judge is free.

Keyed by (transcript hash, key hash, judge model, prompt hash) plus the criterion, the
repeat index and the sampling settings. Only scored outcomes are stored: a judge error is
retried next time rather than frozen in.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from harness.core.hashing import sha256_text


class VerdictCache:
    def __init__(self, folder: Path | None):
        self.folder = Path(folder) if folder else None
        self.hits = 0

    @staticmethod
    def key(**parts) -> str:
        return sha256_text(json.dumps(parts, sort_keys=True))

    def get(self, key: str) -> dict | None:
        if not self.folder:
            return None
        path = self.folder / key[:2] / f"{key}.json"
        if not path.is_file():
            return None
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None  # a torn or foreign file is a miss, never an error
        self.hits += 1
        return value

    def put(self, key: str, value: dict) -> None:
        if not self.folder:
            return
        path = self.folder / key[:2] / f"{key}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")  # parallel samples share a cache
        tmp.write_text(json.dumps(value), encoding="utf-8")
        os.replace(tmp, path)
