/* run_paths.h - `fluidcl run`'s checks of its output paths (run_paths.c). */
#ifndef FCL_RUN_PATHS_H
#define FCL_RUN_PATHS_H

#include "cli.h"
#include "params.h"

/* Whether output.format (vtu, vtk, ply, vtu+ply, vtk+ply, both = vtk+ply,
 * all) asks for files of this kind. */
int run_wants(const char *format, const char *kind);
/* The names this run writes per frame ("frame_#.vtu", ...; NULL-ended),
 * for out_check_frame_names. */
void run_frame_names(const fcl_cli *o, const fcl_params *p, const char *names[8]);
/* What the outputs ask that no file or device decides, before either is
 * touched (--mesh without --out was refused only after the boundary was
 * sampled and its cache written), and the statistics, the checkpoint and
 * the frames on distinct paths: 0, or FCL_EXIT_INPUT after the message. */
int run_check_outputs(const fcl_cli *o, const fcl_params *p);
/* Files an earlier run left in the output folder (frames, meshes,
 * grids): a fresh run replaces those of the steps it writes and leaves
 * the others, mixed in with its own (a review: a rerun without --mesh
 * kept the first run's meshes beside its new frames, exit 0). Said once,
 * not removed: they may be wanted. */
void run_note_earlier_files(const fcl_params *p);
/* A resumed run's note of the frame, mesh and grid files in its folder
 * past the checkpoint's step that it will not write again (past its end,
 * off its interval): another continuation's, left beside its own (a
 * resume from an older checkpoint mixed two histories without a word; a
 * review). */
void run_note_later_files(const fcl_params *p, long step);

#endif
