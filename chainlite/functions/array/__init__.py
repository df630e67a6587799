"""Array manipulation functions (reshape, broadcast, transpose, indexing)."""
