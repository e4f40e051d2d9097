# cmake -P script (run by ctest, see cmake/cuda.cmake): compiles a kernel to PTX with and without
# SIMFA_EVLOG_ENABLED and checks that the disabled build has no logger code while the enabled one
# has it (so the check itself is known to detect the logger).
# Inputs: NVCC, SRC, INC, OUT, ARCH (nvcc arch flags separated by '|'), EVLOG_PARAM (index of the
# kernel's SimfaEvlogDev parameter), optional CUOBJDUMP.
foreach(v NVCC SRC INC OUT ARCH EVLOG_PARAM)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_evlog_disabled: ${v} not set")
  endif()
endforeach()
string(REPLACE "|" ";" ARCH "${ARCH}")
file(MAKE_DIRECTORY ${OUT})

function(compile_ptx mode defs)
  execute_process(COMMAND ${NVCC} -std=c++17 ${ARCH} -I${INC} ${defs} -ptx ${SRC} -o ${OUT}/${mode}.ptx
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc -ptx (${mode}) failed:\n${err}")
  endif()
  file(READ ${OUT}/${mode}.ptx ptx)
  set(PTX_${mode} "${ptx}" PARENT_SCOPE)
endfunction()

compile_ptx(enabled -DSIMFA_EVLOG_ENABLED)
compile_ptx(disabled "")

# Markers of the logger: timer reads, its 16-byte entry store, reads of its kernel parameter.
set(markers "%globaltimer" "%clock64" "st\\.global\\.v4" "ld\\.param[^\n]*_param_${EVLOG_PARAM}[^0-9]")
foreach(m ${markers})
  string(REGEX MATCH "${m}" hit_enabled "${PTX_enabled}")
  if(NOT hit_enabled AND NOT m STREQUAL "%clock64")
    message(FATAL_ERROR "enabled build lacks logger marker '${m}': the check cannot detect the logger")
  endif()
  string(REGEX MATCH "${m}" hit_disabled "${PTX_disabled}")
  if(hit_disabled)
    message(FATAL_ERROR "disabled build still contains logger code: found '${hit_disabled}' in ${OUT}/disabled.ptx")
  endif()
endforeach()

# SASS check where cuobjdump exists (not shipped with every toolkit install).
if(CUOBJDUMP)
  foreach(mode enabled disabled)
    set(defs "")
    if(mode STREQUAL "enabled")
      set(defs -DSIMFA_EVLOG_ENABLED)
    endif()
    execute_process(COMMAND ${NVCC} -std=c++17 ${ARCH} -I${INC} ${defs} -cubin ${SRC} -o ${OUT}/${mode}.cubin
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "nvcc -cubin (${mode}) failed:\n${err}")
    endif()
    execute_process(COMMAND ${CUOBJDUMP} -sass ${OUT}/${mode}.cubin OUTPUT_VARIABLE sass_${mode})
  endforeach()
  string(REGEX MATCH "SR_GLOBALTIMER|SR_CLOCK" timer_enabled "${sass_enabled}")
  string(REGEX MATCH "SR_GLOBALTIMER|SR_CLOCK" timer_disabled "${sass_disabled}")
  if(NOT timer_enabled OR timer_disabled)
    message(FATAL_ERROR "SASS check failed (enabled has timer: '${timer_enabled}', disabled has timer: '${timer_disabled}')")
  endif()
  message(STATUS "SASS check passed")
else()
  message(STATUS "cuobjdump not found: PTX check only")
endif()
message(STATUS "logger-disabled build contains no logger code (PTX: ${OUT}/disabled.ptx)")
