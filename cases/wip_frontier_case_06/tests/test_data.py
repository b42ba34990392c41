from checks import check_records, rare_queues
from dataset import ACTIVITY, QUEUES, activity_features, load_splits, read_tickets
from config import load_config


def test_exports_are_clean():
    cfg = load_config("configs/router.toml")
    train = read_tickets(cfg.data.train_path)
    val = read_tickets(cfg.data.val_path)
    check_records(train, val, warn=lambda msg: None)
    assert {r["queue"] for r in train} == set(QUEUES)
    assert set(rare_queues(train)) <= set(QUEUES)


def test_splits_encode_with_one_vocab():
    vocab, train, val = load_splits(load_config("configs/router.toml").data)
    assert train.ids.shape[1] == val.ids.shape[1]
    assert int(train.ids.max()) < len(vocab)
    assert (train.lengths >= 1).all()
    assert train.activity.shape == (len(train), len(ACTIVITY)) and val.activity.shape[1] == len(ACTIVITY)


def test_activity_features_are_shares_whatever_the_account_age():
    young = {"web_visits": 12, "app_sessions": 9, "orders": 3, "contacts": 1}
    old = {k: 100 * v for k, v in young.items()}
    assert activity_features(young) == activity_features(old)
    assert abs(sum(activity_features(young)) - 1.0) < 1e-9
    assert activity_features({}) == [0.25] * 4
