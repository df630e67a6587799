"""Loss links: loss functions that own their parameters."""
