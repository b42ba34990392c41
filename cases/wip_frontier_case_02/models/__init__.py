from models.collarnet import CollarNet, build_collarnet

__all__ = ["CollarNet", "build_collarnet"]
