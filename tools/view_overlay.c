/*
 * tools/view_overlay.c — the help overlay of `cna view` (view_overlay.h): a
 * translucent panel and lines of text in the window's top-left corner.
 *
 * The font is the tool's own: 95 glyphs (ASCII 32 to 126), each 5 columns
 * by 8 rows, written below as rows of '.' (off) and '#' (on), top row
 * first. Capitals and digits use rows 0 to 6, lower case rows 2 to 6, and
 * row 7 holds the descenders (g, j, p, q, y, comma, semicolon, underscore).
 *
 * Every lit run of a glyph row becomes one rectangle of s x s pixels per
 * column (s the whole scale factor), so the text is made of pixel-aligned
 * quads: it stays sharp at every scale, multisampling leaves it exact, and
 * no texture is needed. One tiny shader places the rectangles in pixels and
 * fills them with one colour; the panel is one more rectangle drawn first.
 */
#include "view_overlay.h"

/* Built with the viewer only: OpenGL comes through libepoxy with cna_gl. */
#if defined(CNA_HAVE_GL) && defined(CNA_HAVE_GLFW)
#include <epoxy/gl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define GLYPH_COLS 5
#define GLYPH_ROWS 8
#define CELL_W 6    /* the glyph and one column of space, in font pixels */
#define LINE_H 10   /* the glyph and two rows of space */
#define MARGIN 8    /* from the window's edges to the panel */
#define PADDING 6   /* from the panel's edges to the text */

