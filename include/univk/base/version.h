// The version of the univk library an application runs with. UNIVK_VERSION_STRING (univk/config.h)
// is the version of the headers it was compiled against; the two differ only when an application
// links a univk other than the one whose headers it used.
#pragma once

#include <string_view>

namespace univk {

struct Version {
  int major = 0, minor = 0, patch = 0;
};

Version version();
std::string_view version_string();  // "0.1.0", from the repository's VERSION file

}  // namespace univk
