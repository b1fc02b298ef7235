# Run by ctest: install the built library into a scratch prefix, then
# configure, build and run tests/consumer and the README's examples/
# against the installed package (static and shared), build the consumer
# again without CMake from siftdb.pc (pkg-config, static and shared), and
# build the LevelDB C API consumer a second time as a LevelDB user would,
# with only -I, -L and -l.
# A sanitizer build passes its -fsanitize flags to the consumer, so the
# consumer is instrumented the same way; a SIFT_FUZZ build also builds the
# public-API fuzz target against the install and runs it on the seeds.
cmake_policy(VERSION 3.25)
set(prefix ${SIFT_BUILD_DIR}/consumer-install)
set(build ${SIFT_BUILD_DIR}/consumer-build)
set(examples ${SIFT_BUILD_DIR}/examples-build)
file(REMOVE_RECURSE ${prefix} ${build} ${examples})

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()

set(extra)
set(san_flags)
set(san_c_link)
if(SIFT_SANITIZE)
  set(san_flags -fsanitize=${SIFT_SANITIZE} -fno-omit-frame-pointer
                -fno-sanitize-recover=all)
  list(JOIN san_flags " " san_flags_text)
  # A C program linking the instrumented C++ library (libsiftdb_leveldb_c)
  # needs the sanitizers' C++ runtime, which the C driver leaves out.
  set(san_c_link -fsanitize-link-c++-runtime -lstdc++)
  list(APPEND extra
       "-DCMAKE_CXX_FLAGS=${san_flags_text}"
       "-DCMAKE_C_FLAGS=${san_flags_text}"
       "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SIFT_SANITIZE} -fsanitize-link-c++-runtime -lstdc++")
endif()
if(SIFT_FUZZ)
  list(APPEND extra -DSIFT_CONSUMER_FUZZ=ON)
endif()

run(${CMAKE_COMMAND} --install ${SIFT_BUILD_DIR} --prefix ${prefix})

# The installed library holds only what users call: none of the test-support
# code of tests/testutil (the fault-injecting and counting Envs, sift::test).
file(GLOB_RECURSE installed_libs ${prefix}/*libsiftdb.a ${prefix}/*libsiftdb.so)
if(NOT installed_libs)
  message(FATAL_ERROR "no libsiftdb under ${prefix}")
endif()
foreach(lib ${installed_libs})
  execute_process(COMMAND ${SIFT_NM} -C ${lib} OUTPUT_VARIABLE symbols
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${SIFT_NM} -C ${lib}")
  endif()
  string(REGEX MATCH "[^\n]*(FaultInjection|CountingEnv|sift::test::)[^\n]*"
         test_symbol "${symbols}")
  if(test_symbol)
    message(FATAL_ERROR "${lib} holds test-only code: ${test_symbol}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SIFT_CONSUMER_SRC} -B ${build}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${SIFT_CXX}
    -DCMAKE_C_COMPILER=${SIFT_CC} -DCMAKE_BUILD_TYPE=RelWithDebInfo ${extra})
run(${CMAKE_COMMAND} --build ${build} -j2)
run(${build}/consumer ${build}/scratch)
run(${build}/consumer_shared ${build}/scratch-shared)

# Without CMake, as a Makefile project links: siftdb.pc from the install.
# consumer.cc compiles once with `pkg-config --cflags siftdb`, then links
# (a) shared, with `pkg-config --libs siftdb`, and runs with the installed
#     libsiftdb.so, found through its SONAME;
# (b) static, with `pkg-config --static --libs siftdb` and libsiftdb.a named
#     as -l:libsiftdb.a (a plain -lsiftdb takes the .so when both exist);
#     it must need no libsiftdb.so at run time.
file(GLOB_RECURSE siftdb_pc ${prefix}/*/pkgconfig/siftdb.pc)
if(NOT siftdb_pc)
  message(FATAL_ERROR "no pkgconfig/siftdb.pc under ${prefix}")
