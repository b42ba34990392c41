"""Synthetic instruction data -> tokenized conversations -> padded, labelled batches."""

from sft.data.collate import IGNORE_INDEX, Collator
from sft.data.dataset import SFTDataset, batch_stream
from sft.data.tasks import TASKS, make_conversations

__all__ = ["IGNORE_INDEX", "TASKS", "Collator", "SFTDataset", "batch_stream", "make_conversations"]
