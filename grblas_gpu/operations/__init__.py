"""Operations: each validates, computes its result T, then calls writeback.write_back."""
from .writeback import write_back

__all__ = []
