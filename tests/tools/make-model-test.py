#!/usr/bin/env python3
"""Tests of tools/ggml-hexagon-make-model.py on tiny shapes: its arguments (--help, one-line
errors), the file it writes read back by an independent GGUF parser below (header, metadata,
vocab, tensor infos, alignment, sizes, Q4_0 scales), determinism per seed, the keep / rewrite
rule and the temporary file, and llama.cpp's CPU backend loading the models (MHA untied and GQA
tied) and generating tokens with llama-completion -dev none. The tree's gguf-py reader needs
numpy; where it is missing that one check is skipped (and says so).

usage: make-model-test.py BIN_DIR [LLAMA_SRC]   (BIN_DIR holds llama-completion)"""

import glob
import hashlib
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "ggml-hexagon-make-model.py")
BIN = sys.argv[1] if len(sys.argv) > 1 else None
LLAMA_SRC = sys.argv[2] if len(sys.argv) > 2 else None
TINY = ["--n-embd", "128", "--n-layer", "2", "--n-head", "4", "--n-ff", "320", "--n-vocab", "600"]
GQA_TIED = ["--n-embd", "256", "--n-layer", "3", "--n-head", "8", "--n-head-kv", "2", "--n-ff", "512",
            "--n-vocab", "1000", "--tied"]


def run_tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


class GGUF:
    """A minimal GGUF v3 reader, written from the format's description (not from the writer)."""
    SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        self.pos = 0
        assert self.take(4) == b"GGUF", "magic"
        self.version, n_tensors, n_kv = self.unpack("<IQQ")
        self.kv = {}
        for _ in range(n_kv):
            key = self.string()
            self.kv[key] = self.value(self.unpack("<I")[0])
        self.alignment = self.kv.get("general.alignment", 32)
        self.tensors = []
        for _ in range(n_tensors):
            name = self.string()
            n_dims = self.unpack("<I")[0]
            ne = list(self.unpack(f"<{n_dims}Q"))
            gtype, offset = self.unpack("<IQ")
            self.tensors.append((name, ne, gtype, offset))
        self.data_start = self.pos + (-self.pos % self.alignment)

    def take(self, n):
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v

    def string(self):
        n = self.unpack("<Q")[0]
        return self.take(n).decode("utf-8")

    def value(self, t):
        if t == 8:
            return self.string()
        if t == 9:
            et, n = self.unpack("<IQ")
            return [self.value(et) for _ in range(n)]
        return self.unpack("<" + self.SCALARS[t])[0]


