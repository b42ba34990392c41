from models.hivenet import Backbone, HiveNet
from models.pretrained import load_pretrained

__all__ = ["Backbone", "HiveNet", "load_pretrained"]
