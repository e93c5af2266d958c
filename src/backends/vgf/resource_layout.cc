#include "resource_layout.h"

#include <algorithm>
#include <string>
#include <utility>

#include "lower_graph.h"

namespace univk::backends::vgf {

namespace {

std::string list_string(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

bool strides_are_packed(const std::vector<int64_t>& shape, const std::vector<int64_t>& element_strides) {
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) return true;
    if (shape[d] != 1 && element_strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

bool strides_are_disjoint(const std::vector<int64_t>& shape, const std::vector<int64_t>& element_strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // {stride, extent} of dims with extent > 1
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return true;
    if (shape[d] > 1) dims.emplace_back(element_strides[d], shape[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // furthest element offset of the dims so far
  for (const auto& [stride, extent] : dims) {
    int64_t step = 0;
    if (stride <= reach || __builtin_mul_overflow(extent - 1, stride, &step) ||
        __builtin_add_overflow(reach, step, &reach))
      return false;
  }
  return true;
}

Status check_resource_layouts(const univk::vgf::VgfFile& file) {
  for (size_t i = 0; i < file.resources.size(); ++i) {
    const univk::vgf::Resource& r = file.resources[i];
    const std::string name =
        "resource " + std::to_string(i) + " (" + std::string(univk::vgf::resource_category_name(r.category)) + ")";
    if (r.category == univk::vgf::ResourceCategory::kConstant) {
      if (r.strides.empty()) continue;
      auto strides = resource_element_strides(r);
      if (!strides.ok()) return strides.status().with_context(name);
      if (!strides_are_packed(r.shape, *strides))
        return unsupported(name + ": byte strides " + list_string(r.strides) + " over shape " + list_string(r.shape) +
                           " are not packed; constant data is read packed");
      continue;
    }
    auto strides = resource_element_strides(r);
    if (!strides.ok()) return strides.status().with_context(name);
    auto bytes = resource_byte_size(r);
    if (!bytes.ok()) return bytes.status().with_context(name);
    if (!strides_are_disjoint(r.shape, *strides))
      return invalid_argument(name + ": byte strides " + list_string(r.strides) + " over shape " +
                              list_string(r.shape) +
                              " give several elements the same memory (broadcast or overlapping strides)");
  }
  return ok_status();
}

}  // namespace univk::backends::vgf
