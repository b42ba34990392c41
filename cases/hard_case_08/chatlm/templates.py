"""Chat templates: how a conversation becomes one token sequence, and which tokens are trained on.

A template file is JSON: an optional ``bos`` string and an ``[opener, closer]`` pair per role.
Only the assistant's text and its closer are supervised; everything else gets IGNORE labels.
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

IGNORE = -100
ROLES = ("system", "user", "assistant")


@dataclass(frozen=True)
class ChatTemplate:
    bos: str
    markers: dict

    @classmethod
    def load(cls, path):
        raw = json.loads(Path(path).read_text())
        missing = [r for r in ROLES if r not in raw]
        if missing:
            raise ValueError(f"{path}: template has no entry for {', '.join(missing)}")
        markers = {}
        for role in ROLES:
            if not isinstance(raw[role], (list, tuple)) or len(raw[role]) != 2:
                raise ValueError(f"{path}: '{role}' must be [opener, closer]")
            markers[role] = (str(raw[role][0]), str(raw[role][1]))
        return cls(str(raw.get("bos", "")), markers)

    def fingerprint(self):
        """Identifies the rendering: two templates with the same fingerprint render identically."""
        payload = json.dumps({"bos": self.bos, **{r: list(m) for r, m in self.markers.items()}}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def encode(self, messages, tok, max_len):
        """(ids, labels) for one conversation, cut to max_len."""
        ids, labels = [], []

        def add(text, train, allow_special):
            piece = tok.encode(text, allow_special=allow_special, add_special_tokens=False)
            ids.extend(piece)
            labels.extend(piece if train else [IGNORE] * len(piece))

        add(self.bos, False, True)
        for msg in messages:
            opener, closer = self.markers[msg["role"]]
            is_reply = msg["role"] == "assistant"
            add(opener, False, True)
            add(msg["content"], is_reply, False)
            add(closer, is_reply, True)
        return ids[:max_len], labels[:max_len]

    def generation_prompt(self, messages, tok):
        """Ids that end exactly where the assistant's reply should start."""
        ids, _ = self.encode(messages, tok, max_len=10**9)
        return ids + tok.encode(self.markers["assistant"][0], allow_special=True, add_special_tokens=False)
