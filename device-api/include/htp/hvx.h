// Device API: the HVX intrinsic API (HVX_Vector, HVX_VectorPair, HVX_VectorPred and the Q6_*
// names of clang's hvx_hexagon_protos.h), 128-byte mode. On Hexagon this is the compiler's own
// header; on hosts the vHTP supplies the same names with bit-exact semantics (hvx-emu/).
#pragma once

#if defined(__hexagon__)
#    include <hexagon_protos.h>
#    include <hexagon_types.h>
#    include <hvx_hexagon_protos.h>
#else
// Level-2 counters (htp/counters.h): every emulated intrinsic counts in its class.
#    include "htp/counters.h"
#    if HTP_COUNTERS
#        define HVX_EMU_COUNT_HOOK(cls) HTP_COUNT(HTP_CNT_HVX_##cls, 1)
#    endif
#    include "hvx-emu/hvx-emu.h"
#endif
