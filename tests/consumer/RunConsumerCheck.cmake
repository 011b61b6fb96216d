# A game's view of an installed raycar. Installs the build tree into a scratch prefix, then:
# builds this consumer project and every program of the README (each ```cpp block with a main(),
# extracted exactly as written) with find_package(raycar), and once more with plain pkg-config;
# runs each (they exit 0 only when their car drove); runs the installed raycar-sim on a bundled
# scene by name, which it must find in the installed data.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${output}")
  endif()
  message(STATUS "${output}")
endfunction()
run(${CMAKE_COMMAND} --install ${RAYCAR_BUILD_DIR} --prefix ${prefix})

# The README's programs.
file(COPY ${CONSUMER_SOURCE_DIR}/ DESTINATION ${WORK_DIR}/src)
file(READ ${README} readme)
# CMake lists split at ';' and pair up '[' ']': both stand in as placeholders until written.
string(REPLACE ";" "@SEMICOLON@" readme "${readme}")
string(REPLACE "[" "@OPEN@" readme "${readme}")
string(REPLACE "]" "@CLOSE@" readme "${readme}")
string(REGEX MATCHALL "```cpp\n[^`]*\n```" blocks "${readme}")
set(count 0)
foreach(block ${blocks})
  if(block MATCHES "int main\\(")
    math(EXPR count "${count} + 1")
    string(REGEX REPLACE "^```cpp\n" "" code "${block}")
    string(REGEX REPLACE "```$" "" code "${code}")
    string(REPLACE "@SEMICOLON@" ";" code "${code}")
    string(REPLACE "@OPEN@" "[" code "${code}")
    string(REPLACE "@CLOSE@" "]" code "${code}")
    file(WRITE ${WORK_DIR}/src/readme/readme_${count}.cpp "${code}")
  endif()
endforeach()
if(count LESS 2)
  message(FATAL_ERROR "expected the README's two programs, found ${count}")
endif()
# A block holding a backtick would escape the pattern above: every ```cpp fence must be a block.
string(REGEX MATCHALL "```cpp\n" fences "${readme}")
list(LENGTH fences fence_count)
list(LENGTH blocks block_count)
if(NOT fence_count EQUAL block_count)
  message(FATAL_ERROR "README.md has ${fence_count} cpp blocks but ${block_count} were read: a block holds a backtick")
endif()

run(${CMAKE_COMMAND} -S ${WORK_DIR}/src -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
set(jeep ${prefix}/share/raycar/vehicles/jeep.vehicle.toml)
foreach(n RANGE 1 ${count})
  run(${WORK_DIR}/build/readme_${n} ${jeep})
endforeach()

# Plain pkg-config, as a makefile would.
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs raycar RESULT_VARIABLE result OUTPUT_VARIABLE flags
                ERROR_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs raycar failed: ${flags}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
foreach(n RANGE 1 ${count})
  run(${COMPILER} -std=c++17 -O1 ${WORK_DIR}/src/readme/readme_${n}.cpp -o ${WORK_DIR}/pkgconfig_${n} ${flags})
  run(${WORK_DIR}/pkgconfig_${n} ${jeep})
endforeach()

# The installed tools find the installed data.
run(${prefix}/bin/raycar-script-reference)
run(${prefix}/bin/raycar-sim parking --out ${WORK_DIR}/parking)
if(NOT EXISTS ${WORK_DIR}/parking/summary.json)
  message(FATAL_ERROR "the installed raycar-sim wrote no summary for the bundled scene 'parking'")
endif()
