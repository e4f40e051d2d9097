# `simfa validate`, `simfa ablate` and the timeline flags of `simfa run` (src/report); included by
# src/cli/CMakeLists.txt through SIMFA_CLI_FRAGMENTS. main.cpp registers add_validate_command(app)
# and add_ablate_command(app). cmd_run.cpp (workload_cmds) uses timeline_flags.cpp from here.
target_sources(simfa PRIVATE cmd_validate.cpp cmd_ablate.cpp timeline_flags.cpp)
target_link_libraries(simfa PRIVATE simfa_report simfa_translate)  # validate --logs
