// CPU reference kernels: the test oracle for every GPU operator and the CPU fallback of the
// runtime (KernelCall instructions). Naive, readable loops; correctness over speed.
//
// Two operator sets, both stateless and thread-safe (no globals are written):
//  - run_op: PyTorch semantics. Op names and attribute names are PyTorch's (see
//    docs/OPERATORS.md); this is the convention shared by the VulkanBackend, the program
//    format's KernelCall and the compiler. Tensors are fp32 (NCHW where a layout matters).
//  - run_tosa: TOSA 1.0 semantics (NHWC). Op names are the TOSA grammar opnames ("AVG_POOL2D");
//    data operands (input, input1.., A, B, weight, bias, table) are tensor inputs in grammar
//    order, every other operand is an attribute named like the grammar operand in lowercase
//    (kernel, stride, pad, acc_type, input_zp, ...). Integer scalars are int64 attributes,
//    float scalars (min_val/max_val/pad_const of float tensors) are double attributes.
//    CAST and RESCALE also need `output_type` (a dtype name, e.g. "int8"): their result type is
//    not implied by the operands. Full tables: docs/OPERATORS.md.
//
// Ownership: inputs are borrowed for the duration of the call; the returned tensors are new,
// owned by the caller, and never alias the inputs.
//
// Optional tensor inputs (bias of conv2d/linear, weight/bias of layer_norm) are passed by
// leaving them out of `inputs`; e.g. conv2d takes {x, weight} or {x, weight, bias}.
//
// Errors: InvalidArgument naming the op and the bad attribute, input count, dtype or shape;
// Unsupported for an unknown op name or a dtype the op does not implement.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/tensor.h"

namespace univk::reference {

// PyTorch-semantics operators (fp32; shape-only ops accept any dtype).
Result<std::vector<HostTensor>> run_op(std::string_view op, const Attributes& attrs,
                                       std::span<const HostTensor> inputs);
bool is_supported_op(std::string_view op);
std::vector<std::string> supported_ops();  // sorted

// TOSA 1.0 operators (fp32, and int8/int16/int32 where the spec defines them).
Result<std::vector<HostTensor>> run_tosa(std::string_view op, const Attributes& attrs,
                                         std::span<const HostTensor> inputs);
bool is_supported_tosa_op(std::string_view op);
std::vector<std::string> supported_tosa_ops();  // sorted

}  // namespace univk::reference
