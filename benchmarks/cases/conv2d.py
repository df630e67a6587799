"""conv2d: forward and backward of LeNet's second convolution.

A float32 (64, 20, 12, 12) input, (50, 20, 5, 5) filters and a bias, stride 1, no padding:
the output is (64, 50, 8, 8); backward computes the input, filter and bias gradients. The
NumPy version is the same math written by hand: the input's 5x5 patches copied once into a
matrix (batch-last, ``(c * kh * kw, oh * ow * n)``, so that the copy and col2im run over
long contiguous stretches), one matrix product for the output, one with the output gradient
for the filter gradient, one for the patch gradients, and col2im (one strided addition per
filter tap). A ratio near 1.0 means the framework adds nothing to that work. The PyTorch
twin (timed when torch is importable) calls ``torch.nn.functional.conv2d`` and ``backward``.
"""
import numpy as np

import chainlite
from chainlite.functions.connection.convolution_2d import convolution_2d

UNIT = 'ms/iter'
SCALE = 1e3
TARGETS = {'conv2d': None}
N, C, H, W_, OUT_C, K = 64, 20, 12, 12, 50, 5


def _arrays():
    rs = np.random.default_rng(0)
    x = rs.standard_normal((N, C, H, W_)).astype(np.float32)
    W = (rs.standard_normal((OUT_C, C, K, K)) / np.sqrt(C * K * K)).astype(np.float32)
    b = rs.standard_normal(OUT_C).astype(np.float32)
    gy = rs.standard_normal((N, OUT_C, H - K + 1, W_ - K + 1)).astype(np.float32)
    return x, W, b, gy


def chainlite_case():
    x_data, W_data, b_data, gy = _arrays()
    x = chainlite.Variable(x_data)
    W, b = chainlite.Parameter(W_data), chainlite.Parameter(b_data)

    def conv():
        for v in (x, W, b):
            v.cleargrad()
        y = convolution_2d(x, W, b)
        y.grad = gy
        y.backward()
        return y.array, x.grad, W.grad, b.grad

    return {'conv2d': conv}


def numpy_case():
    x, W, b, gy = _arrays()
    oh, ow = H - K + 1, W_ - K + 1
    W_mat = W.reshape(OUT_C, -1)

    def conv():
        # Forward: patches (c, kh, kw, oh, ow, n) of the batch-last input, one product.
        xt = np.ascontiguousarray(x.transpose(1, 2, 3, 0))
        windows = np.lib.stride_tricks.sliding_window_view(xt, (K, K), axis=(1, 2))
        col = windows.transpose(0, 4, 5, 1, 2, 3).reshape(C * K * K, -1)
        y = W_mat @ col
        y += b[:, None]
        y = y.reshape(OUT_C, oh, ow, N).transpose(3, 0, 1, 2)
        # Backward.
        gy_mat = gy.transpose(1, 2, 3, 0).reshape(OUT_C, -1)
        gW = (gy_mat @ col.T).reshape(W.shape)
        gb = gy.sum(axis=(0, 2, 3))
        gcol = (W_mat.T @ gy_mat).reshape(C, K, K, oh, ow, N)
        gxt = np.zeros((C, H, W_, N), np.float32)
        for i in range(K):
            for j in range(K):
                gxt[:, i:i + oh, j:j + ow] += gcol[:, i, j]
        gx = gxt.transpose(3, 0, 1, 2)
        return y, gx, gW, gb

    return {'conv2d': conv}


def torch_case():
    import torch
    x_data, W_data, b_data, gy_data = _arrays()
    x = torch.tensor(x_data, requires_grad=True)
    W = torch.tensor(W_data, requires_grad=True)
    b = torch.tensor(b_data, requires_grad=True)
    gy = torch.tensor(gy_data)

    def conv():
        for v in (x, W, b):
            v.grad = None
        y = torch.nn.functional.conv2d(x, W, b)
        y.backward(gy)
        return tuple(a.detach().numpy() for a in (y, x.grad, W.grad, b.grad))

    return {'conv2d': conv}
