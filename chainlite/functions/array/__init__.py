"""Array manipulation functions (reshape, broadcast, transpose, indexing)."""
from __future__ import annotations
