// Test helpers for VgfBackend plans: lowering a single-graph model the way the delegate does,
// reading a dispatch's specialization constants, running a graph, widening fp16 results, and
// recording a loaded delegate over caller buffers at chosen offsets (the recorder's per-base
// variant selection). Header-only; no state.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/vgf/lower_graph.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/queue.h"
#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {

// The lowered plan of a single-segment model, as the delegate would build it under `limit`.
inline Result<backends::vgf::SegmentPlan> plan_of(const TosaGraph& g, backends::vgf::BindingLimit limit = {}) {
  const ::univk::vgf::VgfFile model = single_graph_model(g);  // borrowed only while lowering
  std::vector<uint8_t> blob;
  backends::vgf::LoweringContext ctx;
  ctx.file = &model;
  ctx.segment = &model.segments[0];
  ctx.constant_blob = &blob;
  ctx.binding_limit = limit;
  return backends::vgf::lower_graph(g, ctx);
}

// Specialization constant `id` of `k`; a test failure (and 0) when `k` has none.
inline uint32_t spec_value(const backends::vgf::Dispatch& k, uint32_t id) {
  for (auto [cid, value] : k.specialization)
    if (cid == id) return value;
  ADD_FAILURE() << "no specialization constant " << id;
  return 0;
}

struct Run {
  HostTensor out;
  uint32_t dispatches = 0;
};

// Loads `g` with `options`, runs it on `inputs` and returns output 0 and the dispatch count.
inline Result<Run> run(const TosaGraph& g, const std::vector<HostTensor>& inputs,
                       const backend::BackendOptions& options = {}) {
  UNIVK_ASSIGN_OR_RETURN(Loaded loaded, load(single_graph_model(g), options));
  UNIVK_ASSIGN_OR_RETURN(auto out, loaded.delegate->execute(inputs));
  return Run{out[0], loaded.delegate->stats().dispatches};
}

// `t` as fp32 (fp16 widened exactly; other dtypes returned as they are).
inline HostTensor widen(const HostTensor& t) {
  if (t.dtype() != DType::kFloat16) return t;
  HostTensor w(DType::kFloat32, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) w.data<float>()[i] = half_to_float(t.data<uint16_t>()[i]);
  return w;
}

// Records `loaded`'s delegate into one command buffer over caller buffers, submits it and returns
// output 0: inputs then output 0 (`infos`, in that order) each in its own 4 KiB block of one
// host-visible buffer, binding `shifted` starting `shift_bytes` into its block (the others at
// its start), so its base word is shift_bytes / element size when the device's
// minStorageBufferOffsetAlignment is at least 16.
inline Result<HostTensor> record_at_offsets(Loaded& loaded, const std::vector<HostTensor>& inputs,
                                            const std::vector<backend::TensorInfo>& infos, size_t shifted,
                                            uint64_t shift_bytes) {
  std::shared_ptr<vulkan::Device> device = loaded.delegate->device();
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::CommandPool::create(device));
  constexpr uint64_t kBlock = 4096;
  std::vector<backend::DeviceTensor> tensors;
  for (size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].byte_size() + shift_bytes > kBlock) return invalid_argument("record_at_offsets: tensor too large");
    tensors.push_back(
        {{VK_NULL_HANDLE, kBlock * i + (i == shifted ? shift_bytes : 0), infos[i].byte_size()}, infos[i]});
  }
  const uint64_t total = kBlock * infos.size();
  UNIVK_ASSIGN_OR_RETURN(auto io, vulkan::Buffer::create(device, total, vulkan::MemoryKind::kHostVisible));
  uint8_t* mapped = static_cast<uint8_t*>(io.mapped());
  for (auto& d : tensors) d.range.buffer = io.handle();
  const size_t n_in = infos.size() - 1;
  for (size_t i = 0; i < n_in; ++i)
    std::memcpy(mapped + tensors[i].range.offset, inputs[i].bytes().data(), inputs[i].byte_size());
  std::memset(mapped + tensors[n_in].range.offset, 0, infos[n_in].byte_size());
  UNIVK_ASSIGN_OR_RETURN(auto cmd, pool.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  UNIVK_RETURN_IF_ERROR(loaded.delegate->record(cmd, std::span(tensors).first(n_in), std::span(tensors).subspan(n_in)));
  vulkan::record_buffer_barrier(*device, cmd, {io.handle(), 0, total}, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                VK_ACCESS_2_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  const VkCommandBuffer cmds[] = {cmd};
  UNIVK_ASSIGN_OR_RETURN(auto value, device->queue().submit(cmds));
  UNIVK_RETURN_IF_ERROR(device->queue().wait(value));
  HostTensor got(infos[n_in].dtype, infos[n_in].shape);
  std::memcpy(got.bytes().data(), mapped + tensors[n_in].range.offset, got.byte_size());
  return got;
}

}  // namespace univk::backends::vgf_test
