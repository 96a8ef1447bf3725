/*
 * tools/paths.c — the files a command reads, so that an output naming one of
 * them (directly, through a symbolic link, or by another spelling of the same
 * path) is refused before anything is written (tools/cli.h).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cna/cna.h"
#include "core/internal.h"
#ifdef _WIN32
#include <windows.h>
#endif

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* realpath() of `path` when it exists; for a file not yet written, the real
 * path of its folder + "/" + its name. NULL when neither resolves. */
static char *real_path(const char *path)
{
    char buf[PATH_MAX];
    if (cna__real_path(path, buf, sizeof buf) == 0) return strdup(buf);
    const char *slash = cna__path_last_separator(path);
    const char *name = slash ? slash + 1 : path;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return NULL;
    char dir[PATH_MAX];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else return NULL;
    if (cna__real_path(dir, buf, sizeof buf) != 0) return NULL;
    size_t n = strlen(buf) + 1 + strlen(name) + 1;
    char *out = (char *)malloc(n);
    if (out) snprintf(out, n, "%s%s%s", buf, strcmp(buf, "/") == 0 ? "" : "/", name);
    return out;
}

bool cna_cli_same_file(const char *a, const char *b)
{
#ifndef _WIN32
    /* (Windows has no inode numbers in struct stat: the final paths alone are compared there.) */
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) return true;
#endif
    char *ra = real_path(a), *rb = real_path(b);
#ifdef _WIN32
    /* Windows's file names ignore case (ASCII letters here). */
    bool same = ra && rb && strlen(ra) == strlen(rb);
    for (size_t i = 0; same && ra[i]; i++) {
        char x = ra[i] >= 'A' && ra[i] <= 'Z' ? (char)(ra[i] - 'A' + 'a') : ra[i];
        char y = rb[i] >= 'A' && rb[i] <= 'Z' ? (char)(rb[i] - 'A' + 'a') : rb[i];
        same = x == y;
    }
#else
    bool same = ra && rb && strcmp(ra, rb) == 0;
#endif
    free(ra);
    free(rb);
    return same;
}

bool cna_cli_files_add(cna_cli_files *files, const char *path, const char *what_fmt, ...)
{
    if (files->count == files->cap) {
        size_t cap = files->cap ? files->cap * 2 : 8;
        cna_cli_file *p = (cna_cli_file *)realloc(files->items, cap * sizeof *p);
        if (!p) return false;
        files->items = p;
        files->cap = cap;
    }
    char what[256];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    cna_cli_file *f = &files->items[files->count];
    f->path = strdup(path);
    f->what = strdup(what);
    if (!f->path || !f->what) {
        free(f->path);
        free(f->what);
        return false;
    }
    files->count++;
    return true;
}

void cna_cli_files_free(cna_cli_files *files)
{
    for (size_t i = 0; i < files->count; i++) {
        free(files->items[i].path);
        free(files->items[i].what);
    }
    free(files->items);
    memset(files, 0, sizeof *files);
}

bool cna_cli_refuse_overwrite(const char *output, const cna_cli_files *files)
{
    for (size_t i = 0; i < files->count; i++) {
        if (!cna_cli_same_file(output, files->items[i].path)) continue;
        fprintf(stderr, "error: %s: is the same file as %s \"%s\"; nothing was written\n", output,
                files->items[i].what, files->items[i].path);
        return true;
    }
    return false;
}

static cna_result out_of_memory(cna_error *err)
{
    err->code = CNA_ERROR_OUT_OF_MEMORY;
    snprintf(err->message, sizeof err->message, "out of memory");
    return CNA_ERROR_OUT_OF_MEMORY;
}

/* The model file and, from its document, every external buffer and image file. */
static bool add_document_files(cna_cli_files *files, const char *path, const cna_gltf_document *doc)
{
    if (!cna_cli_files_add(files, path, "the input model")) return false;
    for (size_t i = 0; i < doc->buffer_count; i++) {
        const char *file = doc->buffers[i].path;
        if (file && !cna_cli_files_add(files, file, "buffers[%zu] of the input model", i)) return false;
    }
    for (size_t i = 0; i < doc->image_count; i++) {
        const char *file = doc->images[i].path;
        if (file && !cna_cli_files_add(files, file, "images[%zu] of the input model", i)) return false;
    }
    return true;
}

cna_result cna_cli_load_gltf(const char *path, const cna_import_options *opts, cna_model **out,
                             cna_cli_files *files, cna_error *err)
{
    cna_gltf_document *doc = NULL;
    cna_result r = cna_gltf_load_file(path, opts ? &opts->gltf : NULL, &doc, err);
    if (r != CNA_OK) return r;
    if (!add_document_files(files, path, doc)) r = out_of_memory(err);
    if (r == CNA_OK) r = cna_model_import_gltf(doc, opts, out, err);
    cna_gltf_document_free(doc);
    if (r == CNA_OK && (r = cna_cli_clips_bind(out, files, err)) != CNA_OK) {
        cna_model_free(*out);
        *out = NULL;
    }
    return r;
}

