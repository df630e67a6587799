"""Caffe's protocol buffer messages (package ``caffe``), built at import time.

The messages are declared below in a compact table and turned into classes with protobuf's
descriptor API, so no generated code and no ``protoc`` run is needed. Names, field numbers,
types, labels, defaults and enums are those of BVLC Caffe's ``caffe.proto``: a ``.caffemodel``
written by Caffe parses here, and a message serialized here parses in Caffe. The table holds
the messages a network file needs (``NetParameter``, ``LayerParameter`` and the old
``V1LayerParameter``, ``BlobProto``, ...) and the parameter messages of the layers
:class:`~chainlite.links.caffe.CaffeFunction` runs; fields of other layers are kept as
unknown fields when a file is parsed and written back.

Importing this module needs the ``protobuf`` package; without it the import raises an
ImportError saying how to install it. The messages live in a descriptor pool of their own,
so they never clash with another copy of Caffe's messages loaded in the same process.

Example:
    >>> from chainlite.links.caffe.protobuf3 import caffe_pb2
    >>> net = caffe_pb2.NetParameter(name='tiny')
    >>> layer = net.layer.add(name='relu1', type='ReLU', bottom=['data'], top=['relu1'])
    >>> caffe_pb2.NetParameter.FromString(net.SerializeToString()).layer[0].type
    'ReLU'
    >>> layer.pooling_param.pool == caffe_pb2.PoolingParameter.MAX, caffe_pb2.TEST
    (True, 1)
"""
from __future__ import annotations

from typing import Any

try:
    from google.protobuf import descriptor_pb2
    from google.protobuf import descriptor_pool
    from google.protobuf import message_factory
    from google.protobuf.internal import enum_type_wrapper
except ImportError as e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "chainlite's Caffe support (CaffeFunction, chainlite.exporters.caffe) needs the "
        "protobuf package: install it (pip install protobuf, or pip install -e '.[caffe]')"
    ) from e

