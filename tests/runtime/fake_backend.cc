#include "fake_backend.h"

#include <cstring>
#include <set>

#include "runtime_fake_backend_shaders.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "univk/vulkan/pipeline.h"

namespace univk::runtime::testing {

namespace {

struct Affine {
  float scale = 1.f;
  float bias = 0.f;
};

Result<Affine> parse_payload(const backend::DelegateSpec& spec) {
  if (spec.payload.size() != sizeof(Affine)) {
    return invalid_argument("fake payload must be 8 bytes, got " + std::to_string(spec.payload.size()));
  }
  Affine affine;
  std::memcpy(&affine, spec.payload.data(), sizeof(Affine));
  if (spec.inputs.size() != 1 || spec.outputs.size() != 1 || spec.inputs[0].dtype != DType::kFloat32 ||
      spec.inputs[0].shape != spec.outputs[0].shape) {
    return invalid_argument("fake delegate takes one float32 input and one output of the same shape");
  }
  return affine;
}

Status add_feature(const backend::DelegateSpec& spec, const std::string& key, std::set<vulkan::Feature>& out) {
  auto it = spec.compile_specs.find(key);
  if (it == spec.compile_specs.end()) return ok_status();
  std::string name(it->second.begin(), it->second.end());
  auto feature = vulkan::feature_from_name(name);
  if (!feature) return invalid_argument("unknown feature '" + name + "'");
  out.insert(*feature);
  return ok_status();
}

struct Push {
  float scale;
  float bias;
  uint32_t count;
};

class FakeDelegate : public backend::Delegate {
 public:
  FakeDelegate(vulkan::DeviceLease device, Affine affine, backend::TensorInfo info, bool can_record)
      : device_(std::move(device)), affine_(affine), info_(std::move(info)), can_record_(can_record) {}

  Status create_pipeline() {
    UNIVK_ASSIGN_OR_RETURN(
        pipeline_, vulkan::ComputePipeline::create(
                       device_, vulkan::ComputePipelineDesc::storage_buffers(univk::runtime::testing::affine_spv(), 2,
                                                                             sizeof(Push), "affine")));
    UNIVK_ASSIGN_OR_RETURN(pool_, vulkan::DescriptorPool::create(device_, 4, 8));
    return ok_status();
  }

  const vulkan::DeviceLease& device() const override { return device_; }

  Status prepare_execute() override { return ok_status(); }  // execute() runs on the host

  Result<std::vector<HostTensor>> execute(std::span<const HostTensor> inputs) override {
    HostTensor out(DType::kFloat32, info_.shape);
    auto x = inputs[0].data<float>();
    auto y = out.data<float>();
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * affine_.scale + affine_.bias;
    stats_ = {};
    stats_.bytes_uploaded = inputs[0].byte_size();
    stats_.bytes_downloaded = out.byte_size();
    return std::vector<HostTensor>{std::move(out)};
  }

  Status record(VkCommandBuffer cmd, std::span<const backend::DeviceTensor> inputs,
                std::span<const backend::DeviceTensor> outputs) override {
    if (!can_record_) return unsupported("fake delegate: recording turned off (fake_no_record)");
    if (inputs.size() != 1 || outputs.size() != 1) return invalid_argument("fake delegate: one input, one output");
    UNIVK_ASSIGN_OR_RETURN(VkDescriptorSet set, pool_.allocate(pipeline_.set_layouts()[0]));
    const vulkan::BufferRange ranges[2] = {inputs[0].range, outputs[0].range};
    pool_.write_storage_buffers(set, ranges);
    const auto& vk = device_->vk();
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_.handle());
    vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_.layout(), 0, 1, &set, 0, nullptr);
    const uint32_t count = static_cast<uint32_t>(info_.shape.numel());
    Push push{affine_.scale, affine_.bias, count};
    vk.vkCmdPushConstants(cmd, pipeline_.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vk.vkCmdDispatch(cmd, (count + 63) / 64, 1, 1);
    stats_ = {};
    stats_.dispatches = 1;
    return ok_status();
  }

  backend::ExecuteStats stats() const override { return stats_; }

 private:
  vulkan::DeviceLease device_;
  Affine affine_;
  backend::TensorInfo info_;
  vulkan::ComputePipeline pipeline_;
  vulkan::DescriptorPool pool_;
  bool can_record_;
  backend::ExecuteStats stats_;
};

}  // namespace

std::vector<std::string>& FakeBackend::event_log() {
  static std::vector<std::string> log;
  return log;
}

namespace {
// Methods may load concurrently (tests do); the log itself is read only by single-threaded tests.
void log_event(std::string event) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  FakeBackend::event_log().push_back(std::move(event));
}
}  // namespace

namespace {

class PreparedAffine final : public backend::PreparedPayload {
 public:
  PreparedAffine(std::string id, Affine affine, backend::TensorInfo output, vulkan::DeviceRequirements requirements)
      : id_(std::move(id)), affine_(affine), output_(std::move(output)), requirements_(std::move(requirements)) {}

  const vulkan::DeviceRequirements& requirements() const override { return requirements_; }

  Result<std::unique_ptr<backend::Delegate>> init(vulkan::DeviceLease device,
                                                  const backend::BackendOptions& options) const override {
    auto delegate =
        std::make_unique<FakeDelegate>(std::move(device), affine_, output_, options.count("fake_no_record") == 0);
    UNIVK_RETURN_IF_ERROR(delegate->create_pipeline());
    log_event("init " + id_ + ":" + std::to_string(affine_.scale));
    return std::unique_ptr<backend::Delegate>(std::move(delegate));
  }

 private:
  std::string id_;
  Affine affine_;
  backend::TensorInfo output_;
  vulkan::DeviceRequirements requirements_;
};

}  // namespace

Result<std::unique_ptr<backend::PreparedPayload>> FakeBackend::prepare(const backend::DelegateSpec& spec) const {
  UNIVK_ASSIGN_OR_RETURN(Affine affine, parse_payload(spec));
  log_event("prepare " + id_ + ":" + std::to_string(affine.scale));
  vulkan::DeviceRequirements r;
  UNIVK_RETURN_IF_ERROR(add_feature(spec, "required_feature", r.required_features));
  UNIVK_RETURN_IF_ERROR(add_feature(spec, "optional_feature", r.optional_features));
  return std::unique_ptr<backend::PreparedPayload>(
      std::make_unique<PreparedAffine>(id_, affine, spec.outputs[0], std::move(r)));
}

std::vector<uint8_t> affine_payload(float scale, float bias) {
  std::vector<uint8_t> bytes(sizeof(Affine));
  Affine affine{scale, bias};
  std::memcpy(bytes.data(), &affine, sizeof(Affine));
  return bytes;
}

std::unique_ptr<BackendRegistry> make_fake_registry() {
  auto registry = std::make_unique<BackendRegistry>();
  (void)registry->add(std::make_unique<FakeBackend>("FakeA"));
  (void)registry->add(std::make_unique<FakeBackend>("FakeB"));
  return registry;
}

}  // namespace univk::runtime::testing
