// A FIFO over a power-of-two ring that grows when full: no allocation in steady state.
#pragma once
#include <bit>
#include <cstddef>
#include <vector>

namespace simfa::mem {

template <typename T>
class RingQueue {
 public:
  explicit RingQueue(std::size_t capacity = 16)
      : buf_(std::bit_ceil(capacity ? capacity : 1)), mask_(buf_.size() - 1) {}
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& back() { return buf_[(head_ + size_ - 1) & mask_]; }
  const T& back() const { return buf_[(head_ + size_ - 1) & mask_]; }
  void push(const T& v) {
    if (size_ > mask_) grow();
    buf_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  void pop() {
    head_ = (head_ + 1) & mask_;
    --size_;
  }

 private:
  void grow() {
    std::vector<T> n(buf_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) n[i] = buf_[(head_ + i) & mask_];
    buf_.swap(n);
    mask_ = buf_.size() - 1;
    head_ = 0;
  }
  std::vector<T> buf_;
  std::size_t mask_;  // buf_.size() - 1
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace simfa::mem
