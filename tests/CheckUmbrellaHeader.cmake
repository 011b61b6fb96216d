# raycar.h includes every public header (README, "Layout": "raycar.h includes everything a game
# uses"): a header left out made a game that includes only raycar.h fail to compile where the
# README's snippet used it (RigidBodyState, in a newcomer's trial). Config.h, generated, comes
# in through the headers that need it.
# cmake -DINCLUDE_DIR=<plugin/include> -P CheckUmbrellaHeader.cmake
file(READ "${INCLUDE_DIR}/raycar/raycar.h" umbrella)
file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/raycar/*.h")
set(missing "")
foreach(header IN LISTS headers)
  if(header STREQUAL "raycar/raycar.h")
    continue()
  endif()
  # At a line's start: a commented-out include does not count.
  string(REGEX MATCH "(^|\n)#include \"${header}\"" found "${umbrella}")
  if(NOT found)
    list(APPEND missing "${header}")
  endif()
endforeach()
list(LENGTH headers count)
if(missing)
  message(FATAL_ERROR "raycar/raycar.h does not include: ${missing}")
endif()
message(STATUS "raycar/raycar.h includes all ${count} other public headers")
