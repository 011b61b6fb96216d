# A game compiled with the other Bullet precision than raycar's must not build: raycar/Config.h
# stops it with the reason. Compiles a one-line program with the opposite precision and expects
# that error (a mix would otherwise crash at run time: every btScalar field at the wrong place).
if(DOUBLE)
  set(flags "")
  set(expected "built against double-precision Bullet")
else()
  set(flags -DBT_USE_DOUBLE_PRECISION)
  set(expected "built against single-precision Bullet")
endif()
file(WRITE ${WORK_DIR}/mixed.cpp "#include <raycar/raycar.h>\nint main() { return 0; }\n")
execute_process(COMMAND ${COMPILER} -std=c++17 -fsyntax-only ${flags} -I${SOURCE_INCLUDE} -I${BINARY_INCLUDE}
                        -I/usr/include/bullet ${WORK_DIR}/mixed.cpp
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "a program of the other precision compiled against raycar/raycar.h")
endif()
string(FIND "${output}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the compile failed, but not with the precision message:\n${output}")
endif()
message(STATUS "refused as expected: ${expected}")
