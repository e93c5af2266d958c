// Process-wide record of Vulkan validation-layer messages. Every univk instance created with
// validation on routes the layer's messages here; the test main fails a test binary when any
// test produced one. A plain counter with no teardown-order concerns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace univk::vulkan {

// Called by the debug-utils messenger; thread-safe.
void record_validation_message(const std::string& message);
uint64_t validation_message_count();
// A message known to concern a layer's own objects rather than univk's (instance.cc lists the
// one kind): logged at info level and counted apart, never among validation_messages_since.
void record_filtered_validation_message(const std::string& message);
uint64_t filtered_validation_message_count();
// The messages recorded since index `first` (for printing after a failed test).
std::vector<std::string> validation_messages_since(uint64_t first);

}  // namespace univk::vulkan