def tensor_bytes(ne, gtype):
    n = math.prod(ne)
    return {0: n * 4, 2: n // 32 * 18}[gtype]


class MakeModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="make-model-test-")
        cls.dir = cls.tmp.name
        r = run_tool(*TINY, "--dir", cls.dir, "-q")
        assert r.returncode == 0, r.stderr
        cls.path = r.stdout.strip()
        r = run_tool(*GQA_TIED, "--dir", cls.dir, "-q", "--seed", "7")
        assert r.returncode == 0, r.stderr
        cls.gqa_path = r.stdout.strip()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_help(self):
        r = run_tool("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("usage:", r.stdout)
        self.assertIn("--n-embd", r.stdout)

    def test_bad_arguments_one_line(self):
        for args in (["--n-embd", "100"], ["--n-embd", "4096", "--n-head", "3"], ["--n-vocab", "12"],
                     ["--n-layer", "0"], ["--n-head", "32", "--n-head-kv", "5"], ["--n-layer", "x"],
                     ["--bogus"], ["--branch-gain", "0"], ["--n-embd", "96", "--n-head", "32"]):
            r = run_tool(*args, "--dir", self.dir)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(r.stdout, "", args)
            lines = r.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, (args, r.stderr))
            self.assertTrue(lines[0].startswith("ggml-hexagon-make-model: error: "), lines[0])

    def test_unwritable_folder_one_line(self):
        blocker = os.path.join(self.dir, "a-file")
        open(blocker, "w").close()
        r = run_tool(*TINY, "--dir", os.path.join(blocker, "sub"))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_name_and_size(self):
        name = os.path.basename(self.path)
        self.assertEqual(name, "llama-random-e128-l2-h4-kv4-ff320-v600-untied-g0.25-q4_0-seed1.gguf")
        r = run_tool(*TINY, "--dir", self.dir, "--print-path")
        self.assertEqual(r.stdout.strip(), self.path)
        size = int(re.match(r"(\d+) bytes", r.stderr).group(1))
        self.assertEqual(os.path.getsize(self.path), size)

    def test_default_is_larger_than_the_window(self):
        r = run_tool("--print-path", "--dir", self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        size = int(re.match(r"(\d+) bytes", r.stderr).group(1))
        self.assertGreater(size, 3.5 * 2**30)  # issue 18: larger than the session's window
        self.assertFalse(os.path.exists(r.stdout.strip()), "--print-path must not write")

    def check_file(self, path, n_embd, n_layer, n_head, n_head_kv, n_ff, n_vocab, tied):
        g = GGUF(path)
        self.assertEqual(g.version, 3)
        kv = g.kv
        self.assertEqual(kv["general.architecture"], "llama")
        self.assertEqual(kv["general.alignment"], 32)
        for key, want in (("embedding_length", n_embd), ("block_count", n_layer), ("attention.head_count", n_head),
                          ("attention.head_count_kv", n_head_kv), ("feed_forward_length", n_ff),
                          ("rope.dimension_count", n_embd // n_head), ("vocab_size", n_vocab)):
            self.assertEqual(kv["llama." + key], want, key)
        self.assertAlmostEqual(kv["llama.attention.layer_norm_rms_epsilon"], 1e-5, places=9)
        self.assertEqual(kv["tokenizer.ggml.model"], "llama")
        toks, scores, types = kv["tokenizer.ggml.tokens"], kv["tokenizer.ggml.scores"], kv["tokenizer.ggml.token_type"]
        self.assertEqual((len(toks), len(scores), len(types)), (n_vocab,) * 3)
        self.assertEqual(toks[:3], ["<unk>", "<s>", "</s>"])
        self.assertEqual(types[:3], [2, 3, 3])
        self.assertEqual(toks[3:259], [f"<0x{b:02X}>" for b in range(256)])
        self.assertEqual(set(types[3:259]), {6})
        self.assertEqual(set(types[259:]), {1})
        self.assertEqual(len(set(toks)), n_vocab, "tokens must be unique")
        self.assertEqual((kv["tokenizer.ggml.unknown_token_id"], kv["tokenizer.ggml.bos_token_id"],
                          kv["tokenizer.ggml.eos_token_id"]), (0, 1, 2))
        # tensors: llama's names and shapes, aligned back to back, the data ending the file
        kvw = n_embd // n_head * n_head_kv
        want = {"token_embd.weight": ([n_embd, n_vocab], 2), "output_norm.weight": ([n_embd], 0)}
        if not tied:
            want["output.weight"] = ([n_embd, n_vocab], 2)
        for i in range(n_layer):
            for name, ne, t in (("attn_norm", [n_embd], 0), ("attn_q", [n_embd, n_embd], 2),
                                ("attn_k", [n_embd, kvw], 2), ("attn_v", [n_embd, kvw], 2),
                                ("attn_output", [n_embd, n_embd], 2), ("ffn_norm", [n_embd], 0),
                                ("ffn_gate", [n_embd, n_ff], 2), ("ffn_up", [n_embd, n_ff], 2),
                                ("ffn_down", [n_ff, n_embd], 2)):
                want[f"blk.{i}.{name}.weight"] = (ne, t)
        self.assertEqual({n: (ne, t) for n, ne, t, _ in g.tensors}, want)
        self.assertEqual(g.data_start % 32, 0)
        end = 0
        for name, ne, t, off in sorted(g.tensors, key=lambda x: x[3]):
            self.assertEqual(off % 32, 0, name)
            self.assertEqual(off, end + (-end % 32), name)
            end = off + tensor_bytes(ne, t)
            blob = g.data[g.data_start + off:g.data_start + end]
            if t == 0:  # norms: uniform in [0.75, 1.25]
                vals = struct.unpack(f"<{len(blob) // 4}f", blob)
                self.assertTrue(all(0.75 <= v <= 1.25 for v in vals), name)
            else:  # Q4_0 scales: positive, finite, several distinct per tensor
                scales = [struct.unpack_from("<e", blob, i)[0] for i in range(0, len(blob), 18)]
                self.assertTrue(all(0 < s < 1 for s in scales), name)
                self.assertGreater(len(set(scales)), 8, name)
        self.assertEqual(g.data_start + end + (-end % 32), len(g.data))

    def test_file_layout(self):
        self.check_file(self.path, 128, 2, 4, 4, 320, 600, tied=False)

    def test_file_layout_gqa_tied(self):
        self.check_file(self.gqa_path, 256, 3, 8, 2, 512, 1000, tied=True)

    def test_seed_determinism(self):
        def sha(p):
            with open(p, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        again = os.path.join(self.dir, "again.gguf")
        other = os.path.join(self.dir, "other.gguf")
        self.assertEqual(run_tool(*TINY, "-o", again, "-q").returncode, 0)
        self.assertEqual(run_tool(*TINY, "-o", other, "-q", "--seed", "2").returncode, 0)
        self.assertEqual(sha(again), sha(self.path))
        self.assertNotEqual(sha(other), sha(self.path))
        self.assertEqual(os.path.getsize(other), os.path.getsize(self.path))

    def test_keep_and_rewrite(self):
        path = os.path.join(self.dir, "keep.gguf")
        self.assertEqual(run_tool(*TINY, "-o", path, "-q").returncode, 0)
        os.utime(path, (1, 1))
        r = run_tool(*TINY, "-o", path)
        self.assertEqual(r.returncode, 0)
        self.assertIn("kept", r.stderr)
        self.assertEqual(os.stat(path).st_mtime, 1, "a file of the right size must be kept")
        with open(path, "r+b") as f:
            f.truncate(1000)
        self.assertEqual(run_tool(*TINY, "-o", path, "-q").returncode, 0)
        self.assertEqual(os.path.getsize(path), os.path.getsize(self.path), "a wrong size must be rewritten")
        self.assertEqual(run_tool(*TINY, "-o", path, "-q", "--force").returncode, 0)
        self.assertNotEqual(os.stat(path).st_mtime, 1)
        self.assertEqual(glob.glob(os.path.join(self.dir, ".make-model-*")), [], "temporary files left")

    def test_gguf_py_reader(self):
        if not LLAMA_SRC:
            self.skipTest("no llama.cpp tree given")
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("the tree's gguf-py reader needs numpy, which is not installed")
        sys.path.insert(0, os.path.join(LLAMA_SRC, "gguf-py"))
        from gguf import GGUFReader
        r = GGUFReader(self.path)
        self.assertEqual(len(r.tensors), 2 * 9 + 3)

    def generate(self, path):
        for tool in ("llama-bench", "llama-completion"):
            self.assertTrue(BIN and os.access(os.path.join(BIN, tool), os.X_OK), f"no {tool} in {BIN}")
        # llama-bench prints its results itself: 4 prompt tokens and 12 generated ones, timed.
        r = subprocess.run([os.path.join(BIN, "llama-bench"), "-m", path, "-dev", "none", "-ngl", "0", "-p", "4",
                            "-n", "12", "-r", "1", "-t", "2", "-o", "json"],
                           capture_output=True, text=True, errors="replace", timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        runs = json.loads(r.stdout)
        self.assertEqual(sorted((t["n_prompt"], t["n_gen"]) for t in runs), [(0, 12), (4, 0)], r.stdout)
        self.assertTrue(all(t["devices"] == "none" and t["avg_ns"] > 0 for t in runs), r.stdout)
        # llama-completion's text and counts go through llama's logger, a leaked singleton whose
        # worker thread writes asynchronously (common/log.cpp, common_log_main): under load the
        # process now and then exits before the worker wrote its last lines (the text and the
        # perf summary). Check them when the summary came, which says the log is whole.
        r = subprocess.run([os.path.join(BIN, "llama-completion"), "-m", path, "-dev", "none", "-ngl", "0",
                            "-p", "Hello world", "-n", "12", "-no-cnv", "--temp", "0", "-c", "128", "-t", "2",
                            "--no-warmup"], capture_output=True, text=True, errors="replace", timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        m = re.search(r"eval time = +[0-9.]+ ms / +(\d+) runs", r.stderr)
        if m:
            self.assertEqual(int(m.group(1)), 11, "12 tokens: the first comes with the prompt")
            self.assertTrue(r.stdout.startswith(" Hello world"), r.stdout)
            self.assertGreater(len(r.stdout), len(" Hello world"))

    def test_llama_cpu_generates(self):
        self.generate(self.path)

    def test_llama_cpu_generates_gqa_tied(self):
        self.generate(self.gqa_path)

    def test_moe_and_head_dim(self):
        """OLMoE- and Qwen3-like shapes: experts stacked per layer with an F32 router, a head size
        that is not n_embd / n_head; metadata and shapes as llama.cpp's llama architecture reads
        them, and llama.cpp generates from the file."""
        path = os.path.join(self.dir, "moe.gguf")
        r = run_tool("--n-embd", "128", "--n-layer", "2", "--n-head", "4", "--n-head-kv", "2", "--head-dim", "64",
                     "--n-ff", "96", "--n-expert", "4", "--n-expert-used", "2", "--n-vocab", "600", "-o", path, "-q")
        self.assertEqual(r.returncode, 0, r.stderr)
        g = GGUF(path)
        kv = g.kv
        self.assertEqual((kv["llama.expert_count"], kv["llama.expert_used_count"]), (4, 2))
        self.assertEqual((kv["llama.attention.key_length"], kv["llama.attention.value_length"],
                          kv["llama.rope.dimension_count"]), (64, 64, 64))
        shapes = {n: (ne, t) for n, ne, t, _ in g.tensors}
        self.assertEqual(shapes["blk.1.attn_q.weight"], ([128, 256], 2))
        self.assertEqual(shapes["blk.1.attn_k.weight"], ([128, 128], 2))
        self.assertEqual(shapes["blk.1.attn_output.weight"], ([256, 128], 2))
        self.assertEqual(shapes["blk.0.ffn_gate_inp.weight"], ([128, 4], 0))
        self.assertEqual(shapes["blk.0.ffn_gate_exps.weight"], ([128, 96, 4], 2))
        self.assertEqual(shapes["blk.0.ffn_down_exps.weight"], ([96, 128, 4], 2))
        self.assertNotIn("blk.0.ffn_gate.weight", shapes)
        name = os.path.basename(run_tool("--n-embd", "128", "--n-head", "4", "--head-dim", "64", "--n-ff", "96",
                                         "--n-expert", "4", "--print-path").stdout.strip())
        self.assertIn("-hd64-ff96-x4u1-", name)  # n_expert_used defaults to n_expert / 8, at least 1
        for args in (["--n-expert-used", "2"], ["--n-expert", "2", "--n-expert-used", "3"], ["--head-dim", "63"]):
            r = run_tool(*TINY, *args, "--dir", self.dir)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args, r.stderr))
        self.generate(path)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
