"""Differentiable functions on Variables and arrays (``chainlite.functions as F``).

Each function lives in its own module under a category folder, as in Chainer; this package
re-exports the public names, importing each module on first use (see :mod:`chainlite._lazy`).
(``max``, ``min`` and ``sum`` shadow the builtins here, as in Chainer's
``chainer.functions``.)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chainlite import _lazy

_EXPORTS = {
    'clipped_relu': '.activation.clipped_relu',
    'crelu': '.activation.crelu',
    'elu': '.activation.elu',
    'gelu': '.activation.gelu',
    'hard_sigmoid': '.activation.hard_sigmoid',
    'leaky_relu': '.activation.leaky_relu',
    'log_softmax': '.activation.log_softmax',
    'maxout': '.activation.maxout',
    'prelu': '.activation.prelu',
    'relu': '.activation.relu',
    'relu6': '.activation.relu6',
    'rrelu': '.activation.rrelu',
    'selu': '.activation.selu',
    'sigmoid': '.activation.sigmoid',
    'softmax': '.activation.softmax',
    'softplus': '.activation.softplus',
    'swish': '.activation.swish',
    'tanh': '.activation.tanh',
    'scaled_dot_product_attention': '.attention.scaled_dot_product_attention',
    'as_strided': '.array.as_strided',
    'broadcast': '.array.broadcast',
    'broadcast_to': '.array.broadcast',
    'cast': '.array.cast',
    'concat': '.array.concat',
    'copy': '.array.copy',
    'depth2space': '.array.depth2space',
    'diagonal': '.array.diagonal',
    'dstack': '.array.dstack',
    'expand_dims': '.array.expand_dims',
    'flatten': '.array.flatten',
    'flip': '.array.flip',
    'fliplr': '.array.fliplr',
    'flipud': '.array.flipud',
    'forget': '.array.forget',
    'get_item': '.array.get_item',
    'hstack': '.array.hstack',
    'im2col': '.array.im2col',
    'moveaxis': '.array.moveaxis',
    'pad': '.array.pad',
    'pad_sequence': '.array.pad_sequence',
    'permutate': '.array.permutate',
    'repeat': '.array.repeat',
    'reshape': '.array.reshape',
    'resize_images': '.array.resize_images',
    'rollaxis': '.array.rollaxis',
    'scatter_add': '.array.scatter_add',
    'select_item': '.array.select_item',
    'separate': '.array.separate',
    'space2depth': '.array.space2depth',
    'spatial_transformer_grid': '.array.spatial_transformer_grid',
    'spatial_transformer_sampler': '.array.spatial_transformer_sampler',
    'split_axis': '.array.split_axis',
    'squeeze': '.array.squeeze',
    'stack': '.array.stack',
    'sum_to': '.array.sum_to',
    'swapaxes': '.array.swapaxes',
    'tile': '.array.tile',
    'transpose': '.array.transpose',
    'transpose_sequence': '.array.transpose_sequence',
    'vstack': '.array.vstack',
    'where': '.array.where',
    'bilinear': '.connection.bilinear',
    'convolution_2d': '.connection.convolution_2d',
    'convolution_1d': '.connection.convolution_nd',
    'convolution_3d': '.connection.convolution_nd',
    'convolution_nd': '.connection.convolution_nd',
    'deconvolution_2d': '.connection.deconvolution_2d',
    'deconvolution_1d': '.connection.deconvolution_nd',
    'deconvolution_3d': '.connection.deconvolution_nd',
    'deconvolution_nd': '.connection.deconvolution_nd',
    'deformable_convolution_2d_sampler': '.connection.deformable_convolution_2d_sampler',
    'depthwise_convolution_2d': '.connection.depthwise_convolution_2d',
    'dilated_convolution_2d': '.connection.dilated_convolution_2d',
    'embed_id': '.connection.embed_id',
    'linear': '.connection.linear',
    'local_convolution_2d': '.connection.local_convolution_2d',
    'shift': '.connection.shift',
    'accuracy': '.evaluation.accuracy',
    'binary_accuracy': '.evaluation.binary_accuracy',
    'classification_summary': '.evaluation.classification_summary',
    'f1_score': '.evaluation.classification_summary',
    'fbeta_score': '.evaluation.classification_summary',
    'precision': '.evaluation.classification_summary',
    'recall': '.evaluation.classification_summary',
    'r2_score': '.evaluation.r2_score',
    'absolute_error': '.loss.absolute_error',
    'bernoulli_nll': '.loss.bernoulli_nll',
    'black_out': '.loss.black_out',
    'contrastive': '.loss.contrastive',
    'argmax_crf1d': '.loss.crf1d',
    'crf1d': '.loss.crf1d',
    'cross_covariance': '.loss.cross_covariance',
    'connectionist_temporal_classification': '.loss.ctc',
    'decov': '.loss.decov',
    'discriminative_margin_based_clustering_loss': '.loss.discriminative_loss',
    'gaussian_kl_divergence': '.loss.gaussian_kl_divergence',
    'gaussian_nll': '.loss.gaussian_nll',
    'hinge': '.loss.hinge',
    'huber_loss': '.loss.huber_loss',
    'mean_absolute_error': '.loss.mean_absolute_error',
    'mean_squared_error': '.loss.mean_squared_error',
    'negative_sampling': '.loss.negative_sampling',
    'sigmoid_cross_entropy': '.loss.sigmoid_cross_entropy',
    'softmax_cross_entropy': '.loss.softmax_cross_entropy',
    'squared_error': '.loss.squared_error',
    'triplet': '.loss.triplet',
    'absolute': '.math.absolute',
    'add': '.math.add',
    'arccos': '.math.arccos',
    'arcsin': '.math.arcsin',
    'arctan': '.math.arctan',
    'arctan2': '.math.arctan2',
    'arctanh': '.math.arctanh',
    'argmax': '.math.argmax',
    'argmin': '.math.argmin',
    'average': '.math.average',
    'batch_det': '.math.batch_det',
    'batch_inv': '.math.batch_inv',
    'batch_l2_norm_squared': '.math.batch_l2_norm_squared',
    'batch_matmul': '.math.batch_matmul',
    'bias': '.math.bias',
    'ceil': '.math.ceil',
    'cholesky': '.math.cholesky',
    'clip': '.math.clip',
    'cos': '.math.cos',
    'cosh': '.math.cosh',
    'cumprod': '.math.cumprod',
    'cumsum': '.math.cumsum',
    'det': '.math.det',
    'digamma': '.math.digamma',
    'einsum': '.math.einsum',
    'erf': '.math.erf',
    'erfc': '.math.erfc',
    'erfcinv': '.math.erfcinv',
    'erfcx': '.math.erfcx',
    'erfinv': '.math.erfinv',
    'exp': '.math.exp',
    'expm1': '.math.expm1',
    'fft': '.math.fft',
    'fix': '.math.fix',
    'floor': '.math.floor',
    'fmod': '.math.fmod',
    'identity': '.math.identity',
    'ifft': '.math.ifft',
    'inv': '.math.inv',
    'lgamma': '.math.lgamma',
    'linear_interpolate': '.math.linear_interpolate',
    'log': '.math.log',
    'log10': '.math.log10',
    'log1p': '.math.log1p',
    'log2': '.math.log2',
    'log_ndtr': '.math.log_ndtr',
    'logsumexp': '.math.logsumexp',
    'matmul': '.math.matmul',
    'max': '.math.max',
    'maximum': '.math.maximum',
    'mean': '.math.mean',
    'min': '.math.min',
    'minimum': '.math.minimum',
    'ndtr': '.math.ndtr',
    'ndtri': '.math.ndtri',
    'polygamma': '.math.polygamma',
    'prod': '.math.prod',
    'rsqrt': '.math.rsqrt',
    'scale': '.math.scale',
    'sign': '.math.sign',
    'sin': '.math.sin',
    'sinh': '.math.sinh',
    'sparse_matmul': '.math.sparse_matmul',
    'sqrt': '.math.sqrt',
    'square': '.math.square',
    'squared_difference': '.math.squared_difference',
    'sum': '.math.sum',
    'tan': '.math.tan',
    'tensordot': '.math.tensordot',
    'zeta': '.math.zeta',
    'dropout': '.noise.dropout',
    'gaussian': '.noise.gaussian',
    'gumbel_softmax': '.noise.gumbel_softmax',
    'simplified_dropconnect': '.noise.simplified_dropconnect',
    'zoneout': '.noise.zoneout',
    'batch_normalization': '.normalization.batch_normalization',
    'batch_renormalization': '.normalization.batch_renormalization',
    'fixed_batch_renormalization': '.normalization.batch_renormalization',
    'decorrelated_batch_normalization': '.normalization.decorrelated_batch_normalization',
    'fixed_decorrelated_batch_normalization': '.normalization.decorrelated_batch_normalization',
    'fixed_batch_normalization': '.normalization.fixed_batch_normalization',
    'group_normalization': '.normalization.group_normalization',
    'layer_normalization': '.normalization.layer_normalization',
    'local_response_normalization': '.normalization.local_response_normalization',
    'normalize': '.normalization.normalize',
    'average_pooling_2d': '.pooling.average_pooling_2d',
    'average_pooling_1d': '.pooling.average_pooling_nd',
    'average_pooling_3d': '.pooling.average_pooling_nd',
    'average_pooling_nd': '.pooling.average_pooling_nd',
    'max_pooling_2d': '.pooling.max_pooling_2d',
    'max_pooling_1d': '.pooling.max_pooling_nd',
    'max_pooling_3d': '.pooling.max_pooling_nd',
    'max_pooling_nd': '.pooling.max_pooling_nd',
    'roi_average_align_2d': '.pooling.roi_average_align_2d',
    'roi_average_pooling_2d': '.pooling.roi_average_pooling_2d',
    'roi_max_align_2d': '.pooling.roi_max_align_2d',
    'roi_max_pooling_2d': '.pooling.roi_max_pooling_2d',
    'roi_pooling_2d': '.pooling.roi_pooling_2d',
    'spatial_pyramid_pooling_2d': '.pooling.spatial_pyramid_pooling_2d',
    'unpooling_2d': '.pooling.unpooling_2d',
    'unpooling_1d': '.pooling.unpooling_nd',
    'unpooling_3d': '.pooling.unpooling_nd',
    'unpooling_nd': '.pooling.unpooling_nd',
    'upsampling_2d': '.pooling.upsampling_2d',
    'lstm': '.rnn.lstm',
    'n_step_bigru': '.rnn.n_step_gru',
    'n_step_gru': '.rnn.n_step_gru',
    'n_step_bilstm': '.rnn.n_step_lstm',
    'n_step_lstm': '.rnn.n_step_lstm',
    'n_step_birnn': '.rnn.n_step_rnn',
    'n_step_rnn': '.rnn.n_step_rnn',
    'slstm': '.rnn.slstm',
    'tree_lstm': '.rnn.tree_lstm',
}
__getattr__, __dir__, __all__ = _lazy.attach(__name__, _EXPORTS)

if TYPE_CHECKING:  # generated by python -m chainlite._lazy; keep in sync
    from chainlite.functions.activation.clipped_relu import clipped_relu as clipped_relu
    from chainlite.functions.activation.crelu import crelu as crelu
    from chainlite.functions.activation.elu import elu as elu
    from chainlite.functions.activation.gelu import gelu as gelu
    from chainlite.functions.activation.hard_sigmoid import hard_sigmoid as hard_sigmoid
    from chainlite.functions.activation.leaky_relu import leaky_relu as leaky_relu
    from chainlite.functions.activation.log_softmax import log_softmax as log_softmax
    from chainlite.functions.activation.maxout import maxout as maxout
    from chainlite.functions.activation.prelu import prelu as prelu
    from chainlite.functions.activation.relu import relu as relu
    from chainlite.functions.activation.relu6 import relu6 as relu6
    from chainlite.functions.activation.rrelu import rrelu as rrelu
    from chainlite.functions.activation.selu import selu as selu
    from chainlite.functions.activation.sigmoid import sigmoid as sigmoid
    from chainlite.functions.activation.softmax import softmax as softmax
    from chainlite.functions.activation.softplus import softplus as softplus
    from chainlite.functions.activation.swish import swish as swish
    from chainlite.functions.activation.tanh import tanh as tanh
    from chainlite.functions.array.as_strided import as_strided as as_strided
    from chainlite.functions.array.broadcast import broadcast as broadcast
    from chainlite.functions.array.broadcast import broadcast_to as broadcast_to
    from chainlite.functions.array.cast import cast as cast
    from chainlite.functions.array.concat import concat as concat
    from chainlite.functions.array.copy import copy as copy
    from chainlite.functions.array.depth2space import depth2space as depth2space
    from chainlite.functions.array.diagonal import diagonal as diagonal
    from chainlite.functions.array.dstack import dstack as dstack
    from chainlite.functions.array.expand_dims import expand_dims as expand_dims
    from chainlite.functions.array.flatten import flatten as flatten
    from chainlite.functions.array.flip import flip as flip
    from chainlite.functions.array.fliplr import fliplr as fliplr
    from chainlite.functions.array.flipud import flipud as flipud
    from chainlite.functions.array.forget import forget as forget
    from chainlite.functions.array.get_item import get_item as get_item
    from chainlite.functions.array.hstack import hstack as hstack
    from chainlite.functions.array.im2col import im2col as im2col
    from chainlite.functions.array.moveaxis import moveaxis as moveaxis
    from chainlite.functions.array.pad import pad as pad
    from chainlite.functions.array.pad_sequence import pad_sequence as pad_sequence
    from chainlite.functions.array.permutate import permutate as permutate
    from chainlite.functions.array.repeat import repeat as repeat
    from chainlite.functions.array.reshape import reshape as reshape
    from chainlite.functions.array.resize_images import resize_images as resize_images
    from chainlite.functions.array.rollaxis import rollaxis as rollaxis
    from chainlite.functions.array.scatter_add import scatter_add as scatter_add
    from chainlite.functions.array.select_item import select_item as select_item
    from chainlite.functions.array.separate import separate as separate
    from chainlite.functions.array.space2depth import space2depth as space2depth
    from chainlite.functions.array.spatial_transformer_grid import (
        spatial_transformer_grid as spatial_transformer_grid)
    from chainlite.functions.array.spatial_transformer_sampler import (
        spatial_transformer_sampler as spatial_transformer_sampler)
    from chainlite.functions.array.split_axis import split_axis as split_axis
    from chainlite.functions.array.squeeze import squeeze as squeeze
    from chainlite.functions.array.stack import stack as stack
    from chainlite.functions.array.sum_to import sum_to as sum_to
    from chainlite.functions.array.swapaxes import swapaxes as swapaxes
    from chainlite.functions.array.tile import tile as tile
    from chainlite.functions.array.transpose import transpose as transpose
    from chainlite.functions.array.transpose_sequence import (
        transpose_sequence as transpose_sequence)
    from chainlite.functions.array.vstack import vstack as vstack
    from chainlite.functions.array.where import where as where
    from chainlite.functions.attention.scaled_dot_product_attention import (
        scaled_dot_product_attention as scaled_dot_product_attention)
    from chainlite.functions.connection.bilinear import bilinear as bilinear
    from chainlite.functions.connection.convolution_2d import convolution_2d as convolution_2d
    from chainlite.functions.connection.convolution_nd import convolution_1d as convolution_1d
    from chainlite.functions.connection.convolution_nd import convolution_3d as convolution_3d
    from chainlite.functions.connection.convolution_nd import convolution_nd as convolution_nd
    from chainlite.functions.connection.deconvolution_2d import deconvolution_2d as deconvolution_2d
    from chainlite.functions.connection.deconvolution_nd import deconvolution_1d as deconvolution_1d
    from chainlite.functions.connection.deconvolution_nd import deconvolution_3d as deconvolution_3d
    from chainlite.functions.connection.deconvolution_nd import deconvolution_nd as deconvolution_nd
    from chainlite.functions.connection.deformable_convolution_2d_sampler import (
        deformable_convolution_2d_sampler as deformable_convolution_2d_sampler)
    from chainlite.functions.connection.depthwise_convolution_2d import (
        depthwise_convolution_2d as depthwise_convolution_2d)
    from chainlite.functions.connection.dilated_convolution_2d import (
        dilated_convolution_2d as dilated_convolution_2d)
    from chainlite.functions.connection.embed_id import embed_id as embed_id
    from chainlite.functions.connection.linear import linear as linear
    from chainlite.functions.connection.local_convolution_2d import (
        local_convolution_2d as local_convolution_2d)
    from chainlite.functions.connection.shift import shift as shift
    from chainlite.functions.evaluation.accuracy import accuracy as accuracy
    from chainlite.functions.evaluation.binary_accuracy import binary_accuracy as binary_accuracy
    from chainlite.functions.evaluation.classification_summary import (
        classification_summary as classification_summary)
    from chainlite.functions.evaluation.classification_summary import f1_score as f1_score
    from chainlite.functions.evaluation.classification_summary import fbeta_score as fbeta_score
    from chainlite.functions.evaluation.classification_summary import precision as precision
    from chainlite.functions.evaluation.classification_summary import recall as recall
    from chainlite.functions.evaluation.r2_score import r2_score as r2_score
    from chainlite.functions.loss.absolute_error import absolute_error as absolute_error
    from chainlite.functions.loss.bernoulli_nll import bernoulli_nll as bernoulli_nll
    from chainlite.functions.loss.black_out import black_out as black_out
    from chainlite.functions.loss.contrastive import contrastive as contrastive
    from chainlite.functions.loss.crf1d import argmax_crf1d as argmax_crf1d
    from chainlite.functions.loss.crf1d import crf1d as crf1d
    from chainlite.functions.loss.cross_covariance import cross_covariance as cross_covariance
    from chainlite.functions.loss.ctc import (
        connectionist_temporal_classification as connectionist_temporal_classification)
    from chainlite.functions.loss.decov import decov as decov
    from chainlite.functions.loss.discriminative_loss import (
        discriminative_margin_based_clustering_loss as discriminative_margin_based_clustering_loss)
    from chainlite.functions.loss.gaussian_kl_divergence import (
        gaussian_kl_divergence as gaussian_kl_divergence)
    from chainlite.functions.loss.gaussian_nll import gaussian_nll as gaussian_nll
    from chainlite.functions.loss.hinge import hinge as hinge
    from chainlite.functions.loss.huber_loss import huber_loss as huber_loss
    from chainlite.functions.loss.mean_absolute_error import (
        mean_absolute_error as mean_absolute_error)
    from chainlite.functions.loss.mean_squared_error import mean_squared_error as mean_squared_error
    from chainlite.functions.loss.negative_sampling import negative_sampling as negative_sampling
    from chainlite.functions.loss.sigmoid_cross_entropy import (
        sigmoid_cross_entropy as sigmoid_cross_entropy)
    from chainlite.functions.loss.softmax_cross_entropy import (
        softmax_cross_entropy as softmax_cross_entropy)
    from chainlite.functions.loss.squared_error import squared_error as squared_error
    from chainlite.functions.loss.triplet import triplet as triplet
    from chainlite.functions.math.absolute import absolute as absolute
    from chainlite.functions.math.add import add as add
    from chainlite.functions.math.arccos import arccos as arccos
    from chainlite.functions.math.arcsin import arcsin as arcsin
    from chainlite.functions.math.arctan import arctan as arctan
    from chainlite.functions.math.arctan2 import arctan2 as arctan2
    from chainlite.functions.math.arctanh import arctanh as arctanh
    from chainlite.functions.math.argmax import argmax as argmax
    from chainlite.functions.math.argmin import argmin as argmin
    from chainlite.functions.math.average import average as average
    from chainlite.functions.math.batch_det import batch_det as batch_det
    from chainlite.functions.math.batch_inv import batch_inv as batch_inv
    from chainlite.functions.math.batch_l2_norm_squared import (
        batch_l2_norm_squared as batch_l2_norm_squared)
    from chainlite.functions.math.batch_matmul import batch_matmul as batch_matmul
    from chainlite.functions.math.bias import bias as bias
    from chainlite.functions.math.ceil import ceil as ceil
    from chainlite.functions.math.cholesky import cholesky as cholesky
    from chainlite.functions.math.clip import clip as clip
    from chainlite.functions.math.cos import cos as cos
    from chainlite.functions.math.cosh import cosh as cosh
    from chainlite.functions.math.cumprod import cumprod as cumprod
    from chainlite.functions.math.cumsum import cumsum as cumsum
    from chainlite.functions.math.det import det as det
    from chainlite.functions.math.digamma import digamma as digamma
    from chainlite.functions.math.einsum import einsum as einsum
    from chainlite.functions.math.erf import erf as erf
    from chainlite.functions.math.erfc import erfc as erfc
    from chainlite.functions.math.erfcinv import erfcinv as erfcinv
    from chainlite.functions.math.erfcx import erfcx as erfcx
    from chainlite.functions.math.erfinv import erfinv as erfinv
    from chainlite.functions.math.exp import exp as exp
    from chainlite.functions.math.expm1 import expm1 as expm1
    from chainlite.functions.math.fft import fft as fft
    from chainlite.functions.math.fix import fix as fix
    from chainlite.functions.math.floor import floor as floor
    from chainlite.functions.math.fmod import fmod as fmod
    from chainlite.functions.math.identity import identity as identity
    from chainlite.functions.math.ifft import ifft as ifft
    from chainlite.functions.math.inv import inv as inv
    from chainlite.functions.math.lgamma import lgamma as lgamma
    from chainlite.functions.math.linear_interpolate import linear_interpolate as linear_interpolate
    from chainlite.functions.math.log import log as log
    from chainlite.functions.math.log10 import log10 as log10
    from chainlite.functions.math.log1p import log1p as log1p
    from chainlite.functions.math.log2 import log2 as log2
    from chainlite.functions.math.log_ndtr import log_ndtr as log_ndtr
    from chainlite.functions.math.logsumexp import logsumexp as logsumexp
    from chainlite.functions.math.matmul import matmul as matmul
    from chainlite.functions.math.max import max as max
    from chainlite.functions.math.maximum import maximum as maximum
    from chainlite.functions.math.mean import mean as mean
    from chainlite.functions.math.min import min as min
    from chainlite.functions.math.minimum import minimum as minimum
    from chainlite.functions.math.ndtr import ndtr as ndtr
    from chainlite.functions.math.ndtri import ndtri as ndtri
    from chainlite.functions.math.polygamma import polygamma as polygamma
    from chainlite.functions.math.prod import prod as prod
    from chainlite.functions.math.rsqrt import rsqrt as rsqrt
    from chainlite.functions.math.scale import scale as scale
    from chainlite.functions.math.sign import sign as sign
    from chainlite.functions.math.sin import sin as sin
    from chainlite.functions.math.sinh import sinh as sinh
    from chainlite.functions.math.sparse_matmul import sparse_matmul as sparse_matmul
    from chainlite.functions.math.sqrt import sqrt as sqrt
    from chainlite.functions.math.square import square as square
    from chainlite.functions.math.squared_difference import squared_difference as squared_difference
    from chainlite.functions.math.sum import sum as sum
    from chainlite.functions.math.tan import tan as tan
    from chainlite.functions.math.tensordot import tensordot as tensordot
    from chainlite.functions.math.zeta import zeta as zeta
    from chainlite.functions.noise.dropout import dropout as dropout
    from chainlite.functions.noise.gaussian import gaussian as gaussian
    from chainlite.functions.noise.gumbel_softmax import gumbel_softmax as gumbel_softmax
    from chainlite.functions.noise.simplified_dropconnect import (
        simplified_dropconnect as simplified_dropconnect)
    from chainlite.functions.noise.zoneout import zoneout as zoneout
    from chainlite.functions.normalization.batch_normalization import (
        batch_normalization as batch_normalization)
    from chainlite.functions.normalization.batch_renormalization import (
        batch_renormalization as batch_renormalization)
    from chainlite.functions.normalization.batch_renormalization import (
        fixed_batch_renormalization as fixed_batch_renormalization)
    from chainlite.functions.normalization.decorrelated_batch_normalization import (
        decorrelated_batch_normalization as decorrelated_batch_normalization)
    from chainlite.functions.normalization.decorrelated_batch_normalization import (
        fixed_decorrelated_batch_normalization as fixed_decorrelated_batch_normalization)
    from chainlite.functions.normalization.fixed_batch_normalization import (
        fixed_batch_normalization as fixed_batch_normalization)
    from chainlite.functions.normalization.group_normalization import (
        group_normalization as group_normalization)
    from chainlite.functions.normalization.layer_normalization import (
        layer_normalization as layer_normalization)
    from chainlite.functions.normalization.local_response_normalization import (
        local_response_normalization as local_response_normalization)
    from chainlite.functions.normalization.normalize import normalize as normalize
    from chainlite.functions.pooling.average_pooling_2d import (
        average_pooling_2d as average_pooling_2d)
    from chainlite.functions.pooling.average_pooling_nd import (
        average_pooling_1d as average_pooling_1d)
    from chainlite.functions.pooling.average_pooling_nd import (
        average_pooling_3d as average_pooling_3d)
    from chainlite.functions.pooling.average_pooling_nd import (
        average_pooling_nd as average_pooling_nd)
    from chainlite.functions.pooling.max_pooling_2d import max_pooling_2d as max_pooling_2d
    from chainlite.functions.pooling.max_pooling_nd import max_pooling_1d as max_pooling_1d
    from chainlite.functions.pooling.max_pooling_nd import max_pooling_3d as max_pooling_3d
    from chainlite.functions.pooling.max_pooling_nd import max_pooling_nd as max_pooling_nd
    from chainlite.functions.pooling.roi_average_align_2d import (
        roi_average_align_2d as roi_average_align_2d)
    from chainlite.functions.pooling.roi_average_pooling_2d import (
        roi_average_pooling_2d as roi_average_pooling_2d)
    from chainlite.functions.pooling.roi_max_align_2d import roi_max_align_2d as roi_max_align_2d
    from chainlite.functions.pooling.roi_max_pooling_2d import (
        roi_max_pooling_2d as roi_max_pooling_2d)
    from chainlite.functions.pooling.roi_pooling_2d import roi_pooling_2d as roi_pooling_2d
    from chainlite.functions.pooling.spatial_pyramid_pooling_2d import (
        spatial_pyramid_pooling_2d as spatial_pyramid_pooling_2d)
    from chainlite.functions.pooling.unpooling_2d import unpooling_2d as unpooling_2d
    from chainlite.functions.pooling.unpooling_nd import unpooling_1d as unpooling_1d
    from chainlite.functions.pooling.unpooling_nd import unpooling_3d as unpooling_3d
    from chainlite.functions.pooling.unpooling_nd import unpooling_nd as unpooling_nd
    from chainlite.functions.pooling.upsampling_2d import upsampling_2d as upsampling_2d
    from chainlite.functions.rnn.lstm import lstm as lstm
    from chainlite.functions.rnn.n_step_gru import n_step_bigru as n_step_bigru
    from chainlite.functions.rnn.n_step_gru import n_step_gru as n_step_gru
    from chainlite.functions.rnn.n_step_lstm import n_step_bilstm as n_step_bilstm
    from chainlite.functions.rnn.n_step_lstm import n_step_lstm as n_step_lstm
    from chainlite.functions.rnn.n_step_rnn import n_step_birnn as n_step_birnn
    from chainlite.functions.rnn.n_step_rnn import n_step_rnn as n_step_rnn
    from chainlite.functions.rnn.slstm import slstm as slstm
    from chainlite.functions.rnn.tree_lstm import tree_lstm as tree_lstm
