// Crossbar: SM pair p (TPC) of T belongs to partition p * P / T; slices [s_k, s_{k+1}) form
// partition k with s_k = k * N / P. Ports are fluid servers (a free-at time in fractional cycles).
#include "mem/crossbar.h"

namespace simfa::mem {

Crossbar::Crossbar(const XbarParams& x, const L2Params& l2, int num_sms)
    : x_(x), sm_part_(num_sms), slice_part_(l2.slices), ports_(num_sms) {
  const std::uint32_t parts = l2.partitions;
  const std::uint32_t tpcs = static_cast<std::uint32_t>(num_sms + 1) / 2;
  for (int sm = 0; sm < num_sms; ++sm) sm_part_[sm] = static_cast<std::uint32_t>(sm / 2) * parts / tpcs;
  for (std::uint32_t k = 0; k <= parts; ++k)
    part_start_.push_back(static_cast<std::uint32_t>(std::uint64_t{k} * l2.slices / parts));
  for (std::uint32_t k = 0; k < parts; ++k)
    for (std::uint32_t s = part_start_[k]; s < part_start_[k + 1]; ++s) slice_part_[s] = k;
  // A slice's mirror in partition k: the slice at the same offset within k, modulo k's size.
  mirror_.resize(std::size_t{l2.slices} * parts);
  for (std::uint32_t s = 0; s < l2.slices; ++s)
    for (std::uint32_t k = 0; k < parts; ++k) {
      const std::uint32_t offset = s - part_start_[slice_part_[s]];
      const std::uint32_t size = part_start_[k + 1] - part_start_[k];
      mirror_[std::size_t{s} * parts + k] = part_start_[k] + offset % size;
    }
}

}  // namespace simfa::mem
