#include "config.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "log.h"

static bool env_int(const char * name, long lo, long hi, long & out, std::string & error) {
    const char * v = std::getenv(name);
    if (!v || !*v) {
        return true;
    }
    char * end = nullptr;
    errno = 0;
    long x = std::strtol(v, &end, 10);
    if (*end != '\0' || errno == ERANGE || x < lo || x > hi) {
        error = std::string(name) + "=" + v + ": expected " +
                (hi == LONG_MAX && lo == 1 ? std::string("a positive integer")
                                           : "an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
        return false;
    }
    out = x;
    return true;
}

// A value out of a fixed list: out = its index (unchanged when the variable is unset).
static bool env_choice(const char * name, std::initializer_list<const char *> choices, int & out,
                       std::string & error) {
    const char * v = std::getenv(name);
    if (!v || !*v) {
        return true;
    }
    int i = 0;
    std::string list;
    for (const char * c : choices) {
        if (std::strcmp(v, c) == 0) {
            out = i;
            return true;
        }
        list += (i ? ", " : "") + std::string(c);
        i++;
    }
    error = std::string(name) + "=" + v + ": expected one of " + list;
    return false;
}

bool htp_config_from_env(htp_config & cfg, std::string & error) {
    long v = 0;
    if (!env_int("GGML_HEXAGON_HOSTBUF", 0, 1, v = 1, error)) return false;
    cfg.hostbuf = v != 0;
    if (!env_int("GGML_HEXAGON_VERBOSE", 0, 9, v = 0, error)) return false;
    cfg.verbose = (int) v;
    if (!env_int("GGML_HEXAGON_PROFILE", 0, 3, v = 0, error)) return false;
    cfg.profile = (int) v;
    if (!env_int("GGML_HEXAGON_OPBATCH", 1, 1024, v = 128, error)) return false;
    cfg.opbatch = (uint32_t) v;
    if (!env_int("GGML_HEXAGON_NHVX", 0, 8, v = 0, error)) return false;
    cfg.n_hvx = (uint32_t) v;

    if (const char * f = std::getenv("GGML_HEXAGON_OPFILTER"); f && *f) {
        try {
            cfg.opfilter = std::regex(f, std::regex::extended | std::regex::icase);
        } catch (const std::regex_error & e) {
            error = std::string("GGML_HEXAGON_OPFILTER=") + f + ": not a valid regular expression (" + e.what() + ")";
            return false;
        }
        cfg.opfilter_text = f;
        cfg.has_opfilter = true;
    }
    if (!env_int("GGML_HEXAGON_NHMX", 0, 1, v = 1, error)) return false;
    cfg.hmx = v != 0;
    // OPFUSION is upstream's name; FUSE was ours and stays as a deprecated alias (like NDEV for
    // DEVICES): read only when OPFUSION is unset, and one warning per process once everything
    // parsed (a malformed value gives the error line alone).
    const char * opfusion  = std::getenv("GGML_HEXAGON_OPFUSION");
    const char * fuse      = std::getenv("GGML_HEXAGON_FUSE");
    const bool   has_fuse  = fuse && *fuse;
    const bool   use_alias = has_fuse && !(opfusion && *opfusion);
    if (!env_int(use_alias ? "GGML_HEXAGON_FUSE" : "GGML_HEXAGON_OPFUSION", 0, 1, v = 1, error)) return false;
    cfg.fuse = v != 0;
    if (!env_int("GGML_HEXAGON_OPPOLL", 0, 1, v = 0, error)) return false;
    cfg.poll = v != 0;
    // Batches queued on a device's stream at most (stream.h); enough for several graphs, so
    // that each device of a pipeline can have its whole graph queued.
    if (!env_int("GGML_HEXAGON_OPQUEUE", 1, LONG_MAX, v = 64, error)) return false;
    cfg.opqueue = v > UINT32_MAX ? UINT32_MAX : (uint32_t) v;
    if (!env_int("GGML_HEXAGON_OPSTAGE", 0, 1, v = 0, error)) return false;
    cfg.stage = v != 0;
    if (!env_int("GGML_HEXAGON_PARAMS_CHECK", 0, 1, v = 0, error)) return false;
    cfg.params_check = v != 0;
    if (!env_int("GGML_HEXAGON_ALLREDUCE", 0, 1, v = 1, error)) return false;
    cfg.allreduce = v != 0;
    if (!env_int("GGML_HEXAGON_DMA64", 0, 1, v = -1, error)) return false;
    cfg.dma64 = (int) v;
    if (!env_choice("GGML_HEXAGON_REPACK", { "0", "1", "all" }, cfg.repack, error)) return false;
    // Upstream scripts pass numbers here; their meanings are not known to us, so a number is
    // refused rather than guessed at.
    if (const char * m = std::getenv("GGML_HEXAGON_MM_SELECT"); m && *m && std::isdigit((unsigned char) *m)) {
        error = std::string("GGML_HEXAGON_MM_SELECT=") + m + ": numeric values are not supported, use a word: auto, hvx or hmx";
        return false;
    }
    if (!env_choice("GGML_HEXAGON_MM_SELECT", { "auto", "hvx", "hmx" }, cfg.mm_select, error)) return false;
    if (!env_choice("GGML_HEXAGON_RTREPACK", { "0", "1", "all" }, cfg.rtrepack, error)) return false;
    if (const char * d = std::getenv("GGML_HEXAGON_TRACE_DIR"); d && *d) {
        cfg.trace_dir = d;
    }
    static std::atomic<bool> fuse_warned{ false };
    if (has_fuse && !fuse_warned.exchange(true)) {
        if (use_alias) {
            HTP_LOG_WARN("GGML_HEXAGON_FUSE is deprecated, use GGML_HEXAGON_OPFUSION=%s", fuse);
        } else {
            HTP_LOG_WARN("GGML_HEXAGON_FUSE is deprecated and ignored: GGML_HEXAGON_OPFUSION=%s is set", opfusion);
        }
    }
    return true;
}
