#include "core/byte_budget.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

namespace svc::core {

char* HeldBytes::Map(size_t n) {
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<char*>(p);
}

void HeldBytes::Unmap(char* p, size_t n) {
  if (p != nullptr) ::munmap(p, n);  // anonymous pages: the kernel zeroes them before any reuse
}

bool HeldBytes::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    if (blocks_.empty() || blocks_.back().used == kBlock) {
      if (!hold_.Grow(kBlock)) return false;
      blocks_.push_back({Map(kBlock), 0});
    }
    Block& b = blocks_.back();
    const size_t n = std::min(bytes.size(), kBlock - b.used);
    std::memcpy(b.data + b.used, bytes.data(), n);
    b.used += n;
    size_ += n;
    bytes.remove_prefix(n);
  }
  return true;
}

std::string_view HeldBytes::Whole() {
  if (whole_ != nullptr) return {whole_, size_};
  if (blocks_.empty()) return {};
  if (blocks_.size() == 1) return {blocks_[0].data, blocks_[0].used};
  whole_size_ = size_;
  whole_ = Map(whole_size_);
  size_t at = 0;
  for (auto& b : blocks_) {
    std::memcpy(whole_ + at, b.data, b.used);
    at += b.used;
    Unmap(b.data, kBlock);
  }
  blocks_.clear();
  return {whole_, size_};
}

void HeldBytes::Clear() {
  for (auto& b : blocks_) Unmap(b.data, kBlock);
  blocks_.clear();
  Unmap(whole_, whole_size_);
  whole_ = nullptr;
  whole_size_ = 0;
  size_ = 0;
  hold_.Release();
}

}  // namespace svc::core
