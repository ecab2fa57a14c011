// kiln.dict must keep up with the dtype table: every code of kiln::kDtypes and
// every range edge as a little-endian u16 entry, and the header constants.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "kiln/dtype.hpp"
#include "kiln/layout.hpp"

namespace {

// The quoted values of a libFuzzer dictionary, with \xNN and \\ \" decoded.
std::set<std::string> read_dictionary(const std::string& path) {
  std::ifstream in(path);
  std::set<std::string> entries;
  std::string line;
  while (std::getline(in, line)) {
    const auto open = line.find('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos) continue;
    std::string value;
    for (std::size_t i = open + 1; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'x' && i + 3 < line.size()) {
        value += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
        i += 3;
      } else if (line[i] == '\\' && i + 1 < line.size()) {
        value += line[++i];
      } else {
        value += line[i];
      }
    }
    entries.insert(value);
  }
  return entries;
}

std::string u16_le(std::uint16_t code) {
  return {static_cast<char>(code & 0xFF), static_cast<char>(code >> 8)};
}

const std::set<std::string>& dictionary() {
  static const auto entries = read_dictionary(KILN_FUZZ_DICT);
  return entries;
}

TEST(FuzzDictionary, HasEveryDtypeCodeOfTheTable) {
  ASSERT_FALSE(dictionary().empty()) << KILN_FUZZ_DICT;
  for (const auto& info : kiln::kDtypes)
    EXPECT_TRUE(dictionary().count(u16_le(info.code))) << "missing dtype " << info.name;
}

TEST(FuzzDictionary, HasTheCodeRangeEdges) {
  for (std::uint16_t code : {0, 19, 20, 4095, 4096, 32767, 32768, 65535})
    EXPECT_TRUE(dictionary().count(u16_le(code))) << "missing code " << code;
}

TEST(FuzzDictionary, HasTheHeaderConstantsAndU64Edges) {
  EXPECT_TRUE(dictionary().count(std::string(kiln::kMagic.begin(), kiln::kMagic.end())));
  EXPECT_TRUE(dictionary().count(std::string(1, static_cast<char>(kiln::kVersion))));
  EXPECT_TRUE(dictionary().count("Q4_K"));
  EXPECT_TRUE(dictionary().count(std::string(8, '\xff')));          // 2^64 - 1
  EXPECT_TRUE(dictionary().count(std::string(7, '\0') + '\x80'));   // 2^63
  EXPECT_TRUE(dictionary().count(std::string("\xff\xff\xff\xff") + std::string(4, '\0')));
}

}  // namespace
