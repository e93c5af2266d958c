// The SPIR-V of the VgfBackend's own shaders (GLSL under shaders/, compiled at build time).
#pragma once

#include <cstdint>
#include <span>

#include "dispatch_plan.h"

namespace univk::backends::vgf {

std::span<const uint32_t> shader_spirv(Shader id);

}  // namespace univk::backends::vgf
