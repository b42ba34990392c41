"""The bottom layer, the vocabulary every part may import: records (``harness.models`` gathers them), errors,
hashing, the criteria registry, cases and their keys, transcripts and run folders, prompts, skills and the
model-provider client shared by agent and judge. It imports nothing of the project above it.
"""
