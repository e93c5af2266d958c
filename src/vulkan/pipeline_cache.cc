#include "univk/vulkan/pipeline_cache.h"

#include <cstdio>

#include "pipeline_warm_up.h"
#include "univk/base/logging.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/shared_objects.h"

namespace univk::vulkan {
namespace {

thread_local PipelineLoadScope* current_scope = nullptr;

// Progress lines start once a scope has been open this long, and come at most this often.
constexpr std::chrono::seconds kProgressAfter{1};
constexpr std::chrono::seconds kProgressEvery{1};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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

PipelineLoadScope::PipelineLoadScope(PipelineLoadStats& stats, std::string label)
    : stats_(stats),
      label_(std::move(label)),
      outer_(current_scope),
      start_(std::chrono::steady_clock::now()),
      last_progress_(start_) {
  current_scope = this;
}

PipelineLoadScope::~PipelineLoadScope() { current_scope = outer_; }

void expect_pipelines(uint32_t count) {
  if (current_scope != nullptr) current_scope->stats_.expected += count;
}

void note_pipeline_lookup(bool created, double seconds) {
  PipelineLoadScope* scope = current_scope;
  if (scope == nullptr) return;
  PipelineLoadStats& stats = scope->stats_;
  ++stats.looked_up;
  if (created) {
    ++stats.created;
    stats.create_seconds += seconds;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - scope->start_ < kProgressAfter || now - scope->last_progress_ < kProgressEvery) return;
  scope->last_progress_ = now;
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), "%.1f s", seconds_since(scope->start_));
  const std::string total = stats.expected >= stats.looked_up ? "/" + std::to_string(stats.expected) : std::string();
  log_progress(__FILE__, __LINE__,
               scope->label_ + ": preparing pipelines, " + std::to_string(stats.looked_up) + total + " done (" +
                   std::to_string(stats.created) + " compiled), " + elapsed);
}

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
  bool created = false;
  const auto start = std::chrono::steady_clock::now();
  auto pipeline = device->shared_objects().get_or_create<ComputePipeline>(
      pipeline_cache_key(desc), [&]() -> Result<std::shared_ptr<const ComputePipeline>> {
        UNIVK_ASSIGN_OR_RETURN(ComputePipeline made, ComputePipeline::create(device, desc));
        if (compiles_at_first_dispatch(*device)) {
          UNIVK_RETURN_IF_ERROR(
              warm_up_pipeline(device, made, desc)
                  .with_context((desc.debug_name.empty() ? std::string("compute pipeline") : desc.debug_name) +
                                " warm-up"));
        }
        created = true;
        return std::make_shared<const ComputePipeline>(std::move(made));
      });
  if (pipeline.ok()) note_pipeline_lookup(created, seconds_since(start));
  return pipeline;
}

}  // namespace univk::vulkan
