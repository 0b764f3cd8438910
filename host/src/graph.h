// Graph execution (graph.cpp): runs the graph's nodes on the device's session.
#pragma once
#include "context.h"

// async: return once the batches are queued (a pipeline or a tensor split), else wait and
// return the NPU's status. check_nodes: ask supports_op of every node first (graphs that
// llama's scheduler did not build: ggml's meta backend's).
ggml_status htp_graph_compute(htp_registry & reg, htp_device & d, ggml_cgraph * graph, bool async, bool check_nodes);
