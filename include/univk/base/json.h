// Small helpers for tools that print JSON: string quoting and number formatting. Pure
// functions, no state.
#pragma once

#include <string>
#include <string_view>

namespace univk {

// `s` as a JSON string literal, quotes included; control characters escaped.
std::string json_quote(std::string_view s);
// A finite value with `significant_digits` digits ("%.*g"); "null" for NaN and infinities.
std::string json_number(double value, int significant_digits = 9);

}  // namespace univk
