# README.md's C code compiles as written: every ```c block is written to a file of its own
# and compiled with COMPILER (-fsyntax-only, warnings as errors) against the public headers
# in INCLUDE_DIR. A block that defines no function (a fragment of statements) fails: the
# README has none. Run with cmake -P (-DREADME=... -DCOMPILER=... -DINCLUDE_DIR=...
# -DWORK=folder); CTest runs it on the build machine with the build's own C compiler, the
# MinGW-w64 one for a Windows build.
cmake_minimum_required(VERSION 3.16)
file(READ "${README}" text)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(blocks 0)
while(TRUE)
  string(FIND "${text}" "\n```c\n" start)
  if(start LESS 0)
    break()
  endif()
  math(EXPR start "${start} + 6")
  string(SUBSTRING "${text}" ${start} -1 text)
  string(FIND "${text}" "\n```" end)
  if(end LESS 0)
    message(FATAL_ERROR "${README}: a C block is not closed")
  endif()
  string(SUBSTRING "${text}" 0 ${end} block)
  string(SUBSTRING "${text}" ${end} -1 text)
  math(EXPR blocks "${blocks} + 1")
  string(FIND "${block}" ")\n{" function)
  if(function LESS 0)
    message(FATAL_ERROR "README block ${blocks} defines no function:\n${block}")
  endif()
  set(file "${WORK}/block${blocks}.c")
  file(WRITE "${file}" "${block}\n")
  execute_process(COMMAND "${COMPILER}" -std=c11 -Wall -Wextra -Werror -Wno-unused-function -fsyntax-only
                          "-I${INCLUDE_DIR}" "${file}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "README block ${blocks} does not compile with ${COMPILER}:\n${block}\n${log}")
  endif()
endwhile()
# the character, drawing, crowd and player examples
if(blocks LESS 4)
  message(FATAL_ERROR "${README}: ${blocks} C blocks; at least 4 expected")
endif()
file(REMOVE_RECURSE "${WORK}")
message(STATUS "README.md: ${blocks} C blocks compile with ${COMPILER}")
