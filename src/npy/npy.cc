#include "univk/npy/npy.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "univk/base/file_map.h"
#include "univk/base/input_file.h"

namespace univk::npy {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
// Limits that no legitimate tensor file reaches; they keep hostile headers cheap to reject.
constexpr size_t kMaxHeaderLength = 1 << 20;
constexpr size_t kMaxRank = 16;

struct DescrEntry {
  std::string_view descr;
  DType dtype;
};
// Type codes without the byte-order character; '<', '|' and '=' (native: little endian on
// every univk host) read as is, '>' (big endian) is byte-swapped on reading.
constexpr DescrEntry kDescrs[] = {
    {"f4", DType::kFloat32}, {"f2", DType::kFloat16}, {"i1", DType::kInt8},  {"u1", DType::kUint8},
    {"i2", DType::kInt16},   {"i4", DType::kInt32},   {"i8", DType::kInt64}, {"b1", DType::kBool},
};

// The dtype of a 'descr' string and whether its bytes are big endian.
std::optional<std::pair<DType, bool>> dtype_of_descr(const std::string& descr) {
  if (descr.size() != 3 || std::string_view("<>|=").find(descr[0]) == std::string_view::npos) return std::nullopt;
  for (const DescrEntry& e : kDescrs) {
    if (e.descr == std::string_view(descr).substr(1)) return std::make_pair(e.dtype, descr[0] == '>');
  }
  return std::nullopt;
}

// Reverses the bytes of every element (big endian to the host's little endian).
void swap_element_bytes(HostTensor& tensor) {
  const size_t elem = dtype_size(tensor.dtype());
  std::span<uint8_t> bytes = tensor.bytes();
  for (size_t i = 0; i + elem <= bytes.size(); i += elem) std::reverse(bytes.begin() + i, bytes.begin() + i + elem);
}

// The tensor whose data is `fortran`'s bytes read in column-major (Fortran) order, in row-major
// order: element (i0, ..., in-1) is read at offset i0 + d0 * (i1 + d1 * (i2 + ...)).
Result<HostTensor> fortran_to_c(const HostTensor& fortran) {
  const Shape& shape = fortran.shape();
  const size_t rank = shape.rank();
  const size_t elem = dtype_size(fortran.dtype());
  std::vector<int64_t> strides(rank, 1);  // column-major strides in elements
  for (size_t d = 1; d < rank; ++d) strides[d] = strides[d - 1] * shape[d - 1];
  UNIVK_ASSIGN_OR_RETURN(HostTensor out, HostTensor::allocate(fortran.dtype(), shape));
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  const uint8_t* src = fortran.bytes().data();
  uint8_t* dst = out.bytes().data();
  for (int64_t flat = 0; flat < shape.numel(); ++flat) {
    std::memcpy(dst + static_cast<size_t>(flat) * elem, src + static_cast<size_t>(offset) * elem, elem);
    for (size_t d = rank; d-- > 0;) {  // next row-major index
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return out;
}

std::string_view descr_of(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat16:
      return "<f2";
    case DType::kInt8:
      return "|i1";
    case DType::kUint8:
      return "|u1";
    case DType::kInt16:
      return "<i2";
    case DType::kInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kBool:
      return "|b1";
  }
  return "";
}

Status header_error(const std::string& what) { return invalid_argument("npy: header: " + what); }

// A minimal parser for the Python dict literal NumPy writes: string keys, and values that are
// strings, True/False or tuples of non-negative integers.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Status parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_space();
    if (!consume('{')) return header_error("does not start with '{'");
    while (true) {
      skip_space();
      if (consume('}')) break;
      std::string key;
      UNIVK_RETURN_IF_ERROR(parse_string(key));
      skip_space();
      if (!consume(':')) return header_error("expected ':' after key '" + key + "'");
      skip_space();
      if (key == "descr") {
        if (have_descr) return header_error("duplicate key 'descr'");
        UNIVK_RETURN_IF_ERROR(parse_string(descr));
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) return header_error("duplicate key 'fortran_order'");
        if (text_.substr(pos_, 4) == "True") {
          fortran = true, pos_ += 4;
        } else if (text_.substr(pos_, 5) == "False") {
          fortran = false, pos_ += 5;
        } else {
          return header_error("fortran_order is not True or False");
        }
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) return header_error("duplicate key 'shape'");
        UNIVK_RETURN_IF_ERROR(parse_shape(shape));
        have_shape = true;
      } else {
        return header_error("unknown key '" + key + "'");
      }
      skip_space();
      if (consume(',')) continue;
      skip_space();
      if (consume('}')) break;
      return header_error("expected ',' or '}' after the value of '" + key + "'");
    }
    skip_space();
    if (pos_ != text_.size()) return header_error("unexpected text after the dict");
    if (!have_descr || !have_fortran || !have_shape)
      return header_error("needs the keys descr, fortran_order and shape");
    return ok_status();
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
  }
  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status parse_string(std::string& out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return header_error("expected a string");
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return header_error("unterminated string");
    out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return ok_status();
  }
  Status parse_shape(std::vector<int64_t>& shape) {
    if (!consume('(')) return header_error("shape is not a tuple");
    while (true) {
      skip_space();
      if (consume(')')) return ok_status();
      if (pos_ >= text_.size()) return header_error("unterminated shape tuple");
      if (text_[pos_] == '-') return header_error("shape has a negative dimension");
      if (text_[pos_] < '0' || text_[pos_] > '9') return header_error("shape holds a non-integer");
      int64_t value = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        const int64_t digit = text_[pos_++] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
          return header_error("shape dimension overflows");
        value = value * 10 + digit;
      }
      if (shape.size() == kMaxRank) return header_error("shape has more than 16 dimensions");
      shape.push_back(value);
      skip_space();
      if (consume(',')) continue;
      skip_space();
      if (consume(')')) return ok_status();
      return header_error("expected ',' or ')' in shape");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

namespace {

// The fixed bytes before the header dict: magic, version and header length (2 bytes in
// version 1.0, 4 in 2.0 and 3.0).
constexpr size_t kPreambleBytes = 12;

struct Preamble {
  size_t header_start = 0;
  size_t header_length = 0;
};

// `first` holds the file's first min(file_size, kPreambleBytes) bytes.
Result<Preamble> parse_preamble(std::span<const uint8_t> first, uint64_t file_size) {
  if (file_size < 10) return invalid_argument("npy: file of " + std::to_string(file_size) + " bytes is too short");
  if (std::memcmp(first.data(), kMagic, sizeof(kMagic)) != 0)
    return invalid_argument("npy: bad magic (not a .npy file)");
  const uint8_t major = first[6];
  Preamble p;
  if (major == 1) {
    p.header_length = static_cast<size_t>(first[8]) | (static_cast<size_t>(first[9]) << 8);
    p.header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file_size < 12) return invalid_argument("npy: truncated header length");
    p.header_length = static_cast<size_t>(first[8]) | (static_cast<size_t>(first[9]) << 8) |
                      (static_cast<size_t>(first[10]) << 16) | (static_cast<size_t>(first[11]) << 24);
    p.header_start = 12;
  } else {
    return unsupported("npy: format version " + std::to_string(major) + "." + std::to_string(first[7]));
  }
  if (p.header_length > kMaxHeaderLength) {
    return invalid_argument("npy: header length " + std::to_string(p.header_length) + " is too large");
  }
  if (p.header_length > file_size - p.header_start) {
    return invalid_argument("npy: header of " + std::to_string(p.header_length) +
                            " bytes runs past the end of the file");
  }
  return p;
}

struct Layout {
  DType dtype = DType::kFloat32;
  Shape shape;
  uint64_t data_offset = 0;
  uint64_t data_size = 0;
  bool big_endian = false;
  bool fortran_order = false;
};

// Checks the header dict and that the file holds exactly the data the header declares.
Result<Layout> parse_layout(const Preamble& preamble, std::string_view header, uint64_t file_size) {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> dims;
  UNIVK_RETURN_IF_ERROR(HeaderParser(header).parse(descr, fortran, dims));
  const auto descr_type = dtype_of_descr(descr);
  if (!descr_type) {
    return unsupported("npy: dtype '" + descr + "' (supported: f4 f2 i1 u1 i2 i4 i8 b1, either byte order)");
  }
  const std::optional<DType> dtype = descr_type->first;
  UNIVK_ASSIGN_OR_RETURN(Shape shape, Shape::checked(dims));
  const uint64_t elem = dtype_size(*dtype);
  const uint64_t numel = static_cast<uint64_t>(shape.numel());
  if (numel != 0 && numel > std::numeric_limits<uint64_t>::max() / elem)
    return invalid_argument("npy: data size overflows");
  Layout layout;
  layout.dtype = *dtype;
  layout.data_offset = preamble.header_start + preamble.header_length;
  layout.data_size = numel * elem;
  const uint64_t available = file_size - layout.data_offset;
  if (available != layout.data_size) {
    return invalid_argument("npy: shape " + shape.to_string() + " of " + std::string(dtype_name(*dtype)) + " needs " +
                            std::to_string(layout.data_size) + " data bytes, the file has " +
                            std::to_string(available));
  }
  layout.shape = std::move(shape);
  layout.big_endian = descr_type->second;
  layout.fortran_order = fortran;
  return layout;
}

// The data read from the file (`raw`, laid out as `layout` says) as a native-endian C-order
// tensor.
Result<HostTensor> to_native(const Layout& layout, HostTensor raw) {
  if (layout.big_endian) swap_element_bytes(raw);
  if (layout.fortran_order) return fortran_to_c(raw);
  return raw;
}

}  // namespace

