// The runtime's minimal JSON writer: string quoting and number formatting, used by
// Profile::chrome_trace. The command-line tools write JSON with nlohmann-json; the runtime library
// keeps this writer so that it depends on no JSON library. Pure functions, no state.
#pragma once

#include <string>
#include <string_view>

namespace univk {

// `s` as a JSON string literal, quotes included; control characters escaped.
std::string json_quote(std::string_view s);
// A finite value with `significant_digits` digits ("%.*g"); "null" for NaN and infinities.
std::string json_number(double value, int significant_digits = 9);

}  // namespace univk
