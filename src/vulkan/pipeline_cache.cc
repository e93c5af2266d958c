#include "univk/vulkan/pipeline_cache.h"

#include "univk/vulkan/device.h"
#include "univk/vulkan/shared_objects.h"

namespace univk::vulkan {
namespace {

// FNV-1a over the module's words. With the word count and the rest of the description in the
// key, two different modules colliding is not a practical concern.
uint64_t hash_words(std::span<const uint32_t> words) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint32_t word : words) {
    for (int byte = 0; byte < 4; ++byte) {
      hash ^= (word >> (8 * byte)) & 0xffu;
      hash *= 0x100000001b3ull;
    }
  }
  return hash;
}

}  // namespace

std::string pipeline_cache_key(const ComputePipelineDesc& desc) {
  std::string key = "spirv " + std::to_string(hash_words(desc.spirv)) + " words " + std::to_string(desc.spirv.size()) +
                    " entry " + desc.entry_point + " push " + std::to_string(desc.push_constant_bytes);
  for (size_t set = 0; set < desc.sets.size(); ++set) {
    key += " set" + std::to_string(set) + ":";
    for (const DescriptorBinding& binding : desc.sets[set]) {
      key += " " + std::to_string(binding.binding) + "/" + std::to_string(static_cast<int>(binding.type));
    }
  }
  key += " spec";
  for (const SpecializationConstant& constant : desc.specialization) {
    key += " " + std::to_string(constant.id) + "=" + std::to_string(constant.value);
  }
  return key;
}

Result<std::shared_ptr<const ComputePipeline>> get_or_create_pipeline(const std::shared_ptr<Device>& device,
                                                                      const ComputePipelineDesc& desc) {
  if (!device) return invalid_argument("get_or_create_pipeline: null device");
  return device->shared_objects().get_or_create<ComputePipeline>(
      pipeline_cache_key(desc), [&]() -> Result<std::shared_ptr<const ComputePipeline>> {
        UNIVK_ASSIGN_OR_RETURN(ComputePipeline created, ComputePipeline::create(device, desc));
        return std::make_shared<const ComputePipeline>(std::move(created));
      });
}

}  // namespace univk::vulkan
