#include "config.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

// A whole string as an unsigned integer: decimal, or hexadecimal after 0x (upstream's
// variables take any base, e.g. GGML_HEXAGON_OPSTAGE=0x3). No sign, no octal, nothing after.
bool parse_number(const char * s, unsigned long long & out) {
    const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char * digits = hex ? s + 2 : s;
    if (!*digits || !std::isxdigit((unsigned char) *digits) || (!hex && !std::isdigit((unsigned char) *digits))) {
        return false;
    }
    char * end = nullptr;
    errno      = 0;
    out        = std::strtoull(digits, &end, hex ? 16 : 10);
    return *end == '\0' && errno != ERANGE;
}

// Reads the variables, sorting what it cannot use into `fatal` (the first) and `warnings`.
class env_reader {
  public:
    std::string              fatal;
    std::vector<std::string> warnings;

    // The value of `name`, or nullptr when it is unset or empty.
    static const char * get(const char * name) {
        const char * v = std::getenv(name);
        return v && *v ? v : nullptr;
    }

    // An integer in lo..hi (decimal or 0x hex). A malformed value keeps `out` (its default).
    template <typename T>
    void integer(const char * name, unsigned long long lo, unsigned long long hi, T & out, bool device = false) {
        const char * v = get(name);
        if (!v) {
            return;
        }
        unsigned long long x = 0;
        if (!parse_number(v, x) || x < lo || x > hi) {
            refuse(name, v,
                   hi >= UINT32_MAX && lo == 1 ? "a positive integer"
                                               : "an integer in " + std::to_string(lo) + ".." + std::to_string(hi),
                   std::to_string(out), device);
            return;
        }
        out = (T) x;
    }

    void flag(const char * name, bool & out) {
        unsigned x = out;
        integer(name, 0, 1, x);
        out = x != 0;
    }

    // One of `words` (out = its index), or one of `numbers` (out = the index given beside it).
    void choice(const char * name, std::initializer_list<std::pair<const char *, int>> words, int & out) {
        const char * v = get(name);
        if (!v) {
            return;
        }
        std::string list, def;
        for (const auto & [word, value] : words) {
            if (std::strcmp(v, word) == 0) {
                out = value;
                return;
            }
            list += (list.empty() ? "" : ", ") + std::string(word);
            if (value == out && def.empty()) {
                def = word;
            }
        }
        refuse(name, v, "one of " + list, def, false);
    }

    // `name` when it is set, else the older `alias`, which draws a deprecation line.
    const char * pick(const char * name, const char * alias) {
        if (!get(alias)) {
            return name;
        }
        warnings.push_back(get(name) ? std::string(alias) + " is deprecated and ignored: " + name + "=" + get(name) +
                                           " is set"
                                     : std::string(alias) + " is deprecated, use " + name + "=" + get(alias));
        return get(name) ? name : alias;
    }

  private:
    void refuse(const char * name, const char * v, const std::string & expected, const std::string & def,
                bool device) {
        const std::string line = std::string(name) + "=" + v + ": expected " + expected;
        if (device) {
            if (fatal.empty()) {
                fatal = line;
            }
        } else {
            warnings.push_back(line + "; ignored, using " + (def.empty() ? "the default" : def));
        }
    }
};

// GGML_HEXAGON_PROFILE: a level (any base; above 3 is 3), or a comma list of exactly 8 PMU
// event ids, which is level 2 with those events. Anything else is off, as upstream has it,
// and said in one line.
void read_profile(env_reader & env, htp_config & cfg) {
    std::memcpy(cfg.pmu_events, HTP_PMU_DEFAULT_EVENTS, sizeof(cfg.pmu_events));
    const char * v = env_reader::get("GGML_HEXAGON_PROFILE");
    if (!v) {
        return;
    }
    unsigned long long x = 0;
    if (!std::strchr(v, ',')) {
        if (parse_number(v, x)) {
            cfg.profile = x > 3 ? 3 : (int) x;
            return;
        }
    } else {
        uint32_t    ids[HTP_PMU_EVENTS] = {};
        uint32_t    n                   = 0;
        std::string list                = v;
        bool        ok                  = true;
        for (size_t start = 0; ok; ) {
            const size_t comma = list.find(',', start);
            const std::string id = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            ok = n < HTP_PMU_EVENTS && parse_number(id.c_str(), x) && x <= UINT32_MAX;
            if (ok) {
                ids[n++] = (uint32_t) x;
            }
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
        if (ok && n == HTP_PMU_EVENTS) {
            cfg.profile    = 2;
            cfg.pmu_custom = true;
            std::memcpy(cfg.pmu_events, ids, sizeof(ids));
            return;
        }
    }
    env.warnings.push_back(std::string("GGML_HEXAGON_PROFILE=") + v +
                           ": expected a level 0..3 or a list of 8 PMU event ids (0x3,0x111,...); profiling off");
}

}  // namespace