# One message per block: its name on a line of its own, then one field per indented line,
# ``name number [repeated] type [packed] [=default]``. A type that is not a scalar names an
# enum (of the message itself first, then of the file) or a message.
_MESSAGES = """
BlobShape
    dim 1 repeated int64 packed
BlobProto
    shape 7 BlobShape
    data 5 repeated float packed
    diff 6 repeated float packed
    double_data 8 repeated double packed
    double_diff 9 repeated double packed
    num 1 int32 =0
    channels 2 int32 =0
    height 3 int32 =0
    width 4 int32 =0
BlobProtoVector
    blobs 1 repeated BlobProto
FillerParameter
    type 1 string =constant
    value 2 float =0
    min 3 float =0
    max 4 float =1
    mean 5 float =0
    std 6 float =1
    sparse 7 int32 =-1
    variance_norm 8 VarianceNorm =FAN_IN
NetParameter
    name 1 string
    input 3 repeated string
    input_shape 8 repeated BlobShape
    input_dim 4 repeated int32
    force_backward 5 bool =false
    state 6 NetState
    debug_info 7 bool =false
    layer 100 repeated LayerParameter
    layers 2 repeated V1LayerParameter
NetState
    phase 1 Phase =TEST
    level 2 int32 =0
    stage 3 repeated string
NetStateRule
    phase 1 Phase
    min_level 2 int32
    max_level 3 int32
    stage 4 repeated string
    not_stage 5 repeated string
ParamSpec
    name 1 string
    share_mode 2 DimCheckMode
    lr_mult 3 float =1
    decay_mult 4 float =1
LayerParameter
    name 1 string
    type 2 string
    bottom 3 repeated string
    top 4 repeated string
    phase 10 Phase
    loss_weight 5 repeated float
    param 6 repeated ParamSpec
    blobs 7 repeated BlobProto
    propagate_down 11 repeated bool
    include 8 repeated NetStateRule
    exclude 9 repeated NetStateRule
    transform_param 100 TransformationParameter
    loss_param 101 LossParameter
    batch_norm_param 139 BatchNormParameter
    bias_param 141 BiasParameter
    concat_param 104 ConcatParameter
    convolution_param 106 ConvolutionParameter
    dropout_param 108 DropoutParameter
    eltwise_param 110 EltwiseParameter
    flatten_param 135 FlattenParameter
    inner_product_param 117 InnerProductParameter
    input_param 143 InputParameter
    lrn_param 118 LRNParameter
    pooling_param 121 PoolingParameter
    relu_param 123 ReLUParameter
    reshape_param 133 ReshapeParameter
    scale_param 142 ScaleParameter
    sigmoid_param 124 SigmoidParameter
    softmax_param 125 SoftmaxParameter
    slice_param 126 SliceParameter
    tanh_param 127 TanHParameter
TransformationParameter
    scale 1 float =1
    mirror 2 bool =false
    crop_size 3 uint32 =0
    mean_file 4 string
    mean_value 5 repeated float
    force_color 6 bool =false
    force_gray 7 bool =false
LossParameter
    ignore_label 1 int32
    normalization 3 NormalizationMode =VALID
    normalize 2 bool
ConcatParameter
    axis 2 int32 =1
    concat_dim 1 uint32 =1
BatchNormParameter
    use_global_stats 1 bool
    moving_average_fraction 2 float =0.999
    eps 3 float =1e-5
BiasParameter
    axis 1 int32 =1
    num_axes 2 int32 =1
    filler 3 FillerParameter
ConvolutionParameter
    num_output 1 uint32
    bias_term 2 bool =true
    pad 3 repeated uint32
    kernel_size 4 repeated uint32
    stride 6 repeated uint32
    dilation 18 repeated uint32
    pad_h 9 uint32 =0
    pad_w 10 uint32 =0
    kernel_h 11 uint32
    kernel_w 12 uint32
    stride_h 13 uint32
    stride_w 14 uint32
    group 5 uint32 =1
    weight_filler 7 FillerParameter
    bias_filler 8 FillerParameter
    engine 15 Engine =DEFAULT
    axis 16 int32 =1
    force_nd_im2col 17 bool =false
DropoutParameter
    dropout_ratio 1 float =0.5
EltwiseParameter
    operation 1 EltwiseOp =SUM
    coeff 2 repeated float
    stable_prod_grad 3 bool =true
FlattenParameter
    axis 1 int32 =1
    end_axis 2 int32 =-1
InnerProductParameter
    num_output 1 uint32
    bias_term 2 bool =true
    weight_filler 3 FillerParameter
    bias_filler 4 FillerParameter
    axis 5 int32 =1
    transpose 6 bool =false
InputParameter
    shape 1 repeated BlobShape
LRNParameter
    local_size 1 uint32 =5
    alpha 2 float =1
    beta 3 float =0.75
    norm_region 4 NormRegion =ACROSS_CHANNELS
    k 5 float =1
    engine 6 Engine =DEFAULT
PoolingParameter
    pool 1 PoolMethod =MAX
    pad 4 uint32 =0
    pad_h 9 uint32 =0
    pad_w 10 uint32 =0
    kernel_size 2 uint32
    kernel_h 5 uint32
    kernel_w 6 uint32
    stride 3 uint32 =1
    stride_h 7 uint32
    stride_w 8 uint32
    engine 11 Engine =DEFAULT
    global_pooling 12 bool =false
    round_mode 13 RoundMode =CEIL
ReLUParameter
    negative_slope 1 float =0
    engine 2 Engine =DEFAULT
ReshapeParameter
    shape 1 BlobShape
    axis 2 int32 =0
    num_axes 3 int32 =-1
ScaleParameter
    axis 1 int32 =1
    num_axes 2 int32 =1
    filler 3 FillerParameter
    bias_term 4 bool =false
    bias_filler 5 FillerParameter
SigmoidParameter
    engine 1 Engine =DEFAULT
SliceParameter
    axis 3 int32 =1
    slice_point 2 repeated uint32
    slice_dim 1 uint32 =1
SoftmaxParameter
    engine 1 Engine =DEFAULT
    axis 2 int32 =1
TanHParameter
    engine 1 Engine =DEFAULT
V1LayerParameter
    bottom 2 repeated string
    top 3 repeated string
    name 4 string
    include 32 repeated NetStateRule
    exclude 33 repeated NetStateRule
    type 5 LayerType
    blobs 6 repeated BlobProto
    param 1001 repeated string
    blob_share_mode 1002 repeated DimCheckMode
    blobs_lr 7 repeated float
    weight_decay 8 repeated float
    loss_weight 35 repeated float
    concat_param 9 ConcatParameter
    convolution_param 10 ConvolutionParameter
    dropout_param 12 DropoutParameter
    eltwise_param 24 EltwiseParameter
    inner_product_param 17 InnerProductParameter
    lrn_param 18 LRNParameter
    pooling_param 19 PoolingParameter
    relu_param 30 ReLUParameter
    sigmoid_param 38 SigmoidParameter
    softmax_param 39 SoftmaxParameter
    slice_param 31 SliceParameter
    tanh_param 37 TanHParameter
    transform_param 36 TransformationParameter
    loss_param 42 LossParameter
"""

