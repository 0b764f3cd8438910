// The ggml backend device of each HTP device (device.cpp).
#pragma once
#include "context.h"

void htp_device_init_iface(htp_registry & reg, htp_device & d);
