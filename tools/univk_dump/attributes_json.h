// Operator attributes (TOSA graphs, VulkanBackend compute graphs, CPU kernel calls) as JSON
// objects: {"kernel_size": [2, 2], "other": 0.25, "mode": "nearest"}.
#pragma once

#include "json_output.h"
#include "univk/tensor/attributes.h"

namespace univk::dump {

// Non-finite floats are written as the strings "inf", "-inf" and "nan" (JSON has no such
// numbers, and null would hide which one it was).
tools::Json attributes_json(const Attributes& attrs);
tools::Json float_json(double value);

}  // namespace univk::dump
