#!/usr/bin/python3
"""Generates a tiny random-weight BERT (hidden 32, 2 layers, 2 heads, ~1000 WordPiece vocab) as a Hugging Face
feature-extraction model folder that transformers.js can load with no network:
  <out>/config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx, onnx/model_quantized.onnx
The quantized file stores every weight matrix as uint8 with a DequantizeLinear node (per-tensor scale), so it is a
genuinely different, smaller file that computes nearly the same function. Weights come from a fixed seed: the
output is byte-identical on every run. Needs Debian's python3-onnx (run with /usr/bin/python3).
Usage: /usr/bin/python3 test/support/make-tiny-bert.py <out-dir>
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN = 32
LAYERS = 2
HEADS = 2
FFN = 64
MAX_POS = 128
VOCAB_TARGET = 1000
SEED = 1234

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = """the of and to a in is was for on that with as by at from his her it an were are which this be or has
had not but also their its first after one two new who they he she been have more other all into than when time
during there over most some city film new world state year years war people would only can school known may where
between made her national both up american united born three later team many under university until while season
album music family such part series second then about called population area county river new north south east
west game company such early son daughter father mother king queen house president country government director
played released band married death died life work best book song football league club party church district town
village american british english french german spanish italian japanese chinese russian india london paris york
capital president minister army navy force member members history center centre large small long high old young
great public water world name named group found found since being what how why director actor actress singer writer
producer author born died father mother brother sister husband wife child children place cat dog kitten car road
bank money stock market price report earnings quarter happy sad red blue green black white light dark day night
year month week morning evening summer winter spring autumn sun moon star earth sea ocean mountain lake island
forest tree flower bird fish horse animal food bread milk wine coffee tea apple house room door window table chair
bed street train plane ship boat station airport hospital doctor teacher student school college library museum
theatre cinema film movie television radio newspaper magazine story poem novel painting picture photo computer
phone internet software science physics chemistry biology mathematics medicine law court judge police crime
prison election vote parliament senate congress king prince princess emperor empire kingdom republic""".split()
SUFFIXES = ["s", "es", "ed", "ing", "er", "ers", "est", "ly", "ion", "tion", "al", "ic", "ity", "ment", "ness"]


def build_vocab():
    vocab = list(SPECIALS)
    seen = set(vocab)

    def add(tok):
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)

    for c in "abcdefghijklmnopqrstuvwxyz0123456789":
        add(c)
        add("##" + c)
    for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~":
        add(c)
    for w in WORDS:
        add(w)
    for s in SUFFIXES:
        add("##" + s)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    for a in letters:
        for b in letters:
            if len(vocab) >= VOCAB_TARGET:
                return vocab
            add("##" + a + b)
    return vocab


def tokenizer_json(vocab):
    ids = {t: i for i, t in enumerate(vocab)}
    special = lambda t: {"id": t, "ids": [ids[t]], "tokens": [t]}  # noqa: E731
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {
                "id": ids[t],
                "content": t,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for t in SPECIALS
        ],
        "normalizer": {
            "type": "BertNormalizer",
            "clean_text": True,
            "handle_chinese_chars": True,
            "strip_accents": None,
            "lowercase": True,
        },
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
            ],
            "pair": [
                {"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                {"Sequence": {"id": "B", "type_id": 1}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 1}},
            ],
            "special_tokens": {"[CLS]": special("[CLS]"), "[SEP]": special("[SEP]")},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": ids,
        },
    }


class Graph:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.n = 0

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def weight(self, name, shape, std):
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * std).astype(np.float32), name))
        return name

    def const(self, name, value, dtype=np.float32):
        self.inits.append(numpy_helper.from_array(np.array(value, dtype=dtype), name))
        return name

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def layer_norm(self, x, prefix):
        g = self.const(prefix + ".gamma", np.ones(HIDDEN))
        b = self.const(prefix + ".beta", np.zeros(HIDDEN))
        mean = self.op("ReduceMean", [x], axes=[-1], keepdims=1)
        d = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Mul", [d, d])], axes=[-1], keepdims=1)
        std = self.op("Sqrt", [self.op("Add", [var, self.const(prefix + ".eps", 1e-12)])])
        return self.op("Add", [self.op("Mul", [self.op("Div", [d, std]), g]), b])

    def linear(self, x, prefix, n_in, n_out):
        w = self.weight(prefix + ".weight", (n_in, n_out), 1.0 / np.sqrt(n_in))
        b = self.weight(prefix + ".bias", (n_out,), 0.02)
        return self.op("Add", [self.op("MatMul", [x, w]), b])


def build_model(vocab_size):
    rng = np.random.RandomState(SEED)
    g = Graph(rng)
    dh = HIDDEN // HEADS
    word = g.weight("embeddings.word", (vocab_size, HIDDEN), 1.0)
    pos = g.weight("embeddings.position", (MAX_POS, HIDDEN), 0.1)
    typ = g.weight("embeddings.token_type", (2, HIDDEN), 0.1)
    seq_len = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const("one_i64", 1, np.int64)], axis=0)
    positions = g.op("Range", [g.const("zero_i64", 0, np.int64), seq_len, g.const("step_i64", 1, np.int64)])
    x = g.op("Add", [g.op("Gather", ["embeddings.word", "input_ids"], axis=0), g.op("Gather", [pos, positions], axis=0)])
    x = g.op("Add", [x, g.op("Gather", [typ, "token_type_ids"], axis=0)])
    assert word == "embeddings.word"
    x = g.layer_norm(x, "embeddings.ln")
    # Additive attention mask: 0 where attention_mask is 1, -10000 where it is 0; shape [B, 1, 1, S].
    m = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [g.const("one_f", 1.0), m]), g.const("neg_big", -10000.0)])
    bias = g.op("Unsqueeze", [bias, g.const("axes_12", [1, 2], np.int64)])
    split_shape = g.const("split_shape", [0, 0, HEADS, dh], np.int64)
    merge_shape = g.const("merge_shape", [0, 0, HIDDEN], np.int64)
    scale = g.const("attn_scale", 1.0 / np.sqrt(dh))
    for layer in range(LAYERS):
        p = f"layer{layer}"
        q = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + ".q", HIDDEN, HIDDEN), split_shape])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + ".k", HIDDEN, HIDDEN), split_shape])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [g.linear(x, p + ".v", HIDDEN, HIDDEN), split_shape])], perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge_shape])
        x = g.layer_norm(g.op("Add", [x, g.linear(ctx, p + ".out", HIDDEN, HIDDEN)]), p + ".ln1")
        h = g.linear(x, p + ".ffn1", HIDDEN, FFN)
        # GELU approximated as x·sigmoid(1.702x): only standard opset-13 operators.
        h = g.op("Mul", [h, g.op("Sigmoid", [g.op("Mul", [h, g.const(p + ".gelu", 1.702)])])])
        x = g.layer_norm(g.op("Add", [x, g.linear(h, p + ".ffn2", FFN, HIDDEN)]), p + ".ln2")
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ints = lambda n: helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])  # noqa: E731
    graph = helper.make_graph(
        g.nodes,
        "tiny_bert",
        [ints("input_ids"), ints("attention_mask"), ints("token_type_ids")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", HIDDEN])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make-tiny-bert")
    model.ir_version = 7  # readable by onnxruntime 1.14 (transformers.js 2.17)
    onnx.checker.check_model(model)
    return model


def quantize(model):
    """Stores every float matrix (rank ≥ 2) as uint8 + per-tensor scale/zero point behind a DequantizeLinear."""
    q = onnx.ModelProto()
    q.CopyFrom(model)
    graph = q.graph
    kept, dequant = [], []
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        if arr.dtype != np.float32 or arr.ndim < 2:
            kept.append(init)
            continue
        lo, hi = float(min(arr.min(), 0.0)), float(max(arr.max(), 0.0))
        scale = (hi - lo) / 255.0 or 1.0
        zero = int(round(-lo / scale))
        qarr = np.clip(np.round(arr / scale) + zero, 0, 255).astype(np.uint8)
        kept += [
            numpy_helper.from_array(qarr, init.name + ".q"),
            numpy_helper.from_array(np.array(scale, dtype=np.float32), init.name + ".scale"),
            numpy_helper.from_array(np.array(zero, dtype=np.uint8), init.name + ".zero"),
        ]
        dequant.append(
            helper.make_node(
                "DequantizeLinear", [init.name + ".q", init.name + ".scale", init.name + ".zero"], [init.name]
            )
        )
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = dequant + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(q)
    return q


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-tiny-bert.py <out-dir>")
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    vocab = build_vocab()
    model = build_model(len(vocab))
    onnx.save(model, os.path.join(out, "onnx", "model.onnx"))
    onnx.save(quantize(model), os.path.join(out, "onnx", "model_quantized.onnx"))
    config = {
        "model_type": "bert",
        "architectures": ["BertModel"],
        "hidden_size": HIDDEN,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "intermediate_size": FFN,
        "max_position_embeddings": MAX_POS,
        "type_vocab_size": 2,
        "vocab_size": len(vocab),
        "pad_token_id": 0,
    }
    tok_config = {
        "tokenizer_class": "BertTokenizer",
        "do_lower_case": True,
        "model_max_length": MAX_POS,
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "unk_token": "[UNK]",
        "mask_token": "[MASK]",
    }
    for name, obj in [
        ("config.json", config),
        ("tokenizer.json", tokenizer_json(vocab)),
        ("tokenizer_config.json", tok_config),
    ]:
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=1, sort_keys=True)
    print(f"make-tiny-bert: wrote {out} (vocab {len(vocab)}, hidden {HIDDEN}, layers {LAYERS})")


if __name__ == "__main__":
    main()
