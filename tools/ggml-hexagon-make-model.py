#!/usr/bin/env python3
"""Writes a GGUF llama-architecture model with random weights and the shapes of a real model.

Default: Llama-2-7B's shapes (n_embd 4096, 32 layers, 32 heads, n_ff 11008, vocab 32000),
Q4_0 matrices (token embedding and a separate output matrix included), F32 norms: a
3.79e9-byte file, larger than an NPU session's 32-bit window (~3.5 GiB), for the large-model
tests and benchmark (issue 18). Smaller shapes (--n-embd, --n-layer, ...) make quick models.

Pure Python, standard library only (no numpy, no gguf-py): the GGUF v3 writer is below.
Weights come from SHAKE-128 seeded by --seed and the tensor's name, so a file is the same on
every machine. Scales are chosen so that activations stay of order one through all layers
(each matrix keeps its input's RMS, logits have an RMS of about 2).

The file goes to DIR/NAME (default ~/.cache/ggml-hexagon/models/, a name with the shape and
the seed; GGML_HEXAGON_CACHE moves the cache), written to a temporary file and renamed; a file
already there with the expected size is kept. The path is printed on stdout.

examples:
  tools/ggml-hexagon-make-model.py                      # the 3.8 GB Llama-2-7B-shaped model
  tools/ggml-hexagon-make-model.py --print-path         # its path (and size on stderr), no writing
  tools/ggml-hexagon-make-model.py --n-embd 256 --n-layer 2 --n-head 4 --n-ff 512 --n-vocab 512
  # Qwen3-4B's shapes (head size 128, not n_embd / n_head; no q/k norms: llama architecture)
  tools/ggml-hexagon-make-model.py --n-embd 2560 --n-layer 36 --n-head 32 --n-head-kv 8 --head-dim 128 \
      --n-ff 9728 --n-vocab 151936 --tied
  # OLMoE-1B-7B's shapes (64 experts of n_ff 1024, 8 used per token; llama architecture)
  tools/ggml-hexagon-make-model.py --n-embd 2048 --n-layer 16 --n-head 16 --n-ff 1024 --n-expert 64 \
      --n-expert-used 8 --n-vocab 50304
"""

import argparse
import hashlib
import os
import struct
import sys
import tempfile
import time

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
ALIGNMENT = 32

# gguf value types
T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, T_ARRAY = 4, 5, 6, 7, 8, 9
# ggml tensor types
GGML_F32, GGML_Q4_0 = 0, 2
LLAMA_FTYPE_MOSTLY_Q4_0 = 2
QK4_0, Q4_0_BYTES = 32, 18  # elements per block; bytes per block (f16 scale + 16 nibble bytes)

# SentencePiece token types (llama.cpp's llama_token_type)
TOK_NORMAL, TOK_UNKNOWN, TOK_CONTROL, TOK_BYTE = 1, 2, 3, 6

# The nibble distribution: a nibble q stands for q - 8; 0 is mapped to 8, so the values are
# -7..7 with 0 twice as likely, symmetric (mean 0, variance 17.5 / 1): no common bias that
# would add the same rank-one component to every output row.
NIB = [8] + list(range(1, 16))
NIBBLE_TABLE = bytes(NIB[b & 15] | (NIB[b >> 4] << 4) for b in range(256))
Q_VAR = sum((n - 8) ** 2 for n in NIB) / 16.0  # 17.5
# Per-block scales: 16 steps from 0.5 to 1.5 times the tensor's base scale, picked at random,
# so that a kernel reading the wrong block's scale shows up in the logits.
SCALE_STEPS = [0.5 + i / 15.0 for i in range(16)]
SCALE_MEAN_SQ = sum(s * s for s in SCALE_STEPS) / 16.0


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def die(msg):
    print(f"ggml-hexagon-make-model: error: {msg}", file=sys.stderr)
    sys.exit(2)


def shake(seed, name, n):
    return hashlib.shake_128(f"ggml-hexagon-make-model/{seed}/{name}".encode()).digest(n)


