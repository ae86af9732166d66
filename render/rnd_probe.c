/* rnd_probe.c - OpenGL availability probe through GLFW + glad. */
#include "rnd_probe.h"

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <stdio.h>

static char glfw_reason[256];

static void on_glfw_error(int code, const char *desc)
{
    (void)code;
    snprintf(glfw_reason, sizeof glfw_reason, "%s", desc);
}

int rnd_probe(char *out, size_t len)
{
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        snprintf(out, len, "no display (%s)", glfw_reason);
        return -1;
    }
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    GLFWwindow *w = glfwCreateWindow(64, 64, "fluidcl probe", NULL, NULL);
    int rc = -1;
    if (!w) {
        snprintf(out, len, "no OpenGL 3.3 core context (%s)", glfw_reason);
    } else {
        glfwMakeContextCurrent(w);
        if (gladLoadGL(glfwGetProcAddress) == 0) {
            snprintf(out, len, "glad could not load OpenGL 3.3 core");
        } else {
            snprintf(out, len, "%s, OpenGL %s", (const char *)glGetString(GL_RENDERER),
                     (const char *)glGetString(GL_VERSION));
            rc = 0;
        }
        glfwDestroyWindow(w);
    }
    glfwTerminate();
    return rc;
}
