# The memory hierarchy (mem.model = hierarchy): L1, coalescer, crossbar, L2 slices; the HBM model
# comes from mem/dram/dram.cmake. Included by src/mem/CMakeLists.txt.
target_sources(simfa_mem PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/coalescer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/crossbar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dram_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hierarchy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hierarchy_params.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hierarchy_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/l1_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/l2_slice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/latencies.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mshr.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replacement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replacement_lru.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replacement_random.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_hash.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_hash_last_bits.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_hash_xor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tag_array.cpp)
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/dram/dram.cmake)
  include(${CMAKE_CURRENT_LIST_DIR}/dram/dram.cmake)
  target_compile_definitions(simfa_mem PRIVATE SIMFA_HAVE_DRAM=1 SIMFA_HAVE_HIERARCHY=1)
endif()
