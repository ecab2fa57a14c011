// Memory: decoding a large file-backed block (written to an unlinked temp
// file, mapped read-only) allocates O(tensor count), not O(payload). Each
// iteration decodes the large block and a 1 MiB block with the same tensors
// and reports, for each, the heap allocations made during decode (a counting
// operator new, in this program only) and the change in peak and resident
// memory (/proc/self/status; VmHWM reset through /proc/self/clear_refs).
//
// --payload_mib=N sets the large payload (default 64 MiB; the recorded run
// uses 1024).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "counting_allocations.hpp"
#include "kiln/kiln.hpp"
#include "support/blocks.hpp"
#include "support/harness.hpp"
#include "support/process_memory.hpp"

namespace {

using kiln::bench::Aim;
using kiln::bench::MemoryStatus;

constexpr std::uint64_t kSmallPayload = std::uint64_t{1} << 20;

// A block of `tensors` tensors of one dtype sharing payload_bytes, written to
// an unlinked temp file: it lives as long as the descriptor.
class BlockFile {
 public:
  BlockFile(std::size_t tensors, std::uint64_t payload_bytes) {
    auto description = kiln::bench::model_directory(tensors);
    // Multiples of 64: payloads follow each other with no padding between.
    each_payload_ = payload_bytes / tensors / 64 * 64;
    for (auto& tensor : description.tensors) tensor.payload.clear();
    description_ = std::move(description);
    lengths_.assign(tensors, each_payload_);

    std::string path = (std::filesystem::temp_directory_path() / "kiln-bench-memory-XXXXXX").string();
    fd_ = mkstemp(path.data());
    if (fd_ < 0) throw std::runtime_error("mkstemp failed");
    unlink(path.c_str());
    set_dtype(7);
    const std::uint64_t region = frame_size_;
    std::vector<std::uint8_t> tile(std::uint64_t{1} << 20);
    kiln::bench::fill_zero_one(tile);
    for (std::uint64_t at = 0; at < payload_length_; at += tile.size())
      write_at(tile.data(), std::min<std::uint64_t>(tile.size(), payload_length_ - at), region + at);
  }
  ~BlockFile() { close(fd_); }
  BlockFile(const BlockFile&) = delete;
  BlockFile& operator=(const BlockFile&) = delete;

  // Rewrites the frame for another dtype; the 0/1 payload suits bool and f32.
  void set_dtype(std::uint16_t dtype) {
    const std::uint64_t width = kiln::find_dtype(dtype)->width;
    for (auto& tensor : description_.tensors) {
      tensor.dtype = dtype;
      tensor.shape = {each_payload_ / width};
    }
    const kiln::bench::Frame frame = kiln::bench::frame_for(description_, lengths_);
    frame_size_ = frame.bytes.size();
    payload_length_ = frame.payload_length;
    write_at(frame.bytes.data(), frame.bytes.size(), 0);
  }

  int fd() const { return fd_; }
  std::uint64_t size() const { return frame_size_ + payload_length_; }
  std::uint64_t payload_length() const { return payload_length_; }
  std::size_t tensors() const { return lengths_.size(); }

 private:
  void write_at(const std::uint8_t* data, std::uint64_t size, std::uint64_t offset) {
    while (size > 0) {
      const ssize_t wrote = pwrite(fd_, data, size, static_cast<off_t>(offset));
      if (wrote <= 0) throw std::runtime_error("pwrite failed");
      data += wrote;
      size -= static_cast<std::uint64_t>(wrote);
      offset += static_cast<std::uint64_t>(wrote);
    }
  }

