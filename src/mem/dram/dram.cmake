# The HBM DRAM model (issue 3): included by src/mem/hierarchy.cmake into the simfa_mem library.
target_sources(simfa_mem PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/params.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mapping.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pc_timing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sched_frfcfs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sched_fcfs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/channel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hbm.cpp)
