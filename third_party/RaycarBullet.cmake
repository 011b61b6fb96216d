# Defines the imported target raycar::Bullet. Installed beside raycarConfig.cmake so that a game
# that finds raycar gets the same Bullet target, in the same precision.
#
# Single precision (the default): CMake's FindBullet module (Debian's BulletConfig.cmake gives a
# relative include path and names a library the package does not ship, so config mode must not
# be used). Double precision (RAYCAR_DOUBLE_PRECISION): Debian's bullet-float64 pkg-config
# module, whose libraries are the *-float64 ones and whose flags define BT_USE_DOUBLE_PRECISION.
# Only one of the two is ever linked.
if(NOT TARGET raycar::Bullet)
  if(RAYCAR_DOUBLE_PRECISION)
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(RAYCAR_BULLET64 QUIET IMPORTED_TARGET bullet-float64)
    endif()
    if(RAYCAR_BULLET64_FOUND)
      add_library(raycar::Bullet INTERFACE IMPORTED)
      set_target_properties(raycar::Bullet PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::RAYCAR_BULLET64)
      set(BULLET_FOUND TRUE)
    else()
      set(BULLET_FOUND FALSE)
    endif()
  else()
    find_package(Bullet MODULE QUIET)
    if(BULLET_FOUND)
      add_library(raycar::Bullet INTERFACE IMPORTED)
      set_target_properties(raycar::Bullet PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${BULLET_INCLUDE_DIRS}"
        INTERFACE_LINK_LIBRARIES "${BULLET_LIBRARIES}")
    endif()
  endif()
endif()
