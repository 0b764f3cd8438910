// Device API: the HVX worker pool. work_queue_run calls fn(n_threads, ith, data) once for each
// ith in [0, n_threads) on the session's HVX threads and returns when all are done.
// n_threads is clamped to the session's HVX thread count.
#pragma once
#include "htp/api.h"

struct work_queue;
typedef void (*work_fn)(unsigned int n_threads, unsigned int ith, void * data);

HTP_DEVICE_API_BEGIN
void work_queue_run(struct work_queue * wq, work_fn fn, void * data, unsigned int n_threads);
HTP_DEVICE_API_END
