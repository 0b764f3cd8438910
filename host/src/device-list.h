// Which HTP devices to register: parsed from GGML_HEXAGON_DEVICES (or its deprecated alias
// GGML_HEXAGON_NDEV). Each device is one session on one (virtual) NPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

struct htp_device_spec {
    std::string name;  // "HTP0" (legacy) or "HTP0:1"
    uint32_t npu;      // physical NPU index
    uint32_t session;  // session index on that NPU
};

// Parses a GGML_HEXAGON_DEVICES value:
//   unset / ""          -> HTP0
//   "N" (1..16)         -> HTP0 .. HTP{N-1}, one session each on its own NPU (legacy names)
//   "HTP0" / "HTP0,HTP1"-> legacy names
//   "HTP0:0,HTP0:1,..." -> explicit NPU:session pairs
// Returns false and sets `error` to a one-line reason for a malformed value.
bool htp_parse_device_list(const char * value, std::vector<htp_device_spec> & out, std::string & error);

// Reads GGML_HEXAGON_DEVICES, falling back to GGML_HEXAGON_NDEV (deprecated; warns once).
bool htp_device_list_from_env(std::vector<htp_device_spec> & out, std::string & error);
