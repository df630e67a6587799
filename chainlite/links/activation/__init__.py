"""Activation links: activations with learnable parameters (PReLU, Maxout)."""
