// Host emulation of the HVX intrinsic API (128-byte mode), included by htp/hvx.h when not
// compiling for Hexagon. One header per instruction family; each intrinsic is a small
// static inline function with the ISA's lane semantics (see the comment above each one).
// Only the intrinsics the kernels use so far are present; each needs at most v73.
#pragma once

// 128-byte vectors are passed in memory on x86-64; GCC notes that this ABI changed in GCC 4.6.
// No pragma can silence that note, so htp-device-api's users compile with -Wno-psabi.

#include "hvx-emu/types.h"

#include "hvx-emu/arithmetic.h"
#include "hvx-emu/compare-predicate.h"
#include "hvx-emu/conversions.h"
#include "hvx-emu/ieee-float.h"
#include "hvx-emu/logic-shift.h"
#include "hvx-emu/multiply.h"
#include "hvx-emu/pack-unpack.h"
#include "hvx-emu/permute.h"
#include "hvx-emu/qfloat.h"
