#include "random_inputs.h"

#include "split_mix64.h"

namespace univk::bench {

namespace {

template <typename T>
void fill_integers(HostTensor& t, SplitMix64& rng, int64_t lo, int64_t hi) {
  for (T& x : t.data<T>()) x = static_cast<T>(rng.integer(lo, hi));
}

}  // namespace

std::vector<HostTensor> random_inputs(const std::vector<runtime::TensorInfo>& infos, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<HostTensor> out;
  for (const runtime::TensorInfo& info : infos) {
    HostTensor t(info.dtype, info.shape);
    switch (info.dtype) {
      case DType::kFloat32:
        for (float& x : t.data<float>()) x = rng.uniform();
        break;
      case DType::kFloat16:
        for (uint16_t& x : t.data<uint16_t>()) x = float_to_half(rng.uniform());
        break;
      case DType::kInt8:
        fill_integers<int8_t>(t, rng, -8, 8);
        break;
      case DType::kUint8:
        fill_integers<uint8_t>(t, rng, 0, 8);
        break;
      case DType::kInt16:
        fill_integers<int16_t>(t, rng, -8, 8);
        break;
      case DType::kInt32:
        fill_integers<int32_t>(t, rng, -8, 8);
        break;
      case DType::kInt64:
        fill_integers<int64_t>(t, rng, -8, 8);
        break;
      case DType::kBool:
        fill_integers<uint8_t>(t, rng, 0, 1);
        break;
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace univk::bench
