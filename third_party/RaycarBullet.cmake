# Defines the imported target raycar::Bullet from CMake's FindBullet module. Installed beside
# raycarConfig.cmake so that a game that finds raycar gets the same Bullet target.
if(NOT TARGET raycar::Bullet)
  find_package(Bullet MODULE QUIET)
  if(BULLET_FOUND)
    add_library(raycar::Bullet INTERFACE IMPORTED)
    set_target_properties(raycar::Bullet PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${BULLET_INCLUDE_DIRS}"
      INTERFACE_LINK_LIBRARIES "${BULLET_LIBRARIES}")
  endif()
endif()
