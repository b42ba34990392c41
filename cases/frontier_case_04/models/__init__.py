from models.songformer import SongFormer

__all__ = ["SongFormer"]
