"""Inspect or prune the tokenized-data cache.

    python cachectl.py list  [--cache cache/tok]
    python cachectl.py prune [--cache cache/tok] [--keep 3]     # drop all but the newest entries
    python cachectl.py verify [--cache cache/tok]               # re-hash every entry's arrays
"""

import argparse
import json
import sys

import numpy as np

from chatlm.data.cache import TokenCache, fingerprint


def entry_digest(cache, key):
    entry = cache.entry(key)
    return fingerprint(np.load(entry / "ids.npy").tobytes(), np.load(entry / "labels.npy").tobytes())


def cmd_list(cache):
    entries = cache.entries()
    if not entries:
        print(f"{cache.root}: empty")
        return
    for key, meta in entries:
        built = meta.get("built_from", {})
        print(f"{key}  {meta.get('created', '?'):19}  {meta.get('n', '?'):>4} chats  "
              f"{built.get('train', '?')} + {built.get('template', '?')} (max_len {built.get('max_len', '?')})")
    print(f"{len(entries)} entries, {cache.size_bytes() / 1024:.1f} KiB")


def cmd_prune(cache, keep):
    entries = cache.entries()
    for key, _ in entries[:max(0, len(entries) - keep)]:
        cache.remove(key)
        print(f"removed {key}")


def cmd_verify(cache):
    bad = 0
    for key, meta in cache.entries():
        digest_path = cache.entry(key) / "digest.json"
        digest = entry_digest(cache, key)
        if digest_path.is_file():
            ok = json.loads(digest_path.read_text()).get("digest") == digest
        else:
            digest_path.write_text(json.dumps({"digest": digest}))
            ok = True
        n_ok = len(meta.get("offsets", [])) - 1 == meta.get("n")
        bad += not (ok and n_ok)
        print(f"{key}  {'ok' if ok and n_ok else 'CORRUPT'}")
    return bad


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("list", "prune", "verify"))
    parser.add_argument("--cache", default="cache/tok")
    parser.add_argument("--keep", type=int, default=3)
    args = parser.parse_args(argv)
    cache = TokenCache(args.cache)
    if args.command == "list":
        cmd_list(cache)
    elif args.command == "prune":
        cmd_prune(cache, args.keep)
    else:
        sys.exit(1 if cmd_verify(cache) else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
