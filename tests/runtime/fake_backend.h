// A test-only backend ("FakeA", "FakeB", ... by construction) implementing backend::Backend.
//
// Payload: two little-endian floats {scale, bias}; the delegate computes y = x * scale + bias
// elementwise on float32 tensors. Compile specs: "required_feature" and "optional_feature" name
// a vulkan::Feature (feature_name spelling) that the prepared payload requires, so tests can check
// the method merges requirements across delegates.
//
// execute() runs on the host. record() records a real compute dispatch (affine.comp) reading
// and writing the method's device buffers, so fused mode can be compared with per_delegate.
// The runtime option "fake_no_record" (any value) makes record() return Unsupported.
// Each delegate owns its pipeline and descriptor pool and holds its device lease.
//
// prepare() and init() append "prepare <id>:<scale>" and "init <id>:<scale>" to
// FakeBackend::event_log(), so tests can check that every payload is prepared once, before any
// delegate is initialised.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "univk/runtime/backend_registry.h"

namespace univk::runtime::testing {

class FakeBackend : public backend::Backend {
 public:
  explicit FakeBackend(std::string id) : id_(std::move(id)) {}
  std::string_view id() const override { return id_; }
  Result<std::unique_ptr<backend::PreparedPayload>> prepare(const backend::DelegateSpec& spec) const override;
  std::vector<std::string_view> option_keys() const override { return {"fake_no_record"}; }

  static std::vector<std::string>& event_log();

 private:
  std::string id_;
};

// The payload for y = x * scale + bias.
std::vector<uint8_t> affine_payload(float scale, float bias);

// A registry with FakeA and FakeB.
std::unique_ptr<BackendRegistry> make_fake_registry();

}  // namespace univk::runtime::testing
