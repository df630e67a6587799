"""Connection functions (linear, convolutions, embeddings)."""
from __future__ import annotations
