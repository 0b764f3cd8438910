#include "device-list.h"

#include <cstdlib>
#include <set>
#include <utility>


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

// Splits at commas that are not inside [...].
static std::vector<std::string> split_items(const std::string & v) {
    std::vector<std::string> items;
    std::string cur;
    int depth = 0;
    for (char c : v) {
        if (c == ',' && depth == 0) {
            items.push_back(trim(cur));
            cur.clear();
            continue;
        }
        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
        cur += c;
    }
    items.push_back(trim(cur));
    return items;
}

// "0-3", "0,2", "1" (NPU indices of a group) -> ascending or as written; false when malformed.
static bool parse_npu_set(const std::string & s, std::vector<uint32_t> & npus, std::string & why) {
    for (const std::string & part : split_items(s)) {
        const size_t dash = part.find('-');
        uint32_t lo = 0, hi = 0;
        if (dash == std::string::npos) {
            if (!parse_uint(part, lo)) {
                why = part.empty() ? "an empty NPU list" : "'" + part + "' is not an NPU index";
                return false;
            }
            hi = lo;
        } else if (!parse_uint(trim(part.substr(0, dash)), lo) || !parse_uint(trim(part.substr(dash + 1)), hi)) {
            why = "'" + part + "' is not a range like 0-3";
            return false;
        } else if (hi < lo) {
            why = "range " + part + " is reversed";
            return false;
        }
        for (uint32_t p = lo; p <= hi; p++) {
            npus.push_back(p);
        }
    }
    return true;
}

// One item of the list: HTP<p>, HTP<p>:<s> or HTP<k>[<npus>(:<s>)].
static bool parse_item(const std::string & item, htp_device_spec & spec, std::string & why) {
    if (item.size() < 4 || item.compare(0, 3, "HTP") != 0) {
        why = "expected a count N, or a list like HTP0:0,HTP0:1,HTP1:0 or HTP0[0-1]";
        return false;
    }
    const std::string rest    = item.substr(3);
    const size_t      bracket = rest.find('[');
    if (bracket != std::string::npos) {
        uint32_t k = 0;
        if (rest.back() != ']' || !parse_uint(rest.substr(0, bracket), k)) {
            why = "expected a group like HTP0[0-1], HTP0[0,1] or HTP0[0-1:0]";
            return false;
        }
        std::string inner   = rest.substr(bracket + 1, rest.size() - bracket - 2);
        uint32_t    session = 0;
        const size_t colon  = inner.find(':');
        if (colon != std::string::npos) {
            if (!parse_uint(trim(inner.substr(colon + 1)), session)) {
                why = "expected a session index after ':'";
                return false;
            }
            inner = inner.substr(0, colon);
        }
        std::vector<uint32_t> npus;
        if (!parse_npu_set(inner, npus, why)) {
            return false;
        }
        spec.name = "HTP" + std::to_string(k);
        for (uint32_t p : npus) {
            spec.members.push_back({ p, session });
        }
        return true;
    }
    // HTP<s> (legacy) is session s of NPU 0; HTP<p>:<s> names both.
    const size_t colon  = rest.find(':');
    const bool   legacy = colon == std::string::npos;
    uint32_t     npu = 0, session = 0;
    if (legacy ? !parse_uint(rest, session)
               : !parse_uint(rest.substr(0, colon), npu) || !parse_uint(rest.substr(colon + 1), session)) {
        why = "expected HTP<session>, HTP<npu>:<session> or HTP<n>[<npus>]";
        return false;
    }
    spec.name = item;
    spec.members.push_back({ npu, session });
    return true;
}

bool htp_parse_device_list(const char * value, std::vector<htp_device_spec> & out, std::string & error,
                           std::vector<std::string> & warnings) {
    out.clear();
    const std::string v      = trim(value ? value : "");
    const std::string prefix = "GGML_HEXAGON_DEVICES=" + v + ": ";
    if (v.empty()) {
        out.push_back({ "HTP0", { { 0, 0 } } });
        return true;
    }

    // A count is that many sessions of NPU 0 (upstream's meaning), at most an NPU's sessions.
    uint32_t n = 0;
    if (parse_uint(v, n)) {
        if (n < 1) {
            error = prefix + "expected a session count of 1 or more";
            return false;
        }
        if (n > HTP_MAX_SESSIONS_PER_NPU) {
            warnings.push_back(prefix + "an NPU has at most " + std::to_string(HTP_MAX_SESSIONS_PER_NPU) +
                               " sessions; using " + std::to_string(HTP_MAX_SESSIONS_PER_NPU) + " (HTP0..HTP" +
                               std::to_string(HTP_MAX_SESSIONS_PER_NPU - 1) +
                               "; several NPUs: HTP<npu>:<session> names or groups)");
            n = HTP_MAX_SESSIONS_PER_NPU;
        }
        for (uint32_t i = 0; i < n; i++) {
            out.push_back({ "HTP" + std::to_string(i), { { 0, i } } });
        }
        return true;
    }

    std::set<std::pair<uint32_t, uint32_t>> seen;
    std::set<std::string> names;
    size_t n_sessions = 0;
    for (const std::string & item : split_items(v)) {
        htp_device_spec spec;
        std::string why;
        if (!parse_item(item, spec, why)) {
            error = prefix + "bad device '" + item + "' (" + why + ")";
            return false;
        }
        for (const htp_session_id & m : spec.members) {
            if (m.npu >= HTP_MAX_NPUS || m.session >= HTP_MAX_SESSIONS_PER_NPU) {
                error = prefix + "bad device '" + item + "' (at most " + std::to_string(HTP_MAX_NPUS) + " NPUs, 0.." +
                        std::to_string(HTP_MAX_NPUS - 1) + ", and " + std::to_string(HTP_MAX_SESSIONS_PER_NPU) +
                        " sessions per NPU)";
                return false;
            }
            if (!seen.insert({ m.npu, m.session }).second) {
                error = prefix + "session " + std::to_string(m.session) + " of NPU " + std::to_string(m.npu) + " ('" +
                        item + "') is listed twice";
                return false;
            }
        }
        if (!names.insert(spec.name).second) {
            error = prefix + "device name " + spec.name + " is used twice";
            return false;
        }
        n_sessions += spec.members.size();
        out.push_back(std::move(spec));
    }
    if (out.size() > HTP_MAX_DEVICES || n_sessions > HTP_MAX_DEVICES) {
        error = prefix + "at most " + std::to_string(HTP_MAX_DEVICES) + " sessions in all";
        return false;
    }
    return true;
}

bool htp_device_list_from_env(std::vector<htp_device_spec> & out, std::string & error,
                              std::vector<std::string> & warnings) {
    const char * devices = std::getenv("GGML_HEXAGON_DEVICES");
    const char * ndev = std::getenv("GGML_HEXAGON_NDEV");
    if (!devices && ndev) {
        warnings.push_back(std::string("GGML_HEXAGON_NDEV is deprecated, use GGML_HEXAGON_DEVICES=") + ndev);
        std::vector<std::string> own;
        const bool ok = htp_parse_device_list(ndev, out, error, own);
        const size_t name = sizeof("GGML_HEXAGON_DEVICES") - 1;
        for (std::string & w : own) {
            warnings.push_back(w.replace(0, name, "GGML_HEXAGON_NDEV"));
        }
        return ok || (error.replace(0, name, "GGML_HEXAGON_NDEV"), false);
    }
    return htp_parse_device_list(devices, out, error, warnings);
}
