import pytest

from chatlm.config import load_config
from chatlm.data.batching import RandomBatches, collate
from chatlm.data.cache import TokenCache, fingerprint
from chatlm.data.dataset import prepare_data
from chatlm.data.sources import DataError, check_conversation
from chatlm.templates import IGNORE


def test_collate_shifts_and_pads():
    x, y = collate([([5, 6, 7], [IGNORE, 6, 7]), ([5, 6], [IGNORE, 6])], pad_id=0)
    assert x.tolist() == [[5, 6], [5, 0]]
    assert y.tolist() == [[6, 7], [6, IGNORE]]


def test_random_batches_are_seeded():
    ex = [([1, 2, 3], [1, 2, 3])] * 4 + [([4, 5], [4, 5])] * 4
    a, b = RandomBatches(ex, 4, 0, seed=3), RandomBatches(ex, 4, 0, seed=3)
    assert all(a.next()[0].equal(b.next()[0]) for _ in range(5))


def test_cache_round_trip(tmp_path):
    cache = TokenCache(tmp_path)
    examples = [([1, 2, 3], [IGNORE, 2, 3]), ([4], [4])]
    key = fingerprint("k", 1)
    cache.save(key, examples, {"note": "test"})
    assert cache.has(key) and cache.load(key) == examples
    assert [k for k, _ in cache.entries()] == [key]


def test_uncached_config_tokenizes(tmp_path):
    cfg = load_config("configs/base.toml")
    data = prepare_data(cfg)
    assert not data.from_cache and data.stats()["chats"] == 32


def test_conversation_checks():
    with pytest.raises(DataError):
        check_conversation({"messages": [{"role": "user", "content": "hi"}]}, "row")
    with pytest.raises(DataError):
        check_conversation({"messages": [{"role": "bot", "content": "hi"}]}, "row")
