# `simfa microbench` (memory microbenchmarks); included by src/cli/CMakeLists.txt.
# main.cpp registers simfa::cli::add_microbench_command(app).
if(NOT TARGET simfa_microbench)
  add_subdirectory(${PROJECT_SOURCE_DIR}/src/microbench ${CMAKE_BINARY_DIR}/src/microbench)
endif()
target_sources(simfa PRIVATE cmd_microbench.cpp)
target_link_libraries(simfa PRIVATE simfa_microbench)
