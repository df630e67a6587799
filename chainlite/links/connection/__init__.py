"""Connection links: layers that hold weights and connect their inputs to their outputs.

Linear and convolutional layers, embeddings, bilinear, scale/bias and highway layers; each is a
thin wrapper around its function in :mod:`chainlite.functions`.
"""
