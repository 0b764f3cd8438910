"""Deterministic test inputs: pools of vectors, predicates and scalars (edge patterns first,
then random), and per-intrinsic case lists that index into them. Same seed, same cases, on
every machine: Python's Mersenne Twister seeded with an int is stable across versions."""
import random
import struct
import zlib

VBYTES = 128
SEED = 0x48565821  # "HVX!"


def _lanes(values, width):
    fmt = {1: "<B", 2: "<H", 4: "<I"}[width]
    out = b""
    i = 0
    while len(out) < VBYTES:
        out += struct.pack(fmt, values[i % len(values)] & ((1 << (8 * width)) - 1))
        i += 1
    return out


def _edge_vectors():
    """(label, bytes): zero, all ones, saturation and sign boundaries per lane width, ramps
    (permute/lut indices) and small values (shift amounts)."""
    i32 = lambda x: x & 0xFFFFFFFF
    return [
        ("zero", bytes(VBYTES)),
        ("ones", b"\xff" * VBYTES),
        ("b01", _lanes([0x01], 1)),
        ("b7f", _lanes([0x7F], 1)),
        ("b80", _lanes([0x80], 1)),
        ("h7fff", _lanes([0x7FFF], 2)),
        ("h8000", _lanes([0x8000], 2)),
        ("w7fffffff", _lanes([0x7FFFFFFF], 4)),
        ("w80000000", _lanes([0x80000000], 4)),
        ("bmix", _lanes([0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x81, 0x02, 0x40, 0xC0], 1)),
        ("hmix", _lanes([0, 1, 0xFFFF, 0x7FFF, 0x8000, 0x8001, 0x7FFE, 0x00FF, 0xFF00, 0x0080, 0x4000], 2)),
        ("wmix", _lanes([0, 1, i32(-1), 0x7FFFFFFF, 0x80000000, 0x80000001, 0x7FFFFFFE, 0x0000FFFF,
                         0xFFFF0000, 0x00008000, 0x7FFF8000, 0x00010000, 0x40000000], 4)),
        ("ramp", bytes(range(VBYTES))),
        ("ramp_rev", bytes(range(VBYTES - 1, -1, -1))),
        ("bsmall", _lanes(list(range(9)), 1)),
        ("hsmall", _lanes(list(range(17)), 2)),
        ("wsmall", _lanes(list(range(33)), 4)),
    ]


def _edge_preds():
    """Predicates as vectors of 0/1 bytes (one bit per vector byte)."""
    return [
        ("q0", bytes(VBYTES)),
        ("q1", b"\x01" * VBYTES),
        ("qb_alt", _lanes([1, 0], 1)),
        ("qh_alt", _lanes([0x0101, 0], 2)),
        ("qw_alt", _lanes([0x01010101, 0], 4)),
        ("qhalf", b"\x01" * (VBYTES // 2) + bytes(VBYTES // 2)),
        ("qlast", bytes(VBYTES - 1) + b"\x01"),
    ]


EDGE_SCALARS = [0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x7F7F7F7F, 0x80808080, 0x01010101,
                0x00010001, 0x7FFF7FFF, 0x80008000, 0xFFFF0000, 0x0000FFFF, 0x01020304, 2, 3, 4, 5,
                7, 8, 15, 16, 31, 32, 33, 63, 64, 127, 128, 255, 256, 0xFFFFFF80]


class Pools:
    def __init__(self, n_random_vectors=40, n_random_preds=9, n_random_scalars=16):
        rng = random.Random(SEED)
        self.vectors = _edge_vectors()
        self.n_edge_vectors = len(self.vectors)
        for i in range(n_random_vectors):
            if i % 4 == 3:
                # Random lanes drawn mostly from boundary values of a random lane width.
                width = (1, 2, 4)[i % 3]
                hot = [0, 1, (1 << (8 * width - 1)) - 1, 1 << (8 * width - 1), (1 << (8 * width)) - 1]
                vals = [rng.choice(hot) if rng.random() < 0.6 else rng.getrandbits(8 * width)
                        for _ in range(VBYTES // width)]
                self.vectors.append((f"rnd_edge{i}", _lanes(vals, width)))
            else:
                self.vectors.append((f"rnd{i}", bytes(rng.getrandbits(8) for _ in range(VBYTES))))
        self.preds = _edge_preds()
        self.n_edge_preds = len(self.preds)
        for i in range(n_random_preds):
            width = (1, 2, 4)[i % 3]  # random per byte, per halfword and per word lanes
            vals = [rng.getrandbits(1) * ((1 << (8 * width)) - 1) // 255 for _ in range(VBYTES // width)]
            self.preds.append((f"qrnd{width}_{i}", _lanes(vals, width)))
        self.scalars = list(EDGE_SCALARS)
        self.n_edge_scalars = len(self.scalars)
        self.scalars += [rng.getrandbits(32) for _ in range(n_random_scalars)]


def slots_of(kind):
    """How many pool indices an operand of this kind takes."""
    return {"V": 1, "W": 2, "Q": 1, "QP": 1, "R": 1, "P": 2, "I1": 1, "I2": 1, "I3": 1, "A": 0}[kind]


def make_cases(name, arg_kinds, pools, n_edge=17, n_mixed=16, n_random=24):
    """Case list for one intrinsic: a list of tuples, one int per slot (see slots_of).
    Edge cases combine edge patterns, mixed ones put one edge operand among random ones,
    random ones draw from the whole pools. Immediates sweep all their values."""
    rng = random.Random(zlib.crc32(name.encode()) ^ SEED)
    imm_values = [1 << int(k[1:]) for k in arg_kinds if k.startswith("I")]

    def pick(kind, j, mode):
        if kind in ("V", "W"):
            n = 2 if kind == "W" else 1
            if mode == "edge":
                return [(case_no + 5 * j + 3 * t) % pools.n_edge_vectors for t in range(n)]
            return [rng.randrange(len(pools.vectors)) for _ in range(n)]
        if kind in ("Q", "QP"):
            if mode == "edge":
                return [(case_no + j) % pools.n_edge_preds]
            return [rng.randrange(len(pools.preds))]
        if kind in ("R", "P"):
            n = 2 if kind == "P" else 1
            if mode == "edge":
                return [(case_no * 2 + 3 * j + t) % pools.n_edge_scalars for t in range(n)]
            return [rng.randrange(len(pools.scalars)) for _ in range(n)]
        if kind.startswith("I"):
            return [0]  # filled in by the immediate sweep below
        return []

    base = []
    for case_no in range(n_edge + n_mixed + n_random):
        if case_no < n_edge:
            modes = ["edge"] * len(arg_kinds)
        elif case_no < n_edge + n_mixed:
            hot = case_no % max(1, len(arg_kinds))
            modes = ["edge" if j == hot else "random" for j in range(len(arg_kinds))]
        else:
            modes = ["random"] * len(arg_kinds)
        slots = []
        for j, kind in enumerate(arg_kinds):
            slots += pick(kind, j, modes[j])
        base.append(tuple(slots))
        if not arg_kinds:
            break  # no operands: one case says it all
    if not imm_values:
        return base
    # Sweep every immediate value over the cases (immediates are the last operands).
    imm_pos = [i for i, k in enumerate(_flat_kinds(arg_kinds)) if k.startswith("I")]
    cases = []
    for c, slots in enumerate(base[: max(16, len(base) // imm_values[0])]):
        for v in range(imm_values[0]):
            s = list(slots)
            s[imm_pos[0]] = v
            cases.append(tuple(s))
    return cases


def _flat_kinds(arg_kinds):
    out = []
    for k in arg_kinds:
        out += [k] * slots_of(k)
    return out
