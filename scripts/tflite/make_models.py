"""Generates the `.tflite` test models of `memplan tflite` with tensorflow-cpu: Keras
models with random weights (fixed seeds), each converted twice, to float32 and to full
integer int8 (int8 inputs and outputs, calibrated on random data; the two MobileNets
V2 and V3-Small to int8 only, ONLY_DTYPES), plus models converted
from tf.functions: two with control flow (IF, WHILE) and a stateful streaming one (a
tf.Variable: CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE). Writes
OUTDIR/<name>.tflite and OUTDIR/models.json (name, dtype, description, bytes, sha256 of every model).

    $TFLM_PYTHON scripts/tflite/make_models.py tests/tflite/models
    ... make_models.py OUTDIR --only densenet,fpn_detector   # a subset

($TFLM_PYTHON: a python with tensorflow-cpu and tflite-micro, such as the TFLM venv that
.ci/run sets up.)

Tested with tensorflow-cpu 2.21.0 (Keras 3.15.1); every model runs on TFLM's Python
interpreter (tflite-micro 0.dev20261023182759). Two details keep them runnable there
(scripts/tflite/NOTES.md):

- Random weights are made "alive": every BatchNormalization layer's moving statistics are
  set to the batch statistics of random inputs (momentum 0, one training-mode call), and
  its gamma/beta are randomised. Without it, activations of a random MobileNet decay to
  exactly 0 by the classifier, the converter calibrates the softmax input to a scale of
  7.8e-9, and TFLM's int8 SOFTMAX aborts the process in Prepare (exit 134).
- Upsampling uses Keras' Resizing(interpolation="nearest") (-> RESIZE_NEAREST_NEIGHBOR);
  UpSampling2D(nearest) becomes RESHAPE+TILE, and TFLM has no TILE kernel.

Conversion is deterministic for a given TensorFlow build (two runs give byte-identical
files, with or without --only): every model is built from its own seed, Keras models
after keras.backend.clear_session() (layer names become tensor names), and the
control-flow models are always converted first and in the same order (their subgraph
names carry TensorFlow's process-wide function counter).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

L = keras.layers

# ---------------------------------------------------------------------------------------
# Helpers


def _all_layers(model):
    out = []
    for layer in model.layers:
        out.append(layer)
        if isinstance(layer, keras.Model):
            out.extend(_all_layers(layer))
    return out


def make_alive(model, input_shape, seed):
    """Randomises every BatchNormalization's gamma and beta and sets its moving statistics
    to the batch statistics of random normal inputs (one training-mode call with momentum
    0), so that activations neither die nor blow up through the random network."""
    rng = np.random.default_rng(seed)
    bns = [l for l in _all_layers(model) if isinstance(l, L.BatchNormalization)]
    for bn in bns:
        c = bn.gamma.shape[0]
        bn.gamma.assign(rng.uniform(0.5, 1.5, c).astype(np.float32))
        bn.beta.assign(rng.normal(0.2, 0.3, c).astype(np.float32))
        bn.momentum = 0.0
    x = rng.standard_normal((32,) + tuple(input_shape)).astype(np.float32)
    if bns:
        # keras.applications models built on an input_tensor take a list.
        model([x] if isinstance(getattr(model, "_inputs_struct", None), list) else x, training=True)
    for bn in bns:
        bn.momentum = 0.99
    # Biases: small random values instead of zeros.
    for layer in _all_layers(model):
        b = getattr(layer, "bias", None)
        if b is not None and not isinstance(layer, L.BatchNormalization):
            b.assign(rng.normal(0.0, 0.05, b.shape).astype(np.float32))
    return model


def representative(input_shapes, seed, n=32):
    def gen():
        rng = np.random.default_rng(seed)
        for _ in range(n):
            yield [rng.standard_normal((1,) + tuple(s)).astype(np.float32) for s in input_shapes]

    return gen


def convert(converter, dtype, input_shapes, seed):
    if dtype == "int8":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative(input_shapes, seed + 1)
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    return converter.convert()


def convert_keras(model, dtype, seed):
    shapes = [tuple(t.shape[1:]) for t in model.inputs]
    return convert(tf.lite.TFLiteConverter.from_keras_model(model), dtype, shapes, seed)


def conv_bn(x, filters, kernel, strides=1, relu=True, name=None):
    x = L.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False)(x)
    x = L.BatchNormalization()(x)
    return L.ReLU()(x) if relu else x


def bn_relu(x):
    return L.ReLU()(L.BatchNormalization()(x))


# ---------------------------------------------------------------------------------------
# The models. Each builder returns (keras model, input shape without batch).


def vww_mobilenet_v1():
    """MLPerf Tiny visual wake words: MobileNetV1, alpha 0.25, 96x96x3, 2 classes."""
    inp = keras.Input((96, 96, 3), batch_size=1)
    m = keras.applications.MobileNet(
        input_shape=(96, 96, 3),
        input_tensor=inp,
        alpha=0.25,
        weights=None,
        classes=2,
        include_top=True,
    )
    return m


def kws_ds_cnn():
    """MLPerf Tiny keyword spotting: DS-CNN (small), 49x10x1 MFCC input, 12 classes."""
    inp = keras.Input((49, 10, 1), batch_size=1)
    x = L.Conv2D(64, (10, 4), strides=(2, 2), padding="same", use_bias=True)(inp)
    x = bn_relu(x)
    x = L.Dropout(0.2)(x)
    for _ in range(4):
        x = L.DepthwiseConv2D(3, padding="same", use_bias=True)(x)
        x = bn_relu(x)
        x = L.Conv2D(64, 1, padding="same", use_bias=True)(x)
        x = bn_relu(x)
    x = L.Dropout(0.4)(x)
    x = L.AveragePooling2D(pool_size=(25, 5))(x)
    x = L.Flatten()(x)
    x = L.Dense(12, activation="softmax")(x)
    return keras.Model(inp, x)


def ic_resnet8():
    """MLPerf Tiny image classification: ResNet-8 for CIFAR-10, 32x32x3."""
    inp = keras.Input((32, 32, 3), batch_size=1)
    x = conv_bn(inp, 16, 3)
    for filters, strides in [(16, 1), (32, 2), (64, 2)]:
        y = conv_bn(x, filters, 3, strides)
        y = conv_bn(y, filters, 3, relu=False)
        if strides != 1:
            x = L.Conv2D(filters, 1, strides=strides, padding="same")(x)
        x = L.ReLU()(L.Add()([x, y]))
    x = L.AveragePooling2D(pool_size=8)(x)
    x = L.Flatten()(x)
    x = L.Dense(10, activation="softmax")(x)
    return keras.Model(inp, x)


def ad_autoencoder():
    """MLPerf Tiny anomaly detection: the fully connected autoencoder,
    640 -> 128 x4 -> 8 -> 128 x4 -> 640 (Dense + BatchNorm + ReLU)."""
    inp = keras.Input((640,), batch_size=1)
    x = inp
    for units in [128, 128, 128, 128, 8, 128, 128, 128, 128]:
        x = L.Dense(units)(x)
        x = bn_relu(x)
    x = L.Dense(640)(x)
    return keras.Model(inp, x)


def densenet():
    """DenseNet-BC at 32x32x3: a 3x3 stem (16 channels), three dense blocks of six
    BN-ReLU-Conv1x1(48)-BN-ReLU-Conv3x3(12) layers, each concatenating its 12 new channels
    onto all the block's earlier ones (growth rate 12), transitions (BN-ReLU-Conv1x1 to half
    the channels, 2x2 average pooling) between blocks; global pooling, 10 classes."""
    k = 12
    inp = keras.Input((32, 32, 3), batch_size=1)
    x = L.Conv2D(16, 3, padding="same", use_bias=False)(inp)
    for b in range(3):
        for _ in range(6):
            y = bn_relu(x)
            y = L.Conv2D(4 * k, 1, use_bias=False)(y)
            y = bn_relu(y)
            y = L.Conv2D(k, 3, padding="same", use_bias=False)(y)
            x = L.Concatenate()([x, y])
        if b < 2:
            x = bn_relu(x)
            x = L.Conv2D(x.shape[-1] // 2, 1, use_bias=False)(x)
            x = L.AveragePooling2D(2)(x)
    x = bn_relu(x)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(10, activation="softmax")(x)
    return keras.Model(inp, x)


def _inception_a(x, pool_features):
    b1 = conv_bn(x, 16, 1)
    b5 = conv_bn(conv_bn(x, 12, 1), 16, 5)
    b3 = conv_bn(conv_bn(conv_bn(x, 16, 1), 24, 3), 24, 3)
    bp = conv_bn(L.AveragePooling2D(3, strides=1, padding="same")(x), pool_features, 1)
    return L.Concatenate()([b1, b5, b3, bp])


def _reduction(x):
    b3 = conv_bn(x, 48, 3, strides=2)
    bd = conv_bn(conv_bn(conv_bn(x, 16, 1), 24, 3), 24, 3, strides=2)
    bp = L.MaxPooling2D(3, strides=2, padding="same")(x)
    return L.Concatenate()([b3, bd, bp])


def inception():
    """Inception-v3-style cells at 64x64x3: a stem (3x3/2 conv, 3x3 conv, 3x3/2 max
    pool) to 16x16, two inception-A cells (1x1 | 1x1-5x5 | 1x1-3x3-3x3 | avgpool-1x1,
    concatenated), a reduction cell (3x3/2 | 1x1-3x3-3x3/2 | maxpool/2) to 8x8, a third
    inception-A cell; global pooling, 10 classes."""
    inp = keras.Input((64, 64, 3), batch_size=1)
    x = conv_bn(inp, 16, 3, strides=2)
    x = conv_bn(x, 32, 3)
    x = L.MaxPooling2D(3, strides=2, padding="same")(x)
    x = _inception_a(x, 8)
    x = _inception_a(x, 16)
    x = _reduction(x)
    x = _inception_a(x, 16)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(10, activation="softmax")(x)
    return keras.Model(inp, x)


def _dw_block(x, filters, strides):
    x = L.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False)(x)
    x = bn_relu(x)
    return conv_bn(x, filters, 1)


def fpn_detector():
    """A small single-shot detector with a feature pyramid, 96x96x3 input: a depthwise-
    separable backbone to strides 8, 16, 32 (C3, C4, C5); 1x1 laterals to 32 channels; a
    top-down path with nearest-neighbour 2x upsampling (Keras Resizing ->
    RESIZE_NEAREST_NEIGHBOR), added at P4 and concatenated (then fused by a 1x1) at P3;
    3x3 smoothing; per level a class head (3 anchors x 4 classes, sigmoid) and a box head
    (3 anchors x 4), reshaped to rows and concatenated over the levels. Two outputs:
    scores (1, 756, 4) and boxes (1, 756, 4)."""
    anchors, classes, ch = 3, 4, 32
    inp = keras.Input((96, 96, 3), batch_size=1)
    x = conv_bn(inp, 16, 3, strides=2)  # 48
    x = _dw_block(x, 24, 2)  # 24
    c3 = _dw_block(x, 48, 2)  # 12
    c4 = _dw_block(c3, 64, 2)  # 6
    c5 = _dw_block(c4, 96, 2)  # 3
    l3 = L.Conv2D(ch, 1)(c3)
    l4 = L.Conv2D(ch, 1)(c4)
    p5 = L.Conv2D(ch, 1)(c5)
    p4 = L.Add()([l4, L.Resizing(6, 6, interpolation="nearest")(p5)])
    p3 = L.Concatenate()([l3, L.Resizing(12, 12, interpolation="nearest")(p4)])
    p3 = L.Conv2D(ch, 1)(p3)
    scores, boxes = [], []
    for p in (p3, p4, p5):
        p = conv_bn(p, ch, 3)
        s = L.Conv2D(anchors * classes, 3, padding="same")(p)
        b = L.Conv2D(anchors * 4, 3, padding="same")(p)
        scores.append(L.Reshape((-1, classes))(s))
        boxes.append(L.Reshape((-1, 4))(b))
    scores = L.Activation("sigmoid")(L.Concatenate(axis=1)(scores))
    boxes = L.Concatenate(axis=1)(boxes)
    return keras.Model(inp, [scores, boxes])


def unet():
    """A small U-Net for segmentation, 64x64x3: an encoder of 3x3 conv-BN-ReLU blocks (16,
    32, 64 channels, 2x2 max pooling) to an 8x8x64 bottleneck, a decoder of 2x2/2
    Conv2DTranspose upsamplings (TRANSPOSE_CONV) each concatenated with the encoder's
    skip connection and fused by a 3x3 conv (32, 16, 8 channels); a 1x1 conv to 2 class
    logits per pixel. In int8, TFLM's TRANSPOSE_CONV requests a kernel scratch buffer of
    4 bytes per output element (int32 accumulators), which TFLM plans online."""
    inp = keras.Input((64, 64, 3), batch_size=1)
    e1 = conv_bn(inp, 16, 3)
    e2 = conv_bn(L.MaxPooling2D(2)(e1), 32, 3)
    e3 = conv_bn(L.MaxPooling2D(2)(e2), 64, 3)
    x = conv_bn(L.MaxPooling2D(2)(e3), 64, 3)
    for skip, filters in [(e3, 32), (e2, 16), (e1, 8)]:
        x = L.Conv2DTranspose(filters, 2, strides=2)(x)
        x = L.Concatenate()([skip, x])
        x = conv_bn(x, filters, 3)
    x = L.Conv2D(2, 1)(x)
    return keras.Model(inp, x)


def mobilenet_v3_small():
    """A MobileNetV3-Small at 96x96x3 (keras.applications, alpha 0.75, no preprocessing,
    HARD_SWISH activations, squeeze-and-excite blocks), average pooling and a 2-class
    dense softmax head. int8 only (the float32 conversion is 3 MB)."""
    inp = keras.Input((96, 96, 3), batch_size=1)
    m = keras.applications.MobileNetV3Small(
        input_shape=(96, 96, 3),
        input_tensor=inp,
        alpha=0.75,
        include_top=False,
        weights=None,
        include_preprocessing=False,
        pooling="avg",
        dropout_rate=0.0,
    )
    x = L.Dense(2, activation="softmax")(m.output)
    return keras.Model(inp, x)


def mobilenet_v2():
    """MobileNetV2 at 96x96x3 (keras.applications, alpha 0.35), 2 classes. int8 only
    (the float32 conversion is 1.6 MB)."""
    inp = keras.Input((96, 96, 3), batch_size=1)
    return keras.applications.MobileNetV2(
        input_shape=(96, 96, 3), input_tensor=inp, alpha=0.35, weights=None, classes=2
    )


def gated_cnn():
    """A gated residual CNN at 32x32x3: a 3x3 conv stem (32 channels, ReLU), three
    gated residual blocks h + tanh(conv3x3(h)) * sigmoid(conv3x3(h)) (TANH, LOGISTIC,
    MUL, ADD at 32x32x32), a 3x3/2 conv, global pooling, 10 classes."""
    inp = keras.Input((32, 32, 3), batch_size=1)
    h = L.Conv2D(32, 3, padding="same", activation="relu")(inp)
    for _ in range(3):
        t = L.Activation("tanh")(L.Conv2D(32, 3, padding="same")(h))
        s = L.Activation("sigmoid")(L.Conv2D(32, 3, padding="same")(h))
        h = L.Add()([h, L.Multiply()([t, s])])
    x = L.Conv2D(32, 3, strides=2, padding="same", activation="relu")(h)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(10, activation="softmax")(x)
    return keras.Model(inp, x)


# ---------------------------------------------------------------------------------------
# Control flow: tf.functions with tf.cond / tf.while_loop, converted from concrete
# functions. The converter keeps them as IF / WHILE with their branches and loop
# condition and body as separate subgraphs (3 subgraphs each).


def _var(rng, shape, std):
    return tf.Variable(rng.normal(0.0, std, shape).astype(np.float32))


class CondNet(tf.Module):
    """IF: a conv stem; if the input's first 4 channels have a larger mean than its last
    4, the 'then' branch (two 3x3 convs, ReLU) runs, otherwise the 'else' branch (a 1x1
    conv, sigmoid, a 3x3 conv); a residual add and a 3x3 conv head. 32x32x8 input.
    (Random inputs of seeds 0 and 1, from scripts/tflite/tflm.py's random_inputs, take
    different branches, in float32 and in int8.)"""

    SHAPE = (32, 32, 8)

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.w0 = _var(rng, (3, 3, 8, 16), 0.15)
        self.w1 = _var(rng, (3, 3, 16, 32), 0.1)
        self.w2 = _var(rng, (3, 3, 32, 16), 0.08)
        self.w3 = _var(rng, (1, 1, 16, 32), 0.25)
        self.w4 = _var(rng, (3, 3, 32, 16), 0.08)
        self.w5 = _var(rng, (3, 3, 16, 8), 0.1)

    @tf.function(input_signature=[tf.TensorSpec((1,) + SHAPE, tf.float32)])
    def __call__(self, x):
        h = tf.nn.relu(tf.nn.conv2d(x, self.w0, 1, "SAME"))

        def then():
            y = tf.nn.relu(tf.nn.conv2d(h, self.w1, 1, "SAME"))
            return tf.nn.relu(tf.nn.conv2d(y, self.w2, 1, "SAME"))

        def other():
            y = tf.nn.sigmoid(tf.nn.conv2d(h, self.w3, 1, "SAME"))
            return tf.nn.conv2d(y, self.w4, 1, "SAME")

        first_half_larger = tf.reduce_mean(x[..., :4]) > tf.reduce_mean(x[..., 4:])
        y = tf.cond(first_half_larger, then, other)
        return tf.nn.conv2d(y + h, self.w5, 1, "SAME")


class WhileNet(tf.Module):
    """WHILE: a conv stem, then a loop that applies a residual 3x3-conv block four times
    (the loop condition and body are subgraphs), then a 3x3 conv head. 32x32x8 input."""

    SHAPE = (32, 32, 8)

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.w0 = _var(rng, (3, 3, 8, 16), 0.15)
        self.w1 = _var(rng, (3, 3, 16, 32), 0.1)
        self.w2 = _var(rng, (3, 3, 32, 16), 0.08)
        self.w3 = _var(rng, (3, 3, 16, 8), 0.1)

    @tf.function(input_signature=[tf.TensorSpec((1,) + SHAPE, tf.float32)])
    def __call__(self, x):
        h = tf.nn.relu(tf.nn.conv2d(x, self.w0, 1, "SAME"))

        def body(i, h):
            y = tf.nn.relu(tf.nn.conv2d(h, self.w1, 1, "SAME"))
            y = tf.nn.conv2d(y, self.w2, 1, "SAME")
            return i + 1, tf.nn.relu(h + 0.5 * y)

        _, h = tf.while_loop(lambda i, h: i < 4, body, [tf.constant(0), h])
        return tf.nn.conv2d(h, self.w3, 1, "SAME")


class StreamingNet(tf.Module):
    """A streaming keyword spotter with its state in a tf.Variable: each invoke takes one
    frame of 40 features, shifts it into a ring buffer of the last 8 frames (the variable:
    CALL_ONCE initialises it, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE keep it across
    invokes), and classifies the window with two 3-tap Conv1D (32 channels, ReLU) and a
    dense layer with softmax (12 classes). Two subgraphs: main and CALL_ONCE's init."""

    SHAPE = (1, 40)
    FRAMES = 8
    # The converter keeps the variable as resource variables (else it refuses it).
    RESOURCE_VARIABLES = True

    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.ring = tf.Variable(tf.zeros((1, self.FRAMES, 40)), name="ring")
        self.w1 = _var(rng, (3, 40, 32), 0.15)
        self.w2 = _var(rng, (3, 32, 32), 0.1)
        self.w3 = _var(rng, (32 * (self.FRAMES - 4), 12), 0.1)

    @tf.function(input_signature=[tf.TensorSpec((1,) + SHAPE, tf.float32)])
    def __call__(self, frame):
        window = tf.concat([self.ring[:, 1:, :], frame], axis=1)
        self.ring.assign(window)
        h = tf.nn.relu(tf.nn.conv1d(window, self.w1, 1, "VALID"))
        h = tf.nn.relu(tf.nn.conv1d(h, self.w2, 1, "VALID"))
        return tf.nn.softmax(tf.matmul(tf.reshape(h, (1, -1)), self.w3))


