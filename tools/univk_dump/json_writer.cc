#include "json_writer.h"

#include <cmath>
#include <cstdio>

#include "univk/base/json.h"

namespace univk::dump {

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  write_string(k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

void JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
}

void JsonWriter::end_object() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += '}';
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
}

void JsonWriter::end_array() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += ']';
}

void JsonWriter::value(std::string_view s) {
  before_value();
  write_string(s);
}

void JsonWriter::write_string(std::string_view s) { out_ += json_quote(s); }

void JsonWriter::value(int64_t v) {
  before_value();
  out_ += std::to_string(v);
}

void JsonWriter::value(uint64_t v) {
  before_value();
  out_ += std::to_string(v);
}

void JsonWriter::value(double v) {
  if (!std::isfinite(v)) {
    value(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
    return;
  }
  before_value();
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  out_ += buf;
}

void JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

}  // namespace univk::dump
