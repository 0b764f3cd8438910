// ggml-vhtp-dsp: the DSP process (one per session) that libggml-vhtp.so starts beside itself to
// run the sessions apart from the host (vhtp/src/dsp.h). Not a program to run by hand.
#include <cstdio>
#include <cstring>

#include "vhtp/vhtp.h"

int main(int argc, char ** argv) {
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("ggml-vhtp-dsp: the virtual HTP's DSP process (one per session), started by libggml-vhtp.so\n"
               "with its control socket, state page and device-group board, and given its NPU's page with\n"
               "each session it opens (docs/vhtp.md \"The DSP processes\"); not run by hand.\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "ggml-vhtp-dsp: takes no arguments (see --help)\n");
        return 2;
    }
    return vhtp_dsp_main();
}
