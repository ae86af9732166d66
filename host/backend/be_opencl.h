/* be_opencl.h - what only the OpenCL backend can do, for the viewer:
 * a context that shares objects with the current OpenGL context
 * (cl_khr_gl_sharing), GL buffers wrapped as backend buffers, and kernel
 * hot reload.
 * Invariant: every function here takes a backend whose kind is "opencl"
 * (be_opencl_is); fcl_kernel pointers handed out before a reload stay
 * valid after it.
 */
#ifndef FCL_BE_OPENCL_H
#define FCL_BE_OPENCL_H

#include <stddef.h>

#include "backend.h"
#include "clrt.h"

/* be_opencl_create with extra context properties (NULL: none), e.g.
 * CL_GL_CONTEXT_KHR + CL_GLX_DISPLAY_KHR + CL_CONTEXT_PLATFORM. */
fcl_backend *be_opencl_create_props(const char *device, const char *kernel_dir,
                                    const cl_context_properties *props, char *err, size_t errlen);
int be_opencl_is(const fcl_backend *be);
/* Build the program again from dir (NULL: the embedded sources). Only on
 * success is it swapped in: every cached kernel is re-created from the new
 * program in place, so pointers held by the simulation stay valid. On a
 * build error returns -1 with the compiler log in *log (malloc'd, caller
 * frees; names kernels/FILE:LINE) and the old program keeps running. */
int be_opencl_reload(fcl_backend *be, const char *dir, char **log, char *err, size_t errlen);
/* The OpenGL buffer object gl_buffer (a GLuint) as a backend buffer
 * (clCreateFromGLBuffer); the context must have been made with GL
 * sharing properties. Free it with ops->buf_free. */
fcl_buf *be_opencl_gl_buffer(fcl_backend *be, unsigned gl_buffer, size_t bytes, char *err, size_t errlen);
/* clEnqueueAcquireGLObjects / clEnqueueReleaseGLObjects on b. The caller
 * has finished its GL work on the buffer before acquiring (glFinish);
 * release waits for the queue, so GL may use the buffer on return. */
int be_opencl_gl_acquire(fcl_backend *be, fcl_buf *b);
int be_opencl_gl_release(fcl_backend *be, fcl_buf *b);

#endif
