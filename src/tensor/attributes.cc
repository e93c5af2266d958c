#include "univk/tensor/attributes.h"

#include <sstream>

namespace univk {
namespace {

const char* type_name(const AttrValue& v) {
  switch (v.index()) {
    case 0:
      return "int";
    case 1:
      return "float";
    case 2:
      return "string";
    case 3:
      return "int list";
    case 4:
      return "float list";
  }
  return "unknown";
}

Status wrong_type(const std::string& name, const AttrValue& v, const char* wanted) {
  return invalid_argument("attribute '" + name + "' is a " + type_name(v) + ", expected " + wanted);
}

}  // namespace

Result<int64_t> Attributes::get_int(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return not_found("missing attribute '" + name + "'");
  if (auto* i = std::get_if<int64_t>(&it->second)) return *i;
  return wrong_type(name, it->second, "int");
}

Result<double> Attributes::get_float(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return not_found("missing attribute '" + name + "'");
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return wrong_type(name, it->second, "float");
}

Result<std::string> Attributes::get_string(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return not_found("missing attribute '" + name + "'");
  if (auto* s = std::get_if<std::string>(&it->second)) return *s;
  return wrong_type(name, it->second, "string");
}

Result<std::vector<int64_t>> Attributes::get_ints(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return not_found("missing attribute '" + name + "'");
  if (auto* l = std::get_if<std::vector<int64_t>>(&it->second)) return *l;
  if (auto* i = std::get_if<int64_t>(&it->second)) return std::vector<int64_t>{*i};
  return wrong_type(name, it->second, "int list");
}

Result<std::vector<double>> Attributes::get_floats(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return not_found("missing attribute '" + name + "'");
  if (auto* l = std::get_if<std::vector<double>>(&it->second)) return *l;
  if (auto* d = std::get_if<double>(&it->second)) return std::vector<double>{*d};
  return wrong_type(name, it->second, "float list");
}

Result<int64_t> Attributes::get_int_or(const std::string& name, int64_t fallback) const {
  return has(name) ? get_int(name) : Result<int64_t>(fallback);
}

Result<double> Attributes::get_float_or(const std::string& name, double fallback) const {
  return has(name) ? get_float(name) : Result<double>(fallback);
}

Result<bool> Attributes::get_bool_or(const std::string& name, bool fallback) const {
  if (!has(name)) return fallback;
  UNIVK_ASSIGN_OR_RETURN(int64_t v, get_int(name));
  return v != 0;
}

Result<std::vector<int64_t>> Attributes::get_ints_or(const std::string& name, std::vector<int64_t> fallback) const {
  return has(name) ? get_ints(name) : Result<std::vector<int64_t>>(std::move(fallback));
}

Result<std::vector<int64_t>> Attributes::ints_expanded(const std::string& name, size_t count,
                                                       std::vector<int64_t> fallback) const {
  UNIVK_ASSIGN_OR_RETURN(std::vector<int64_t> v, get_ints_or(name, std::move(fallback)));
  if (v.size() == 1 && count > 1) v.assign(count, v[0]);
  if (v.size() != count) {
    return invalid_argument("attribute '" + name + "' has " + std::to_string(v.size()) + " values, expected " +
                            std::to_string(count));
  }
  return v;
}

std::string Attributes::to_string() const {
  std::ostringstream out;
  out << "{";
  bool first = true;
  for (const auto& [name, value] : values_) {
    if (!first) out << ", ";
    first = false;
    out << name << "=";
    std::visit(
        [&out](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>) {
            out << "[";
            for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
            out << "]";
          } else if constexpr (std::is_same_v<T, std::string>) {
            out << "'" << v << "'";
          } else {
            out << v;
          }
        },
        value);
  }
  out << "}";
  return out.str();
}

}  // namespace univk
