#include "test_support.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "kiln/conformance/case_tools.hpp"

namespace kiln::conformance::testing {

// The design brief's worked example, row by row as the brief lays it out.
const char* const kU4BlockHex =
    "4b494c4e020200000100000010000000"  // header: magic, v2, flags 0x02, 1 tensor, heap 16
    "80000000000000000200000000000000"  // payload_offset 128, payload_length 2
    "08000000010000001100010000000000"  // entry: name at 8 len 1, dtype 17, rank 1, shape at 0
    "00000000000000000000000000000000"  // layout 0/0, block_size 0, reserved
    "00000000000000000200000000000000"  // data_offset 0, byte_length 2
    "00000000000000000000000000000000"  // reserved
    "03000000000000007800000000000000"  // heap: dim 3, "x", pad to 8
    "00000000000000000000000000000000"  // zero padding to payload_offset 128
    "2103";                             // payload

ScratchDir::ScratchDir() {
  static std::atomic<unsigned> counter{0};
  std::random_device entropy;
  const std::string name = "kiln-runner-test-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++) + "-" + std::to_string(entropy());
  path_ = std::filesystem::temp_directory_path() / name;
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

std::map<std::string, std::string> snapshot(const std::filesystem::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
    if (entry.is_regular_file())
      files[entry.path().lexically_relative(root).generic_string()] = read_text(entry.path());
  return files;
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

CommandResult run_program(const std::string& program, const std::vector<std::string>& args,
                          const ScratchDir& scratch) {
  static std::atomic<unsigned> counter{0};
  const std::string tag = std::to_string(counter++);
  const auto out_file = scratch / ("command-" + tag + ".out");
  const auto err_file = scratch / ("command-" + tag + ".err");
  std::string command = shell_quote(program);
  for (const auto& arg : args) command += " " + shell_quote(arg);
  command += " >" + shell_quote(out_file.string()) + " 2>" + shell_quote(err_file.string());
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(out_file);
  result.err = read_text(err_file);
  return result;
}

std::filesystem::path suite_schema_path() { return KILN_CASE_SCHEMA; }

void write_schema(const std::filesystem::path& dir) {
  write_text(dir / kCaseSchemaFile, read_text(suite_schema_path()));
}

const CaseSchema& suite_schema() {
  static const CaseSchema schema = [] {
    auto loaded = CaseSchema::load(suite_schema_path(), "cases/case.schema.json");
    if (!loaded) {
      std::fprintf(stderr, "the suite's schema does not load: %s\n", loaded.error().describe().c_str());
      std::abort();  // a broken build tree: every loader test needs the schema
    }
    return std::move(loaded).value();
  }();
  return schema;
}

const std::map<std::string, std::string>& seed_case_texts() {
  static const std::map<std::string, std::string> texts = {
      {"kiln-v2-u4",
       "id: kiln-v2-u4\n"
       "summary: u4 [3] holds 1, 2, 3 as 21 03\n"
       "rules: [TYPE-BYTE-LENGTH, TYPE-HIGH-NIBBLE]\n"
       "source: seed 000 kiln-v2-u4\n"
       "level: required\n"
       "tensors:\n"
       "  - name: \"x\"\n"
       "    dtype: u4\n"
       "    shape: [3]\n"
       "    values: [1, 2, 3]\n"
       "expect:\n"
       "  result: accept\n"},
      {"kiln-v2-high-nibble",
       "id: kiln-v2-high-nibble\n"
       "summary: u4 [3] stored as 21 13 leaves a nonzero high nibble\n"
       "rules: [TYPE-HIGH-NIBBLE]\n"
       "source: seed 000 kiln-v2-high-nibble\n"
       "level: required\n"
       "tensors:\n"
       "  - name: \"x\"\n"
       "    dtype: u4\n"
       "    shape: [3]\n"
       "    payload: \"2113\"\n"
       "expect:\n"
       "  result: reject\n"
       "  class: TYPE\n"
       "  rule: TYPE-HIGH-NIBBLE\n"},
      {"kiln-v2-bool-byte",
       "id: kiln-v2-bool-byte\n"
       "summary: bool [2] stored as 01 02\n"
       "rules: [TYPE-BOOL-BYTE]\n"
       "source: seed 000 kiln-v2-bool-byte\n"
       "level: required\n"
       "tensors:\n"
       "  - name: \"x\"\n"
       "    dtype: bool\n"
       "    shape: [2]\n"
       "    payload: \"0102\"\n"
       "expect:\n"
       "  result: reject\n"
       "  class: TYPE\n"
       "  rule: TYPE-BOOL-BYTE\n"},
      {"kiln-v2-le-clear",
       "id: kiln-v2-le-clear\n"
       "summary: the worked example with flags 0x00 is FRAME\n"
       "rules: [FRAME-LE-FLAG]\n"
       "source: seed 001 kiln-v2-le-clear\n"
       "level: required\n"
       "tensors:\n"
       "  - name: \"x\"\n"
       "    dtype: u4\n"
       "    shape: [3]\n"
       "    values: [1, 2, 3]\n"
       "faults:\n"
       "  - {set: \"header.flags\", value: 0}\n"
       "expect:\n"
       "  result: reject\n"
       "  class: FRAME\n"
       "  rule: FRAME-LE-FLAG\n"},
      {"kiln-v2-f32",
       "id: kiln-v2-f32\n"
       "summary: f32 [1] 1.0 is 00 00 80 3f\n"
       "rules: [TYPE-BYTE-LENGTH]\n"
       "source: seed 001 kiln-v2-f32\n"
       "level: required\n"
       "tensors:\n"
       "  - name: \"x\"\n"
       "    dtype: f32\n"
       "    shape: [1]\n"
       "    values: [1.0]\n"
       "expect:\n"
       "  result: accept\n"},
      {"kiln-v2-opaque",
       "id: kiln-v2-opaque\n"
       "summary: opaque code 4096 with layout Q4_K is accepted uninterpreted\n"
       "rules: [TYPE-OPAQUE-LAYOUT, TYPE-OPAQUE-BLOCK-SIZE, TYPE-OPAQUE-MULTIPLE]\n"
       "source: seed 002 kiln-v2-opaque\n"
       "level: required\n"
       "tensors:\n"
       "  - name: \"x\"\n"
       "    dtype: 4096\n"
       "    shape: [32]\n"
       "    layout: \"Q4_K\"\n"
       "    block_size: 18\n"
       "    payload: \"000102030405060708090a0b0c0d0e0f1011\"\n"
       "expect:\n"
       "  result: accept\n"},
  };
  return texts;
}

void write_seed_cases(const std::filesystem::path& dir) {
  write_schema(dir);
  for (const auto& [id, text] : seed_case_texts()) {
    const bool type_case = text.find("class: TYPE") != std::string::npos;
    write_text(dir / (type_case ? "type" : "other") / (id + ".yaml"), text);
  }
  std::ostringstream out, err;
  ASSERT_EQ(cases_regen(dir, out, err), kExitOk) << err.str();
}

}  // namespace kiln::conformance::testing