cna_result cna_cli_load_any(const char *path, const cna_import_options *opts, cna_model **out,
                            cna_cli_files *files, cna_error *err)
{
    unsigned char magic[4] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        err->code = CNA_ERROR_IO;
        snprintf(err->message, sizeof err->message, "%s: %s", path, strerror(errno));
        return CNA_ERROR_IO;
    }
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    if (!cna_cnb_is_cnb(magic, got)) return cna_cli_load_gltf(path, opts, out, files, err);
    /* A .cnb embeds its images: the file itself is the only input. */
    if (!cna_cli_files_add(files, path, "the input model")) return out_of_memory(err);
    cna_result r = cna_model_load_any(path, opts, out, err);
    if (r == CNA_OK && (r = cna_cli_clips_bind(out, files, err)) != CNA_OK) {
        cna_model_free(*out);
        *out = NULL;
    }
    return r;
}

bool cna_cli_refuse_directory(const char *option, const char *output)
{
    struct stat st;
    if (!output || stat(output, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    fprintf(stderr, "error: %s: is a directory; %s names the file to write; nothing was written\n", output, option);
    return true;
}

FILE *cna_cli_report_stream(const char *output)
{
#ifdef _WIN32
    /* No inode numbers: only the names of the stream itself. */
    if (output && strcmp(output, "/dev/stdout") == 0) return stderr;
#else
    struct stat so, st;
    if (output && fstat(1, &so) == 0 && stat(output, &st) == 0 && so.st_dev == st.st_dev && so.st_ino == st.st_ino)
        return stderr;
#endif
    return stdout;
}

bool cna_cli_is_regular_output(const char *output)
{
    if (strcmp(output, "/dev/stdout") == 0 || strcmp(output, "/dev/stderr") == 0 ||
        strncmp(output, "/dev/fd/", 8) == 0 || strncmp(output, "/proc/self/fd/", 14) == 0)
        return false;
#ifdef _WIN32
    /* stat() knows no device (NUL, CON, a named pipe): the kind of what opens there, as the
     * library's write asks it. */
    wchar_t *wide = cna__win32_wide_path(output);
    if (!wide) return true;
    HANDLE h = CreateFileW(wide, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, NULL);
    free(wide);
    if (h == INVALID_HANDLE_VALUE) return true; /* nothing there yet: a file will be */
    BY_HANDLE_FILE_INFORMATION info;
    const bool file = GetFileType(h) == FILE_TYPE_DISK && GetFileInformationByHandle(h, &info) &&
                      !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY);
    CloseHandle(h);
    return file;
#else
    struct stat st;
    return stat(output, &st) != 0 || S_ISREG(st.st_mode);
#endif
}

#define CNA_CLI_NAMES_LISTED 20

/* A name from the file in double quotes, control characters, '"' and '\\' as \\xNN. */
static void print_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c < 0x20 || *c == 0x7f || *c == '"' || *c == '\\') fprintf(f, "\\x%02x", *c);
        else fputc(*c, f);
    }
    fputc('"', f);
}

void cna_cli_no_animation(const char *path, const char *option, const char *name, const struct cna_model *model)
{
    const size_t n = model->animation_count;
    fprintf(stderr, "error: %s: %s%sno animation '%s' (the file has %zu%s", path, option ? option : "",
            option ? ": " : "", name, n, n == 0 ? ")\n" : n > CNA_CLI_NAMES_LISTED ? "; the first 20:" : ":");
    for (size_t i = 0; i < n && i < CNA_CLI_NAMES_LISTED; i++) {
        const char *s = cna_model_animation_name(model, i);
        fprintf(stderr, "%s %zu", i ? "," : "", i);
        if (s && *s) {
            fputc(' ', stderr);
            print_quoted(stderr, s);
        } else {
            fprintf(stderr, " (unnamed)");
        }
    }
    if (n) fprintf(stderr, ")\n");
}

static volatile sig_atomic_t interrupted_by;

static void on_interrupt(int sig) { interrupted_by = sig; }

void cna_cli_catch_interrupts(void)
{
#ifdef _WIN32
    /* Windows's signal() resets the handler when it runs, as SA_RESETHAND does. */
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = (int)SA_RESETHAND; /* a second signal ends the process at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
#endif
}

int cna_cli_interrupted(void) { return interrupted_by; }

void cna_cli_end_interrupted(void)
{
    const int sig = interrupted_by;
    fflush(stdout);
    fflush(stderr);
    signal(sig, SIG_DFL);
    raise(sig);
}
