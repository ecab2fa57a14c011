// ctest fixes RC_PARAMS for each entry (quick or long). KILN_RC_PARAMS is added
// after it, so a reproduce string can be replayed through ctest unchanged:
//   KILN_RC_PARAMS="reproduce=..." ctest -R '^properties$'
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (const char* extra = std::getenv("KILN_RC_PARAMS"); extra != nullptr && *extra != '\0') {
    const char* fixed = std::getenv("RC_PARAMS");
    std::string params = fixed != nullptr ? std::string(fixed) + " " : std::string();
    params += extra;
    // RapidCheck reads RC_PARAMS on its first check, after this.
    setenv("RC_PARAMS", params.c_str(), 1);
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
