from tickets import parse_ticket, read_export


def test_email_and_web_rows():
    email = parse_ticket({"id": "E1", "channel": "email", "queue": "billing",
                          "subject": "invoice wrong ", "body": "my invoice shows vat twice"})
    assert email["text"] == "my invoice shows vat twice" and email["subject"] == "invoice wrong"
    web = parse_ticket({"id": "W1", "channel": "web", "queue": "shipping", "message": " parcel late "})
    assert web["text"].strip() == "parcel late" and web["queue"] == "shipping"


def test_chat_row_keeps_the_customer_lines():
    turns = [{"speaker": "bot", "text": "hello i am sam"}, {"speaker": "customer", "text": "hi"},
             {"speaker": "bot", "text": "what can i do for you"}, {"speaker": "customer", "text": "parcel never came"},
             {"speaker": "bot", "text": "let me pass you to an agent"}]
    chat = parse_ticket({"id": "C1", "channel": "chat", "queue": "shipping", "turns": turns})
    assert chat["text"] == "hi\nparcel never came"


def test_unknown_channel_is_an_error():
    try:
        parse_ticket({"id": "X1", "channel": "fax", "queue": "billing"})
    except ValueError:
        return
    raise AssertionError("expected a ValueError")


def test_exports_parse():
    cols = read_export("data/tickets_val.jsonl")
    assert len(cols["id"]) and all(t for t in cols["text"]) and len(set(map(len, cols.values()))) == 1
