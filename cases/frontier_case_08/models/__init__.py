from models.climnet import Backbone, ClimNet
from models.pretrained import load_pretrained

__all__ = ["Backbone", "ClimNet", "load_pretrained"]
