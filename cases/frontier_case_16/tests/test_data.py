import torch

from data import collate
from streams import merge_streams
from vocab import Vocab


def test_merge_orders_events_by_time():
    streams = {"door": {"s1": [(5, "door:front:open"), (9, "door:front:close")]},
               "motion": {"s1": [(2, "motion:hall:on"), (7, "motion:hall:on")]}}
    assert merge_streams(streams, "s1") == ["motion:hall:on", "door:front:open", "motion:hall:on", "door:front:close"]
    assert merge_streams(streams, "s2") == []


def test_collate_pads_right():
    tokens, lengths = collate([torch.tensor([3, 4, 5]), torch.tensor([6])])
    assert tokens.tolist() == [[3, 4, 5], [6, 0, 0]] and lengths.tolist() == [3, 1]
    _, _, times = collate([torch.tensor([3, 4]), torch.tensor([6])], [torch.tensor([0.0, 2.0]), torch.tensor([1.0])])
    assert times.tolist() == [[0.0, 2.0], [1.0, 0.0]]


def test_vocab_roundtrip():
    v = Vocab.build([["a", "b"], ["b", "c"]])
    assert v.decode(v.encode(["c", "a", "zz"])) == ["c", "a", "<unk>"]
