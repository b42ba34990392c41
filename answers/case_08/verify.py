"""case_08 verifier: the tokenized-data cache must follow the chat template.

Per seed, in a scratch folder with the verifier's own conversations and templates:

1. template A written to chat.json, data prepared through the repo's own path
   (train.prepare_data with the repo's defaults except the file paths): every example
   equals a fresh, uncached tokenization with A;
2. template B written over the same chat.json, same cache dir: equals fresh B
   (a cache keyed without the template hands back A's ids here);
3. rerun with chat.json untouched: still equals fresh B AND is served from the cache,
   i.e. the tokenizer's encode is not called at all (rejects "never read the cache" /
   "always overwrite");
4. back to A: equals fresh A.

Plus the shipped situation: the workspace's own config, cache folder (which holds
entries made with an earlier template) and template must give the fresh tokenization.

"Fresh" is the repo's pure per-conversation function (dataprep.encode_conversation)
with no cache involved, cross-checked against the verifier's own rendering of the
template text, so a change that breaks rendering cannot pass by agreeing with itself.
"""

import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verifylib import SEEDS, Checks, setup  # noqa: E402

setup()
import dataprep  # noqa: E402  (the agent's modules)
import tokenizer  # noqa: E402
import train  # noqa: E402

calls = {"encode": 0}
_encode = tokenizer.CharTokenizer.encode


def _counting_encode(self, *args, **kwargs):
    calls["encode"] += 1
    return _encode(self, *args, **kwargs)


tokenizer.CharTokenizer.encode = _counting_encode

UNITS = [("km", "m", 1000), ("kg", "g", 1000), ("h", "min", 60), ("l", "ml", 1000)]


def make_rows(rng, n=12):
    rows = []
    for i in range(n):
        a, b, f = rng.choice(UNITS)
        k = rng.randint(2, 9)
        msgs = [{"role": "system", "content": "Answer briefly."}] if i % 3 == 0 else []
        msgs += [{"role": "user", "content": f"{k} {a} in {b}?"},
                 {"role": "assistant", "content": f"{k} {a} is {k * f} {b}."}]
        rows.append({"messages": msgs})
    return rows


def make_templates(rng):
    tag = "".join(rng.choice("abcdefgh") for _ in range(3))
    a = {"bos": "", "system": [f"## sys-{tag}:\n", "\n\n"], "user": [f"## q-{tag}:\n", "\n\n"],
         "assistant": [f"## a-{tag}:\n", "\n\n"]}
    b = {"bos": "<s>", "system": [f"<|{tag}-system|>\n", "\n"], "user": [f"<|{tag}-user|>\n", "\n"],
         "assistant": [f"<|{tag}-bot|>\n", "</s>\n"]}
    return a, b


def rendered_text(messages, template):
    """The verifier's own rendering: the text a template turns one conversation into."""
    return template["bos"] + "".join(template[m["role"]][0] + m["content"] + template[m["role"]][1] for m in messages)


def fresh(rows, tok, template_path, template, max_len):
    """Uncached tokenization of every row; its first example must decode to our own rendering."""
    loaded = dataprep.load_template(template_path)
    out = [tuple(list(x) for x in dataprep.encode_conversation(r["messages"], tok, loaded, max_len)) for r in rows]
    if template is not None:
        assert tok.decode(out[0][0]) == rendered_text(rows[0]["messages"], template), "rendering changed"
    return out


def prepared(cfg):
    """Run the repo's own data path; returns (tokenizer, examples as lists, encode calls made)."""
    calls["encode"] = 0
    result = train.prepare_data(cfg)
    tok, examples = result[0], result[1]
    return tok, [(list(ids), list(labels)) for ids, labels in examples], calls["encode"]


checks = Checks()
for seed in SEEDS:
    with checks.seed(seed):
        rng = random.Random(1000 + seed)
        with tempfile.TemporaryDirectory(prefix="c08-") as tmp:
            tmp = Path(tmp)
            rows = make_rows(rng)
            data = tmp / "chats.jsonl"
            data.write_text("".join(json.dumps(r) + "\n" for r in rows))
            tpl_path = tmp / "chat.json"
            tpl_a, tpl_b = make_templates(rng)
            cfg = train.Config(seed=seed, train_data=str(data), template=str(tpl_path), cache_dir=str(tmp / "cache"))
            tok = tokenizer.CharTokenizer.from_file(cfg.tokenizer)

            def step(name, template, edit=True):
                if edit:  # the author editing chat.json in place
                    tpl_path.write_text(json.dumps(template, indent=2))
                want = fresh(rows, tok, tpl_path, template, cfg.max_len)
                _, got, n_encode = prepared(cfg)
                same = got == want
                first = tok.decode(got[0][0]) if got else ""
                checks.check(f"{name}_matches_uncached_tokenization", same,
                             value={"first_sample": first[:60], "expected": tok.decode(want[0][0])[:60]},
                             bound="every example == fresh encode_conversation with the current template")
                return same, n_encode

            step("template_A", tpl_a)
            step("template_B_after_A_same_cache", tpl_b)
            same, n_encode = step("template_B_rerun", tpl_b, edit=False)
            checks.check("template_B_rerun_served_from_cache", same and n_encode == 0, value={"encode_calls": n_encode},
                         bound="0 tokenizer.encode calls on a same-template rerun")
            step("template_A_again", tpl_a)
            assert any(p.is_file() for p in (tmp / "cache").rglob("*")), "nothing was written to the cache dir"

        shipped = train.Config(seed=seed)
        shipped_tpl = json.loads(Path(shipped.template).read_text())
        want = fresh(dataprep.read_jsonl(shipped.train_data), tok, shipped.template, shipped_tpl, shipped.max_len)
        _, got, _ = prepared(shipped)
        checks.check("shipped_cache_matches_uncached_tokenization", got == want,
                     value={"first_sample": tok.decode(got[0][0])[:60] if got else "",
                            "expected": tok.decode(want[0][0])[:60]},
                     bound="workspace defaults: every example == fresh tokenization with templates/chat.json")
checks.finish()