bool htp_config_from_env(htp_config & cfg, std::string & error, std::vector<std::string> & warnings) {
    env_reader env;
    env.flag("GGML_HEXAGON_HOSTBUF", cfg.hostbuf = true);
    env.integer("GGML_HEXAGON_VERBOSE", 0, 9, cfg.verbose);
    read_profile(env, cfg);
    env.integer("GGML_HEXAGON_OPBATCH", 1, 1024, cfg.opbatch);
    env.integer("GGML_HEXAGON_OPTRACE", 1, 1u << 24, cfg.optrace);
    // NHVX=0 is upstream's "all of them"; the vHTP resolves it (vhtp/src/device-info.cpp).
    env.integer("GGML_HEXAGON_NHVX", 0, 8, cfg.n_hvx, /*device=*/true);

    if (const char * f = env_reader::get("GGML_HEXAGON_OPFILTER")) {
        try {
            cfg.opfilter      = std::regex(f, std::regex::extended | std::regex::icase);
            cfg.opfilter_text = f;
            cfg.has_opfilter  = true;
            // llama.cpp keeps its KV cache in the device's buffers and writes it with SET_ROWS:
            // refused here, ggml's scheduler would stop the program ("pre-allocated tensor ... in
            // a buffer that cannot run the operation"), as no other backend can write those
            // buffers. So the filter never refuses it (device.cpp), and says so.
            if (std::regex_search("SET_ROWS", cfg.opfilter)) {
                env.warnings.push_back(std::string("GGML_HEXAGON_OPFILTER=") + f +
                                       ": SET_ROWS stays on HTP (llama.cpp's KV cache lives in HTP buffers, which "
                                       "no other backend can write; refusing it would abort ggml's scheduler)");
            }
        } catch (const std::regex_error & e) {
            env.warnings.push_back(std::string("GGML_HEXAGON_OPFILTER=") + f +
                                   ": not a valid regular expression (" + e.what() + "); ignored, no op filtered");
        }
    }
    // Older names (upstream's USE_HMX, our FUSE and ALLREDUCE), read only when the current
    // name is unset.
    env.flag(env.pick("GGML_HEXAGON_NHMX", "GGML_HEXAGON_USE_HMX"), cfg.hmx);
    env.flag(env.pick("GGML_HEXAGON_OPFUSION", "GGML_HEXAGON_FUSE"), cfg.fuse);
    env.flag(env.pick("GGML_HEXAGON_AR_SELECT", "GGML_HEXAGON_ALLREDUCE"), cfg.allreduce);
    env.flag("GGML_HEXAGON_OPPOLL", cfg.poll);
    // Batches queued on a device's stream at most (stream.h); upstream's 16 measured as fast
    // as our former 64 (README.md "Environment variables").
    env.integer("GGML_HEXAGON_OPQUEUE", 1, UINT32_MAX, cfg.opqueue);
    env.integer("GGML_HEXAGON_OPSTAGE", 0, 3, cfg.opstage);
    env.flag("GGML_HEXAGON_PARAMS_CHECK", cfg.params_check);
    env.integer("GGML_HEXAGON_DMA64", 0, 1, cfg.dma64, /*device=*/true);
    env.integer("GGML_HEXAGON_VTCM_CHECK", 0, 1, cfg.vtcm_check, /*device=*/true);
    env.choice("GGML_HEXAGON_REPACK", { { "0", 0 }, { "1", 1 }, { "all", 2 } }, cfg.repack);
    // Upstream's numbers (3 = HMX, then tiled, then flat; 2 = tiled, then flat; 1 = flat) and
    // our words for the same (auto, hvx, flat) plus hmx, which forces the HMX path.
    env.choice("GGML_HEXAGON_MM_SELECT",
               { { "3", 0 }, { "2", 1 }, { "1", 3 }, { "auto", 0 }, { "hvx", 1 }, { "hmx", 2 }, { "flat", 3 } },
               cfg.mm_select);
    env.choice("GGML_HEXAGON_FA_SELECT", { { "0", HTP_SELECT_CPU }, { "1", HTP_SELECT_HVX }, { "2", HTP_SELECT_HMX } },
               cfg.fa_select);
    env.choice("GGML_HEXAGON_GDN_SELECT", { { "0", HTP_SELECT_CPU }, { "1", HTP_SELECT_HVX }, { "2", HTP_SELECT_HMX } },
               cfg.gdn_select);
    env.integer("GGML_HEXAGON_MM_HVX_ROWS", 0, 1u << 20, cfg.mm_hvx_rows);
    env.choice("GGML_HEXAGON_RTREPACK", { { "0", 0 }, { "1", 1 }, { "all", 2 } }, cfg.rtrepack);
    // Buffer limits in MiB; VTCM in bytes (its granule is 4 KiB, vhtp/include/vhtp/vhtp.h).
    uint64_t mib = cfg.mbuf >> 20;
    env.integer("GGML_HEXAGON_MBUF", 1, 1u << 20, mib);
    cfg.mbuf = mib << 20;
    mib      = cfg.mbuf >> 20;  // SBUF's default is MBUF
    env.integer("GGML_HEXAGON_SBUF", 1, 1u << 20, mib);
    cfg.sbuf = mib << 20;
    env.integer("GGML_HEXAGON_VTCM_SIZE", 4096, 1u << 30, cfg.vtcm_size, /*device=*/true);
    if (cfg.vtcm_size % 4096 != 0 && env.fatal.empty()) {
        env.fatal = "GGML_HEXAGON_VTCM_SIZE=" + std::string(env_reader::get("GGML_HEXAGON_VTCM_SIZE")) +
                    ": expected a multiple of 4096 bytes";
    }
    env.integer("GGML_HEXAGON_ETM", 0, INT_MAX, cfg.etm);
    if (const char * d = env_reader::get("GGML_HEXAGON_TRACE_DIR")) {
        cfg.trace_dir = d;
    }
    if (!env.fatal.empty()) {
        error = env.fatal;
        return false;
    }
    warnings = std::move(env.warnings);
    return true;
}
