# DRAM model speed benchmark (line requests simulated per second); included by bench/CMakeLists.txt.
add_executable(bench_dram ${CMAKE_CURRENT_LIST_DIR}/bench_dram.cpp)
target_link_libraries(bench_dram PRIVATE simfa_mem benchmark::benchmark)
