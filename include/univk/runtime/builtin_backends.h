// The backends built into this univk build (library `univk`, src/all): "VulkanBackend" and
// "VgfBackend" when their build options are on. This is LoadOptions' default backend registry,
// so every program that constructs a LoadOptions links the `univk` umbrella library.
//
// Ownership: the registry is created on first use and never destroyed (backends are stateless
// factories, so no teardown order matters). Thread-safe.
#pragma once

#include "univk/runtime/backend_registry.h"

namespace univk::runtime {

const BackendRegistry& builtin_backends();

}  // namespace univk::runtime