Result<HostTensor> parse_npy(std::span<const uint8_t> bytes) {
  UNIVK_ASSIGN_OR_RETURN(Preamble preamble,
                         parse_preamble(bytes.first(std::min(bytes.size(), kPreambleBytes)), bytes.size()));
  const std::string_view header(reinterpret_cast<const char*>(bytes.data() + preamble.header_start),
                                preamble.header_length);
  UNIVK_ASSIGN_OR_RETURN(Layout layout, parse_layout(preamble, header, bytes.size()));
  UNIVK_ASSIGN_OR_RETURN(HostTensor tensor, HostTensor::allocate(layout.dtype, layout.shape));
  if (layout.data_size != 0) std::memcpy(tensor.bytes().data(), bytes.data() + layout.data_offset, layout.data_size);
  return to_native(layout, std::move(tensor));
}

Result<HostTensor> read_npy(const std::string& path) {
  UNIVK_ASSIGN_OR_RETURN(InputFile file, InputFile::open(path));
  // Each read is bounded by what the bytes before it declared and by the file's size: the
  // preamble, then the header it announces, then the data the header describes (allocated
  // only once the file is known to hold exactly that much).
  std::vector<uint8_t> first(static_cast<size_t>(std::min<uint64_t>(file.size(), kPreambleBytes)));
  UNIVK_RETURN_IF_ERROR(file.read_at(0, first));
  auto preamble = parse_preamble(first, file.size());
  if (!preamble.ok()) return preamble.status().with_context(path);
  std::string header(preamble->header_length, '\0');
  UNIVK_RETURN_IF_ERROR(file.read_at(preamble->header_start,
                                     std::span<uint8_t>(reinterpret_cast<uint8_t*>(header.data()), header.size())));
  auto layout = parse_layout(*preamble, header, file.size());
  if (!layout.ok()) return layout.status().with_context(path);
  auto tensor = HostTensor::allocate(layout->dtype, layout->shape);
  if (!tensor.ok()) return tensor.status().with_context(path);
  UNIVK_RETURN_IF_ERROR(file.read_at(layout->data_offset, tensor->bytes()));
  return to_native(*layout, std::move(tensor).value());
}

std::vector<uint8_t> encode_npy(const HostTensor& tensor) {
  std::string header = "{'descr': '" + std::string(descr_of(tensor.dtype())) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape().rank(); ++i) {
    header += std::to_string(tensor.shape()[i]);
    if (tensor.shape().rank() == 1 || i + 1 < tensor.shape().rank()) header += ",";
    if (i + 1 < tensor.shape().rank()) header += " ";
  }
  header += "), }";
  // Pad with spaces and end with '\n' so that magic + version + length + header is 64-aligned.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), tensor.bytes().begin(), tensor.bytes().end());
  return out;
}

Status write_npy(const std::string& path, const HostTensor& tensor) { return write_file(path, encode_npy(tensor)); }

}  // namespace univk::npy
