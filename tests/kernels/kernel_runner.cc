#include "kernel_runner.h"

#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/pipeline_cache.h"
#include "univk/vulkan/queue.h"
#include "vulkan_test_util.h"

namespace univk::kernels::testing {
namespace {

// The device's pipeline cache holds pipelines only while someone does, and the tests run many
// dispatches of one pipeline (same kernel, tiling and flags; other shapes and operands), each
// compiled again by a CPU driver once the last one let it go: a few hundred milliseconds to
// seconds each on lavapipe. Kept here for the process, each is compiled once.
void keep_for_the_process(std::shared_ptr<const vulkan::ComputePipeline> pipeline) {
  static std::mutex mutex;
  static std::set<std::shared_ptr<const vulkan::ComputePipeline>> kept;
  const std::lock_guard lock(mutex);
  kept.insert(std::move(pipeline));
}

}  // namespace

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

std::set<uint32_t> spec_constant_ids(std::span<const uint32_t> spirv) {
  constexpr uint32_t kOpDecorate = 71, kDecorationSpecId = 1, kHeaderWords = 5;
  std::set<uint32_t> ids;
  for (size_t at = kHeaderWords; at < spirv.size();) {
    const uint32_t opcode = spirv[at] & 0xffffu, words = spirv[at] >> 16;
    if (words == 0 || at + words > spirv.size()) break;  // malformed: stop, the check then fails
    if (opcode == kOpDecorate && words == 4 && spirv[at + 2] == kDecorationSpecId) ids.insert(spirv[at + 3]);
    at += words;
  }
  return ids;
}

Status check_spec_constants(const KernelDispatch& dispatch) {
  const std::set<uint32_t> declared = spec_constant_ids(kernel_spirv(dispatch.kernel));
  for (const auto& [id, value] : dispatch.specialization) {
    if (!declared.contains(id)) {
      return internal_error(std::string(kernel_name(dispatch.kernel)) + " declares no specialization constant " +
                            std::to_string(id) + " (the planner sets it to " + std::to_string(value) + ")");
    }
  }
  return ok_status();
}

std::vector<Tiling> planned_coopmat_vec_tilings() {
  const DeviceTraits traits = device_traits(*test_device(), Precision::kFp16);
  std::vector<Tiling> out = {coopmat_vec_tilings()[0]};
  for (const Tiling& t : {coopmat_vec_tilings()[8], coopmat_vec_tilings()[11]}) {
    if (tiling_fits(t, traits)) out.push_back(t);
  }
  return out;
}

bool rounds_to_fp16(const Tiling& tiling, Precision precision) {
  if (precision != Precision::kFp16) return false;
  return tiling.coopmat || !device_traits(*test_device(), precision).cooperative_matrix_f16;
}

Result<std::vector<float>> run_kernel(const std::shared_ptr<vulkan::Device>& device, const KernelDispatch& dispatch,
                                      const std::vector<std::vector<float>>& bindings, int runs) {
  std::vector<std::vector<uint8_t>> bytes;
  for (const std::vector<float>& data : bindings) {
    const auto* begin = reinterpret_cast<const uint8_t*>(data.data());
    bytes.emplace_back(begin, begin + data.size() * sizeof(float));
  }
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint8_t> out, run_kernel_bytes(device, dispatch, bytes, runs));
  std::vector<float> result(out.size() / sizeof(float));
  std::memcpy(result.data(), out.data(), result.size() * sizeof(float));
  return result;
}

Result<std::vector<uint8_t>> run_kernel_bytes(const std::shared_ptr<vulkan::Device>& device,
                                              const KernelDispatch& dispatch,
                                              const std::vector<std::vector<uint8_t>>& bindings, int runs) {
  if (!device) return internal_error("no test device");
  UNIVK_RETURN_IF_ERROR(check_spec_constants(dispatch));
  std::vector<vulkan::Buffer> buffers;
  std::vector<vulkan::BufferRange> ranges;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const std::vector<uint8_t>& data = bindings[i];
    uint64_t bytes = std::max<uint64_t>((data.size() + 3) / 4 * 4, 4);
    const bool scratch = i + 1 == kernel_binding_count(dispatch.kernel);
    if (scratch) bytes = std::max(bytes, dispatch.scratch_bytes);
    UNIVK_ASSIGN_OR_RETURN(vulkan::Buffer buffer,
                           vulkan::Buffer::create(device, bytes, vulkan::MemoryKind::kHostVisible));
    std::memset(buffer.mapped(), scratch ? 0x5a : 0, bytes);
    if (!data.empty()) std::memcpy(buffer.mapped(), data.data(), data.size());
    ranges.push_back({buffer.handle(), 0, bytes});
    buffers.push_back(std::move(buffer));
  }
  UNIVK_ASSIGN_OR_RETURN(auto pipeline, vulkan::get_or_create_pipeline(device, pipeline_desc(dispatch)));
  keep_for_the_process(pipeline);
  UNIVK_ASSIGN_OR_RETURN(auto pool, vulkan::DescriptorPool::create(device, 1, kernel_binding_count(dispatch.kernel)));
  UNIVK_ASSIGN_OR_RETURN(auto commands, vulkan::CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(VkCommandBuffer cmd, commands.allocate());
  UNIVK_RETURN_IF_ERROR(vulkan::begin_command_buffer(*device, cmd));
  vulkan::DispatchRecorder recorder(*device, cmd);
  UNIVK_RETURN_IF_ERROR(record_kernel(recorder, pool, *pipeline, dispatch, ranges, kernel_name(dispatch.kernel)));
  recorder.host_read_barrier();
  UNIVK_RETURN_IF_ERROR(vulkan::end_command_buffer(*device, cmd));
  const vulkan::Buffer& out = buffers[dispatch.output_binding];
  const std::vector<uint8_t>& initial = bindings[dispatch.output_binding];
  std::vector<uint8_t> result, first;
  for (int run = 0; run < runs; ++run) {
    if (!initial.empty()) std::memcpy(out.mapped(), initial.data(), initial.size());
    UNIVK_ASSIGN_OR_RETURN(uint64_t value, device->queue().submit({&cmd, 1}));
    UNIVK_RETURN_IF_ERROR(device->queue().wait(value));
    result.assign(initial.size(), 0);
    std::memcpy(result.data(), out.mapped(), result.size());
    if (run == 0) {
      first = result;
    } else if (result != first) {
      return internal_error("run " + std::to_string(run + 1) + " of the same recording gave another output");
    }
  }
  return result;
}

}  // namespace univk::kernels::testing
