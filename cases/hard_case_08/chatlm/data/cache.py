"""An on-disk cache of tokenized datasets, so reruns skip tokenization.

An entry is a folder ``<root>/<key>/`` holding ids.npy, labels.npy and meta.json (the offsets
of each example in the flat arrays, and what the entry was built from). The key is computed by
the caller with ``fingerprint``; this module only stores and loads.
"""

import hashlib
import json
import shutil
import time
from pathlib import Path

import numpy as np

CACHE_FORMAT = 3


def fingerprint(*parts):
    """A short stable hash of strings, bytes, numbers and JSON-able values."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, bytes):
            h.update(part)
        else:
            h.update(json.dumps(part, sort_keys=True).encode())
        h.update(b"\x00")
    return h.hexdigest()[:16]


def file_fingerprint(path):
    return fingerprint(Path(path).read_bytes())


class TokenCache:
    def __init__(self, root):
        self.root = Path(root)

    def entry(self, key):
        return self.root / key

    def has(self, key):
        return (self.entry(key) / "meta.json").is_file()

    def save(self, key, examples, built_from):
        entry = self.entry(key)
        entry.mkdir(parents=True, exist_ok=True)
        lengths = [len(ids) for ids, _ in examples]
        np.save(entry / "ids.npy", np.array([i for ids, _ in examples for i in ids], dtype=np.uint8))
        np.save(entry / "labels.npy", np.array([l for _, labels in examples for l in labels], dtype=np.int8))
        meta = {"format": CACHE_FORMAT, "n": len(examples), "offsets": np.cumsum([0] + lengths).tolist(),
                "built_from": built_from, "created": time.strftime("%Y-%m-%d %H:%M:%S")}
        (entry / "meta.json").write_text(json.dumps(meta))
        return entry

    def load(self, key):
        entry = self.entry(key)
        meta = json.loads((entry / "meta.json").read_text())
        if meta.get("format") != CACHE_FORMAT:
            return None
        ids = np.load(entry / "ids.npy").astype(np.int64)
        labels = np.load(entry / "labels.npy").astype(np.int64)
        offsets = meta["offsets"]
        return [(ids[a:b].tolist(), labels[a:b].tolist()) for a, b in zip(offsets[:-1], offsets[1:])]

    def entries(self):
        """(key, meta) of every entry, oldest first."""
        out = []
        for meta_path in sorted(self.root.glob("*/meta.json")):
            try:
                out.append((meta_path.parent.name, json.loads(meta_path.read_text())))
            except (OSError, ValueError):
                out.append((meta_path.parent.name, {"error": "unreadable meta.json"}))
        return sorted(out, key=lambda kv: kv[1].get("created", ""))

    def remove(self, key):
        shutil.rmtree(self.entry(key), ignore_errors=True)

    def size_bytes(self):
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())
