# `simfa analyze` and `simfa plot` (the analytic model); included by src/cli/CMakeLists.txt.
target_sources(simfa PRIVATE cmd_analyze.cpp cmd_plot.cpp model_flags.cpp svg_chart.cpp)
target_link_libraries(simfa PRIVATE simfa_model)
