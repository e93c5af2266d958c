// Operator attributes: a name -> value map with typed, checked getters. Used by the CPU kernels
// (src/reference), the program format (KernelCall), the VulkanBackend payload and the compiler.
// Attribute names follow PyTorch's argument names (kernel_size, stride, padding, dim, keepdim...).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "univk/base/status.h"

namespace univk {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

class Attributes {
 public:
  Attributes() = default;

  void set(const std::string& name, AttrValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, AttrValue>& values() const { return values_; }

  // Typed getters: NotFound when absent, InvalidArgument naming the attribute when the stored
  // type differs. An int64 is accepted where a double is asked for; a single int64 is accepted
  // where a list of ints is asked for (PyTorch's `stride=2` means [2, 2] for 2-d ops: the
  // caller expands with `ints_expanded`).
  Result<int64_t> get_int(const std::string& name) const;
  Result<double> get_float(const std::string& name) const;
  Result<std::string> get_string(const std::string& name) const;
  Result<std::vector<int64_t>> get_ints(const std::string& name) const;
  Result<std::vector<double>> get_floats(const std::string& name) const;

  // Getters with a default used only when the attribute is absent (a wrong type is still an error).
  Result<int64_t> get_int_or(const std::string& name, int64_t fallback) const;
  Result<double> get_float_or(const std::string& name, double fallback) const;
  Result<bool> get_bool_or(const std::string& name, bool fallback) const;  // stored as int64 0/1
  Result<std::vector<int64_t>> get_ints_or(const std::string& name, std::vector<int64_t> fallback) const;
  // A list of `count` ints: a single value or a 1-element list is repeated (kernel_size=2 -> [2,2]).
  Result<std::vector<int64_t>> ints_expanded(const std::string& name, size_t count,
                                             std::vector<int64_t> fallback) const;

  std::string to_string() const;  // "{kernel_size=[2,2], stride=[2,2]}"

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace univk