endif()
get_filename_component(pcdir ${siftdb_pc} DIRECTORY)
get_filename_component(libdir ${pcdir} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
function(pkg_config out)
  execute_process(COMMAND ${SIFT_PKG_CONFIG} ${ARGN} siftdb
                  OUTPUT_VARIABLE text OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): pkg-config ${ARGN} siftdb")
  endif()
  message(STATUS "pkg-config ${ARGN} siftdb: ${text}")
  separate_arguments(text UNIX_COMMAND "${text}")
  set(${out} ${text} PARENT_SCOPE)
endfunction()
# The runtime dependencies the ELF file at `path` names (NEEDED, SONAME).
function(dynamic_section out path)
  execute_process(COMMAND ${SIFT_READELF} -d ${path} OUTPUT_VARIABLE text
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${SIFT_READELF} -d ${path}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
pkg_config(pc_cflags --cflags)
pkg_config(pc_libs --libs)
pkg_config(pc_static_libs --static --libs)
list(TRANSFORM pc_static_libs REPLACE "^-lsiftdb$" "-l:libsiftdb.a")
if(NOT "-l:libsiftdb.a" IN_LIST pc_static_libs)
  message(FATAL_ERROR "pkg-config --static --libs siftdb has no -lsiftdb")
endif()

file(GLOB shared_lib ${libdir}/libsiftdb.so.*.*.*)
if(NOT shared_lib)
  message(FATAL_ERROR "no versioned libsiftdb.so.X.Y.Z in ${libdir}")
endif()
dynamic_section(lib_dynamic ${shared_lib})
if(NOT lib_dynamic MATCHES "Library soname: \\[(libsiftdb\\.so\\.[0-9.]+)\\]")
  message(FATAL_ERROR "${shared_lib} has no SONAME libsiftdb.so.N")
endif()
set(soname ${CMAKE_MATCH_1})
if(NOT EXISTS ${libdir}/${soname} OR NOT EXISTS ${libdir}/libsiftdb.so)
  message(FATAL_ERROR "${libdir} lacks ${soname} or libsiftdb.so")
endif()

set(pc_build ${build}/pkg-config)
file(MAKE_DIRECTORY ${pc_build})
run(${SIFT_CXX} -std=c++20 -Wall -Werror ${san_flags} ${pc_cflags}
    -c ${SIFT_CONSUMER_SRC}/consumer.cc -o ${pc_build}/consumer.o)
run(${SIFT_CXX} ${san_flags} ${pc_build}/consumer.o ${pc_libs}
    -Wl,-rpath,${libdir} -o ${pc_build}/consumer_shared)
dynamic_section(shared_dynamic ${pc_build}/consumer_shared)
if(NOT shared_dynamic MATCHES "Shared library: \\[${soname}\\]")
  message(FATAL_ERROR "the pkg-config shared consumer does not need "
          "${soname}:\n${shared_dynamic}")
endif()
run(${pc_build}/consumer_shared ${pc_build}/scratch-shared)
run(${SIFT_CXX} ${san_flags} ${pc_build}/consumer.o ${pc_static_libs}
    -o ${pc_build}/consumer_static)
dynamic_section(static_dynamic ${pc_build}/consumer_static)
if(static_dynamic MATCHES "libsiftdb")
  message(FATAL_ERROR "the pkg-config static consumer needs libsiftdb "
          "at run time:\n${static_dynamic}")
endif()
run(${pc_build}/consumer_static ${pc_build}/scratch-static)
run(${build}/leveldb_consumer ${build}/leveldb-scratch)

# The same program as a LevelDB user builds it: <leveldb/c.h> from
# -I<prefix>/include/sift, and -lsiftdb_leveldb_c alone.
file(GLOB_RECURSE leveldb_lib ${prefix}/*libsiftdb_leveldb_c.so)
if(NOT leveldb_lib)
  message(FATAL_ERROR "no libsiftdb_leveldb_c.so under ${prefix}")
endif()
get_filename_component(libdir ${leveldb_lib} DIRECTORY)
run(${SIFT_CC} -std=c11 -Wall -Werror ${san_flags}
    -I${prefix}/include/sift ${SIFT_CONSUMER_SRC}/leveldb_consumer.c
    -L${libdir} -lsiftdb_leveldb_c -Wl,-rpath,${libdir} ${san_c_link}
    -o ${build}/leveldb_consumer_cc)
run(${build}/leveldb_consumer_cc ${build}/leveldb-scratch-cc)

# The examples the README quotes, exactly as a user builds them.
run(${CMAKE_COMMAND} -S ${SIFT_EXAMPLES_SRC} -B ${examples}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${SIFT_CXX}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo ${extra})
run(${CMAKE_COMMAND} --build ${examples} -j2)
run(${examples}/hello_world ${examples}/hello-db)
run(${examples}/bulk_load ${examples}/bulk)
run(${examples}/cache_guard)
run(${examples}/dedup_filter)
run(${examples}/column_families ${examples}/families-db)
if(SIFT_FUZZ)
  # A smoke run only (CI fuzzes it for longer from .ci/run). New inputs go
  # to the first directory, never into the committed seeds.
  file(MAKE_DIRECTORY ${build}/fuzz-corpus)
  run(${build}/sst_reader_fuzz -runs=20000 ${build}/fuzz-corpus
      ${SIFT_CONSUMER_SRC}/../fuzz/corpus/table)
endif()
