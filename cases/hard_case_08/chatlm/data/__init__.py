"""Data: conversation sources, the tokenized-data cache, dataset preparation and batching."""
