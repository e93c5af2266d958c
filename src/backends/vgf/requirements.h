// What a VGF payload needs from a Vulkan device, derived from the file alone (pure data, no
// Vulkan calls), and the checks that tell a runnable VGF from one that is not.
//
// Lowered GRAPH segments need plain compute (Vulkan 1.1, storage buffers) plus, only when such
// tensors appear in a graph: int8/uint8/bool -> shaderInt8 + storageBuffer8BitAccess;
// int16 -> shaderInt16 + storageBuffer16BitAccess; fp16 -> shaderFloat16 + shaderInt16 +
// storageBuffer16BitAccess; CAST, RESCALE or TABLE operators -> shaderInt8 +
// storageBuffer8BitAccess (their dispatches use 8-bit views). COMPUTE segments need what their SPIR-V declares
// (OpCapability and OpExtension mapped to features, extensions and a minimum API version) and ask for
// robustBufferAccess (optional: VgfDelegate decides, by its vgf_robust_buffer_access option,
// whether a device without it may run them). GRAPH segments also ask, optionally, for what the
// native path needs (native_graph_requirements).
#pragma once

#include <cstdint>
#include <span>

#include "univk/base/status.h"
#include "univk/vgf/vgf_file.h"
#include "univk/vulkan/device_requirements.h"

namespace univk::backends::vgf {

// InvalidArgument naming the module when a segment's module holds no real SPIR-V (the
// placeholder modules of Arm's sample files) or source code instead of SPIR-V.
Status check_runnable(const univk::vgf::VgfFile& file);

// Requirements of one SPIR-V compute module (scan of OpCapability / OpExtension).
Result<vulkan::DeviceRequirements> spirv_module_requirements(std::span<const uint32_t> words);

// What the native path (VK_ARM_data_graph pipelines) would use, all optional: the three ARM
// extensions, their tensors/dataGraph/dataGraphShaderModule features, synchronization2 (its
// barriers name the data-graph stage) and a queue family with DATA_GRAPH_BIT_ARM besides
// COMPUTE. Part of vgf_requirements for every VGF with a GRAPH segment, so a device created for
// a method that holds one has them whenever the driver (or Arm's emulation layer) offers them,
// whichever delegate's load created it.
vulkan::DeviceRequirements native_graph_requirements();

Result<vulkan::DeviceRequirements> vgf_requirements(const univk::vgf::VgfFile& file);

}  // namespace univk::backends::vgf
