// Lowers one TOSA graph (a VGF GRAPH segment) to dispatches: TensorView resolution
// (TRANSPOSE/SLICE/RESHAPE folded into strides where possible), elementwise fusion groups
// (fusion.h) emitted as one dispatch each, and scratch memory planning. Pure: no Vulkan calls.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "dispatch_plan.h"
#include "univk/base/status.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"

namespace univk::backends::vgf {

struct LoweringContext {
  const univk::vgf::VgfFile* file = nullptr;     // borrowed: resources
  const univk::vgf::Segment* segment = nullptr;  // borrowed: set_infos (binding -> resource)
  // Byte offset of each VGF constant (index into VgfFile::constants) in the constant buffer.
  std::map<uint32_t, uint64_t> constant_offsets;
  // The constant buffer's contents; inline TOSA constants are appended (16-byte aligned).
  std::vector<uint8_t>* constant_blob = nullptr;
  // Dispatches whose views would exceed it are split into slices (see dispatch_emitters.h).
  BindingLimit binding_limit;
  // Kernel-library dispatches are planned for these limits (the spec's minimum by default).
  kernels::DeviceTraits device;
};

Result<SegmentPlan> lower_graph(const spirv::TosaGraph& graph, LoweringContext& context);

// Element strides of a VGF resource (its byte strides, or packed row-major when absent).
Result<std::vector<int64_t>> resource_element_strides(const univk::vgf::Resource& resource);
// Bytes a resource occupies (packed, or honouring its byte strides).
Result<uint64_t> resource_byte_size(const univk::vgf::Resource& resource);

}  // namespace univk::backends::vgf
