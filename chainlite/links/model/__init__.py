"""Model links: ready-made wrappers around a user's network, such as ``Classifier``."""
