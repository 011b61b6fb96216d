# Finds the viewer's dependencies (RAYCAR_BUILD_VIEWER), all Debian packages, in the style of
# Dependencies.cmake: when one is missing, configuration stops with the exact apt-get line.
#   libglfw3-dev  GLFW 3.3 (pkg-config glfw3): window, context, keyboard
#   libgl-dev     libGL and <GL/glcorearb.h>: mesa exports the OpenGL 3.3 core entry points
#   libimgui-dev  Dear ImGui (pkg-config imgui); libimgui.a holds the GLFW and OpenGL 3 backends
#   libstb-dev    stb_image_write.h (screenshots) and stb_image.h (the screenshot check)

set(RAYCAR_VIEWER_APT_PACKAGES "libglfw3-dev libgl-dev libimgui-dev libstb-dev")

find_package(PkgConfig QUIET)
raycar_require_package(PKG_CONFIG_FOUND pkg-config)

pkg_check_modules(RAYCAR_GLFW QUIET IMPORTED_TARGET glfw3)
raycar_require_package(RAYCAR_GLFW_FOUND libglfw3-dev)

set(OpenGL_GL_PREFERENCE GLVND)
find_package(OpenGL QUIET COMPONENTS OpenGL)
find_path(RAYCAR_GLCOREARB_INCLUDE_DIR GL/glcorearb.h)
if(OpenGL_OpenGL_FOUND OR OPENGL_FOUND)
  set(RAYCAR_OPENGL_FOUND TRUE)
endif()
if(NOT RAYCAR_GLCOREARB_INCLUDE_DIR)
  set(RAYCAR_OPENGL_FOUND FALSE)
endif()
raycar_require_package(RAYCAR_OPENGL_FOUND libgl-dev)

pkg_check_modules(RAYCAR_IMGUI QUIET IMPORTED_TARGET imgui)
find_path(RAYCAR_IMGUI_BACKENDS_DIR imgui_impl_opengl3.h PATHS /usr/include/imgui/backends
          PATH_SUFFIXES imgui/backends)
if(NOT RAYCAR_IMGUI_BACKENDS_DIR)
  set(RAYCAR_IMGUI_FOUND FALSE)
endif()
raycar_require_package(RAYCAR_IMGUI_FOUND libimgui-dev)

find_path(RAYCAR_STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb)
raycar_require_package(RAYCAR_STB_INCLUDE_DIR libstb-dev)

# One target for the viewer and its checks. Third-party headers are SYSTEM includes, so
# raycar_warnings' -Werror applies to our code only.
if(NOT TARGET raycar::viewer_deps)
  add_library(raycar_viewer_deps INTERFACE)
  add_library(raycar::viewer_deps ALIAS raycar_viewer_deps)
  target_include_directories(raycar_viewer_deps SYSTEM INTERFACE
    ${RAYCAR_IMGUI_BACKENDS_DIR} ${RAYCAR_STB_INCLUDE_DIR} ${RAYCAR_GLCOREARB_INCLUDE_DIR})
  if(TARGET OpenGL::OpenGL)
    set(raycar_opengl_target OpenGL::OpenGL)
  else()
    set(raycar_opengl_target OpenGL::GL)
  endif()
  target_link_libraries(raycar_viewer_deps INTERFACE PkgConfig::RAYCAR_IMGUI PkgConfig::RAYCAR_GLFW
                        ${raycar_opengl_target} ${CMAKE_DL_LIBS})
endif()
