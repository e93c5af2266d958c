// The delegates of a program, each payload decoded once for the JSON, summary and Graphviz
// views: VgfBackend payloads as VGF files (with their TOSA graphs), VulkanBackend payloads as
// compute graphs (in builds that have the VulkanBackend).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "univk/config.h"
#include "univk/runtime/program_desc.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"
#if UNIVK_BUILD_VULKAN_BACKEND
#include "univk/backends/vulkan/compute_graph.h"
#endif

namespace univk::dump {

// One operator of a delegate's payload and the operators of the same payload whose results it
// reads (indices into DecodedDelegate::ops).
struct PayloadOp {
  std::string name;  // TOSA op name (VGF), run_op name (VulkanBackend) or a compute module's name
  std::vector<size_t> reads;
};

// Borrows the program's bytes (the VGF modules' SPIR-V spans): the ProgramDesc's file must
// outlive it.
struct DecodedDelegate {
  std::optional<vgf::VgfFile> vgf;
  std::vector<spirv::TosaGraph> graphs;  // the readable graph modules of `vgf`
#if UNIVK_BUILD_VULKAN_BACKEND
  std::optional<backends::ComputeGraph> compute;
#endif
  std::string error;  // why the payload could not be decoded; empty when it was or is opaque
  std::vector<PayloadOp> ops;
};

// Payloads that do not decode get `error` and no ops; a backend this build cannot decode gets
// neither.
std::vector<DecodedDelegate> decode_delegates(const runtime::ProgramDesc& program);

}  // namespace univk::dump
