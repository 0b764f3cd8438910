// graph_optimize (graph-order.cpp): MUL_MATs sharing an activation brought next to each other.
#pragma once
#include "ggml.h"

void htp_graph_order_mul_mats(ggml_cgraph * graph);
