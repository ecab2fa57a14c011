// The runner names case sets by SHA-256 with its own 80-line implementation
// rather than pulling in libcrypto for one hash: these known answers (FIPS 180-4
// examples and NIST's one-million-'a' message) are what keep that honest.
#include <gtest/gtest.h>

#include <string>

#include "kiln/conformance/sha256.hpp"

namespace kiln::conformance {
namespace {

std::string digest_of(std::string_view text) {
  Sha256 hash;
  hash.update(text);
  return hash.hex_digest();
}

TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(digest_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(digest_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(digest_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                      "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, AMillionAsInUnevenPieces) {
  Sha256 hash;
  const std::string piece(997, 'a');  // not a divisor of 64: every buffer offset occurs
  std::size_t left = 1000000;
  while (left > 0) {
    const std::size_t take = std::min(left, piece.size());
    hash.update(std::string_view(piece).substr(0, take));
    left -= take;
  }
  EXPECT_EQ(hash.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, SplittingTheInputNeverChangesTheDigest) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += static_cast<char>('a' + i % 26);
  for (std::size_t length : {55u, 56u, 63u, 64u, 65u, 119u, 120u, 128u, 200u}) {
    const std::string whole = digest_of(std::string_view(text).substr(0, length));
    for (std::size_t cut = 0; cut <= length; cut += 7) {
      Sha256 hash;
      hash.update(std::string_view(text).substr(0, cut));
      hash.update(std::string_view(text).substr(cut, length - cut));
      EXPECT_EQ(hash.hex_digest(), whole) << "length " << length << " cut at " << cut;
    }
  }
}

}  // namespace
}  // namespace kiln::conformance
