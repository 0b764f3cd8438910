// Smoke test of the runtime: one HVX instruction (vadd.b), printed as hex.
#include <hexagon_types.h>
#include <hvx_hexagon_protos.h>

#include "hexagon-rt.h"

int hexagon_main(void) {
    HVX_Vector a = Q6_V_vsplat_R(0x01020304);
    HVX_Vector b = Q6_Vb_vadd_VbVb(a, a);
    rt_puts("hello hvx ");
    rt_put_hex(&b, 8);
    rt_puts("\n");
    return 0;
}
