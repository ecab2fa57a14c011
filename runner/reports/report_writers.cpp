// The writers every report goes through: a file written piece by piece with
// every step checked, and a JSON object streamed member by member.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "kiln/conformance/report.hpp"

namespace kiln::conformance {

std::string compact_json(const protocol::Json& value) {
  return value.dump(-1, ' ', false, protocol::Json::error_handler_t::replace);
}

JsonObjectStream::JsonObjectStream(Sink sink, Encode encode, bool one_per_line)
    : sink_(std::move(sink)), encode_(encode), one_per_line_(one_per_line) {
  write("{");
}

bool JsonObjectStream::write(std::string_view text) {
  if (ok_ && !sink_(text)) ok_ = false;
  return ok_;
}

bool JsonObjectStream::start_member(std::string_view key) {
  const bool first = members_++ == 0;
  return write(first ? (one_per_line_ ? "\n " : "") : (one_per_line_ ? ",\n " : ",")) &&
         write(encode_(protocol::Json(std::string(key)))) && write(":");
}

bool JsonObjectStream::member(std::string_view key, const protocol::Json& value) {
  return start_member(key) && write(encode_(value));
}

bool JsonObjectStream::encoded_member(std::string_view key, std::string_view text) {
  return start_member(key) && write(text);
}

bool JsonObjectStream::open_array(std::string_view key) {
  items_ = 0;
  return start_member(key) && write("[");
}

bool JsonObjectStream::item(const protocol::Json& value) { return encoded_item(encode_(value)); }

bool JsonObjectStream::encoded_item(std::string_view text) {
  const bool first = items_++ == 0;
  return write(first ? (one_per_line_ ? "\n  " : "") : (one_per_line_ ? ",\n  " : ",")) && write(text);
}

bool JsonObjectStream::close_array() { return write(one_per_line_ && items_ > 0 ? "\n ]" : "]"); }

bool JsonObjectStream::close() {
  if (!one_per_line_) return write("}");
  return write(members_ > 0 ? "\n}\n" : "}\n");
}

// In place, not through a temporary file and a rename: a report may go to
// /dev/stdout or a pipe. Each step is checked, since a short write or a full
// disk often shows only at the flush or the close.
TextFileWriter::TextFileWriter(const std::filesystem::path& file) : file_(file) {
  stream_ = std::fopen(file.c_str(), "wb");
  if (!stream_) fail("open for writing", errno);
}

TextFileWriter::~TextFileWriter() {
  if (stream_) std::fclose(stream_);
}

bool TextFileWriter::fail(const char* step, int code) {
  if (error_.empty())
    error_ = file_.string() + ": cannot " + step + ": " + (code ? std::strerror(code) : "unknown error");
  return false;
}

bool TextFileWriter::write(std::string_view text) {
  if (!error_.empty()) return false;
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stream_) != text.size())
    return fail("write", errno);
  return true;
}

Checked<void> TextFileWriter::finish() {
  if (error_.empty() && stream_ && std::fflush(stream_) != 0) fail("write", errno);
  if (stream_) {
    const bool closed = std::fclose(stream_) == 0;
    const int code = errno;
    stream_ = nullptr;
    if (!closed) fail("close", code);
  }
  if (error_.empty()) return {};
  return Failure(error_);
}

Checked<void> write_text_file(const std::filesystem::path& file, const std::string& text) {
  TextFileWriter writer(file);
  writer.write(text);
  return writer.finish();
}

}  // namespace kiln::conformance