/* Glyph c is font[c - 32]: 8 rows of 5, separated by spaces. */
static const char font[95][GLYPH_ROWS * (GLYPH_COLS + 1)] = {
    "..... ..... ..... ..... ..... ..... ..... .....", /* space */
    "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#.. .....", /* '!' */
    ".#.#. .#.#. ..... ..... ..... ..... ..... .....", /* '"' */
    ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#. .....", /* '#' */
    "..#.. .#### #.#.. .###. ..#.# ####. ..#.. .....", /* '$' */
    "##... ##..# ...#. ..#.. .#... #..## ...## .....", /* '%' */
    ".##.. #..#. #.#.. .#... #.#.# #..#. .##.# .....", /* '&' */
    "..#.. ..#.. ..... ..... ..... ..... ..... .....", /* ''' */
    "...#. ..#.. .#... .#... .#... ..#.. ...#. .....", /* '(' */
    ".#... ..#.. ...#. ...#. ...#. ..#.. .#... .....", /* ')' */
    "..... ..#.. #.#.# .###. #.#.# ..#.. ..... .....", /* '*' */
    "..... ..#.. ..#.. ##### ..#.. ..#.. ..... .....", /* '+' */
    "..... ..... ..... ..... ..... .##.. ..#.. .#...", /* ',' */
    "..... ..... ..... ##### ..... ..... ..... .....", /* '-' */
    "..... ..... ..... ..... ..... .##.. .##.. .....", /* '.' */
    "..... ....# ...#. ..#.. .#... #.... ..... .....", /* '/' */
    ".###. #...# #..## #.#.# ##..# #...# .###. .....", /* '0' */
    "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###. .....", /* '1' */
    ".###. #...# ....# ...#. ..#.. .#... ##### .....", /* '2' */
    "####. ....# ....# .###. ....# ....# ####. .....", /* '3' */
    "...#. ..##. .#.#. #..#. ##### ...#. ...#. .....", /* '4' */
    "##### #.... ####. ....# ....# #...# .###. .....", /* '5' */
    "..##. .#... #.... ####. #...# #...# .###. .....", /* '6' */
    "##### ....# ...#. ..#.. .#... .#... .#... .....", /* '7' */
    ".###. #...# #...# .###. #...# #...# .###. .....", /* '8' */
    ".###. #...# #...# .#### ....# ...#. .##.. .....", /* '9' */
    "..... .##.. .##.. ..... .##.. .##.. ..... .....", /* ':' */
    "..... .##.. .##.. ..... .##.. .##.. ..#.. .#...", /* ';' */
    "...#. ..#.. .#... #.... .#... ..#.. ...#. .....", /* '<' */
    "..... ..... ##### ..... ##### ..... ..... .....", /* '=' */
    ".#... ..#.. ...#. ....# ...#. ..#.. .#... .....", /* '>' */
    ".###. #...# ....# ...#. ..#.. ..... ..#.. .....", /* '?' */
    ".###. #...# #.### #.#.# #.### #.... .###. .....", /* '@' */
    ".###. #...# #...# ##### #...# #...# #...# .....", /* 'A' */
    "####. #...# #...# ####. #...# #...# ####. .....", /* 'B' */
    ".###. #...# #.... #.... #.... #...# .###. .....", /* 'C' */
    "####. #...# #...# #...# #...# #...# ####. .....", /* 'D' */
    "##### #.... #.... ####. #.... #.... ##### .....", /* 'E' */
    "##### #.... #.... ####. #.... #.... #.... .....", /* 'F' */
    ".###. #...# #.... #.### #...# #...# .#### .....", /* 'G' */
    "#...# #...# #...# ##### #...# #...# #...# .....", /* 'H' */
    ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###. .....", /* 'I' */
    "..### ...#. ...#. ...#. ...#. #..#. .##.. .....", /* 'J' */
    "#...# #..#. #.#.. ##... #.#.. #..#. #...# .....", /* 'K' */
    "#.... #.... #.... #.... #.... #.... ##### .....", /* 'L' */
    "#...# ##.## #.#.# #.#.# #...# #...# #...# .....", /* 'M' */
    "#...# #...# ##..# #.#.# #..## #...# #...# .....", /* 'N' */
    ".###. #...# #...# #...# #...# #...# .###. .....", /* 'O' */
    "####. #...# #...# ####. #.... #.... #.... .....", /* 'P' */
    ".###. #...# #...# #...# #.#.# #..#. .##.# .....", /* 'Q' */
    "####. #...# #...# ####. #.#.. #..#. #...# .....", /* 'R' */
    ".#### #.... #.... .###. ....# ....# ####. .....", /* 'S' */
    "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. .....", /* 'T' */
    "#...# #...# #...# #...# #...# #...# .###. .....", /* 'U' */
    "#...# #...# #...# #...# #...# .#.#. ..#.. .....", /* 'V' */
    "#...# #...# #...# #.#.# #.#.# #.#.# .#.#. .....", /* 'W' */
    "#...# #...# .#.#. ..#.. .#.#. #...# #...# .....", /* 'X' */
    "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#.. .....", /* 'Y' */
    "##### ....# ...#. ..#.. .#... #.... ##### .....", /* 'Z' */
    ".###. .#... .#... .#... .#... .#... .###. .....", /* '[' */
    "..... #.... .#... ..#.. ...#. ....# ..... .....", /* backslash */
    ".###. ...#. ...#. ...#. ...#. ...#. .###. .....", /* ']' */
    "..#.. .#.#. #...# ..... ..... ..... ..... .....", /* '^' */
    "..... ..... ..... ..... ..... ..... ..... #####", /* '_' */
    ".#... ..#.. ..... ..... ..... ..... ..... .....", /* '`' */
    "..... ..... .###. ....# .#### #...# .#### .....", /* 'a' */
    "#.... #.... #.##. ##..# #...# #...# ####. .....", /* 'b' */
    "..... ..... .###. #.... #.... #...# .###. .....", /* 'c' */
    "....# ....# .##.# #..## #...# #...# .#### .....", /* 'd' */
    "..... ..... .###. #...# ##### #.... .###. .....", /* 'e' */
    "..##. .#..# .#... ###.. .#... .#... .#... .....", /* 'f' */
    "..... ..... .#### #...# #...# .#### ....# .###.", /* 'g' */
    "#.... #.... #.##. ##..# #...# #...# #...# .....", /* 'h' */
    "..#.. ..... .##.. ..#.. ..#.. ..#.. .###. .....", /* 'i' */
    "...#. ..... ..##. ...#. ...#. ...#. #..#. .##..", /* 'j' */
    "#.... #.... #..#. #.#.. ##... #.#.. #..#. .....", /* 'k' */
    ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###. .....", /* 'l' */
    "..... ..... ##.#. #.#.# #.#.# #.#.# #.#.# .....", /* 'm' */
    "..... ..... #.##. ##..# #...# #...# #...# .....", /* 'n' */
    "..... ..... .###. #...# #...# #...# .###. .....", /* 'o' */
    "..... ..... ####. #...# #...# ####. #.... #....", /* 'p' */
    "..... ..... .#### #...# #...# .#### ....# ....#", /* 'q' */
    "..... ..... #.##. ##..# #.... #.... #.... .....", /* 'r' */
    "..... ..... .###. #.... .###. ....# ####. .....", /* 's' */
    ".#... .#... ###.. .#... .#... .#..# ..##. .....", /* 't' */
    "..... ..... #...# #...# #...# #..## .##.# .....", /* 'u' */
    "..... ..... #...# #...# #...# .#.#. ..#.. .....", /* 'v' */
    "..... ..... #...# #...# #.#.# #.#.# .#.#. .....", /* 'w' */
    "..... ..... #...# .#.#. ..#.. .#.#. #...# .....", /* 'x' */
    "..... ..... #...# #...# #...# .#### ....# .###.", /* 'y' */
    "..... ..... ##### ...#. ..#.. .#... ##### .....", /* 'z' */
    "...#. ..#.. ..#.. .#... ..#.. ..#.. ...#. .....", /* '{' */
    "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. .....", /* '|' */
    ".#... ..#.. ..#.. ...#. ..#.. ..#.. .#... .....", /* '}' */
    "..... ..... .#... #.#.# ...#. ..... ..... .....", /* '~' */
};

