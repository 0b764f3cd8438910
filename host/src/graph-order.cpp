// graph_optimize: brings MUL_MATs that read the same activation next to each other, so that the
// second one can skip quantizing it (htp_mm_act_reuse, docs/mul-mat.md "Fusions"). llama.cpp
// builds e.g. Q, then Q's norm and RoPE, then V and K from one normed activation; moving V and K
// up behind Q lets all three share one quantization. ggml's scheduler calls this before it
// allocates the split, so the new order is the order memory is planned for.
//
// A MUL_MAT (with its bias ADD, when one directly follows and consumes it) moves up only over
// nodes it does not depend on: none of them is one of its sources or shares memory with one
// (a view of the same tensor, an in-place write), checked on the view roots.
#include <vector>

#include "context.h"
#include "graph-order.h"
#include "ggml-impl.h"

namespace {

constexpr int kWindow = 32;  // nodes looked ahead from a MUL_MAT for partners

const ggml_tensor * root(const ggml_tensor * t) {
    return t->view_src ? t->view_src : t;
}

// The nodes that move together from j: the MUL_MAT, and its ADD when that is its only use.
int block_len(const ggml_cgraph * g, int j) {
    const ggml_tensor * mm = g->nodes[j];
    if (j + 1 < g->n_nodes && g->nodes[j + 1]->op == GGML_OP_ADD &&
        (g->nodes[j + 1]->src[0] == mm || g->nodes[j + 1]->src[1] == mm) && ggml_node_has_n_uses(g, j, 1)) {
        return 2;
    }
    return 1;
}

// True when nodes [from, j) neither produce nor alias anything block [j, j + len) reads.
bool can_hoist(const ggml_cgraph * g, int from, int j, int len) {
    for (int b = j; b < j + len; b++) {
        const ggml_tensor * node = g->nodes[b];
        for (int s = 0; s < GGML_MAX_SRC && node->src[s]; s++) {
            const ggml_tensor * src = node->src[s];
            if (b > j && src == g->nodes[j]) {
                continue;  // inside the block
            }
            for (int k = from; k < j; k++) {
                const ggml_tensor * other = g->nodes[k];
                if (other == src || root(other) == root(src)) {
                    return false;
                }
            }
        }
    }
    return true;
}

// Moves nodes [j, j + len) to position `to` (< j), shifting [to, j) back.
void move_block(ggml_cgraph * g, int to, int j, int len) {
    std::vector<ggml_tensor *> block(g->nodes + j, g->nodes + j + len);
    for (int k = j - 1; k >= to; k--) {
        g->nodes[k + len] = g->nodes[k];
    }
    for (int k = 0; k < len; k++) {
        g->nodes[to + k] = block[k];
    }
}

}  // namespace

void htp_graph_order_mul_mats(ggml_cgraph * g) {
    for (int i = 0; i < g->n_nodes; i++) {
        const ggml_tensor * mm = g->nodes[i];
        if (mm->op != GGML_OP_MUL_MAT) {
            continue;
        }
        int at = i + block_len(g, i);  // where the next partner goes
        for (int j = at; j < g->n_nodes && j <= i + kWindow; j++) {
            const ggml_tensor * c = g->nodes[j];
            if (c->op != GGML_OP_MUL_MAT || c->src[1] != mm->src[1]) {
                continue;
            }
            const int len = block_len(g, j);
            if (j > at) {
                if (!can_hoist(g, at, j, len)) {
                    continue;
                }
                move_block(g, at, j, len);
            }
            at += len;
            j += len - 1;  // the node after the block's old place is now at j + len
        }
    }
}
