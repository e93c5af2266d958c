// Layout rules for VGF resources, checked at load for every resource of a file (pure data).
//
// Each non-constant resource's strides must give every element its own memory (no broadcast or
// overlapping strides: an output written through them is ill-defined, and a packed model input
// cannot be stored in fewer elements without losing data); the bytes they reach are what the
// delegate binds (resource_byte_size), so extents never pass the bound buffer. CONSTANT entries
// are read packed, so declared strides on them must be the packed ones.
//
// A model input or output whose strides are valid but not packed (padded rows, permuted dims)
// runs in both modes: per_delegate copies it on the host, fused mode with copy dispatches between
// the method's packed device tensor and the delegate's own strided buffer (VgfDelegate::record).
#pragma once

#include <cstdint>
#include <vector>

#include "univk/base/status.h"
#include "univk/vgf/vgf_file.h"

namespace univk::backends::vgf {

// Element strides equal to row-major packed ones (dims of extent 1 may have any stride).
bool strides_are_packed(const std::vector<int64_t>& shape, const std::vector<int64_t>& element_strides);

// Every index maps to a distinct element. Checked conservatively: dims of extent > 1 sorted by
// stride, each stride must exceed the furthest offset the smaller-stride dims reach (interleaved
// layouts that happen not to collide are refused too).
bool strides_are_disjoint(const std::vector<int64_t>& shape, const std::vector<int64_t>& element_strides);

// InvalidArgument or Unsupported naming the first resource (index and category) that breaks
// the rules above.
Status check_resource_layouts(const univk::vgf::VgfFile& file);

}  // namespace univk::backends::vgf
