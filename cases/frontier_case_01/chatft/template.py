"""Chat template: render a conversation to token ids plus a per-token reply flag.

    <|user|>{text}<|end|><|assistant|>{reply}<|end|> ...

reply_mask is 1 on the assistant's reply tokens (the reply text and its closing <|end|>)
and 0 on everything the model is only conditioned on (user turns and the role headers).
"""

ROLE_TOKENS = {"user": "<|user|>", "assistant": "<|assistant|>"}


def tokenize_conversation(messages, tok, add_generation_prompt=False):
    input_ids, reply_mask = [], []
    for m in messages:
        header = tok.encode(ROLE_TOKENS[m["role"]])
        body = tok.encode(m["content"]) + [tok.end_id]
        input_ids += header + body
        reply_mask += [0] * len(header) + [int(m["role"] == "assistant")] * len(body)
    if add_generation_prompt:
        input_ids.append(tok.assistant_id)
        reply_mask.append(0)
    return {"input_ids": input_ids, "reply_mask": reply_mask}


def render(messages):
    """The conversation as text, for logs and the data preview."""
    return "".join(f"{ROLE_TOKENS[m['role']]}{m['content']}<|end|>" for m in messages)


def reply_spans(reply_mask):
    """(start, end) index pairs of the maximal runs of 1s in a reply mask."""
    spans, start = [], None
    for i, flag in enumerate(list(reply_mask) + [0]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            spans.append((start, i))
            start = None
    return spans
