# Run by ctest (readme_snippets): every C++ block in README.md must be
# quoted from the example file named on the line before it,
#   <!-- quoted from examples/NAME.cc -->
# each line of the block appearing in that file, in the same order (leading
# spaces aside), so the README cannot drift from code that CI compiles and
# runs against the installed package.
#
#   cmake -DSIFT_SOURCE_DIR=<repo> -P tests/readme_snippets.cmake

# CMake lists split on ';', which C++ is full of, and an unbalanced '[' in
# an element stops the splitting until a ']' (a README line "[begin, end)"
# swallowed the blocks after it): stand them in for bytes neither file holds.
string(ASCII 1 semi)
string(ASCII 2 open_bracket)
string(ASCII 3 close_bracket)
function(read_lines path out)
  file(READ ${path} text)
  string(REPLACE ";" "${semi}" text "${text}")
  string(REPLACE "[" "${open_bracket}" text "${text}")
  string(REPLACE "]" "${close_bracket}" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

read_lines(${SIFT_SOURCE_DIR}/README.md lines)
set(source "")
set(in_block FALSE)
set(blocks 0)
set(errors 0)
set(lineno 0)
foreach(line IN LISTS lines)
  math(EXPR lineno "${lineno} + 1")
  if(in_block)
    if(line STREQUAL "```")
      set(in_block FALSE)
      set(source "")
      continue()
    endif()
    string(STRIP "${line}" want)
    if(want STREQUAL "")
      continue()
    endif()
    string(FIND "${rest}" "\n${want}\n" at)
    if(at EQUAL -1)
      string(REPLACE "${semi}" ";" shown "${want}")
      string(REPLACE "${open_bracket}" "[" shown "${shown}")
      string(REPLACE "${close_bracket}" "]" shown "${shown}")
      message(SEND_ERROR "README.md:${lineno}: not in ${source} (in this "
                         "order): ${shown}")
      math(EXPR errors "${errors} + 1")
    else()
      string(LENGTH "\n${want}" n)
      math(EXPR at "${at} + ${n}")
      string(SUBSTRING "${rest}" ${at} -1 rest)
    endif()
  elseif(line MATCHES "^<!-- quoted from ([^ ]+) -->$")
    set(source ${CMAKE_MATCH_1})
  elseif(line STREQUAL "```cpp")
    if(source STREQUAL "")
      message(SEND_ERROR "README.md:${lineno}: a C++ block without a "
                         "'<!-- quoted from examples/... -->' line before it")
      math(EXPR errors "${errors} + 1")
    endif()
    # The example's lines, stripped, each between newlines: a README line
    # must match a whole line, not part of one.
    read_lines(${SIFT_SOURCE_DIR}/${source} source_lines)
    set(rest "\n")
    foreach(l IN LISTS source_lines)
      string(STRIP "${l}" l)
      string(APPEND rest "${l}\n")
    endforeach()
    set(in_block TRUE)
    math(EXPR blocks "${blocks} + 1")
  endif()
endforeach()
if(blocks EQUAL 0)
  message(FATAL_ERROR "README.md has no C++ block: nothing was checked")
endif()
if(errors GREATER 0)
  message(FATAL_ERROR "${errors} README line(s) are not in the examples")
endif()
message(STATUS "README.md: ${blocks} C++ blocks, every line quoted")
