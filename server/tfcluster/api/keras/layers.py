"""tf.keras.layers"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.lib.keras.engine.input_layer import Input, InputLayer
from tfcluster.lib.keras.layers.advanced_activations import ELU, PReLU, ThresholdedReLU
from tfcluster.lib.keras.layers.convolutional_extra import (
    Cropping1D,
    Cropping2D,
    Cropping3D,
    DepthwiseConv2D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from tfcluster.lib.keras.layers.convolutional_recurrent import ConvLSTM2D
from tfcluster.lib.keras.layers.core import (
    Activation,
    Lambda,
    LeakyReLU,
    Masking,
    Permute,
    ReLU,
    RepeatVector,
    Reshape,
    Softmax,
)
from tfcluster.lib.keras.layers.cudnn_recurrent import CuDNNGRU, CuDNNLSTM
from tfcluster.lib.keras.layers.dense_attention import AdditiveAttention, Attention
from tfcluster.lib.keras.layers.embeddings import Embedding
from tfcluster.lib.keras.layers.feature_layers import DenseFeatures
from tfcluster.lib.keras.layers.from_tf_layers import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    BatchNormalization,
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Conv3DTranspose,
    Dense,
    Dropout,
    Flatten,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
    SeparableConv1D,
    SeparableConv2D,
)
from tfcluster.lib.keras.layers.global_pooling import (
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
)
from tfcluster.lib.keras.layers.local import LocallyConnected1D, LocallyConnected2D
from tfcluster.lib.keras.layers.merge import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from tfcluster.lib.keras.layers.noise import (
    ActivityRegularization,
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from tfcluster.lib.keras.layers.normalization_extra import LayerNormalization
from tfcluster.lib.keras.layers.recurrent import (
    GRU,
    LSTM,
    RNN,
    AbstractRNNCell,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    StackedRNNCells,
)
from tfcluster.lib.keras.layers.serialization import deserialize, serialize
from tfcluster.lib.keras.layers.wrappers import Bidirectional, TimeDistributed, Wrapper
from tfcluster.lib.layers.base import InputSpec

# Keras's aliases
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
MaxPool3D = MaxPooling3D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
AvgPool3D = AveragePooling3D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalMaxPool3D = GlobalMaxPooling3D

__getattr__ = _unimplemented.module_getattr("keras.layers")