# ``Owner.Enum: NAME=number ...``; an owner-less enum belongs to the file.
_ENGINE = 'DEFAULT=0 CAFFE=1 CUDNN=2'
_ENUMS = """
Phase: TRAIN=0 TEST=1
FillerParameter.VarianceNorm: FAN_IN=0 FAN_OUT=1 AVERAGE=2
ParamSpec.DimCheckMode: STRICT=0 PERMISSIVE=1
LossParameter.NormalizationMode: FULL=0 VALID=1 BATCH_SIZE=2 NONE=3
ConvolutionParameter.Engine: {e}
EltwiseParameter.EltwiseOp: PROD=0 SUM=1 MAX=2
LRNParameter.NormRegion: ACROSS_CHANNELS=0 WITHIN_CHANNEL=1
LRNParameter.Engine: {e}
PoolingParameter.PoolMethod: MAX=0 AVE=1 STOCHASTIC=2
PoolingParameter.Engine: {e}
PoolingParameter.RoundMode: CEIL=0 FLOOR=1
ReLUParameter.Engine: {e}
SigmoidParameter.Engine: {e}
SoftmaxParameter.Engine: {e}
TanHParameter.Engine: {e}
V1LayerParameter.DimCheckMode: STRICT=0 PERMISSIVE=1
V1LayerParameter.LayerType: NONE=0 ABSVAL=35 ACCURACY=1 ARGMAX=30 BNLL=2 CONCAT=3
    CONTRASTIVE_LOSS=37 CONVOLUTION=4 DATA=5 DECONVOLUTION=39 DROPOUT=6 DUMMY_DATA=32
    EUCLIDEAN_LOSS=7 ELTWISE=25 EXP=38 FLATTEN=8 HDF5_DATA=9 HDF5_OUTPUT=10 HINGE_LOSS=28
    IM2COL=11 IMAGE_DATA=12 INFOGAIN_LOSS=13 INNER_PRODUCT=14 LRN=15 MEMORY_DATA=29
    MULTINOMIAL_LOGISTIC_LOSS=16 MVN=34 POOLING=17 POWER=26 RELU=18 SIGMOID=19
    SIGMOID_CROSS_ENTROPY_LOSS=27 SILENCE=36 SOFTMAX=20 SOFTMAX_LOSS=21 SPLIT=22 SLICE=33
    TANH=23 WINDOW_DATA=24 THRESHOLD=31
""".format(e=_ENGINE)

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    'double': _F.TYPE_DOUBLE, 'float': _F.TYPE_FLOAT, 'int64': _F.TYPE_INT64,
    'uint64': _F.TYPE_UINT64, 'int32': _F.TYPE_INT32, 'uint32': _F.TYPE_UINT32,
    'bool': _F.TYPE_BOOL, 'string': _F.TYPE_STRING, 'bytes': _F.TYPE_BYTES,
}