# ---------------------------------------------------------------- GGUF metadata encoding
def enc_str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def enc_kv(key, vtype, value):
    out = enc_str(key) + struct.pack("<I", vtype)
    if vtype == T_UINT32:
        out += struct.pack("<I", value)
    elif vtype == T_INT32:
        out += struct.pack("<i", value)
    elif vtype == T_FLOAT32:
        out += struct.pack("<f", value)
    elif vtype == T_BOOL:
        out += struct.pack("<?", value)
    elif vtype == T_STRING:
        out += enc_str(value)
    else:
        raise ValueError(vtype)
    return out


def enc_array(key, etype, values):
    out = enc_str(key) + struct.pack("<IIQ", T_ARRAY, etype, len(values))
    if etype == T_STRING:
        out += b"".join(enc_str(v) for v in values)
    elif etype == T_FLOAT32:
        out += struct.pack(f"<{len(values)}f", *values)
    elif etype == T_INT32:
        out += struct.pack(f"<{len(values)}i", *values)
    else:
        raise ValueError(etype)
    return out


def make_vocab(n_vocab):
    """A SentencePiece ("llama") vocab: <unk>, <s>, </s>, the 256 byte tokens, then normal
    pieces (single characters, '▁'-prefixed words, letter pairs and triples) with scores that
    prefer earlier (shorter) pieces, as SentencePiece's do."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [TOK_UNKNOWN, TOK_CONTROL, TOK_CONTROL] + [TOK_BYTE] * 256
    letters = "abcdefghijklmnopqrstuvwxyz"
    pieces = ["\u2581"] + [chr(c) for c in range(33, 127)]
    pieces += ["\u2581" + c for c in letters + letters.upper()]
    pairs = [a + b for a in letters for b in letters]
    pieces += ["\u2581" + p for p in pairs] + pairs
    triples = [a + b + c for a in letters for b in letters for c in letters]
    pieces += ["\u2581" + t for t in triples] + triples
    need = n_vocab - len(tokens)
    if need > len(pieces):
        pieces += [f"\u2581w{i}" for i in range(need - len(pieces))]
    tokens += pieces[:need]
    types += [TOK_NORMAL] * need
    scores = [0.0] * 259 + [-float(i) for i in range(need)]
    return tokens, scores, types


# ---------------------------------------------------------------- tensors
class Tensor:
    def __init__(self, name, ne, gtype, scale):
        self.name, self.ne, self.gtype, self.scale = name, ne, gtype, scale
        n = 1
        for d in ne:
            n *= d
        self.n = n
        self.nbytes = n * 4 if gtype == GGML_F32 else n // QK4_0 * Q4_0_BYTES

    def data(self, seed):
        if self.gtype == GGML_F32:  # norm weights: uniform in [0.75, 1.25]
            raw = shake(seed, self.name, self.n * 2)
            vals = struct.unpack(f"<{self.n}H", raw)
            return struct.pack(f"<{self.n}f", *(0.75 + v / 131070.0 for v in vals))
        nb = self.n // QK4_0
        buf = bytearray(shake(seed, self.name, nb * Q4_0_BYTES).translate(NIBBLE_TABLE))
        # bytes 0..1 of every block: the f16 scale, one of 16 steps picked by the block's byte 0
        idx = bytes(buf[0::Q4_0_BYTES])
        bits = [f16_bits(self.scale * s) for s in SCALE_STEPS]
        lo = bytes(bits[b & 15] & 0xFF for b in range(256))
        hi = bytes(bits[b & 15] >> 8 for b in range(256))
        buf[0::Q4_0_BYTES] = idx.translate(lo)
        buf[1::Q4_0_BYTES] = idx.translate(hi)
        return buf


def q4_scale(rms):
    """Base block scale d for Q4_0 weights of the given element RMS."""
    return rms / (Q_VAR * SCALE_MEAN_SQ) ** 0.5


def tensors_for(a):
    e, ff, v = a.n_embd, a.n_ff, a.n_vocab
    q, kv = a.head_dim * a.n_head, a.head_dim * a.n_head_kv
    # a matrix with K inputs whose elements have an RMS of 1/sqrt(K) keeps its input's RMS
    mat = lambda name, k, n, gain=1.0: Tensor(name, [k, n], GGML_Q4_0, q4_scale(gain / k ** 0.5))
    # one matrix per expert, stacked (llama.cpp's ffn_*_exps: [K, N, n_expert])
    exps = lambda name, k, n, gain=1.0: Tensor(name, [k, n, a.n_expert], GGML_Q4_0, q4_scale(gain / k ** 0.5))
    g = a.branch_gain
    ts = [Tensor("token_embd.weight", [e, v], GGML_Q4_0, q4_scale(1.0))]
    for i in range(a.n_layer):
        p = f"blk.{i}."
        ts += [Tensor(p + "attn_norm.weight", [e], GGML_F32, 0),
               mat(p + "attn_q.weight", e, q), mat(p + "attn_k.weight", e, kv),
               mat(p + "attn_v.weight", e, kv), mat(p + "attn_output.weight", q, e, g),
               Tensor(p + "ffn_norm.weight", [e], GGML_F32, 0)]
        if a.n_expert:  # the router stays F32, as llama.cpp's quantizer leaves ffn_gate_inp
            ts += [Tensor(p + "ffn_gate_inp.weight", [e, a.n_expert], GGML_F32, 0),
                   exps(p + "ffn_gate_exps.weight", e, ff), exps(p + "ffn_up_exps.weight", e, ff),
                   exps(p + "ffn_down_exps.weight", ff, e, g)]
        else:
            ts += [mat(p + "ffn_gate.weight", e, ff), mat(p + "ffn_up.weight", e, ff),
                   mat(p + "ffn_down.weight", ff, e, g)]
    ts.append(Tensor("output_norm.weight", [e], GGML_F32, 0))
    if not a.tied:
        ts.append(Tensor("output.weight", [e, v], GGML_Q4_0, q4_scale(2.0 / e ** 0.5)))
    return ts


def metadata(a):
    tokens, scores, types = make_vocab(a.n_vocab)
    head_dim = a.head_dim
    kvs = [enc_kv("general.architecture", T_STRING, "llama"),
           enc_kv("general.name", T_STRING, f"random llama e{a.n_embd} l{a.n_layer} seed {a.seed}"),
           enc_kv("general.file_type", T_UINT32, LLAMA_FTYPE_MOSTLY_Q4_0),
           enc_kv("general.alignment", T_UINT32, ALIGNMENT),
           enc_kv("llama.context_length", T_UINT32, a.n_ctx),
           enc_kv("llama.embedding_length", T_UINT32, a.n_embd),
           enc_kv("llama.block_count", T_UINT32, a.n_layer),
           enc_kv("llama.feed_forward_length", T_UINT32, a.n_ff),
           enc_kv("llama.attention.head_count", T_UINT32, a.n_head),
           enc_kv("llama.attention.head_count_kv", T_UINT32, a.n_head_kv),
           enc_kv("llama.rope.dimension_count", T_UINT32, head_dim),
           enc_kv("llama.rope.freq_base", T_FLOAT32, 10000.0),
           enc_kv("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, 1e-5),
           enc_kv("llama.vocab_size", T_UINT32, a.n_vocab),
           enc_kv("tokenizer.ggml.model", T_STRING, "llama"),
           enc_array("tokenizer.ggml.tokens", T_STRING, tokens),
           enc_array("tokenizer.ggml.scores", T_FLOAT32, scores),
           enc_array("tokenizer.ggml.token_type", T_INT32, types),
           enc_kv("tokenizer.ggml.unknown_token_id", T_UINT32, 0),
           enc_kv("tokenizer.ggml.bos_token_id", T_UINT32, 1),
           enc_kv("tokenizer.ggml.eos_token_id", T_UINT32, 2),
           enc_kv("tokenizer.ggml.add_bos_token", T_BOOL, True),
           enc_kv("tokenizer.ggml.add_eos_token", T_BOOL, False)]
    if head_dim != a.n_embd // a.n_head:  # only then: dense llama files stay byte-identical
        kvs += [enc_kv("llama.attention.key_length", T_UINT32, head_dim),
                enc_kv("llama.attention.value_length", T_UINT32, head_dim)]
    if a.n_expert:
        kvs += [enc_kv("llama.expert_count", T_UINT32, a.n_expert),
                enc_kv("llama.expert_used_count", T_UINT32, a.n_expert_used)]
    return kvs


def pad(n):
    return (ALIGNMENT - n % ALIGNMENT) % ALIGNMENT


def layout(a):
    """-> (header bytes incl. padding, tensors with offsets, total file size)"""
    ts = tensors_for(a)
    kvs = metadata(a)
    infos, off = [], 0
    for t in ts:
        t.offset = off
        infos.append(enc_str(t.name) + struct.pack(f"<I{len(t.ne)}QIQ", len(t.ne), *t.ne, t.gtype, off))
        off += t.nbytes + pad(t.nbytes)
    head = GGUF_MAGIC + struct.pack("<IQQ", GGUF_VERSION, len(ts), len(kvs)) + b"".join(kvs) + b"".join(infos)
    head += b"\0" * pad(len(head))
    return head, ts, len(head) + off


def default_name(a):
    # the head size and the experts appear only when they differ from a dense llama's
    hd = f"-hd{a.head_dim}" if a.head_dim != a.n_embd // a.n_head else ""
    moe = f"-x{a.n_expert}u{a.n_expert_used}" if a.n_expert else ""
    return (f"llama-random-e{a.n_embd}-l{a.n_layer}-h{a.n_head}-kv{a.n_head_kv}{hd}-ff{a.n_ff}{moe}-v{a.n_vocab}"
            f"-{'tied' if a.tied else 'untied'}-g{a.branch_gain:g}-q4_0-seed{a.seed}.gguf")


class OneLineErrors(argparse.ArgumentParser):
    def error(self, message):
        die(f"{message} (see --help)")


def parse_args(argv):
    cache = os.environ.get("GGML_HEXAGON_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ggml-hexagon")
    p = OneLineErrors(
        prog="ggml-hexagon-make-model.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--n-embd", type=int, default=4096, help="embedding length (default 4096)")
    p.add_argument("--n-layer", type=int, default=32, help="layers (default 32)")
    p.add_argument("--n-head", type=int, default=32, help="attention heads (default 32)")
    p.add_argument("--n-head-kv", type=int, default=None, help="KV heads (default: --n-head, no GQA)")
    p.add_argument("--n-ff", type=int, default=11008,
                   help="feed-forward length (default 11008); with --n-expert, each expert's")
    p.add_argument("--head-dim", type=int, default=None,
                   help="attention head size (default n_embd / n_head; Qwen3-4B: 128 with n_embd 2560)")
    p.add_argument("--n-expert", type=int, default=0,
                   help="mixture of experts: experts per layer (default 0: a dense FFN)")
    p.add_argument("--n-expert-used", type=int, default=0,
                   help="experts each token uses (with --n-expert; default n_expert / 8, at least 1)")
    p.add_argument("--n-vocab", type=int, default=32000, help="vocabulary size (default 32000, at least 260)")
    p.add_argument("--n-ctx", type=int, default=4096, help="training context length in the metadata (default 4096)")
    p.add_argument("--tied", action="store_true", help="no output.weight: the output reuses the token embedding")
    p.add_argument("--branch-gain", type=float, default=0.25,
                   help="RMS of a layer's attention / FFN output relative to its input (default 0.25)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the weights (default 1)")
    p.add_argument("--dir", default=os.path.join(cache, "models"), help="output folder (default %(default)s)")
    p.add_argument("-o", "--output", help="output file (default DIR/NAME with the shape and seed)")
    p.add_argument("--force", action="store_true", help="write even if a file of the right size is there")
    p.add_argument("--print-path", action="store_true", help="print the path (size on stderr) and exit")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    a = p.parse_args(argv)
    if a.n_head_kv is None:
        a.n_head_kv = a.n_head
    for k in ("n_embd", "n_layer", "n_head", "n_head_kv", "n_ff", "n_ctx"):
        if getattr(a, k) <= 0:
            die(f"--{k.replace('_', '-')} must be positive, got {getattr(a, k)}")
    if a.n_expert < 0 or a.n_expert_used < 0:
        die("--n-expert and --n-expert-used must not be negative")
    if a.n_expert_used and not a.n_expert:
        die("--n-expert-used needs --n-expert")
    if a.n_expert and not a.n_expert_used:
        a.n_expert_used = max(1, a.n_expert // 8)
    if a.n_expert_used > a.n_expert:
        die(f"--n-expert-used ({a.n_expert_used}) must be at most --n-expert ({a.n_expert})")
    if a.head_dim is None:
        if a.n_embd % a.n_head:
            die(f"--n-embd ({a.n_embd}) must be a multiple of --n-head ({a.n_head}) (or give --head-dim)")
        a.head_dim = a.n_embd // a.n_head
    if a.head_dim <= 0 or a.head_dim % 2:
        die(f"--head-dim must be positive and even (rope), got {a.head_dim}")
    if not 0 < a.branch_gain <= 4:
        die(f"--branch-gain must be in (0, 4], got {a.branch_gain}")
    if a.n_embd % QK4_0 or a.n_ff % QK4_0:
        die(f"--n-embd ({a.n_embd}) and --n-ff ({a.n_ff}) must be multiples of {QK4_0} (Q4_0 blocks)")
    if a.n_head % a.n_head_kv:
        die(f"--n-head ({a.n_head}) must be a multiple of --n-head-kv ({a.n_head_kv})")
    if (a.head_dim * a.n_head_kv) % QK4_0 or (a.head_dim * a.n_head) % QK4_0:
        die(f"Q and KV widths {a.head_dim * a.n_head}, {a.head_dim * a.n_head_kv} must be multiples of {QK4_0}")
    if a.n_vocab < 260:
        die(f"--n-vocab must be at least 260 (<unk>, <s>, </s>, 256 byte tokens, one piece), got {a.n_vocab}")
    return a


def main(argv):
    a = parse_args(argv)
    path = a.output or os.path.join(a.dir, default_name(a))
    head, ts, size = layout(a)
    if a.print_path:
        print(f"{size} bytes ({size / 2**30:.2f} GiB), {len(ts)} tensors", file=sys.stderr)
        print(path)
        return 0
    say = (lambda *m: None) if a.quiet else (lambda *m: print("ggml-hexagon-make-model:", *m, file=sys.stderr))
    if not a.force and os.path.isfile(path) and os.path.getsize(path) == size:
        say(f"{path} is there with the expected {size} bytes: kept")
        print(path)
        return 0
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".make-model-", suffix=".tmp", dir=folder)
    except OSError as e:
        die(f"cannot write in {folder}: {e.strerror}")
    say(f"writing {path}: {size} bytes ({size / 2**30:.2f} GiB), {len(ts)} tensors, seed {a.seed}")
    t0, done = time.time(), 0
    last = t0
    try:
        with os.fdopen(fd, "wb", buffering=0) as f:
            f.write(head)
            for t in ts:
                f.write(t.data(a.seed))
                f.write(b"\0" * pad(t.nbytes))
                done += t.nbytes
                if time.time() - last > 5:
                    last = time.time()
                    say(f"  {done / 2**20:8.0f} MiB  {done / max(last - t0, 1e-9) / 2**20:.0f} MiB/s")
        if os.path.getsize(tmp) != size:
            raise OSError(0, f"wrote {os.path.getsize(tmp)} bytes, expected {size}")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):
            die(f"writing {path} failed: {e.strerror or e}")
        raise
    say(f"done in {time.time() - t0:.1f} s")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
