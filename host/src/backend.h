// Backend streams (backend.cpp).
#pragma once
#include "context.h"

ggml_backend_t htp_backend_init(htp_device & d);
bool htp_backend_is_htp(ggml_backend_t backend);
htp_device & htp_backend_device(ggml_backend_t backend);
// A backend that ggml's meta backend drives (a tensor split): asynchronous (its devices work at
// once), and its graphs' nodes are checked against supports_op.
void htp_backend_set_meta(ggml_backend_t backend, bool meta);
