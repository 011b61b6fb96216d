# Finds raycar's dependencies, all of them Debian packages. Nothing is downloaded and no third-party
# source is copied into this repository. When a package is missing, configuration stops with the
# exact command that installs it.

set(RAYCAR_APT_PACKAGES
    "libbullet-dev libtinyobjloader-dev doctest-dev libtomlplusplus-dev libbenchmark-dev")

function(raycar_require_package found_variable package)
  if(NOT ${found_variable})
    message(FATAL_ERROR
      "raycar: the Debian package '${package}' is missing. Install it with:\n"
      "  apt-get install -y ${package}\n"
      "or install everything raycar needs with:\n"
      "  bash tools/install-deps.sh")
  endif()
endfunction()

# Bullet: CMake's own FindBullet (module mode). Debian's BulletConfig.cmake gives a relative include
# path and names a library the package does not ship, so config mode must not be used.
include(${CMAKE_CURRENT_LIST_DIR}/RaycarBullet.cmake)
raycar_require_package(BULLET_FOUND "libbullet-dev pkg-config")

find_package(tinyobjloader CONFIG QUIET)  # no version: the package's version string is "2rc10"
raycar_require_package(tinyobjloader_FOUND libtinyobjloader-dev)

find_package(tomlplusplus CONFIG QUIET)
raycar_require_package(tomlplusplus_FOUND libtomlplusplus-dev)

if(RAYCAR_BUILD_TESTS)
  find_package(doctest CONFIG QUIET)
  raycar_require_package(doctest_FOUND doctest-dev)
endif()

if(RAYCAR_BUILD_BENCHMARKS)
  find_package(benchmark CONFIG QUIET)
  raycar_require_package(benchmark_FOUND libbenchmark-dev)
endif()

if(RAYCAR_BUILD_VIEWER)
  include(${CMAKE_CURRENT_LIST_DIR}/ViewerDependencies.cmake)
endif()
