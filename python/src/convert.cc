#include "convert.h"

#include <cstring>
#include <stdexcept>

namespace univk::python {

void throw_if_error(const Status& status) {
  if (!status.ok()) throw std::runtime_error(status.to_string());
}

DType dtype_from_string(const std::string& name) {
  auto dtype = dtype_from_name(name);
  if (!dtype) throw py::value_error("univk: unknown dtype '" + name + "'");
  return *dtype;
}

namespace {

DType dtype_of(const py::dtype& dt) {
  switch (dt.kind()) {
    case 'f':
      if (dt.itemsize() == 4) return DType::kFloat32;
      if (dt.itemsize() == 2) return DType::kFloat16;
      break;
    case 'i':
      if (dt.itemsize() == 1) return DType::kInt8;
      if (dt.itemsize() == 2) return DType::kInt16;
      if (dt.itemsize() == 4) return DType::kInt32;
      if (dt.itemsize() == 8) return DType::kInt64;
      break;
    case 'u':
      if (dt.itemsize() == 1) return DType::kUint8;
      break;
    case 'b':
      return DType::kBool;
    default:
      break;
  }
  throw py::type_error("univk: numpy dtype " + py::repr(dt).cast<std::string>() + " has no univk equivalent");
}

py::dtype numpy_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return py::dtype("float32");
    case DType::kFloat16: return py::dtype("float16");
    case DType::kInt8: return py::dtype("int8");
    case DType::kUint8: return py::dtype("uint8");
    case DType::kInt32: return py::dtype("int32");
    case DType::kInt64: return py::dtype("int64");
    case DType::kBool: return py::dtype("bool");
    case DType::kInt16: return py::dtype("int16");
  }
  throw py::type_error("univk: unknown dtype");
}

}  // namespace

HostTensor tensor_from_array(const py::array& array) {
  const DType dtype = dtype_of(array.dtype());
  // A C-contiguous, native byte order copy (a no-op view when the array already is one).
  py::array contiguous = py::array::ensure(array, py::array::c_style);
  if (!contiguous) throw py::value_error("univk: cannot make a contiguous copy of the array");
  std::vector<int64_t> dims(contiguous.shape(), contiguous.shape() + contiguous.ndim());
  HostTensor tensor(dtype, Shape(std::move(dims)));
  if (static_cast<size_t>(contiguous.nbytes()) != tensor.byte_size()) {
    throw py::value_error("univk: array byte size does not match its shape");
  }
  if (tensor.byte_size() != 0) std::memcpy(tensor.bytes().data(), contiguous.data(), tensor.byte_size());
  return tensor;
}

py::array array_from_tensor(const HostTensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().dims().begin(), tensor.shape().dims().end());
  py::array array(numpy_dtype(tensor.dtype()), shape);
  if (tensor.byte_size() != 0) std::memcpy(array.mutable_data(), tensor.bytes().data(), tensor.byte_size());
  return array;
}

Attributes attributes_from_dict(const py::dict& dict) {
  Attributes attrs;
  for (const auto& [key, value] : dict) {
    const std::string name = py::str(key);
    if (py::isinstance<py::bool_>(value)) {
      attrs.set(name, static_cast<int64_t>(value.cast<bool>()));
    } else if (py::isinstance<py::int_>(value)) {
      attrs.set(name, value.cast<int64_t>());
    } else if (py::isinstance<py::float_>(value)) {
      attrs.set(name, value.cast<double>());
    } else if (py::isinstance<py::str>(value)) {
      attrs.set(name, value.cast<std::string>());
    } else if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      bool any_float = false;
      for (const auto& item : value) {
        if (py::isinstance<py::float_>(item)) {
          any_float = true;
        } else if (!py::isinstance<py::int_>(item)) {
          throw py::type_error("univk: attribute '" + name + "' holds a list item of type " +
                               py::repr(item.get_type()).cast<std::string>());
        }
      }
      if (any_float) {
        attrs.set(name, value.cast<std::vector<double>>());
      } else {
        std::vector<int64_t> ints;
        for (const auto& item : value) ints.push_back(item.cast<int64_t>());
        attrs.set(name, ints);
      }
    } else {
      throw py::type_error("univk: attribute '" + name + "' has unsupported type " +
                           py::repr(value.get_type()).cast<std::string>());
    }
  }
  return attrs;
}

py::dict dict_from_attributes(const Attributes& attrs) {
  py::dict dict;
  for (const auto& [name, value] : attrs.values()) {
    std::visit([&](const auto& v) { dict[py::str(name)] = py::cast(v); }, value);
  }
  return dict;
}

}  // namespace univk::python
