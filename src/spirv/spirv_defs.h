// SPIR-V numbers used by the TOSA graph reader and writer (core spec 1.6, SPV_ARM_tensors,
// SPV_ARM_graph, SPV_EXT_replicated_composites).
#pragma once

#include <cstdint>

namespace univk::spirv::op {
inline constexpr uint32_t kMagic = 0x07230203u;
inline constexpr uint32_t kVersion16 = 0x00010600u;
// The header's generator word: tool id in the upper 16 bits, tool version in the lower. univk has
// no id in Khronos' registry (spir-v.xml, which hands ids out in sequence from 0); it writes 0x7556
// ("uV"), far above the ids given so far, and the version of its module layout (docs/FORMATS.md).
inline constexpr uint32_t kUnivkGeneratorId = 0x7556u, kUnivkGeneratorVersion = 1u;
inline constexpr uint32_t kGenerator = (kUnivkGeneratorId << 16) | kUnivkGeneratorVersion;

inline constexpr uint16_t kNop = 0, kSourceContinued = 2, kSource = 3, kSourceExtension = 4, kName = 5, kMemberName = 6,
                          kString = 7, kLine = 8, kExtension = 10, kExtInstImport = 11, kExtInst = 12,
                          kMemoryModel = 14, kEntryPoint = 15, kExecutionMode = 16, kCapability = 17, kTypeVoid = 19,
                          kTypeBool = 20, kTypeInt = 21, kTypeFloat = 22, kTypeArray = 28, kTypeStruct = 30,
                          kTypePointer = 32, kConstantTrue = 41, kConstantFalse = 42, kConstant = 43,
                          kConstantComposite = 44, kConstantNull = 46, kFunction = 54, kVariable = 59, kDecorate = 71,
                          kMemberDecorate = 72, kCompositeExtract = 81, kNoLine = 317, kModuleProcessed = 330,
                          kExecutionModeId = 331, kDecorateId = 332, kDecorateString = 5632;
inline constexpr uint16_t kTypeTensorArm = 4163, kGraphConstantArm = 4181, kGraphEntryPointArm = 4182, kGraphArm = 4183,
                          kGraphInputArm = 4184, kGraphSetOutputArm = 4185, kGraphEndArm = 4186, kTypeGraphArm = 4190;
inline constexpr uint16_t kConstantCompositeReplicateExt = 4461;

inline constexpr uint32_t kCapShader = 1, kCapFloat16 = 9, kCapInt64 = 11, kCapInt16 = 22, kCapInt8 = 39,
                          kCapVulkanMemoryModel = 5345, kCapTensorsArm = 4174, kCapGraphArm = 4191;
inline constexpr uint32_t kDecorationBinding = 33, kDecorationDescriptorSet = 34;
inline constexpr uint32_t kStorageUniformConstant = 0;
inline constexpr uint32_t kAddressingLogical = 0, kMemoryModelVulkan = 3;
}  // namespace univk::spirv::op
