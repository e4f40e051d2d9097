# bench_mem: line requests per second through the L2 and the HBM model; included by
# bench/CMakeLists.txt.
add_executable(bench_mem ${CMAKE_CURRENT_LIST_DIR}/bench_mem.cpp)
target_link_libraries(bench_mem PRIVATE simfa_api benchmark::benchmark)
