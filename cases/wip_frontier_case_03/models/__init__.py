from models.herdnet import HerdNet

__all__ = ["HerdNet"]
