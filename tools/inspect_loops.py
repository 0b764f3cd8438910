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
# A computed jump (a switch's jump table: jumpr through a register other than the return
# address r31): its targets are in a table the disassembly does not show.
COMPUTED_JUMP = re.compile(r"^jumpr(?::\w+)?\s+r(?!31\b)\d+$")


def packet_graph(insns, all_loops=False):
    """The packets in address order (packets: address -> its insns; order; index: address ->
    position), the hardware loops' back edges (hw_edges: :endloop packet -> loop starts) and each
    packet's successors by position (succs). all_loops: also the loops the default finder
    misses (rotated hardware loops, a jump table's cases; below)."""
    packets = collections.OrderedDict()
    for insn in insns:
        packets.setdefault(insn.packet, []).append(insn)
    order = list(packets)
    index = {a: i for i, a in enumerate(order)}
    # Plain successors: branches and fall-throughs.
    succs = []
    for i, a in enumerate(order):
        out = set()
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
    # A computed jump's targets (a switch's case bodies) are where code nothing else reaches
    # starts: the first packet, in address order, that the entry does not reach, alignment
    # padding (nop-only packets) aside; it gets an edge from every computed jump, and so on
    # until the rest is padding. Without this, a function whose switch became a jump table had
    # its cases' loops unseen (unreachable from the entry, no dominator). Padding that falls into
    # a rotated loop's first packet would give that loop a second entry, hence not padding.
    computed = [i for i, a in enumerate(order) if any(COMPUTED_JUMP.match(insn.text) for insn in packets[a])]
    if computed and all_loops:
        reach, work = {0}, [0]
        while True:
            while work:
                for k in succs[work.pop()]:
                    if k not in reach:
                        reach.add(k)
                        work.append(k)
            rest = [i for i, a in enumerate(order)
                    if i not in reach and not all(insn.text == "nop" for insn in packets[a])]
            if not rest:
                break
            for i in computed:
                succs[i].append(rest[0])
            reach.add(rest[0])
            work.append(rest[0])
    # Hardware loops. Default: the first :endloopN packet at or after each loopN start. That
    # misses a rotated loop, whose start (the setup jumps to it) lies after its :endloop packet:
    # the rule pairs it with a later loop's end, and no loop is found. all_loops: the :endloopN
    # packets a loopN start reaches (branches and fall-throughs, not past an :endloopN nor into
    # another loopN setup) jump back to it.
    hw_edges = {}
    for insn in insns:
        m = HWLOOP.search(insn.text)
        if not m or int(m.group(2), 16) not in index:
            continue
        if not all_loops:
            start, which = int(m.group(2), 16), m.group(1)
            for a in order[index[start]:]:
                if any(i.text.startswith(":endloop") and which in i.text[8:] for i in packets[a]):
                    hw_edges.setdefault(a, set()).add(start)
                    break
            continue
        start, which = index[int(m.group(2), 16)], m.group(1)

        def ends_here(j):
            return any(i.text.startswith(":endloop") and which in i.text[8:] for i in packets[order[j]])

        def sets_up(j):
            return any((h := HWLOOP.search(i.text)) and h.group(1) == which for i in packets[order[j]])

        seen, work = {start}, [start]
        while work:
            j = work.pop()
            if ends_here(j):
                hw_edges.setdefault(order[j], set()).add(order[start])
                continue
            for k in succs[j]:
                if k not in seen and not sets_up(k):
                    seen.add(k)
                    work.append(k)
    for a, starts in hw_edges.items():
        succs[index[a]].extend(index[t] for t in starts if index[t] not in succs[index[a]])
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


def find_loops(f, all_loops=False):
    """Natural loops of the function's packet graph (hardware loops: the :endloop packet -> the
    loop0/loop1 start). Each instruction gets the loops whose body holds its packet, innermost
    last; f.loops lists (header, latch, how). all_loops: packet_graph's."""
    packets, order, hw_edges, succs = packet_graph(f.insns, all_loops)
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
