"""Chat data -> token ids + labels, with an on-disk cache so reruns skip tokenization.

A cache entry is a folder cache/tok/<fingerprint>/ holding ids.npy, labels.npy and
meta.json (offsets of each example in the flat arrays).
"""

import hashlib
import json
from pathlib import Path

import numpy as np

CACHE_FORMAT = 2
IGNORE = -100  # label value the loss skips (prompt and role-marker tokens)


def read_jsonl(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_template(path):
    """A chat template: an optional BOS string and an (open, close) pair per role."""
    template = json.loads(Path(path).read_text())
    for role in ("system", "user", "assistant"):
        opener, closer = template[role]
        template[role] = (opener, closer)
    return template


def encode_conversation(messages, tok, template, max_len):
    """Render one conversation with the template; only assistant text (and its closer) is trained on."""
    ids, labels = [], []

    def add(text, train, allow_special):
        piece = tok.encode(text, allow_special=allow_special, add_special_tokens=False)
        ids.extend(piece)
        labels.extend(piece if train else [IGNORE] * len(piece))

    add(template["bos"], False, True)
    for msg in messages:
        opener, closer = template[msg["role"]]
        is_reply = msg["role"] == "assistant"
        add(opener, False, True)
        add(msg["content"], is_reply, False)
        add(closer, is_reply, True)
    return ids[:max_len], labels[:max_len]


def generation_prompt(messages, tok, template):
    """Ids for a prompt that ends right where the assistant's reply should start."""
    ids, _ = encode_conversation(messages, tok, template, max_len=10**9)
    opener = template["assistant"][0]
    return ids + tok.encode(opener, allow_special=True, add_special_tokens=False)


def fingerprint(data_path, tok_config, max_len):
    h = hashlib.sha256()
    h.update(Path(data_path).read_bytes())
    h.update(json.dumps(tok_config, sort_keys=True).encode())
    h.update(f"max_len={max_len};format={CACHE_FORMAT}".encode())
    return h.hexdigest()[:16]


def _save(entry, examples):
    entry.mkdir(parents=True, exist_ok=True)
    lengths = [len(ids) for ids, _ in examples]
    np.save(entry / "ids.npy", np.array([i for ids, _ in examples for i in ids], dtype=np.uint8))
    np.save(entry / "labels.npy", np.array([l for _, labels in examples for l in labels], dtype=np.int8))
    (entry / "meta.json").write_text(json.dumps({"n": len(examples), "offsets": np.cumsum([0] + lengths).tolist()}))


def _load(entry):
    ids = np.load(entry / "ids.npy").astype(np.int64)
    labels = np.load(entry / "labels.npy").astype(np.int64)
    offsets = json.loads((entry / "meta.json").read_text())["offsets"]
    return [(ids[a:b].tolist(), labels[a:b].tolist()) for a, b in zip(offsets[:-1], offsets[1:])]


def load_examples(data_path, template_path, tok, max_len, cache_dir, overwrite_cache=False):
    """Tokenized examples for a jsonl file of conversations, from the cache when possible."""
    entry = Path(cache_dir) / fingerprint(data_path, tok.config, max_len)
    if (entry / "meta.json").exists() and not overwrite_cache:
        return _load(entry), entry
    template = load_template(template_path)
    examples = [encode_conversation(row["messages"], tok, template, max_len) for row in read_jsonl(data_path)]
    _save(entry, examples)
    return examples, entry
