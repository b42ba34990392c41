"""hard_case_08: the verifier's own copies and probes, shared by both halves. MLDB-CANARY-h08-6bd98f0e14e7693d

- the shipped training conversations, tokenizer config and the chat template the README
  asks for (copied from the case as shipped, so the decider never reads them from the agent);
- its own copy of the case's tokenizer and conversation rendering (tokenizer.CharTokenizer,
  dataprep.encode_conversation), the uncached tokenization every prepared dataset must equal;
- the probe: synthetic conversations and a sequence of in-place template edits, each changing
  a single field by a same-length string, plus reruns that must be cache hits and a restore
  of an earlier template with an old modification time (as cp -p / tar / rsync -a leave it).
"""

import json
import random
import re
import string

IGNORE = -100
MAX_LEN = 128

SHIPPED_TRAIN_JSONL = '{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "how many g in 4 kg?"}, {"role": "assistant", "content": "4 kg is 4000 g."}]}\n{"messages": [{"role": "user", "content": "convert 2 min to s"}, {"role": "assistant", "content": "2 min is 120 s."}]}\n{"messages": [{"role": "user", "content": "how many min in 3 h?"}, {"role": "assistant", "content": "3 h is 180 min."}]}\n{"messages": [{"role": "user", "content": "2 h in min"}, {"role": "assistant", "content": "2 h is 120 min."}]}\n{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "convert 2 m to cm"}, {"role": "assistant", "content": "2 m is 200 cm."}]}\n{"messages": [{"role": "user", "content": "convert 8 l to ml"}, {"role": "assistant", "content": "8 l is 8000 ml."}]}\n{"messages": [{"role": "user", "content": "3 m in cm"}, {"role": "assistant", "content": "3 m is 300 cm."}]}\n{"messages": [{"role": "user", "content": "2 l in ml"}, {"role": "assistant", "content": "2 l is 2000 ml."}]}\n{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "5 km in m"}, {"role": "assistant", "content": "5 km is 5000 m."}]}\n{"messages": [{"role": "user", "content": "2 min in s"}, {"role": "assistant", "content": "2 min is 120 s."}]}\n{"messages": [{"role": "user", "content": "convert 8 h to min"}, {"role": "assistant", "content": "8 h is 480 min."}]}\n{"messages": [{"role": "user", "content": "2 m in cm"}, {"role": "assistant", "content": "2 m is 200 cm."}]}\n{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "how many cm in 6 m?"}, {"role": "assistant", "content": "6 m is 600 cm."}]}\n{"messages": [{"role": "user", "content": "3 m in cm"}, {"role": "assistant", "content": "3 m is 300 cm."}]}\n{"messages": [{"role": "user", "content": "convert 4 kg to g"}, {"role": "assistant", "content": "4 kg is 4000 g."}]}\n{"messages": [{"role": "user", "content": "how many min in 5 h?"}, {"role": "assistant", "content": "5 h is 300 min."}]}\n{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "3 km in m"}, {"role": "assistant", "content": "3 km is 3000 m."}]}\n{"messages": [{"role": "user", "content": "how many m in 5 km?"}, {"role": "assistant", "content": "5 km is 5000 m."}]}\n{"messages": [{"role": "user", "content": "how many s in 8 min?"}, {"role": "assistant", "content": "8 min is 480 s."}]}\n{"messages": [{"role": "user", "content": "how many ml in 9 l?"}, {"role": "assistant", "content": "9 l is 9000 ml."}]}\n{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "convert 5 kg to g"}, {"role": "assistant", "content": "5 kg is 5000 g."}]}\n{"messages": [{"role": "user", "content": "convert 5 min to s"}, {"role": "assistant", "content": "5 min is 300 s."}]}\n{"messages": [{"role": "user", "content": "6 h in min"}, {"role": "assistant", "content": "6 h is 360 min."}]}\n{"messages": [{"role": "user", "content": "7 l in ml"}, {"role": "assistant", "content": "7 l is 7000 ml."}]}\n{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "6 l in ml"}, {"role": "assistant", "content": "6 l is 6000 ml."}]}\n{"messages": [{"role": "user", "content": "3 km in m"}, {"role": "assistant", "content": "3 km is 3000 m."}]}\n{"messages": [{"role": "user", "content": "how many ml in 4 l?"}, {"role": "assistant", "content": "4 l is 4000 ml."}]}\n{"messages": [{"role": "user", "content": "how many cm in 9 m?"}, {"role": "assistant", "content": "9 m is 900 cm."}]}\n{"messages": [{"role": "system", "content": "You are a terse unit converter."}, {"role": "user", "content": "3 km in m"}, {"role": "assistant", "content": "3 km is 3000 m."}]}\n{"messages": [{"role": "user", "content": "how many min in 7 h?"}, {"role": "assistant", "content": "7 h is 420 min."}]}\n{"messages": [{"role": "user", "content": "7 min in s"}, {"role": "assistant", "content": "7 min is 420 s."}]}\n{"messages": [{"role": "user", "content": "convert 9 l to ml"}, {"role": "assistant", "content": "9 l is 9000 ml."}]}\n'

