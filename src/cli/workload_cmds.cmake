# `simfa run` and `simfa trace gen` (the FA3 workload); included by src/cli/CMakeLists.txt.
# main.cpp registers add_run_command(app); the trace hook calls add_trace_gen_command(trace).
# Guarded so the build works before the top level adds src/workload.
if(TARGET simfa_workload)
  target_sources(simfa PRIVATE cmd_run.cpp cmd_trace_gen.cpp workload_flags.cpp)
  target_link_libraries(simfa PRIVATE simfa_workload)
endif()
