# `simfa translate` (the instrumentation-log translator); included by src/cli/CMakeLists.txt when
# the top level lists translate_cmds in SIMFA_CLI_FRAGMENTS; main.cpp calls
# simfa::cli::add_translate_command(app). Guarded so the build works before src/translate exists.
if(TARGET simfa_translate)
  target_sources(simfa PRIVATE cmd_translate.cpp)
  target_link_libraries(simfa PRIVATE simfa_translate)
endif()