static const char *const vertex_shader =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pixel;\n"
    "uniform vec2 u_size;\n"
    "void main()\n"
    "{\n"
    "  vec2 p = a_pixel / u_size * 2.0 - 1.0;\n"
    "  gl_Position = vec4(p.x, -p.y, 0.0, 1.0);\n"
    "}\n";

static const char *const fragment_shader =
    "#version 330 core\n"
    "uniform vec4 u_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = u_color; }\n";

struct cna_cli_overlay {
    GLuint program, vao, vbo;
    GLint u_size, u_color;
    char **lines;        /* line_count pointers, then the strings, in one block */
    size_t line_count;
    size_t vertex_count; /* in the buffer: the panel's 6, then the text's */
    int built_width, built_height;   /* 0: the geometry must be rebuilt */
};

static bool glyph_on(unsigned char c, int row, int col)
{
    if (c < 32 || c > 126) c = '?';
    return font[c - 32][row * (GLYPH_COLS + 1) + col] == '#';
}

/* The rectangle [x0, x1) x [y0, y1) as two triangles, when v is not NULL;
 * returns the vertex count after it. */
static size_t rect(float *v, size_t n, int x0, int y0, int x1, int y1)
{
    if (v) {
        const float q[12] = {(float)x0, (float)y0, (float)x1, (float)y0, (float)x1, (float)y1,
                             (float)x0, (float)y0, (float)x1, (float)y1, (float)x0, (float)y1};
        memcpy(v + n * 2, q, sizeof q);
    }
    return n + 6;
}

static int scale_for(int width, int height)
{
    int s = (width < height ? width : height) / 360;
    return s < 1 ? 1 : s;
}

/* The panel and the text for a width x height framebuffer, into v (NULL:
 * only count); returns the vertex count. */
