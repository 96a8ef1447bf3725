/*
 * tools/view_overlay.h — the help overlay of `cna view`: a translucent dark
 * panel in the window's top-left corner with lines of text over it, drawn
 * with OpenGL 3.3 core in the caller's current context. The text uses the
 * tool's own 5x8-pixel bitmap font (printable ASCII, 32 to 126; any other
 * byte is drawn as '?'), enlarged by a whole factor so that it stays sharp:
 * the factor is max(1, min(width, height) / 360) for a framebuffer of
 * width x height pixels (2 at the viewer's default 960x720).
 *
 * Layout in framebuffer pixels, with s the factor and the origin at the top
 * left: the panel starts at (8s, 8s); the text starts 6s inside it; each
 * character cell is 6s wide (5 lit columns and one of space), each line 10s
 * high (8 rows and two of space). The panel is as wide and high as the text
 * plus 6s on each side, less the last cell's and the last line's spacing.
 * Text pixels are opaque white; the panel darkens what lies under it to 40%
 * (black at alpha 0.6).
 *
 * Not part of the library.
 */
#ifndef CNA_TOOLS_VIEW_OVERLAY_H
#define CNA_TOOLS_VIEW_OVERLAY_H

#include <stddef.h>

#include "cna/result.h"

typedef struct cna_cli_overlay cna_cli_overlay;

/* Compile the overlay's shader and create its buffers in the current
 * context. On failure returns the error (CNA_ERROR_UNSUPPORTED with the
 * shader log, CNA_ERROR_OUT_OF_MEMORY) and leaves *out NULL. */
cna_result cna_cli_overlay_create(cna_cli_overlay **out, cna_error *err);

/* Set the text: `count` lines, each a NUL-terminated string (an empty one
 * leaves a blank line). The lines are copied; nothing is drawn while there
 * are none. Returns CNA_ERROR_OUT_OF_MEMORY (the previous text kept) or
 * CNA_OK. */
cna_result cna_cli_overlay_set_text(cna_cli_overlay *ov, const char *const *lines, size_t count, cna_error *err);

/* Draw the panel and the text over whatever the bound framebuffer holds,
 * which is width x height pixels (the viewport is set to it); the
 * framebuffer's alpha is kept. Depth test, face culling, blending and the
 * blend factors are restored as they were; the program and vertex array
 * bindings are left at 0. The geometry is rebuilt only when the size or
 * the text changed (text beyond the framebuffer is left out). Draws nothing
 * without text or with a side <= 0. Returns CNA_ERROR_OUT_OF_MEMORY when
 * the geometry cannot be built (nothing drawn), or CNA_OK. */
cna_result cna_cli_overlay_draw(cna_cli_overlay *ov, int width, int height, cna_error *err);

/* Delete the GL objects (the context that created them must be current)
 * and free the overlay; NULL is accepted. */
void cna_cli_overlay_free(cna_cli_overlay *ov);

#endif
