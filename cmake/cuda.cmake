# CUDA side of the instrumentation pipeline (issue 6): compile-only tests of the device logger
# headers (cuda/include/simfa) and the example kernel, for Hopper (sm_90a). They need nvcc but no
# GPU. Without nvcc one test reports "skipped: nvcc not found". The project itself never enables
# the CUDA language: nvcc only runs inside these tests.
#
# Knobs: SIMFA_NVCC (path to nvcc), SIMFA_CUDA_ARCH_FLAGS (default sm_90a).
find_program(SIMFA_NVCC nvcc HINTS $ENV{CUDA_HOME}/bin $ENV{CUDA_PATH}/bin /usr/local/cuda/bin)
find_program(SIMFA_CUOBJDUMP cuobjdump HINTS $ENV{CUDA_HOME}/bin /usr/local/cuda/bin)
set(SIMFA_CUDA_ARCH_FLAGS "-gencode;arch=compute_90a,code=sm_90a" CACHE STRING
    "nvcc architecture flags for the logger compile tests")

set(_simfa_cuda_dir ${CMAKE_CURRENT_LIST_DIR}/../cuda)
set(_simfa_cuda_out ${CMAKE_BINARY_DIR}/cuda)

if(SIMFA_NVCC)
  message(STATUS "simfa: nvcc found (${SIMFA_NVCC}): CUDA logger compile tests enabled")
  set(_ex ${_simfa_cuda_dir}/examples/evlog_example.cu)
  # The example (device logger + host helper) compiles to an sm_90a object in both modes.
  foreach(mode enabled disabled)
    set(_defs "")
    if(mode STREQUAL "enabled")
      set(_defs -DSIMFA_EVLOG_ENABLED)
    endif()
    add_test(NAME cuda.evlog_example_${mode}
      COMMAND ${SIMFA_NVCC} -std=c++17 ${SIMFA_CUDA_ARCH_FLAGS} -Werror all-warnings
              -I${_simfa_cuda_dir}/include ${_defs} -c ${_ex} -o ${_simfa_cuda_out}/evlog_example_${mode}.o)
    set_tests_properties(cuda.evlog_example_${mode} PROPERTIES TIMEOUT 300)
  endforeach()
  # The headers alone, in a translation unit that includes nothing else.
  add_test(NAME cuda.evlog_headers_standalone
    COMMAND ${SIMFA_NVCC} -std=c++17 ${SIMFA_CUDA_ARCH_FLAGS} -Werror all-warnings -DSIMFA_EVLOG_ENABLED
            -I${_simfa_cuda_dir}/include -c ${_simfa_cuda_dir}/tests/headers_only.cu
            -o ${_simfa_cuda_out}/headers_only.o)
  # Disabled logging leaves no trace in the kernel (PTX, and SASS where cuobjdump exists).
  string(REPLACE ";" "|" _arch_escaped "${SIMFA_CUDA_ARCH_FLAGS}")  # list travels as a|b
  add_test(NAME cuda.evlog_disabled_leaves_no_code
    COMMAND ${CMAKE_COMMAND} -DNVCC=${SIMFA_NVCC} -DSRC=${_ex} -DINC=${_simfa_cuda_dir}/include
            -DOUT=${_simfa_cuda_out}/check "-DARCH=${_arch_escaped}" -DEVLOG_PARAM=4
            -DCUOBJDUMP=${SIMFA_CUOBJDUMP}
            -P ${_simfa_cuda_dir}/cmake/check_evlog_disabled.cmake)
  set_tests_properties(cuda.evlog_example_enabled cuda.evlog_example_disabled
                       cuda.evlog_headers_standalone cuda.evlog_disabled_leaves_no_code
                       PROPERTIES TIMEOUT 300 LABELS cuda)
  file(MAKE_DIRECTORY ${_simfa_cuda_out})
else()
  message(STATUS "simfa: nvcc not found: CUDA logger compile tests skipped")
  add_test(NAME cuda.evlog_compile COMMAND ${CMAKE_COMMAND} -E echo "skipped: nvcc not found")
  set_tests_properties(cuda.evlog_compile PROPERTIES SKIP_REGULAR_EXPRESSION "skipped:" LABELS cuda)
endif()
