"""Links: layers with parameters (``chainlite.links as L``).

The Link/Chain machinery and the link library are being built (see the project's issues);
this package is importable already so that scripts and benchmarks can ``import`` it.
"""
from chainlite.links.activation.maxout import Maxout  # noqa: F401
from chainlite.links.activation.prelu import PReLU  # noqa: F401
from chainlite.links.activation.swish import Swish  # noqa: F401
from chainlite.links.connection.bias import Bias  # noqa: F401
from chainlite.links.connection.bilinear import Bilinear  # noqa: F401
from chainlite.links.connection.convolution_2d import Convolution2D  # noqa: F401
from chainlite.links.connection.convolution_nd import Convolution1D  # noqa: F401
from chainlite.links.connection.convolution_nd import Convolution3D  # noqa: F401
from chainlite.links.connection.convolution_nd import ConvolutionND  # noqa: F401
from chainlite.links.connection.deconvolution_2d import Deconvolution2D  # noqa: F401
from chainlite.links.connection.deconvolution_nd import Deconvolution1D  # noqa: F401
from chainlite.links.connection.deconvolution_nd import Deconvolution3D  # noqa: F401
from chainlite.links.connection.deconvolution_nd import DeconvolutionND  # noqa: F401
from chainlite.links.connection.deformable_convolution_2d import DeformableConvolution2D  # noqa: F401,E501
from chainlite.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D  # noqa: F401,E501
from chainlite.links.connection.dilated_convolution_2d import DilatedConvolution2D  # noqa: F401
from chainlite.links.connection.embed_id import EmbedID  # noqa: F401
from chainlite.links.connection.highway import Highway  # noqa: F401
from chainlite.links.connection.inception import Inception  # noqa: F401
from chainlite.links.connection.inceptionbn import InceptionBN  # noqa: F401
from chainlite.links.connection.linear import Linear  # noqa: F401
from chainlite.links.connection.local_convolution_2d import LocalConvolution2D  # noqa: F401,E501
from chainlite.links.connection.mlp_convolution_2d import MLPConvolution2D  # noqa: F401
from chainlite.links.connection.scale import Scale  # noqa: F401
from chainlite.links.model.classifier import Classifier  # noqa: F401
from chainlite.links.normalization.batch_normalization import BatchNormalization  # noqa: F401
from chainlite.links.normalization.batch_renormalization import BatchRenormalization  # noqa: F401,E501
from chainlite.links.normalization.decorrelated_batch_normalization import DecorrelatedBatchNormalization  # noqa: F401,E501
from chainlite.links.normalization.group_normalization import GroupNormalization  # noqa: F401
from chainlite.links.normalization.layer_normalization import LayerNormalization  # noqa: F401
from chainlite.links.rnn.gru import GRU  # noqa: F401
from chainlite.links.rnn.gru import StatefulGRU  # noqa: F401
from chainlite.links.rnn.gru import StatelessGRU  # noqa: F401
from chainlite.links.rnn.lstm import LSTM  # noqa: F401
from chainlite.links.rnn.lstm import StatelessLSTM  # noqa: F401
from chainlite.links.rnn.n_step_gru import NStepBiGRU  # noqa: F401
from chainlite.links.rnn.n_step_gru import NStepGRU  # noqa: F401
from chainlite.links.rnn.n_step_lstm import NStepBiLSTM  # noqa: F401
from chainlite.links.rnn.n_step_lstm import NStepLSTM  # noqa: F401
from chainlite.links.rnn.n_step_rnn import NStepBiRNNReLU  # noqa: F401
from chainlite.links.rnn.n_step_rnn import NStepBiRNNTanh  # noqa: F401
from chainlite.links.rnn.n_step_rnn import NStepRNNReLU  # noqa: F401
from chainlite.links.rnn.n_step_rnn import NStepRNNTanh  # noqa: F401
