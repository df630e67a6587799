"""Recurrent links: LSTM and GRU cells (stateful and stateless), and the stacked NStep* RNNs.

Each is a thin wrapper around its function in :mod:`chainlite.functions`
(:func:`~chainlite.functions.lstm`, :func:`~chainlite.functions.n_step_lstm`, ...) holding the
parameters in Chainer's layout, so saved models load with the same keys.
"""
