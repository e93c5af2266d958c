#include "attributes_json.h"

#include <cmath>
#include <variant>

namespace univk::dump {

tools::Json float_json(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

tools::Json attributes_json(const Attributes& attrs) {
  tools::Json out = tools::Json::object();
  for (const auto& [name, value] : attrs.values()) {
    out[name] = std::visit(
        [](const auto& v) -> tools::Json {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, double>) {
            return float_json(v);
          } else if constexpr (std::is_same_v<T, std::vector<double>>) {
            tools::Json list = tools::Json::array();
            for (double d : v) list.push_back(float_json(d));
            return list;
          } else {
            return v;
          }
        },
        value);
  }
  return out;
}

}  // namespace univk::dump
