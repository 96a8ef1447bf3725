# Every public header (include/cna/*.h) compiled on its own as C11 and as C++14 by clang
# acting as MSVC: -target x86_64-pc-windows-msvc (_MSC_VER set, no __GNUC__), __clang__
# undefined, GNU extensions poisoned (msvc_prelude.h), -pedantic-errors -Werror. The headers
# need only <stdint.h>, <stddef.h> and <stdbool.h>, which clang's own freestanding headers
# give (-ffreestanding; no Windows SDK is needed). Usage:
# (-Wno-empty-translation-unit: cna/export.h alone declares nothing.)
#   cmake -DCLANG=/usr/bin/clang -DINCLUDE_DIR=include -DPRELUDE=tests/headers/msvc_prelude.h -P msvc_headers.cmake
file(GLOB headers "${INCLUDE_DIR}/cna/*.h")
list(SORT headers)
list(LENGTH headers count)
if(count EQUAL 0)
  message(FATAL_ERROR "no header in ${INCLUDE_DIR}/cna")
endif()
set(failed 0)
foreach(h IN LISTS headers)
  get_filename_component(name ${h} NAME)
  foreach(mode "c;-std=c11" "c++;-std=c++14")
    list(GET mode 0 lang)
    list(GET mode 1 std)
    execute_process(
      COMMAND ${CLANG} -target x86_64-pc-windows-msvc -U__clang__ -ffreestanding -fsyntax-only
              ${std} -pedantic-errors -Werror -Wall -Wextra -Wno-builtin-macro-redefined -Wno-empty-translation-unit
              -I${INCLUDE_DIR} -include ${PRELUDE} -x ${lang} ${h}
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      math(EXPR failed "${failed} + 1")
      message("cna/${name} (${lang}) is not accepted as MSVC code:\n${out}")
    endif()
  endforeach()
endforeach()
if(failed GREATER 0)
  math(EXPR total "${count} * 2")
  message(FATAL_ERROR "${failed} of ${total} compilations (${count} headers, as C and as C++) failed")
endif()
message("${count} headers accepted as MSVC C11 and C++14")
