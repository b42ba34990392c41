from models.wheelnet import Backbone, WheelNet
from models.pretrained import load_pretrained

__all__ = ["Backbone", "WheelNet", "load_pretrained"]
