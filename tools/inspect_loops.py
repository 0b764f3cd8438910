"""The loop finder of ggml-hexagon-inspect.py: the natural loops of a disassembled Hexagon function.

A function (ggml-hexagon-inspect.py's Function: its insns, each with addr, text and packet) is a
graph of packets: the edges are the branches, the fall-throughs and the hardware loops'
:endloop -> loop start. find_loops builds that graph, its dominator tree (Cooper, Harvey,
Kennedy), and then every natural loop: an edge B -> H where H dominates B. Irreducible loops (no
dominating header: hand-written gotos; compilers do not make them) are not found.

Python 3 standard library only; imported from the tool's own folder (installed beside it).
"""

import collections
import re

HWLOOP = re.compile(r"\b(?:sp[123])?loop([01])\(0x([0-9a-f]+)")
BRANCH = re.compile(r"\bjump(?::n?t)?\s+0x([0-9a-f]+)")
UNCOND_JUMP = re.compile(r"^jump\s+0x([0-9a-f]+)$")
EXIT = re.compile(r"^(?:dealloc_return|jumpr\s+r\d+|jumpr:\w+\s+r\d+|dealloc_return:\w+)$")


def packet_graph(insns):
    """The packets in address order (packets: address -> its insns; order; index: address ->
    position), the hardware loops' back edges (hw_edges: :endloop packet -> loop starts) and each
    packet's successors by position (succs)."""
    packets = collections.OrderedDict()
    for insn in insns:
        packets.setdefault(insn.packet, []).append(insn)
    order = list(packets)
    index = {a: i for i, a in enumerate(order)}
    # Hardware loop ends: the first :endloopN packet at or after each loopN start.
    hw_edges = {}
    for insn in insns:
        m = HWLOOP.search(insn.text)
        if m:
            start, which = int(m.group(2), 16), m.group(1)
            for a in order[index.get(start, len(order)):] if start in index else []:
                if any(i.text.startswith(":endloop") and which in i.text[8:] for i in packets[a]):
                    hw_edges.setdefault(a, set()).add(start)
                    break
    succs = []
    for i, a in enumerate(order):
        out = set(hw_edges.get(a, ()))
        falls = True
        for insn in packets[a]:
            m = BRANCH.search(insn.text)
            if m and "jumpr" not in insn.text:
                t = int(m.group(1), 16)
                if t in index:
                    out.add(t)
                if UNCOND_JUMP.match(insn.text):
                    falls = False
            elif EXIT.match(insn.text):
                falls = False
        if falls and i + 1 < len(order):
            out.add(order[i + 1])
        succs.append([index[t] for t in out])
    return packets, order, hw_edges, succs


def immediate_dominators(succs, preds):
    """The immediate dominator of every node reachable from the entry (node 0), from a reverse
    post-order (Cooper, Harvey, Kennedy: iterate to a fixed point)."""
    n = len(succs)
    post, seen, stack = [], [False] * n, [(0, 0)]
    seen[0] = True
    while stack:
        node, k = stack.pop()
        if k < len(succs[node]):
            stack.append((node, k + 1))
            nxt = succs[node][k]
            if not seen[nxt]:
                seen[nxt] = True
                stack.append((nxt, 0))
        else:
            post.append(node)
    rpo_num = {node: i for i, node in enumerate(reversed(post))}
    idom = {0: 0}
    changed = True
    while changed:
        changed = False
        for node in reversed(post):
            if node == 0:
                continue
            cands = [p for p in preds[node] if p in idom]
            if not cands:
                continue
            new = cands[0]
            for p in cands[1:]:
                a, b = p, new
                while a != b:
                    while rpo_num[a] > rpo_num[b]:
                        a = idom[a]
                    while rpo_num[b] > rpo_num[a]:
                        b = idom[b]
                new = a
            if idom.get(node) != new:
                idom[node] = new
                changed = True
    return idom


def dominance_test(idom):
    """dominates(h, b): b lies in h's subtree of the dominator tree. The tree is numbered once
    (entry and exit times of a depth-first walk) instead of walking b's idom chain for every
    edge (that walk was most of the tool's time on a whole library)."""
    children = collections.defaultdict(list)
    for node, parent in idom.items():
        if node != parent:
            children[parent].append(node)
    tin, tout, clock, walk = {}, {}, 0, [(0, False)]
    while walk:
        node, done = walk.pop()
        if done:
            tout[node] = clock
            clock += 1
            continue
        tin[node] = clock
        clock += 1
        walk.append((node, True))
        walk.extend((c, False) for c in children[node])

    def dominates(h, b):
        return h in tin and b in tin and tin[h] <= tin[b] and tout[b] <= tout[h]

    return dominates


def natural_loops(packets, order, hw_edges, succs, preds, idom):
    """(header address, latch's last insn address, how, body packet addresses) of every back
    edge's loop, outermost first for one header."""
    dominates = dominance_test(idom)
    loops = []
    for b in range(len(order)):
        if b not in idom:
            continue
        for h in succs[b]:
            if dominates(h, b):  # rotated loops enter mid-way: the back-edge may point forward
                body, work = {h, b}, ([b] if b != h else [])
                while work:
                    x = work.pop()
                    for p in preds[x]:
                        if p not in body and p in idom:
                            body.add(p)
                            work.append(p)
                how = "hardware loop" if order[h] in hw_edges.get(order[b], ()) else "back-edge"
                loops.append((order[h], packets[order[b]][-1].addr, how, {order[x] for x in body}))
    loops.sort(key=lambda lp: (lp[0], -len(lp[3])))
    return loops


def find_loops(f):
    """Natural loops of the function's packet graph (hardware loops: the :endloop packet -> the
    loop0/loop1 start). Each instruction gets the loops whose body holds its packet, innermost
    last; f.loops lists (header, latch, how)."""
    packets, order, hw_edges, succs = packet_graph(f.insns)
    if not order:
        f.loops = []
        return
    preds = [[] for _ in order]
    for i, ss in enumerate(succs):
        for j in ss:
            preds[j].append(i)
    idom = immediate_dominators(succs, preds)
    loops = natural_loops(packets, order, hw_edges, succs, preds, idom)
    f.loops = [(h, e, how) for h, e, how, _ in loops]
    for insn in f.insns:
        mine = [lp for lp in loops if insn.packet in lp[3]]
        mine.sort(key=lambda lp: len(lp[3]), reverse=True)
        insn.loops = [(h, e) for h, e, _, _ in mine]