static size_t layout(const cna_cli_overlay *ov, int width, int height, float *v)
{
    const int s = scale_for(width, height);
    size_t cols = 0;
    for (size_t i = 0; i < ov->line_count; i++) {
        size_t len = strlen(ov->lines[i]);
        if (len > cols) cols = len;
    }
    /* Text beyond the window is not drawn: the panel and the counts stay small. */
    const size_t max_cols = (size_t)width / (size_t)(CELL_W * s) + 1;
    const size_t max_lines = (size_t)height / (size_t)(LINE_H * s) + 1;
    if (cols > max_cols) cols = max_cols;
    const size_t lines = ov->line_count < max_lines ? ov->line_count : max_lines;
    const int x0 = MARGIN * s, y0 = MARGIN * s, tx = x0 + PADDING * s, ty = y0 + PADDING * s;
    const int text_w = cols ? (int)cols * CELL_W * s - s : 0;
    const int text_h = lines ? (int)lines * LINE_H * s - 2 * s : 0;
    size_t n = rect(v, 0, x0, y0, tx + text_w + PADDING * s, ty + text_h + PADDING * s);
    for (size_t i = 0; i < lines; i++) {
        const unsigned char *text = (const unsigned char *)ov->lines[i];
        for (size_t j = 0; text[j] && j < cols; j++) {
            const int gx = tx + (int)j * CELL_W * s, gy = ty + (int)i * LINE_H * s;
            for (int row = 0; row < GLYPH_ROWS; row++)
                for (int col = 0; col < GLYPH_COLS;) {
                    if (!glyph_on(text[j], row, col)) {
                        col++;
                        continue;
                    }
                    int end = col + 1;
                    while (end < GLYPH_COLS && glyph_on(text[j], row, end)) end++;
                    n = rect(v, n, gx + col * s, gy + row * s, gx + end * s, gy + (row + 1) * s);
                    col = end;
                }
        }
    }
    return n;
}

static GLuint compile(GLenum type, const char *source, cna_error *err)
{
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 1, &source, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400];
        log[0] = '\0';
        glGetShaderInfoLog(sh, (GLsizei)sizeof log, NULL, log);
        glDeleteShader(sh);
        cna__error(err, CNA_ERROR_UNSUPPORTED, "view overlay: the %s shader does not compile: %s",
                   type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        return 0;
    }
    return sh;
}

cna_result cna_cli_overlay_create(cna_cli_overlay **out, cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "view overlay: NULL output");
    *out = NULL;
    cna_cli_overlay *ov = (cna_cli_overlay *)calloc(1, sizeof *ov);
    if (!ov) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "view overlay: out of memory");
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_shader, err);
    GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, fragment_shader, err) : 0;
    if (!fs) {
        if (vs) glDeleteShader(vs);
        free(ov);
        return CNA_ERROR_UNSUPPORTED;
    }
    ov->program = glCreateProgram();
    glAttachShader(ov->program, vs);
    glAttachShader(ov->program, fs);
    glLinkProgram(ov->program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(ov->program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[400];
        log[0] = '\0';
        glGetProgramInfoLog(ov->program, (GLsizei)sizeof log, NULL, log);
        cna_cli_overlay_free(ov);
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "view overlay: the shaders do not link: %s", log);
    }
    ov->u_size = glGetUniformLocation(ov->program, "u_size");
    ov->u_color = glGetUniformLocation(ov->program, "u_color");
    glGenVertexArrays(1, &ov->vao);
    glGenBuffers(1, &ov->vbo);
    glBindVertexArray(ov->vao);
    glBindBuffer(GL_ARRAY_BUFFER, ov->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, (GLsizei)(2 * sizeof(float)), NULL);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    *out = ov;
    return CNA_OK;
}

