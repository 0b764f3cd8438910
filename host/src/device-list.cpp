#include "device-list.h"

#include <cstdlib>
#include <set>
#include <utility>

#include "log.h"

static constexpr uint32_t HTP_MAX_DEVICES = 16;
static constexpr uint32_t HTP_MAX_SESSIONS_PER_NPU = 8;

// Parses a decimal integer occupying all of s; false on anything else.
static bool parse_uint(const std::string & s, uint32_t & v) {
    if (s.empty() || s.size() > 6) {
        return false;
    }
    v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
        v = v * 10 + (uint32_t) (c - '0');
    }
    return true;
}

static std::string trim(const std::string & s) {
    size_t b = s.find_first_not_of(" \t");
    size_t e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool htp_parse_device_list(const char * value, std::vector<htp_device_spec> & out, std::string & error) {
    out.clear();
    const std::string v = trim(value ? value : "");
    if (v.empty()) {
        out.push_back({ "HTP0", 0, 0 });
        return true;
    }

    uint32_t n = 0;
    if (parse_uint(v, n)) {
        if (n < 1 || n > HTP_MAX_DEVICES) {
            error = "GGML_HEXAGON_DEVICES=" + v + ": device count must be 1.." + std::to_string(HTP_MAX_DEVICES);
            return false;
        }
        for (uint32_t i = 0; i < n; i++) {
            out.push_back({ "HTP" + std::to_string(i), i, 0 });
        }
        return true;
    }

    std::set<std::pair<uint32_t, uint32_t>> seen;
    size_t pos = 0;
    while (pos <= v.size()) {
        size_t comma = v.find(',', pos);
        const std::string item = trim(v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        pos = comma == std::string::npos ? v.size() + 1 : comma + 1;

        const std::string bad = "GGML_HEXAGON_DEVICES=" + v + ": bad device '" + item + "'";
        if (item.size() < 4 || item.compare(0, 3, "HTP") != 0) {
            error = bad + " (expected a count N, or a list like HTP0:0,HTP0:1,HTP1:0)";
            return false;
        }
        const std::string rest = item.substr(3);
        const size_t colon = rest.find(':');
        uint32_t npu = 0, session = 0;
        const bool legacy = colon == std::string::npos;
        if (!parse_uint(rest.substr(0, colon), npu) || (!legacy && !parse_uint(rest.substr(colon + 1), session))) {
            error = bad + " (expected HTP<npu> or HTP<npu>:<session>)";
            return false;
        }
        if (npu >= HTP_MAX_DEVICES || session >= HTP_MAX_SESSIONS_PER_NPU) {
            error = bad + " (at most " + std::to_string(HTP_MAX_DEVICES) + " NPUs and " +
                    std::to_string(HTP_MAX_SESSIONS_PER_NPU) + " sessions per NPU)";
            return false;
        }
        if (!seen.insert({ npu, session }).second) {
            error = "GGML_HEXAGON_DEVICES=" + v + ": device '" + item + "' is listed twice";
            return false;
        }
        out.push_back({ item, npu, session });
    }
    if (out.size() > HTP_MAX_DEVICES) {
        error = "GGML_HEXAGON_DEVICES=" + v + ": at most " + std::to_string(HTP_MAX_DEVICES) + " devices";
        return false;
    }
    return true;
}

bool htp_device_list_from_env(std::vector<htp_device_spec> & out, std::string & error) {
    const char * devices = std::getenv("GGML_HEXAGON_DEVICES");
    const char * ndev = std::getenv("GGML_HEXAGON_NDEV");
    if (!devices && ndev) {
        HTP_LOG_WARN("GGML_HEXAGON_NDEV is deprecated, use GGML_HEXAGON_DEVICES=%s", ndev);
        return htp_parse_device_list(ndev, out, error) ||
               (error.replace(0, sizeof("GGML_HEXAGON_DEVICES") - 1, "GGML_HEXAGON_NDEV"), false);
    }
    return htp_parse_device_list(devices, out, error);
}
