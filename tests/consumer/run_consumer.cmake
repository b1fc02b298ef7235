# Run by ctest: install the built library into a scratch prefix, then
# configure, build and run tests/consumer against the installed package.
set(prefix ${SIFT_BUILD_DIR}/consumer-install)
set(build ${SIFT_BUILD_DIR}/consumer-build)
file(REMOVE_RECURSE ${prefix} ${build})

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()

run(${CMAKE_COMMAND} --install ${SIFT_BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SIFT_CONSUMER_SRC} -B ${build}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${SIFT_CXX}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo)
run(${CMAKE_COMMAND} --build ${build} -j2)
run(${build}/consumer ${build}/scratch)
