#include "univk/base/version.h"

#include "univk/config.h"

namespace univk {

Version version() { return {UNIVK_VERSION_MAJOR, UNIVK_VERSION_MINOR, UNIVK_VERSION_PATCH}; }

std::string_view version_string() { return UNIVK_VERSION_STRING; }

}  // namespace univk
