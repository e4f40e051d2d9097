# Fails when docs/configuration.md differs from `simfa config show --markdown --gpu h800`.
execute_process(COMMAND ${SIMFA} config show --markdown --gpu h800 OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "simfa config show failed (${rc})")
endif()
file(READ ${DOC} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "docs/configuration.md is out of date: run scripts/update-docs")
endif()
