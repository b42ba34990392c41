"""chatlm: small character-level chat models, fine-tuned on assistant replies."""
