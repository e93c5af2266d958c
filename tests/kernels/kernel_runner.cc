#include "kernel_runner.h"

#include <cstring>
#include <string>

#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/pipeline_cache.h"
#include "univk/vulkan/queue.h"
#include "vulkan_test_util.h"

namespace univk::kernels::testing {

const std::shared_ptr<vulkan::Device>& test_device() {
  static const std::shared_ptr<vulkan::Device> device = [] {
    auto created = vulkan::Device::create(vulkan::testing::test_config(), optional_requirements());
    return created.ok() ? *created : nullptr;
  }();
  return device;
}

std::vector<Tiling> fitting(std::span<const Tiling> tilings) {
  const DeviceTraits traits = device_traits(*test_device(), Precision::kFp32);
  std::vector<Tiling> out;
  for (const Tiling& t : tilings) {
    if (tiling_fits(t, traits)) out.push_back(t);
  }
  return out;
}

Result<std::vector<float>> run_kernel(const std::shared_ptr<vulkan::Device>& device, const KernelDispatch& dispatch,
                                      const std::vector<std::vector<float>>& bindings, int runs) {
  if (!device) return internal_error("no test device");
  std::vector<vulkan::Buffer> buffers;
  std::vector<vulkan::BufferRange> ranges;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const std::vector<float>& data = bindings[i];
    uint64_t bytes = std::max<uint64_t>(data.size() * sizeof(float), 4);
    const bool scratch = i + 1 == kernel_binding_count(dispatch.kernel);
    if (scratch) bytes = std::max(bytes, dispatch.scratch_bytes);
    UNIVK_ASSIGN_OR_RETURN(vulkan::Buffer buffer,
                           vulkan::Buffer::create(device, bytes, vulkan::MemoryKind::kHostVisible));
    std::memset(buffer.mapped(), scratch ? 0x5a : 0, bytes);
    if (!data.empty()) std::memcpy(buffer.mapped(), data.data(), data.size() * sizeof(float));
    ranges.push_back({buffer.handle(), 0, bytes});
    buffers.push_back(std::move(buffer));
  }
  UNIVK_ASSIGN_OR_RETURN(auto pipeline, vulkan::get_or_create_pipeline(device, pipeline_desc(dispatch)));
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::DescriptorPool::create(device, 1, kernel_binding_count(dispatch.kernel)));
  UNIVK_ASSIGN_OR_RETURN(auto commands, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, commands.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  vulkan::DispatchRecorder recorder(*device, cmd);
  UNIVK_RETURN_IF_ERROR(record_kernel(recorder, pool, *pipeline, dispatch, ranges, kernel_name(dispatch.kernel)));
  recorder.host_read_barrier();
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  const vulkan::Buffer& out = buffers[dispatch.output_binding];
  const std::vector<float>& initial = bindings[dispatch.output_binding];
  std::vector<float> result, first;
  for (int run = 0; run < runs; ++run) {
    if (!initial.empty()) std::memcpy(out.mapped(), initial.data(), initial.size() * sizeof(float));
    UNIVK_ASSIGN_OR_RETURN(uint64_t value, device->queue().submit({&cmd, 1}));
    UNIVK_RETURN_IF_ERROR(device->queue().wait(value));
    result.assign(initial.size(), 0.0f);
    std::memcpy(result.data(), out.mapped(), result.size() * sizeof(float));
    if (run == 0) {
      first = result;
    } else if (std::memcmp(result.data(), first.data(), result.size() * sizeof(float)) != 0) {
      return internal_error("run " + std::to_string(run + 1) + " of the same recording gave another output");
    }
  }
  return result;
}

}  // namespace univk::kernels::testing
