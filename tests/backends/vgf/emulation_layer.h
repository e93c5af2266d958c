// Arm's ML emulation layer for the native-path tests: the folder CTest names in
// UNIVK_ARM_EMULATION_LAYER (extracted from ../shared/third_party by cmake/third_party.cmake)
// and a RuntimeConfig whose instances enable its two layers, graph above tensor.
#pragma once

#include <cstdlib>
#include <string>

#include "univk/vulkan/runtime_config.h"

namespace univk::backends::vgf_test {

inline std::string emulation_layer_dir() {
  const char* dir = std::getenv("UNIVK_ARM_EMULATION_LAYER");
  return dir != nullptr ? dir : "";
}

// The system folders of explicit layer manifests (VK_LAYER_KHRONOS_validation's among them),
// which a set VK_LAYER_PATH replaces.
inline constexpr const char* kSystemLayerFolders =
    "/usr/local/share/vulkan/explicit_layer.d:/usr/share/vulkan/explicit_layer.d:/etc/vulkan/explicit_layer.d";

// RuntimeConfig::from_environment() plus the emulation layers; sets VK_LAYER_PATH (read by the
// loader at instance creation) to the layer manifests' folders, then the system ones so the
// validation layer stays available. Call after checking that emulation_layer_dir() exists.
inline vulkan::RuntimeConfig emulation_config() {
  const std::string dir = emulation_layer_dir();
  const std::string path = dir + "/graph:" + dir + "/tensor:" + kSystemLayerFolders;
  setenv("VK_LAYER_PATH", path.c_str(), 1);
  vulkan::RuntimeConfig config = vulkan::RuntimeConfig::from_environment();
  config.instance_layers = {"VK_LAYER_ML_Graph_Emulation", "VK_LAYER_ML_Tensor_Emulation"};
  return config;
}

}  // namespace univk::backends::vgf_test
