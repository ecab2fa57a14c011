// The main of a fuzz target when no fuzzing engine is linked (the g++ build and
// ctest): runs LLVMFuzzerTestOneInput once over every file in the files and
// directories named on the command line. A target that has a custom mutator
// (fuzz_structure) also gets a few mutants of each file, so that the mutator
// itself runs under the ordinary tests and the sanitizers. Fails when it finds
// no input at all: a replay of an empty corpus proves nothing. A target that
// aborts (an oracle broken, a disagreement) is told where its input is: the
// file's name, or for a mutant a new file crash-replay-<pid> in the working
// folder, so that it can be run again (and made a case).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed)
    __attribute__((weak));

namespace {

constexpr std::size_t kMutantsPerInput = 32;
constexpr std::size_t kMaxLength = 65536;  // the targets' max_len

std::minstd_rand byte_mutation_random;

// What runs now, for the abort handler: a file's name, or a mutant's bytes.
const char* running_file = nullptr;
const std::vector<std::uint8_t>* running_mutant = nullptr;
char mutant_file[64];

void say(const char* text) {
  for (std::size_t done = 0, size = std::strlen(text); done < size;) {
    const ssize_t wrote = ::write(STDERR_FILENO, text + done, size - done);
    if (wrote <= 0) return;
    done += static_cast<std::size_t>(wrote);
  }
}

// Only async-signal-safe calls: the process is going down.
void on_abort(int) {
  if (running_mutant) {
    const int fd = ::open(mutant_file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    bool saved = fd >= 0;
    for (std::size_t done = 0; saved && done < running_mutant->size();) {
      const ssize_t wrote = ::write(fd, running_mutant->data() + done, running_mutant->size() - done);
      saved = wrote > 0;
      if (saved) done += static_cast<std::size_t>(wrote);
    }
    if (fd >= 0) ::close(fd);
    say(saved ? "\nreplay: failing input: " : "\nreplay: the failing input (a mutant) could not be saved at ");
    say(mutant_file);
    say("\n");
  } else if (running_file) {
    say("\nreplay: failing input: ");
    say(running_file);
    say("\n");
  }
  std::signal(SIGABRT, SIG_DFL);
  std::raise(SIGABRT);
}

// Documentation that lives beside the inputs (corpus/regressions/README.md) is
// not an input; neither are hidden files.
bool is_input(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return !name.empty() && name[0] != '.' && name.rfind("README", 0) != 0;
}

void collect(const std::filesystem::path& path, std::vector<std::filesystem::path>& inputs) {
  if (std::filesystem::is_directory(path)) {
    for (const auto& item : std::filesystem::recursive_directory_iterator(path))
      if (item.is_regular_file() && is_input(item.path())) inputs.push_back(item.path());
  } else if (std::filesystem::is_regular_file(path)) {
    inputs.push_back(path);
  } else {
    std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", path.c_str());
    std::exit(2);
  }
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void run(std::vector<std::uint8_t> bytes) {
  // An exact-size heap copy, so that ASan sees any read past the end.
  std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
  exact.shrink_to_fit();
  LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
}

}  // namespace

// Stands in for libFuzzer's byte mutator, which custom mutators call for input
// they cannot parse: a few random byte changes, insertions and erasures.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size,
                                        std::size_t max_size) {
  auto& rng = byte_mutation_random;
  const std::size_t changes = 1 + rng() % 4;
  for (std::size_t i = 0; i < changes; ++i) {
    switch (rng() % 3) {
      case 0:
        if (size > 0) data[rng() % size] = static_cast<std::uint8_t>(rng());
        break;
      case 1:
        if (size < max_size) {
          const std::size_t at = rng() % (size + 1);
          std::copy_backward(data + at, data + size, data + size + 1);
          data[at] = static_cast<std::uint8_t>(rng());
          ++size;
        }
        break;
      default:
        if (size > 0) {
          const std::size_t at = rng() % size;
          std::copy(data + at + 1, data + size, data + at);
          --size;
        }
        break;
    }
  }
  return size;
}

int main(int argc, char** argv) {
  std::snprintf(mutant_file, sizeof mutant_file, "crash-replay-%ld", static_cast<long>(::getpid()));
  std::signal(SIGABRT, on_abort);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) collect(argv[i], inputs);
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input files: an empty corpus proves nothing\n");
    return 1;
  }
  std::size_t runs = 0;
  for (std::size_t n = 0; n < inputs.size(); ++n) {
    std::vector<std::uint8_t> bytes = read_file(inputs[n]);
    running_file = inputs[n].c_str();
    run(bytes);
    running_file = nullptr;
    ++runs;
    if (!LLVMFuzzerCustomMutator) continue;
    byte_mutation_random.seed(static_cast<unsigned>(n + 1));
    for (std::size_t m = 0; m < kMutantsPerInput; ++m) {
      std::vector<std::uint8_t> mutant = bytes;
      const std::size_t size = mutant.size();
      mutant.resize(std::max(kMaxLength, size));
      mutant.resize(LLVMFuzzerCustomMutator(mutant.data(), size, mutant.size(),
                                            static_cast<unsigned>(n * kMutantsPerInput + m)));
      running_mutant = &mutant;
      run(mutant);
      running_mutant = nullptr;
      ++runs;
      bytes = std::move(mutant);  // a chain of mutants goes deeper than siblings
    }
  }
  std::printf("replay: %zu input file(s), %zu run(s), no oracle broken\n", inputs.size(), runs);
  return 0;
}
