// Which HTP devices to register: parsed from GGML_HEXAGON_DEVICES (or its deprecated alias
// GGML_HEXAGON_NDEV). A device is one session on one (virtual) NPU, or a group of sessions on
// several NPUs that runs every op together, each member on its own slice (multi-device, mdev).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

// Most devices, and most sessions of a group (and of the whole list).
static constexpr uint32_t HTP_MAX_DEVICES = 16;
// Physical NPU indices are 0 .. HTP_MAX_NPUS-1, session indices 0 .. HTP_MAX_SESSIONS_PER_NPU-1.
static constexpr uint32_t HTP_MAX_NPUS             = 16;
static constexpr uint32_t HTP_MAX_SESSIONS_PER_NPU = 8;

struct htp_session_id {
    uint32_t npu;      // physical NPU index
    uint32_t session;  // session index on that NPU
};

struct htp_device_spec {
    std::string name;                     // "HTP0" (legacy and groups) or "HTP0:1"
    std::vector<htp_session_id> members;  // one, or a group's members in mdev order
};

// Parses a GGML_HEXAGON_DEVICES value (upstream's forms; docs/multi-device.md):
//   unset / ""            -> HTP0
//   "N"                   -> HTP0 .. HTP{N-1}: N sessions of NPU 0, sharing its VTCM, HMX and
//                            HVX contexts (upstream's recipe for models beyond one session's
//                            window); more than HTP_MAX_SESSIONS_PER_NPU is capped, with a line
//                            in `warnings`
//   "HTP0" / "HTP0,HTP1"  -> legacy names: HTP<s> = session s of NPU 0
//   "HTP0:0,HTP1:0,..."   -> explicit NPU:session pairs (several NPUs only this way, or groups)
//   "HTP0[0-1]", "HTP0[0,1]", "HTP0[0-1],HTP1[2-3]", "HTP0[0-1:0],HTP1[0-1:1]"
//                         -> device groups: one device over NPUs 0 and 1 (session 0, or the
//                            session after ':'), running every op on all members
// Returns false and sets `error` to a one-line reason for a malformed value.
bool htp_parse_device_list(const char * value, std::vector<htp_device_spec> & out, std::string & error,
                           std::vector<std::string> & warnings);

// Reads GGML_HEXAGON_DEVICES, falling back to GGML_HEXAGON_NDEV (deprecated: a line in
// `warnings`).
bool htp_device_list_from_env(std::vector<htp_device_spec> & out, std::string & error,
                              std::vector<std::string> & warnings);