def convert_module(cls, dtype, seed):
    m = cls(seed)
    c = tf.lite.TFLiteConverter.from_concrete_functions([m.__call__.get_concrete_function()], m)
    c.experimental_enable_resource_variables = getattr(cls, "RESOURCE_VARIABLES", False)
    return convert(c, dtype, [cls.SHAPE], seed)


# ---------------------------------------------------------------------------------------

KERAS_MODELS = {
    "vww_mobilenet_v1": (vww_mobilenet_v1, 1),
    "kws_ds_cnn": (kws_ds_cnn, 2),
    "ic_resnet8": (ic_resnet8, 3),
    "ad_autoencoder": (ad_autoencoder, 4),
    "densenet": (densenet, 5),
    "inception": (inception, 6),
    "fpn_detector": (fpn_detector, 7),
    "unet": (unet, 10),
    "mobilenet_v3_small": (mobilenet_v3_small, 12),
    "gated_cnn": (gated_cnn, 13),
    "mobilenet_v2": (mobilenet_v2, 14),
}
# Models converted to these dtypes only (their float32 files are over 1 MB).
ONLY_DTYPES = {"mobilenet_v3_small": ("int8",), "mobilenet_v2": ("int8",)}
MODULES = {
    "cond_if": (CondNet, 8),
    "while_loop": (WhileNet, 9),
    "streaming_kws": (StreamingNet, 11),
}
DTYPES = ("float32", "int8")


