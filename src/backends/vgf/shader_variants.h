// Shader-variant selection: which library shader runs a dispatch, and which of its
// specialization-constant variants.
//
// Record time: the lowering chooses a dispatch's vector-access variants
// (specialization constants) assuming every tensor view starts at an aligned element; only the
// recorder knows the real base element of each binding (the view's offset plus the part of its
// storage offset below the descriptor alignment). This adjusts the variants to those bases.
// Pure data.
#pragma once

#include <cstdint>
#include <span>

#include "dispatch_plan.h"

namespace univk::backends::vgf {

// The copy shader moving elements of `dtype` (by element size: 8, 16 or 32 bits).
Shader copy_shader(DType dtype);
// The elementwise shader running a fused program over `dtype` storage (fp32, fp16 or int32).
Shader elementwise_shader(DType dtype);

// `bases`: one base element offset per tensor binding (outputs first, then inputs), as the
// recorder prepends them to the dispatch's parameter words. Elementwise dispatches in linear mode
// move to 4-element vector accesses when every base and the element count allow it; pool
// dispatches drop the pair/quad accesses whose bases are not aligned to their width (and, without
// quad outputs, run one invocation per output again).
Dispatch select_variant_for_bases(const Dispatch& dispatch, std::span<const uint32_t> bases);

}  // namespace univk::backends::vgf
