import json

from chatlm.templates import IGNORE, ChatTemplate
from chatlm.tokenizer import CharTokenizer

TOK = CharTokenizer.from_file("tokenizer.json")
CHAT = [{"role": "user", "content": "2 h in min"}, {"role": "assistant", "content": "2 h is 120 min."}]


def write(tmp_path, template):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template))
    return ChatTemplate.load(path)


def test_only_the_reply_and_its_closer_are_trained(tmp_path):
    t = write(tmp_path, {"bos": "<s>", "system": ["<|system|>\n", "\n"], "user": ["<|user|>\n", "\n"],
                         "assistant": ["<|assistant|>\n", "</s>\n"]})
    ids, labels = t.encode(CHAT, TOK, 128)
    assert ids[0] == TOK.bos_id
    trained = TOK.decode([i for i, l in zip(ids, labels) if l != IGNORE])
    assert trained == "2 h is 120 min.</s>\n"


def test_fingerprint_follows_contents(tmp_path):
    a = write(tmp_path, {"bos": "", "system": ["S:", "\n"], "user": ["U:", "\n"], "assistant": ["A:", "\n"]})
    b = write(tmp_path, {"bos": "", "system": ["S:", "\n"], "user": ["U:", "\n"], "assistant": ["B:", "\n"]})
    assert a.fingerprint() != b.fingerprint()
    assert a.fingerprint() == ChatTemplate(a.bos, dict(a.markers)).fingerprint()


def test_generation_prompt_ends_with_assistant_opener(tmp_path):
    t = write(tmp_path, {"bos": "", "system": ["S:", "\n"], "user": ["U:", "\n"], "assistant": ["A:", "\n"]})
    prompt = t.generation_prompt(CHAT[:1], TOK)
    assert TOK.decode(prompt).endswith("U:2 h in min\nA:")