def first_line(doc):
    return " ".join(doc.split())


def build(name, dtype):
    """(bytes, description) of one model."""
    if name in KERAS_MODELS:
        fn, seed = KERAS_MODELS[name]
        keras.backend.clear_session()
        keras.utils.set_random_seed(seed)
        model = fn()
        make_alive(model, tuple(model.inputs[0].shape[1:]), seed)
        return convert_keras(model, dtype, seed), first_line(fn.__doc__)
    cls, seed = MODULES[name]
    keras.utils.set_random_seed(seed)
    return convert_module(cls, dtype, seed), first_line(cls.__doc__)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--only", help="comma-separated model names (without the dtype)")
    args = ap.parse_args(argv)
    tf.config.experimental.enable_op_determinism()
    names = list(KERAS_MODELS) + list(MODULES)
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - set(names)
        if unknown:
            ap.error(f"unknown models {sorted(unknown)}; known: {names}")
        names = [n for n in names if n in wanted]
    os.makedirs(args.outdir, exist_ok=True)
    manifest_path = os.path.join(args.outdir, "models.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = {m["name"]: m for m in json.load(f)["models"]}
    # The control-flow models first, and all of them even when not wanted: their subgraph
    # and tensor names carry TensorFlow's process-wide function counter
    # ("cond_true_290"), so the same bytes need the same sequence of conversions.
    for name in list(MODULES) + [n for n in KERAS_MODELS if n in names]:
        for dtype in ONLY_DTYPES.get(name, DTYPES):
            b, desc = build(name, dtype)
            if name not in names:
                continue
            full = f"{name}_{dtype}"
            with open(os.path.join(args.outdir, full + ".tflite"), "wb") as f:
                f.write(b)
            manifest[full] = dict(
                name=full,
                file=full + ".tflite",
                model=name,
                dtype=dtype,
                description=desc,
                bytes=len(b),
                sha256=hashlib.sha256(b).hexdigest(),
            )
            print(f"{full:28s} {len(b):9d} bytes", flush=True)
    order = [f"{n}_{d}" for n in list(KERAS_MODELS) + list(MODULES) for d in DTYPES]
    with open(manifest_path, "w") as f:
        json.dump(
            dict(
                generator="scripts/tflite/make_models.py",
                tensorflow=tf.__version__,
                keras=keras.__version__,
                models=[manifest[n] for n in order if n in manifest],
            ),
            f,
            indent=1,
        )
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
