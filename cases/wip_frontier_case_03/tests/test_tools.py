from data import load_exports
from tools.compare_runs import compare
from tools.summarize_exports import farm_gaps, state_table


def test_state_table_counts_every_window():
    table = load_exports("data/exports")
    rows = state_table(table)
    assert sum(sum(c.values()) for c in rows.values()) == len(table)


def test_gaps_are_few():
    gaps = farm_gaps(load_exports("data/exports"))
    assert set(gaps) == {"brookside", "hillcrest", "low-meadow", "oakfield"}
    assert all(g <= 5 for g in gaps.values())


def test_compare_runs():
    row = {"epoch": 1, "loss": 0.5, "acc": 0.8, "bal_acc": 0.7, "recall": [0.9, 0.5, 0.7, 0.7]}
    text = compare([row], [row], ["normal", "heat", "lameness", "mastitis"])
    assert "final recall" in text


def test_episodes_cover_every_non_normal_window():
    from tools.episodes import episodes
    table = load_exports("data/exports")
    found = episodes(table)
    assert sum(n for *_, n in found) == int((table.labels != 0).sum())
    assert {e[2] for e in found} == {"heat", "lameness", "mastitis"}
