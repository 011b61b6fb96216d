#pragma once
// OpenGL 3.3 core for the viewer: the core-profile prototypes from libgl-dev's <GL/glcorearb.h>,
// resolved by linking libGL (mesa exports every 3.3 core entry point directly, so no loader is
// needed), and GLFW without its own GL header.
// (ImGui's bundled imgui_impl_opengl3_loader.h was considered: it declares only the ~50 functions
// ImGui's backend uses, without glUniform2f/3f/4f or glDrawArrays, so it does not serve here.)

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <GL/glcorearb.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
