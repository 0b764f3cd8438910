// Tensor split (comm.cpp): what ggml's meta backend finds by get_proc_address.
#pragma once
#include "context.h"

void * htp_comm_init(ggml_backend_t * backends, size_t n_backends);
void   htp_comm_free(void * comm);
bool   htp_comm_allreduce_tensor(void * comm, ggml_tensor ** tensors);