  int fd_ = -1;
  kiln::BlockDescription description_;
  std::vector<std::uint64_t> lengths_;
  std::uint64_t each_payload_ = 0;
  std::uint64_t frame_size_ = 0;
  std::uint64_t payload_length_ = 0;
};

BlockFile& block_file(std::size_t tensors, std::uint64_t payload_bytes) {
  static std::map<std::pair<std::size_t, std::uint64_t>, std::unique_ptr<BlockFile>> files;
  auto& file = files[{tensors, payload_bytes}];
  if (!file) file = std::make_unique<BlockFile>(tensors, payload_bytes);
  return *file;
}

struct DecodeMemory {
  bool accepted = false;
  std::uint64_t allocations = 0;
  std::uint64_t allocated_bytes = 0;
  std::int64_t peak_delta = 0;
  std::int64_t anonymous_delta = 0;
  std::int64_t file_delta = 0;
};

DecodeMemory decode_mapped(const BlockFile& file, bool& peak_was_reset) {
  DecodeMemory memory;
  void* map = mmap(nullptr, file.size(), PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (map == MAP_FAILED) return memory;
  const std::span<const std::uint8_t> block(static_cast<const std::uint8_t*>(map), file.size());
  peak_was_reset = kiln::bench::reset_peak_memory();
  const MemoryStatus before = kiln::bench::read_memory_status();
  kiln::bench::start_counting_allocations();
  {
    auto result = kiln::decode(block);
    const kiln::bench::AllocationCount counted = kiln::bench::stop_counting_allocations();
    memory.allocations = counted.allocations;
    memory.allocated_bytes = counted.bytes;
    memory.accepted = result.ok() && result.value().tensors.size() == file.tensors();
    const MemoryStatus after = kiln::bench::read_memory_status();  // while the result still holds its memory
    const std::uint64_t baseline = peak_was_reset ? before.resident : before.peak;
    memory.peak_delta = static_cast<std::int64_t>(after.peak - baseline);
    memory.anonymous_delta = static_cast<std::int64_t>(after.anonymous - before.anonymous);
    memory.file_delta = static_cast<std::int64_t>(after.file - before.file);
  }
  munmap(map, file.size());
  return memory;
}

std::uint64_t g_large_payload = 0;

void BM_FileBackedDecode(benchmark::State& state, std::size_t tensors, std::uint16_t dtype) {
  BlockFile& large = block_file(tensors, g_large_payload);
  BlockFile& small = block_file(tensors, kSmallPayload);
  large.set_dtype(dtype);
  small.set_dtype(dtype);
  bool peak_was_reset = false;
  DecodeMemory large_memory;
  DecodeMemory small_memory;
  for (auto _ : state) {
    large_memory = decode_mapped(large, peak_was_reset);
    small_memory = decode_mapped(small, peak_was_reset);
    if (!large_memory.accepted || !small_memory.accepted)
      return state.SkipWithError("the file-backed block was not accepted");
  }
  state.counters["tensors"] = static_cast<double>(tensors);
  state.counters["payload_bytes"] = static_cast<double>(large.payload_length());
  state.counters["heap_allocs"] = static_cast<double>(large_memory.allocations);
  state.counters["heap_bytes"] = static_cast<double>(large_memory.allocated_bytes);
  state.counters["heap_bytes/tensor"] =
      static_cast<double>(large_memory.allocated_bytes) / static_cast<double>(tensors);
  state.counters["peak_rss_delta"] = static_cast<double>(large_memory.peak_delta);
  state.counters["anon_rss_delta"] = static_cast<double>(large_memory.anonymous_delta);
  state.counters["file_rss_delta"] = static_cast<double>(large_memory.file_delta);
  state.counters["small_heap_bytes"] = static_cast<double>(small_memory.allocated_bytes);
  // A one-tensor decode allocates nothing at either size (issue 28): equal, 1.
  state.counters["heap_large_per_small"] =
      large_memory.allocated_bytes == small_memory.allocated_bytes
          ? 1.0
          : static_cast<double>(large_memory.allocated_bytes) /
                static_cast<double>(small_memory.allocated_bytes);
  state.counters["anon_rss_per_payload"] =
      static_cast<double>(std::max<std::int64_t>(0, large_memory.anonymous_delta)) /
      static_cast<double>(large.payload_length());
  state.counters["peak_reset"] = peak_was_reset ? 1 : 0;
}

constexpr Aim kAims[] = {
    {"heap_large_per_small", Aim::Kind::kAtMost, 1,
     "heap bytes decoding the large block over the 1 MiB one (same tensors)"},
    {"anon_rss_per_payload", Aim::Kind::kAtMost, 0.01,
     "private resident memory grown during decode, per payload byte"},
};

}  // namespace

int main(int argc, char** argv) {
  g_large_payload = kiln::bench::take_payload_bytes(argc, argv, 64);
  const std::string size = kiln::bench::size_name(g_large_payload);
  for (const std::size_t tensors : {std::size_t{1}, std::size_t{1000}})
    for (const std::uint16_t dtype : {std::uint16_t{2}, std::uint16_t{7}})
      benchmark::RegisterBenchmark(("BM_FileBackedDecode/" + std::to_string(tensors) + "_" +
                                    std::string(kiln::find_dtype(dtype)->name) + "/" + size)
                                       .c_str(),
                                   BM_FileBackedDecode, tensors, dtype)
          ->Iterations(3)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  return kiln::bench::run_benchmarks(argc, argv, kAims);
}
