# The package `cmake --install build --prefix DIR` makes (README "Install"):
#   DIR/lib/   libggml-base.so, libggml-cpu.so, libggml-hexagon.so, libggml-htp-v73..v81.so,
#              libggml-vhtp.so and the rest of the llama.cpp build's libraries
#   DIR/bin/   the llama.cpp tools we stage into build/bin, our benchmark programs, and links
#              libggml-{cpu,rpc,hexagon}.so -> ../lib/...: ggml_backend_load_all() looks for
#              backends only in the program's folder and the current folder
#   DIR/share/ggml-hexagon/   our scripts: bench/, tools/, with the scripts/common.sh and
#              deps/pins.env they source
# Nothing refers to the build or the cache: every RUNPATH is relative ($ORIGIN), so DIR can move.
install(TARGETS ggml-hexagon ggml-vhtp ${HTP_NPU_LIBS} LIBRARY DESTINATION lib)
# The DSP process (one per session) lives beside libggml-vhtp.so, which starts them (vhtp/src/dsp.h).
install(TARGETS ggml-vhtp-dsp RUNTIME DESTINATION lib)
install(TARGETS mul-mat-bench hvx-micro RUNTIME DESTINATION bin)

# The llama.cpp libraries and tools, copied from its cached build with relative RUNPATHs, and
# the backend links in bin/ (cmake/install-llama.cmake).
install(CODE "set(GGML_HEXAGON_LLAMA_BIN \"${LLAMA_BUILD}/bin\")")
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/install-llama.cmake)

# Our scripts keep their layout relative to one another (bench/x.sh sources ../scripts/common.sh),
# and common.sh finds DIR/bin from DIR/share/ggml-hexagon.
set(share share/ggml-hexagon)
install(PROGRAMS scripts/common.sh DESTINATION ${share}/scripts)
install(FILES deps/pins.env DESTINATION ${share}/deps)
file(GLOB bench_scripts CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/bench/*.sh ${CMAKE_SOURCE_DIR}/bench/*.py)
install(PROGRAMS ${bench_scripts} DESTINATION ${share}/bench)
install(FILES bench/mul-mat-limits.md DESTINATION ${share}/bench)
file(GLOB tool_scripts CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/*.sh ${CMAKE_SOURCE_DIR}/tools/*.py)
install(PROGRAMS ${tool_scripts} DESTINATION ${share}/tools)
