// The whole device API an NPU library may use. Kernels include this and nothing from the host.
#pragma once
#include "htp/cache.h"
#include "htp/dma-queue.h"
#include "htp/fence.h"
#include "htp/hmx.h"
#include "htp/hvx.h"
#include "htp/memory.h"
#include "htp/session.h"
#include "htp/timer.h"
#include "htp/trace.h"
#include "htp/work-queue.h"