cna_result cna_cli_overlay_set_text(cna_cli_overlay *ov, const char *const *lines, size_t count, cna_error *err)
{
    if (!ov || (count && !lines)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "view overlay: NULL text");
    if (count > SIZE_MAX / sizeof(char *))
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "view overlay: %zu lines", count);
    size_t size = count * sizeof(char *);
    for (size_t i = 0; i < count; i++) {
        if (!lines[i]) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "view overlay: line %zu is NULL", i);
        size_t len = strlen(lines[i]);
        if (len >= SIZE_MAX - size) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "view overlay: text too long");
        size += len + 1;
    }
    char **copy = count ? (char **)malloc(size) : NULL;
    if (count && !copy)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "view overlay: out of memory (%zu bytes)", size);
    char *text = (char *)(copy + count);
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(lines[i]) + 1;
        memcpy(text, lines[i], len);
        copy[i] = text;
        text += len;
    }
    free(ov->lines);
    ov->lines = copy;
    ov->line_count = count;
    ov->built_width = ov->built_height = 0;
    return CNA_OK;
}

static cna_result build(cna_cli_overlay *ov, int width, int height, cna_error *err)
{
    size_t n = layout(ov, width, height, NULL);
    if (n > SIZE_MAX / (2 * sizeof(float)) || n * 2 * sizeof(float) > (size_t)PTRDIFF_MAX)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "view overlay: %zu vertices", n);
    float *v = (float *)malloc(n * 2 * sizeof(float));
    if (!v) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "view overlay: out of memory (%zu vertices)", n);
    (void)layout(ov, width, height, v);
    glBindBuffer(GL_ARRAY_BUFFER, ov->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * 2 * sizeof(float)), v, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    free(v);
    ov->vertex_count = n;
    ov->built_width = width;
    ov->built_height = height;
    return CNA_OK;
}

cna_result cna_cli_overlay_draw(cna_cli_overlay *ov, int width, int height, cna_error *err)
{
    if (!ov || ov->line_count == 0 || width <= 0 || height <= 0) return CNA_OK;
    if (ov->built_width != width || ov->built_height != height) {
        cna_result r = build(ov, width, height, err);
        if (r) return r;
    }
    const GLboolean depth = glIsEnabled(GL_DEPTH_TEST), cull = glIsEnabled(GL_CULL_FACE);
    const GLboolean blend = glIsEnabled(GL_BLEND);
    GLint src_rgb = GL_ONE, dst_rgb = GL_ZERO, src_a = GL_ONE, dst_a = GL_ZERO;
    glGetIntegerv(GL_BLEND_SRC_RGB, &src_rgb);
    glGetIntegerv(GL_BLEND_DST_RGB, &dst_rgb);
    glGetIntegerv(GL_BLEND_SRC_ALPHA, &src_a);
    glGetIntegerv(GL_BLEND_DST_ALPHA, &dst_a);
    glViewport(0, 0, width, height);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    /* Colour over what is there; the framebuffer's alpha stays as it is. */
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    glUseProgram(ov->program);
    glUniform2f(ov->u_size, (float)width, (float)height);
    glBindVertexArray(ov->vao);
    glUniform4f(ov->u_color, 0.0f, 0.0f, 0.0f, 0.6f);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    glUniform4f(ov->u_color, 1.0f, 1.0f, 1.0f, 1.0f);
    glDrawArrays(GL_TRIANGLES, 6, (GLsizei)(ov->vertex_count - 6));
    glBindVertexArray(0);
    glUseProgram(0);
    glBlendFuncSeparate((GLenum)src_rgb, (GLenum)dst_rgb, (GLenum)src_a, (GLenum)dst_a);
    if (!blend) glDisable(GL_BLEND);
    if (cull) glEnable(GL_CULL_FACE);
    if (depth) glEnable(GL_DEPTH_TEST);
    return CNA_OK;
}

void cna_cli_overlay_free(cna_cli_overlay *ov)
{
    if (!ov) return;
    if (ov->vbo) glDeleteBuffers(1, &ov->vbo);
    if (ov->vao) glDeleteVertexArrays(1, &ov->vao);
    if (ov->program) glDeleteProgram(ov->program);
    free(ov->lines);
    free(ov);
}

#endif /* CNA_HAVE_GL && CNA_HAVE_GLFW */
