# CMake toolchain file: 64-bit Windows programs built on Debian with MinGW-w64 (the POSIX
# thread variant of Debian's gcc-mingw-w64-x86-64 and g++-mingw-w64-x86-64), run under wine64.
# scripts/build-windows.sh uses it for cna and for the dependencies it builds from Debian's
# source packages; by hand:
#   cmake -S . -B build-windows -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
#         -DCNA_BUILD_GL=OFF -DCNA_WITH_DRACO=OFF
# The dependencies (cJSON, meshoptimizer, cmocka, cglm's headers) are looked for under
# CNA_WINDOWS_DEPS (the environment variable; default build-windows/deps beside this folder).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(CNA__MINGW x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${CNA__MINGW}-gcc-posix)
set(CMAKE_CXX_COMPILER ${CNA__MINGW}-g++-posix)
set(CMAKE_RC_COMPILER ${CNA__MINGW}-windres)
set(CMAKE_AR ${CNA__MINGW}-gcc-ar-posix CACHE FILEPATH "")
set(CMAKE_RANLIB ${CNA__MINGW}-gcc-ranlib-posix CACHE FILEPATH "")

if(DEFINED ENV{CNA_WINDOWS_DEPS})
  set(CNA_WINDOWS_DEPS "$ENV{CNA_WINDOWS_DEPS}")
else()
  get_filename_component(CNA_WINDOWS_DEPS "${CMAKE_CURRENT_LIST_DIR}/../build-windows/deps" ABSOLUTE)
endif()
set(CMAKE_FIND_ROOT_PATH /usr/${CNA__MINGW} "${CNA_WINDOWS_DEPS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config reads the dependencies' .pc files only, never the build machine's.
set(ENV{PKG_CONFIG_LIBDIR} "${CNA_WINDOWS_DEPS}/lib/pkgconfig:${CNA_WINDOWS_DEPS}/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# C99 printf and scanf formats (%zu, %lld, hexadecimal floats) as on other systems;
# cJSON built and used as a static library (no dllexport or dllimport in its header).
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1 -DCJSON_HIDE_SYMBOLS")
set(CMAKE_CXX_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")
# Programs and DLLs carry the C and C++ runtimes and winpthreads inside them: they run
# from any folder, without libgcc_s, libstdc++ or libwinpthread DLLs beside them.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")

# ctest runs the test programs through wine64 (Debian's package wine64), in a wine prefix of
# the build folder's own, without wine's debug messages.
find_program(CNA__WINE64 NAMES wine64 PATHS /usr/lib/wine NO_DEFAULT_PATH)
if(NOT CNA__WINE64)
  find_program(CNA__WINE64 NAMES wine64 wine)
endif()
if(CNA__WINE64)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/env WINEDEBUG=-all "WINEPREFIX=${CMAKE_BINARY_DIR}/wine-prefix"
      ${CNA__WINE64})
endif()
