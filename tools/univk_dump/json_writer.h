// A minimal streaming JSON writer for univk-dump: objects, arrays, keys and scalars, indented
// two spaces. The caller nests begin/end calls correctly; strings are escaped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace univk::dump {

class JsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  JsonWriter& key(std::string_view k);  // inside an object, before each value
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(int64_t v);
  void value(uint64_t v);
  void value(uint32_t v) { value(uint64_t{v}); }
  void value(int v) { value(int64_t{v}); }
  void value(double v);  // non-finite values are written as strings ("inf", "nan")
  void value(bool v);
  void null();
  template <typename T>
  void array(const std::vector<T>& values) {
    begin_array();
    for (const T& v : values) value(v);
    end_array();
  }

  const std::string& str() const { return out_; }

 private:
  void before_value();
  void write_string(std::string_view s);
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace univk::dump