TOKENIZER_CONFIG = json.loads('{\n  "kind": "char",\n  "charset": "printable-ascii+newline",\n  "special_tokens": ["<pad>", "<s>", "</s>"],\n  "add_bos": false,\n  "add_eos": false\n}\n')

README_TEMPLATE = json.loads('{\n  "bos": "<s>",\n  "system": ["<|system|>\\n", "\\n"],\n  "user": ["<|user|>\\n", "\\n"],\n  "assistant": ["<|assistant|>\\n", "</s>\\n"]\n}\n')


class OwnTokenizer:
    """The case's CharTokenizer with the shipped config (encode without add_special_tokens)."""

    def __init__(self, config=TOKENIZER_CONFIG):
        self.specials = list(config["special_tokens"])
        chars = [c for c in string.printable if c == "\n" or c.isprintable()]
        self.itos = self.specials + chars
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.pad_id = self.stoi["<pad>"]
        self._special_re = re.compile("(" + "|".join(re.escape(s) for s in self.specials) + ")")

    def encode(self, text, allow_special=False):
        ids = []
        for part in (self._special_re.split(text) if allow_special else [text]):
            if allow_special and part in self.specials:
                ids.append(self.stoi[part])
            else:
                ids.extend(self.stoi[c] for c in part if c in self.stoi)
        return ids

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids if 0 <= i < len(self.itos) and i != self.pad_id)


def encode_conversation(messages, tok, template, max_len=MAX_LEN):
    """The case's rendering: BOS, then opener/content/closer per message; assistant text and closer trained."""
    ids, labels = [], []

    def add(text, train, allow_special):
        piece = tok.encode(text, allow_special=allow_special)
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


def tokenize(rows, template, max_len=MAX_LEN):
    tok = OwnTokenizer()
    return [encode_conversation(r["messages"], tok, template, max_len) for r in rows]


def shipped_rows():
    return [json.loads(line) for line in SHIPPED_TRAIN_JSONL.splitlines() if line.strip()]


UNITS = [("km", "m", 1000), ("kg", "g", 1000), ("h", "min", 60), ("l", "ml", 1000), ("m", "cm", 100)]
N_PROBE_ROWS = 40


def probe_rows(seed):
    """Conversations for the probe; the first has no system message (so one example cannot stand for all)."""
    rng = random.Random(7000 + seed)
    rows = []
    for i in range(N_PROBE_ROWS):
        a, b, f = rng.choice(UNITS)
        k = rng.randint(2, 9)
        msgs = [{"role": "system", "content": rng.choice(["Answer briefly.", "Be terse."])}] if i % 4 == 2 else []
        msgs += [{"role": "user", "content": f"{k} {a} in {b}?"},
                 {"role": "assistant", "content": f"{k} {a} is {k * f} {b}."}]
        rows.append({"messages": msgs})
    return rows


def _swap_letter(text, rng):
    """The same string with one tag letter changed: same length, same token count."""
    i = max(j for j, c in enumerate(text) if c.islower())
    return text[:i] + rng.choice([c for c in "qrstuvwxyz" if c != text[i]]) + text[i + 1:]


def probe_steps(seed):
    """[(name, template, action, must_hit)]: action is 'write' (edit in place), 'rerun' (file untouched)
    or 'restore_old_mtime' (write, then set the file's mtime to 2001)."""
    rng = random.Random(9000 + seed)
    tag = "".join(rng.choice("abcdefgh") for _ in range(3))
    t0 = {"bos": "<s>", "system": [f"<|sys-{tag}|>\n", "\n"], "user": [f"<|usr-{tag}|>\n", "\n"],
          "assistant": [f"<|bot-{tag}|>\n", "</s>\n"]}
    steps = [("t0", t0, "write", False), ("t0_rerun", t0, "rerun", True)]
    cur = json.loads(json.dumps(t0))
    edits = [("user_opener", "user", 0), ("system_opener", "system", 0), ("assistant_closer", "assistant", 1),
             ("assistant_opener", "assistant", 0), ("user_closer", "user", 1), ("system_closer", "system", 1),
             ("bos", "bos", None)]
    for name, field, idx in edits:
        cur = json.loads(json.dumps(cur))
        if field == "bos":
            cur["bos"] = "<S>"
        elif idx == 0:
            cur[field][0] = _swap_letter(cur[field][0], rng)
        else:
            cur[field][1] = cur[field][1][:-1] + " "
        steps.append((name, cur, "write", False))
    steps += [("t0_restored_old_mtime", t0, "restore_old_mtime", False), ("t0_restored_rerun", t0, "rerun", True)]
    return steps
