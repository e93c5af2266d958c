// A test fixture for runtime tests with the fake backends (fake_backend.h): its own backend
// registry and device registry, both wired into options_, and an empty event log.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "fake_backend.h"
#include "univk/runtime/program.h"
#include "univk/vulkan/registry.h"

namespace univk::runtime::testing {

class FakeBackendsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backends_ = make_fake_registry();
    registry_ = std::make_unique<vulkan::DeviceRegistry>();
    options_.backends = backends_.get();
    options_.registry = registry_.get();
    FakeBackend::event_log().clear();
  }

  std::unique_ptr<BackendRegistry> backends_;
  std::unique_ptr<vulkan::DeviceRegistry> registry_;
  LoadOptions options_;
};

}  // namespace univk::runtime::testing
