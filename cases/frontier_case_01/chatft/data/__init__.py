"""Synthetic instruction data -> tokenized conversations -> padded, labelled batches."""

from chatft.data.collate import IGNORE_INDEX, Collator
from chatft.data.completion import ReplyCollator, make_collator
from chatft.data.dataset import SFTDataset, batch_stream
from chatft.data.tasks import TASKS, make_conversations

__all__ = ["IGNORE_INDEX", "TASKS", "Collator", "ReplyCollator", "SFTDataset", "batch_stream", "make_collator",
           "make_conversations"]
