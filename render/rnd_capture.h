/* rnd_capture.h - pictures of the viewer's framebuffer: a screenshot to
 * PNG, and numbered frames into a folder for recordings.
 * Invariant: a PNG appears under its name only once complete (written to
 * NAME.tmp, then renamed), like the engine's frames.
 */
#ifndef FCL_RND_CAPTURE_H
#define FCL_RND_CAPTURE_H

#include <stddef.h>

/* Read the framebuffer and write it as PNG to path. 0, or -1 with a
 * message naming the file. */
int rnd_screenshot(const char *path, int w, int h, char *err, size_t errlen);
/* Create dir (and parents) for a recording, and see that a file can be
 * made in it (a folder under /proc took none, and a scripted run ended
 * with exit 0 and no frames; a review). 0 or -1 with a message. */
int rnd_record_dir(const char *dir, char *err, size_t errlen);
/* One past the highest DIR/frame_NNNNN.png there: a second take into the
 * same folder continues the numbering instead of overwriting (the first
 * free index refilled a gap, then replaced the earlier take's next
 * frames; a review). */
long rnd_record_next(const char *dir);
/* dir/frame_NNNNN.png for frame index. */
int rnd_record_frame(const char *dir, long index, int w, int h, char *err, size_t errlen);

#endif
