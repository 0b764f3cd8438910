// HVX qfloat (qf32 / qf16) arithmetic, v68+. The kernels use IEEE sf ops (ieee-float.h)
// instead, so no qfloat intrinsic is emulated yet; the rounding and normalisation rules of
// mmvec_qfloat.c belong here when a kernel needs them (and with them Q6_Vsf_equals_Vqf32).
#pragma once
#include "hvx-emu/types.h"
