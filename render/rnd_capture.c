/* rnd_capture.c - screenshots and recordings (see rnd_capture.h); the PNG
 * encoder is Debian's stb_image_write, compiled here and only here. */
#include "rnd_capture.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glad/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

/* The w x h pixels of the current read buffer as RGB, top row first;
 * malloc'd (caller frees), NULL when out of memory. */
static unsigned char *rnd_read_pixels(int w, int h)
{
    size_t row = (size_t)w * 3;
    unsigned char *px = malloc(row * (size_t)h + 1), *tmp = malloc(row + 1);
    if (!px || !tmp) {
        free(px);
        free(tmp);
        return NULL;
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px);
    /* OpenGL's rows run bottom-up; PNG's top-down. */
    for (int y = 0; y < h / 2; y++) {
        memcpy(tmp, px + (size_t)y * row, row);
        memcpy(px + (size_t)y * row, px + (size_t)(h - 1 - y) * row, row);
        memcpy(px + (size_t)(h - 1 - y) * row, tmp, row);
    }
    free(tmp);
    return px;
}

/* stb's encoder writes through this into the atomic writer's file. */
typedef struct png_out {
    FILE *fp;
    int failed;
} png_out;

static void png_sink(void *ctx, void *data, int size)
{
    png_out *o = ctx;
    if (size > 0 && fwrite(data, 1, (size_t)size, o->fp) != (size_t)size)
        o->failed = 1;
}

int rnd_screenshot(const char *path, int w, int h, char *err, size_t errlen)
{
    char msg[4400];
    unsigned char *px = rnd_read_pixels(w, h);
    if (!px) {
        snprintf(err, errlen, "%s: out of memory reading %d x %d pixels", path, w, h);
        return -1;
    }
    fcl_atomic a;
    int rc = atomic_open(&a, path, 0, msg, sizeof msg);
    if (rc == 0) {
        png_out o = { a.fp, 0 };
        int ok = stbi_write_png_to_func(png_sink, &o, w, h, 3, px, w * 3) && !o.failed;
        if (!ok)
            snprintf(msg, sizeof msg, "encoder or write error: %s", strerror(errno));
        rc = atomic_commit(&a, ok, 0, msg, sizeof msg);
    }
    free(px);
    if (rc != 0)
        snprintf(err, errlen, "%s: cannot write the PNG (%s)", path, msg);
    return rc;
}

int rnd_record_dir(const char *dir, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(path, 0777);
        *p = '/';
    }
    struct stat st;
    if (mkdir(path, 0777) != 0 && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
        if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
            snprintf(err, errlen, "record folder %s: a file of that name exists (expected a folder)", dir);
        else
            snprintf(err, errlen, "record folder %s: cannot create it (%s)", dir, strerror(errno));
        return -1;
    }
    /* A private temporary opened and dropped, as the frames will be
     * written (cli_probe_file's way). */
    char probe[4200], why[4400];
    fcl_atomic a;
    snprintf(probe, sizeof probe, "%s/frame_probe.png", dir);
    if (atomic_open(&a, probe, 1, why, sizeof why) != 0) {
        snprintf(err, errlen, "record folder %s: cannot write a frame there (%s)", dir, why);
        return -1;
    }
    atomic_commit(&a, 0, 0, why, sizeof why);
    return 0;
}

long rnd_record_next(const char *dir)
{
    DIR *d = opendir(dir);
    long next = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        size_t n = strlen(s), k = 6;
        if (n < 15 || strncmp(s, "frame_", 6) != 0 || strcmp(s + n - 4, ".png") != 0)
            continue;
        while (k < n - 4 && isdigit((unsigned char)s[k]))
            k++;
        long index = k == n - 4 && k - 6 >= 5 && k - 6 < 18 ? strtol(s + 6, NULL, 10) : -1;
        next = index >= next ? index + 1 : next;
    }
    if (d)
        closedir(d);
    return next;
}

int rnd_record_frame(const char *dir, long index, int w, int h, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/frame_%05ld.png", dir, index);
    return rnd_screenshot(path, w, h, err, errlen);
}
