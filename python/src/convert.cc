#include "convert.h"

#include <cstring>
#include <limits>
#include <stdexcept>

namespace univk::python {

void register_status_errors() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      // The package imports univk.errors before this extension, so the import is a lookup in
      // sys.modules. Should it fail (the extension loaded outside its package), the error
      // still reaches Python, as a RuntimeError.
      try {
        py::object cls = py::module_::import("univk.errors").attr("_error_class")(status_code_name(e.code()));
        PyErr_SetString(cls.ptr(), e.what());
      } catch (const py::error_already_set&) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
      }
    }
  });
}

void throw_if_error(const Status& status) {
  if (!status.ok()) throw StatusError(status);
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
  throw py::type_error("numpy dtype " + py::repr(dt).cast<std::string>() +
                       " has no univk equivalent (float32, float16, int8, uint8, int16, int32, int64, bool)");
}

}  // namespace

py::dtype numpy_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return py::dtype("float32");
    case DType::kFloat16:
      return py::dtype("float16");
    case DType::kInt8:
      return py::dtype("int8");
    case DType::kUint8:
      return py::dtype("uint8");
    case DType::kInt32:
      return py::dtype("int32");
    case DType::kInt64:
      return py::dtype("int64");
    case DType::kBool:
      return py::dtype("bool");
    case DType::kInt16:
      return py::dtype("int16");
  }
  throw py::type_error("univk: unknown dtype");
}

HostTensor tensor_from_array(const py::array& array, const std::string& what) {
  DType dtype;
  try {
    dtype = dtype_of(array.dtype());
  } catch (const py::type_error& e) {
    throw py::type_error("univk: " + what + ": " + e.what());
  }
  // numpy.asarray with the native-byte-order dtype and order='C' reads the values as what they
  // are: a byte-swapped array is converted, a strided, Fortran-order or read-only one copied
  // (a 0-d array stays 0-d); an array that already is C-contiguous and native is used as is.
  py::array native = py::module_::import("numpy").attr("asarray")(array, numpy_dtype(dtype), "C");
  if (!(native.flags() & py::array::c_style)) {
    throw py::value_error("univk: " + what + ": numpy returned no C-contiguous copy of the array");
  }
  std::vector<int64_t> dims(native.shape(), native.shape() + native.ndim());
  HostTensor tensor(dtype, Shape(std::move(dims)));
  if (static_cast<size_t>(native.nbytes()) != tensor.byte_size()) {
    throw py::value_error("univk: " + what + ": array byte size does not match its shape");
  }
  if (tensor.byte_size() != 0) std::memcpy(tensor.bytes().data(), native.data(), tensor.byte_size());
  return tensor;
}

py::array array_from_tensor(const HostTensor& tensor) {
  std::vector<py::ssize_t> shape(tensor.shape().dims().begin(), tensor.shape().dims().end());
  py::array array(numpy_dtype(tensor.dtype()), shape);
  if (tensor.byte_size() != 0) std::memcpy(array.mutable_data(), tensor.bytes().data(), tensor.byte_size());
  return array;
}

namespace {

// A Python int as int64; ValueError naming the attribute when it does not fit (pybind11 would
// only say "Unable to cast").
int64_t int64_of(const py::handle& value, const std::string& owner, const std::string& name) {
  const py::int_ number = py::reinterpret_borrow<py::int_>(value);
  const py::int_ lowest(std::numeric_limits<int64_t>::min()), highest(std::numeric_limits<int64_t>::max());
  if (number < lowest || number > highest) {
    throw py::value_error("univk: " + owner + ": attribute '" + name + "' holds " +
                          py::repr(value).cast<std::string>() + ", outside the int64 range [-2^63, 2^63 - 1]");
  }
  return number.cast<int64_t>();
}

}  // namespace

Attributes attributes_from_dict(const py::dict& dict, const std::string& owner) {
  Attributes attrs;
  for (const auto& [key, value] : dict) {
    const std::string name = py::str(key);
    if (py::isinstance<py::bool_>(value)) {
      attrs.set(name, static_cast<int64_t>(value.cast<bool>()));
    } else if (py::isinstance<py::int_>(value)) {
      attrs.set(name, int64_of(value, owner, name));
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
          throw py::type_error("univk: " + owner + ": attribute '" + name + "' holds a list item of type " +
                               py::repr(item.get_type()).cast<std::string>());
        }
      }
      if (any_float) {
        attrs.set(name, value.cast<std::vector<double>>());
      } else {
        std::vector<int64_t> ints;
        for (const auto& item : value) ints.push_back(int64_of(item, owner, name));
        attrs.set(name, ints);
      }
    } else {
      throw py::type_error("univk: " + owner + ": attribute '" + name + "' has unsupported type " +
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
