"""Mathematical functions (elementwise math, reductions, matrix products)."""