def _parse_enums(text: str) -> dict[str, list[tuple[str, int]]]:
    # Continuation lines (indented) extend the enum above them.
    enums: dict[str, list[tuple[str, int]]] = {}
    name = ''
    for line in text.strip().splitlines():
        if not line.startswith(' '):
            name, _, line = line.partition(':')
            enums[name] = []
        for item in line.split():
            value, _, number = item.partition('=')
            enums[name].append((value, int(number)))
    return enums


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    enums = _parse_enums(_ENUMS)
    messages: list[tuple[str, list[list[str]]]] = []
    for line in _MESSAGES.strip().splitlines():
        if not line.startswith(' '):
            messages.append((line.strip(), []))
        else:
            messages[-1][1].append(line.split())
    message_names = {name for name, _ in messages}
    fdp = descriptor_pb2.FileDescriptorProto(name='chainlite/caffe.proto', package='caffe',
                                             syntax='proto2')
    for name, values in enums.items():
        if '.' not in name:
            fdp.enum_type.add(name=name).value.extend(
                descriptor_pb2.EnumValueDescriptorProto(name=v, number=n) for v, n in values)
    for name, fields in messages:
        msg = fdp.message_type.add(name=name)
        for enum_name, values in enums.items():
            owner, _, short = enum_name.rpartition('.')
            if owner == name:
                msg.enum_type.add(name=short).value.extend(
                    descriptor_pb2.EnumValueDescriptorProto(name=v, number=n)
                    for v, n in values)
        for words in fields:
            field_name, number, *rest = words
            field = msg.field.add(name=field_name, number=int(number), label=_F.LABEL_OPTIONAL)
            for word in rest:
                if word == 'repeated':
                    field.label = _F.LABEL_REPEATED
                elif word == 'packed':
                    field.options.packed = True
                elif word.startswith('='):
                    field.default_value = word[1:]
                elif word in _SCALARS:
                    field.type = _SCALARS[word]
                elif '%s.%s' % (name, word) in enums:
                    field.type, field.type_name = _F.TYPE_ENUM, '.caffe.%s.%s' % (name, word)
                elif word in enums:
                    field.type, field.type_name = _F.TYPE_ENUM, '.caffe.' + word
                elif word in message_names:
                    field.type, field.type_name = _F.TYPE_MESSAGE, '.caffe.' + word
                else:
                    raise AssertionError('caffe_pb2: unknown type %r of %s.%s'
                                         % (word, name, field_name))
    return fdp


def _message_class(descriptor: Any) -> Any:
    get_class = getattr(message_factory, 'GetMessageClass', None)
    if get_class is not None:
        return get_class(descriptor)
    return message_factory.MessageFactory(descriptor.file.pool).GetPrototype(descriptor)


_pool = descriptor_pool.DescriptorPool()
DESCRIPTOR = _pool.Add(_file_descriptor())

Phase = enum_type_wrapper.EnumTypeWrapper(_pool.FindEnumTypeByName('caffe.Phase'))
TRAIN = Phase.Value('TRAIN')
TEST = Phase.Value('TEST')

BlobShape: Any = _message_class(_pool.FindMessageTypeByName('caffe.BlobShape'))
BlobProto: Any = _message_class(_pool.FindMessageTypeByName('caffe.BlobProto'))
BlobProtoVector: Any = _message_class(_pool.FindMessageTypeByName('caffe.BlobProtoVector'))
FillerParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.FillerParameter'))
NetParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.NetParameter'))
NetState: Any = _message_class(_pool.FindMessageTypeByName('caffe.NetState'))
NetStateRule: Any = _message_class(_pool.FindMessageTypeByName('caffe.NetStateRule'))
ParamSpec: Any = _message_class(_pool.FindMessageTypeByName('caffe.ParamSpec'))
LayerParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.LayerParameter'))
TransformationParameter: Any = _message_class(
    _pool.FindMessageTypeByName('caffe.TransformationParameter'))
LossParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.LossParameter'))
ConcatParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.ConcatParameter'))
BatchNormParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.BatchNormParameter'))
BiasParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.BiasParameter'))
ConvolutionParameter: Any = _message_class(
    _pool.FindMessageTypeByName('caffe.ConvolutionParameter'))
DropoutParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.DropoutParameter'))
EltwiseParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.EltwiseParameter'))
FlattenParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.FlattenParameter'))
InnerProductParameter: Any = _message_class(
    _pool.FindMessageTypeByName('caffe.InnerProductParameter'))
InputParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.InputParameter'))
LRNParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.LRNParameter'))
PoolingParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.PoolingParameter'))
ReLUParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.ReLUParameter'))
ReshapeParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.ReshapeParameter'))
ScaleParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.ScaleParameter'))
SigmoidParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.SigmoidParameter'))
SliceParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.SliceParameter'))
SoftmaxParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.SoftmaxParameter'))
TanHParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.TanHParameter'))
V1LayerParameter: Any = _message_class(_pool.FindMessageTypeByName('caffe.V1LayerParameter'))
