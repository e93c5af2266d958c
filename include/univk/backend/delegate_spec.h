// The data a backend receives and returns: one delegate call as the program describes it, the
// device tensors of fused mode, the per-call counters, the runtime options.
//
// Ownership: plain values, except DelegateSpec::payload, which borrows the program's bytes (the
// Method keeps them alive for the delegate's whole life) and DeviceTensor::range, which borrows a
// buffer owned by the Method.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "univk/tensor/dtype.h"
#include "univk/tensor/shape.h"
#include "univk/vulkan/buffer.h"

namespace univk::backend {

// Runtime options of one backend, given at load time (e.g. vulkan_shared_context_mode).
using BackendOptions = std::map<std::string, std::string>;

struct TensorInfo {
  DType dtype = DType::kFloat32;
  Shape shape;
  size_t byte_size() const { return static_cast<size_t>(shape.numel()) * dtype_size(dtype); }
};

// Everything the program says about one delegate call.
struct DelegateSpec {
  std::string backend_id;
  std::span<const uint8_t> payload;  // borrowed, 16-byte aligned, valid for the delegate's life
  std::map<std::string, std::vector<uint8_t>> compile_specs;
  std::vector<TensorInfo> inputs;  // in the order of the DelegateCall's input values
  std::vector<TensorInfo> outputs;
};

// A tensor living in a device buffer (fused mode: zero-copy handoff between delegates).
struct DeviceTensor {
  vulkan::BufferRange range;
  TensorInfo info;
};

// Counters of the last execute() (or of one submission of the recorded work, in fused mode).
struct ExecuteStats {
  uint32_t dispatches = 0;
  uint32_t barriers = 0;
  uint32_t submissions = 0;
  uint64_t bytes_uploaded = 0;
  uint64_t bytes_downloaded = 0;
};

}  // namespace univk::backend
