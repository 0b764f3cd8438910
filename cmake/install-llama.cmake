# Install step (cmake/install.cmake): copies the llama.cpp build's bin/ (GGML_HEXAGON_LLAMA_BIN)
# into the package, libraries to lib/ and programs to bin/, symbolic links kept. Their RUNPATH
# names the cache's build folder; it becomes $ORIGIN/../lib (programs) or $ORIGIN (libraries),
# so the package works wherever it is moved. Then bin/ gets links to the loadable ggml backends
# in lib/, because ggml_backend_load_all() searches only the program's folder and the current one.
set(dest "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(src "${GGML_HEXAGON_LLAMA_BIN}")
file(GLOB entries RELATIVE "${src}" "${src}/*")
foreach(name IN LISTS entries)
    set(from "${src}/${name}")
    if(IS_DIRECTORY "${from}" OR name MATCHES "^libggml-(hexagon|htp-v[0-9]+|vhtp)\\.so$")
        continue()
    endif()
    if(name MATCHES "^lib.*\\.so(\\.[0-9.]+)?$")
        set(dir lib)
        set(rpath "$ORIGIN:$ORIGIN/../lib")
    else()
        set(dir bin)
        set(rpath "$ORIGIN/../lib")
    endif()
    file(INSTALL "${from}" DESTINATION "${dest}/${dir}" USE_SOURCE_PERMISSIONS)
    if(NOT IS_SYMLINK "${from}")
        unset(runpath)  # READ_ELF leaves a variable alone when the entry is absent
        unset(old_rpath)
        file(READ_ELF "${from}" RUNPATH runpath RPATH old_rpath)
        if(runpath OR old_rpath)  # libggml-base.so has none: it needs nothing of the build
            file(RPATH_SET FILE "${dest}/${dir}/${name}" NEW_RPATH "${rpath}")
        endif()
    endif()
endforeach()

# The loadable backends: the llama.cpp build's libggml-NAME.so but ggml's base library, and ours
# (libggml-hexagon.so finds the vHTP and NPU libraries itself). Globbed in the llama.cpp build,
# not in dest: a relative --prefix is relative to the current folder, file(GLOB)'s to another.
file(GLOB backends RELATIVE "${src}" "${src}/libggml-*.so")
list(APPEND backends libggml-hexagon.so)
foreach(name IN LISTS backends)
    if((EXISTS "${src}/${name}" AND IS_SYMLINK "${src}/${name}") OR name MATCHES "^libggml-(base|vhtp|htp-v[0-9]+)\\.so$")
        continue()
    endif()
    message(STATUS "Installing: ${dest}/bin/${name} -> ../lib/${name}")
    file(REMOVE "${dest}/bin/${name}")
    file(CREATE_LINK "../lib/${name}" "${dest}/bin/${name}" SYMBOLIC)
endforeach()
