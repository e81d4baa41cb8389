"""Counts said in words (common.words): singular for one, plural else."""

from common.words import count


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert count(1, "finding") == "1 finding"
    assert [count(n, "round") for n in (0, 2, 1000)] == ["0 rounds", "2 rounds", "1,000 rounds"]
    assert count(1, "batch", "batches") == "1 batch" and count(3, "batch", "batches") == "3 batches"
