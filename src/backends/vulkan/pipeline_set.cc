#include "pipeline_set.h"

#include <set>
#include <string>

#include "univk/vulkan/pipeline_cache.h"
#include "univk_vulkan_backend_shaders.h"

namespace univk::backends::vulkan {
namespace {

// Every shader of the library picks its variant with specialization constant 0 (`VARIANT`).
constexpr uint32_t kVariantConstantId = 0;

std::span<const uint32_t> shader_spirv(Shader shader) {
  switch (shader) {
    case Shader::kUnary:
      return shaders::unary_spv();
    case Shader::kBinary:
      return shaders::binary_spv();
    case Shader::kStridedCopy:
      return shaders::strided_copy_spv();
    case Shader::kPool2d:
      return shaders::pool2d_spv();
    case Shader::kSoftmax:
      return shaders::softmax_spv();
    case Shader::kReduce:
      return shaders::reduce_spv();
    case Shader::kLayerNorm:
      return shaders::layer_norm_spv();
    case Shader::kBatchNorm:
      return shaders::batch_norm_spv();
    case Shader::kPad:
      return shaders::pad_spv();
    case Shader::kUpsample:
      return shaders::upsample_spv();
    case Shader::kLogic:
      return shaders::logic_spv();
    case Shader::kSelect:
      return shaders::select_spv();
    case Shader::kGather:
      return shaders::gather_spv();
    case Shader::kAlongDim:
      return shaders::along_dim_spv();
  }
  return {};
}

}  // namespace

PipelineSet::Key PipelineSet::key_of(const Dispatch& d) {
  if (!d.kernel) return {static_cast<uint32_t>(d.shader), d.variant};
  Key key = {kShaderCount + static_cast<uint32_t>(d.kernel->kernel)};
  for (auto [id, value] : d.kernel->specialization) {
    key.push_back(id);
    key.push_back(value);
  }
  return key;
}

Result<PipelineSet> PipelineSet::create(const std::shared_ptr<univk::vulkan::Device>& device, const GraphPlan& plan) {
  PipelineSet set;
  std::set<Key> keys;
  for (const PlannedDispatch& pd : plan.dispatches) keys.insert(key_of(pd.dispatch));
  univk::vulkan::expect_pipelines(static_cast<uint32_t>(keys.size()));
  for (const PlannedDispatch& pd : plan.dispatches) {
    const Dispatch& d = pd.dispatch;
    const Key key = key_of(d);
    if (set.pipelines_.count(key) != 0) continue;
    if (d.kernel) {
      UNIVK_ASSIGN_OR_RETURN(std::shared_ptr<const univk::vulkan::ComputePipeline> pipeline,
                             univk::vulkan::get_or_create_pipeline(device, kernels::pipeline_desc(*d.kernel)));
      set.pipelines_.emplace(key, std::move(pipeline));
      continue;
    }
    const uint32_t push_bytes = plan.push_bytes[static_cast<size_t>(d.shader)];
    const std::string name =
        std::string("VulkanBackend ") + shader_name(d.shader) + " variant " + std::to_string(d.variant);
    auto desc = univk::vulkan::ComputePipelineDesc::storage_buffers(shader_spirv(d.shader),
                                                                    shader_binding_count(d.shader), push_bytes, name);
    desc.specialization.push_back({kVariantConstantId, d.variant});
    UNIVK_ASSIGN_OR_RETURN(std::shared_ptr<const univk::vulkan::ComputePipeline> pipeline,
                           univk::vulkan::get_or_create_pipeline(device, desc));
    set.pipelines_.emplace(key, std::move(pipeline));
  }
  return set;
}

const univk::vulkan::ComputePipeline* PipelineSet::find(const Dispatch& dispatch) const {
  auto it = pipelines_.find(key_of(dispatch));
  return it == pipelines_.end() ? nullptr : it->second.get();
}

}  // namespace univk::backends::vulkan
