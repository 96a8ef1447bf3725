/*
 * tools/convert.c — `cna convert IN.(gltf|glb) -o OUT.cnb [--unit-scale S]
 * [--skeleton OUT.cnj] [--mode faithful|union] [--reduce-keys TOL] [--marker ANIM:NAME:SECONDS]...`:
 * import a glTF file, add the markers given (cna_model_add_marker) and bake
 * it as a .cnb binary model (docs/format-cnb.md), optionally with the
 * skeletal clips' keys reduced (cna_model_reduce_keys) and with the first
 * skin's skeleton as a .cnj sidecar. With a directory as IN, every .gltf and
 * .glb file in its tree is converted to OUT/<same relative path>.cnb, with a
 * progress bar when stdout is a terminal.
 *
 * Every written .cnb is loaded back before the command reports success, so a
 * file the reader would refuse is never left behind silently. Each file is
 * written atomically (a temporary file renamed over the output), and an
 * output that is one of the files the model is read from, or the other
 * output, is refused before anything is written. Directory mode follows
 * symbolic links to files, never to folders.
 *
 * Exit codes: 0 converted (every file, in directory mode), 1 a file was
 * refused or could not be written, 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _WIN32
#include <io.h>
/* Windows: no symbolic links in struct stat, mkdir without a mode. */
#define lstat stat
#define S_ISLNK(mode) ((void)(mode), 0)
#define mkdir(path, mode) ((void)(mode), mkdir(path))
#endif

#include "cli.h"
#include "cna/cna.h"

void cna_cli_convert_help(FILE *out)
{
    fprintf(out,
            "usage: cna convert IN.gltf|IN.glb -o OUT.cnb [--unit-scale S] [--skeleton OUT.cnj]\n"
            "                   [--mode faithful|union] [--reduce-keys TOL] [--asset-root DIR]\n"
            "                   [--split-palettes]\n"
            "                   [--no-textures] [--max-decoded-size N] [--marker ANIM:NAME:SECONDS]...\n"
            "       cna convert DIR -o OUTDIR [--unit-scale S] [--mode faithful|union]\n"
            "                   [--reduce-keys TOL] [--asset-root DIR] [--split-palettes]\n"
            "\n"
            "Imports a glTF 2.0 file as a cna model and writes it as a .cnb binary model\n"
            "(docs/format-cnb.md), which cna pose and cna_cnb_load_file load with one read,\n"
            "and prints what it wrote (\"wrote OUT.cnb (123456 bytes)\").\n"
            "With a directory, converts every .gltf and .glb file in its tree to OUTDIR,\n"
            "keeping the relative paths (a.gltf -> OUTDIR/a.cnb; a.gltf beside a.glb ->\n"
            "a.gltf.cnb and a.glb.cnb), with a progress bar when stdout is a terminal; a\n"
            "file that fails is reported and the rest continue. Symbolic links to files\n"
            "are followed, links to folders never (so a link loop cannot trap the walk).\n"
            "\n"
            "Every file is written atomically: to a temporary file beside it, renamed\n"
            "over OUT only when complete, so a failure (a full disk, a crash) leaves a\n"
            "previous OUT as it was. An output that is the same file as the input, one\n"
            "of its .bin buffers or images, or the other output, is refused before\n"
            "anything is written.\n"
            "\n"
            "options:\n"
            "  -o, --output PATH    the .cnb file (a directory in directory mode); another\n"
            "                       extension than .cnb is refused (exit 2)\n"
            "  --unit-scale S       multiply every translation-bearing quantity by S (vertex\n"
            "                       positions, node, bind-pose, inverse-bind and prefix\n"
            "                       translations, animation translations and their tangents,\n"
            "                       morph position deltas); never rotations or scales.\n"
            "                       Default 1 (the file's values exactly)\n"
            "  --skeleton PATH      also write the first skin's skeleton as a .cnj sidecar\n"
            "                       (single-file mode; the model must have a skin)\n"
            "  --mode faithful|union  clip extraction mode (default faithful)\n"
            "  --reduce-keys TOL    drop the skeletal clips' keys whose removal moves no joint,\n"
            "                       nor any point 0.1 units from a joint along its axes, by\n"
            "                       more than TOL model units (the file's, before\n"
            "                       --unit-scale) at any key time or midpoint between key\n"
            "                       times; first and last keys of each track stay. Prints\n"
            "                       \"keys: BEFORE -> AFTER (tolerance TOL, largest error E)\".\n"
            "                       TOL 0 drops only keys that change nothing. Default: every\n"
            "                       key is kept\n"
            "  --marker ANIM:NAME:SECONDS\n"
            "                       store a marker named NAME at SECONDS in animation ANIM\n"
            "                       (an index or a name, as cna_model_find_animation; up to\n"
            "                       the first ':'); NAME may contain ':'. A character\n"
            "                       playing the animation reports the marker each time its\n"
            "                       clock crosses it. Repeatable; single-file mode. A time\n"
            "                       outside the animation or an unknown ANIM refuses the\n"
            "                       file (exit 1)\n"
            CNA_CLI_ASSET_ROOT_HELP("     ", "                       ")
            CNA_CLI_CLIPS_HELP("         ", "                       ")
            CNA_CLI_SPLIT_PALETTES_HELP("     ", "                       ")
            CNA_CLI_NO_TEXTURES_HELP("     ", "                       ")
            CNA_CLI_MAX_DECODED_HELP(" ", "                       ")
            "  -h, --help           print this help\n"
            "\n"
            "exit status: 0 converted; 1 a file was refused or could not be written;\n"
            "2 usage error.\n");
}

/* One --marker ANIM:NAME:SECONDS (pointers into the argument). */
typedef struct marker_arg {
    const char *arg;         /* the whole argument, for messages */
    char anim[256];          /* ANIM: before the first ':' */
    const char *name;        /* NAME: between the first and the last ':' (copied into name_buf) */
    char name_buf[1024];
    double seconds;          /* SECONDS: after the last ':' */
} marker_arg;

typedef struct convert_args {
    const char *in, *out, *skeleton;
    const char *asset_root;  /* --asset-root; NULL when not given */
    bool split_palettes;     /* --split-palettes */
    bool no_textures;        /* --no-textures */
    size_t max_decoded;      /* --max-decoded-size; 0 = the default */
    float unit_scale;
    cna_clip_mode mode;
    bool reduce;             /* --reduce-keys given */
    double tolerance;        /* its value */
    marker_arg *markers;     /* --marker, in order (freed by the caller) */
    size_t marker_count;
} convert_args;

/* Split "ANIM:NAME:SECONDS"; false for any other form. */
static bool parse_marker(const char *v, marker_arg *m)
{
    const char *first = strchr(v, ':'), *last = strrchr(v, ':');
    if (!first || last == first) return false;
    const size_t anim = (size_t)(first - v), name = (size_t)(last - first - 1);
    if (anim == 0 || anim >= sizeof m->anim || name == 0 || name >= sizeof m->name_buf || !last[1]) return false;
    char *end = NULL;
    errno = 0;
    const double s = strtod(last + 1, &end);
    if (errno || *end || !isfinite(s)) return false;
    m->arg = v;
    memcpy(m->anim, v, anim);
    m->anim[anim] = '\0';
    memcpy(m->name_buf, first + 1, name);
    m->name_buf[name] = '\0';
    m->name = m->name_buf;
    m->seconds = s;
    return true;
}

static int parse_args(const cna_cli_command *cmd, int argc, char **argv, convert_args *a)
{
    memset(a, 0, sizeof *a);
    a->unit_scale = 1.0f;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int md = cna_cli_max_decoded_option(cmd, argc, argv, &i, &a->max_decoded);
        if (md == -1) continue;
        if (md >= 0) return md;
        bool has_value = i + 1 < argc;
        if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0 || strcmp(arg, "--unit-scale") == 0 ||
            strcmp(arg, "--skeleton") == 0 || strcmp(arg, "--mode") == 0 || strcmp(arg, "--asset-root") == 0 ||
            strcmp(arg, "--reduce-keys") == 0 || strcmp(arg, "--marker") == 0) {
            if (!has_value) return cna_cli_usage_error(cmd, "%s needs a value", arg);
            const char *v = argv[++i];
            if (strcmp(arg, "--unit-scale") == 0) {
                char *end = NULL;
                errno = 0;
                double s = strtod(v, &end);
                if (errno || !*v || *end || !isfinite(s) || !(s > 0) || s > 1e30)
                    return cna_cli_usage_error(cmd, "--unit-scale: '%s' is not a positive number", v);
                a->unit_scale = (float)s;
            } else if (strcmp(arg, "--reduce-keys") == 0) {
                char *end = NULL;
                errno = 0;
                double t = strtod(v, &end);
                if (errno || !*v || *end || !isfinite(t) || !(t >= 0))
                    return cna_cli_usage_error(cmd, "--reduce-keys: '%s' is not a finite tolerance >= 0", v);
                a->reduce = true;
                a->tolerance = t;
            } else if (strcmp(arg, "--marker") == 0) {
                if (!a->markers) {
                    a->markers = (marker_arg *)calloc((size_t)argc, sizeof *a->markers);
                    if (!a->markers) {
                        fprintf(stderr, "error: out of memory\n");
                        return CNA_CLI_EXIT_FAILURE;
                    }
                }
                if (!parse_marker(v, &a->markers[a->marker_count]))
                    return cna_cli_usage_error(cmd, "--marker: '%s' is not ANIM:NAME:SECONDS (an animation, a name "
                                               "and a time in seconds)", v);
                a->marker_count++;
            } else if (strcmp(arg, "--skeleton") == 0) {
                a->skeleton = v;
            } else if (strcmp(arg, "--asset-root") == 0) {
                a->asset_root = v;
            } else if (strcmp(arg, "--mode") == 0) {
                if (strcmp(v, "faithful") == 0) a->mode = CNA_CLIP_MODE_FAITHFUL;
                else if (strcmp(v, "union") == 0) a->mode = CNA_CLIP_MODE_UNION;
                else return cna_cli_usage_error(cmd, "--mode: '%s' is neither faithful nor union", v);
            } else {
                a->out = v;
            }
        } else if (strcmp(arg, "--split-palettes") == 0) {
            a->split_palettes = true;
        } else if (strcmp(arg, "--no-textures") == 0) {
            a->no_textures = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return cna_cli_usage_error(cmd, "unknown option '%s'", arg);
        } else if (!a->in) {
            a->in = arg;
        } else {
            return cna_cli_usage_error(cmd, "unexpected argument '%s'", arg);
        }
    }
    if (!a->in) return cna_cli_usage_error(cmd, "missing IN");
    if (!a->out) return cna_cli_usage_error(cmd, "missing -o OUT");
    return -1;
}

static bool has_other_extension(const char *path, const char *ext);

/* Convert one file; on failure prints "error: PATH: message" and returns
 * false. With `misnamed` (single-file mode), an output with an extension
 * other than .cnb (.cnj for the skeleton) sets it and writes nothing. */
static bool convert_file(const convert_args *a, const char *in, const char *out, const char *skeleton,
                         bool *misnamed)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.clip_mode = a->mode;
    io.gltf.asset_root = a->asset_root;
    io.split_palettes = a->split_palettes;
    io.gltf.no_textures = a->no_textures;
    io.gltf.max_decoded_size = a->max_decoded;
    /* The two outputs must differ, and neither may be a file the model is
     * read from (checked once the document lists its buffers and images). */
    if (skeleton && cna_cli_same_file(out, skeleton)) {
        fprintf(stderr, "error: %s: is the same file as the -o output \"%s\"; nothing was written\n", skeleton, out);
        return false;
    }
    cna_cli_files inputs;
    memset(&inputs, 0, sizeof inputs);
    cna_model *model = NULL;
    if (cna_cli_load_gltf(in, &io, &model, &inputs, &err) != CNA_OK) {
        cna_cli_files_free(&inputs);
        cna_cli_report_error(in, &err);
        return false;
    }
    bool clash = cna_cli_refuse_overwrite(out, &inputs) || (skeleton && cna_cli_refuse_overwrite(skeleton, &inputs));
    cna_cli_files_free(&inputs);
    if (clash) {
        cna_model_free(model);
        return false;
    }
    if (misnamed && (has_other_extension(out, ".cnb") || (skeleton && has_other_extension(skeleton, ".cnj")))) {
        *misnamed = true;
        cna_model_free(model);
        return true;
    }
    /* Refused before anything is written: no .cnb is left behind. */
    if (skeleton && model->skin_count == 0) {
        fprintf(stderr, "error: %s: the model has no skin; --skeleton needs one\n", in);
        cna_model_free(model);
        return false;
    }
    for (size_t i = 0; i < a->marker_count; i++) {
        const marker_arg *mk = &a->markers[i];
        size_t animation = 0;
        if (cna_model_find_animation(model, mk->anim, &animation, &err) != CNA_OK) {
            char option[1100];
            snprintf(option, sizeof option, "--marker '%s'", mk->arg);
            cna_cli_no_animation(in, option, mk->anim, model);
            cna_model_free(model);
            return false;
        }
        if (cna_model_add_marker(model, animation, mk->name, mk->seconds, &err) != CNA_OK) {
            fprintf(stderr, "error: %s: --marker '%s': %s; nothing was written\n", in, mk->arg, err.message);
            cna_model_free(model);
            return false;
        }
    }
    cna_key_reduction *reduced = NULL;
    if (a->reduce) {
        cna_key_reduction_options ro;
        memset(&ro, 0, sizeof ro);
        ro.tolerance = a->tolerance;
        if (cna_model_reduce_keys(model, &ro, &reduced, &err) != CNA_OK) {
            cna_model_free(model);
            cna_cli_report_error(in, &err);
            return false;
        }
        printf("keys: %zu -> %zu (tolerance %g, largest error %.3g)\n", reduced->keys_before,
               reduced->keys_after, reduced->tolerance, reduced->max_error);
    }
    cna_cnb_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.unit_scale = a->unit_scale;
    /* Load it back: what the reader refuses is never reported as converted.
     * A pipe or a device (-o /dev/stdout, /dev/null) cannot be read back:
     * the bytes are baked and loaded in memory first, then written. */
    const bool regular = cna_cli_is_regular_output(out);
    cna_model *baked = NULL;
    void *bytes = NULL;
    size_t size = 0;
    cna_result r = CNA_OK;
    if (!regular) {
        r = cna_cnb_write_memory(reduced ? &reduced->model : model, &wo, &bytes, &size, &err);
        if (!r) r = cna_cnb_load_memory(bytes, size, NULL, &baked, &err);
        cna_cnb_bytes_free(&wo, bytes);
        if (r) cna_cli_report_error(in, &err);
    }
    if (!r) {
        r = cna_cnb_write_file(reduced ? &reduced->model : model, &wo, out, &err);
        if (r) cna_cli_report_error(NULL, &err); /* the output's own failure: the message starts with its path */
    }
    cna_key_reduction_free(reduced);
    cna_model_free(model);
    if (r != CNA_OK) {
        cna_model_free(baked);
        return false;
    }
    if (regular && cna_cnb_load_file(out, NULL, &baked, &err) != CNA_OK) {
        cna_cli_report_error(NULL, &err); /* the message starts with the path */
        return false;
    }
    bool ok = true;
    if (skeleton && cna_cnj_write_file(skeleton, &baked->skins[0].data, &err) != CNA_OK) {
        cna_cli_report_error(NULL, &err); /* the message starts with the path */
        ok = false;
    }
    cna_model_free(baked);
    return ok;
}

/* ------------------------------------------------------------------ directory mode */

typedef struct file_list {
    char **paths;   /* relative to the root */
    size_t count, cap;
} file_list;

static bool has_gltf_extension(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".gltf") == 0) || (n > 4 && strcmp(name + n - 4, ".glb") == 0);
}

static int compare_paths(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Collect every .gltf/.glb under root/rel (rel "" for the root), sorted. */
static bool collect(const char *root, const char *rel, file_list *list, int depth)
{
    if (depth > 64) return true;
    char dir_path[4096];
    snprintf(dir_path, sizeof dir_path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *dir = opendir(dir_path);
    if (!dir) {
        fprintf(stderr, "error: %s: %s\n", dir_path, strerror(errno));
        return false;
    }
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char child_rel[4096], child[8192];
        snprintf(child_rel, sizeof child_rel, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(child, sizeof child, "%s/%s", root, child_rel);
        /* A symbolic link is followed to a file, never to a folder: the walk
         * stays inside the tree and ends, whatever loops the links make. */
        struct stat st;
        if (lstat(child, &st) != 0) continue;
        bool link = S_ISLNK(st.st_mode);
        if (link && stat(child, &st) != 0) continue;
        if (S_ISDIR(st.st_mode) && link) {
            continue;
        } else if (S_ISDIR(st.st_mode)) {
            ok = collect(root, child_rel, list, depth + 1);
        } else if (S_ISREG(st.st_mode) && has_gltf_extension(e->d_name)) {
            if (list->count == list->cap) {
                size_t cap = list->cap ? list->cap * 2 : 32;
                char **p = (char **)realloc(list->paths, cap * sizeof *p);
                if (!p) {
                    ok = false;
                    break;
                }
                list->paths = p;
                list->cap = cap;
            }
            list->paths[list->count] = strdup(child_rel);
            if (!list->paths[list->count]) ok = false;
            else list->count++;
        }
    }
    closedir(dir);
    return ok;
}

/* mkdir -p of the directories of `path` (not its last component). */
static bool make_parents(const char *path)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "error: %s: %s\n", buf, strerror(errno));
            return false;
        }
        *p = '/';
    }
    return true;
}

static void progress(size_t done, size_t total, const char *name)
{
    const int width = 30;
    int filled = total ? (int)((done * (size_t)width) / total) : width;
    printf("\r[%.*s%*s] %zu/%zu %-40.40s", filled, "##############################", width - filled, "", done,
           total, name);
    if (done == total) printf("\n");
    fflush(stdout);
}

/* The output name of list->paths[i]: its extension replaced by .cnb, or,
 * when another file of the tree has the same path without extension (a.gltf
 * beside a.glb), the whole name + .cnb (a.gltf.cnb, a.glb.cnb), so that no
 * output overwrites another. */
static void output_path(const convert_args *a, const file_list *list, size_t i, char *out, size_t size)
{
    const char *rel = list->paths[i];
    const size_t stem = (size_t)(strrchr(rel, '.') - rel);
    bool collides = false;
    for (size_t j = 0; j < list->count && !collides; j++) {
        const char *o = list->paths[j];
        collides = j != i && strncmp(o, rel, stem) == 0 && strrchr(o, '.') == o + stem;
    }
    if (collides) snprintf(out, size, "%s/%s.cnb", a->out, rel);
    else snprintf(out, size, "%s/%.*s.cnb", a->out, (int)stem, rel);
}

static int convert_directory(const convert_args *a)
{
    file_list list;
    memset(&list, 0, sizeof list);
    if (!collect(a->in, "", &list, 0)) {
        for (size_t i = 0; i < list.count; i++) free(list.paths[i]);
        free(list.paths);
        return CNA_CLI_EXIT_FAILURE;
    }
    qsort(list.paths, list.count, sizeof *list.paths, compare_paths);
    const bool tty = isatty(fileno(stdout)) != 0;
    size_t failed = 0, done = 0;
    cna_cli_catch_interrupts(); /* finish the file in hand, then report */
    for (size_t i = 0; i < list.count && !cna_cli_interrupted(); i++, done++) {
        const char *rel = list.paths[i];
        char in[8192], out[8192];
        snprintf(in, sizeof in, "%s/%s", a->in, rel);
        output_path(a, &list, i, out, sizeof out);
        if (tty) progress(i, list.count, rel);
        bool ok = make_parents(out) && convert_file(a, in, out, NULL, NULL);
        if (!ok) failed++;
        if (tty) progress(i + 1, list.count, rel);
        else if (ok) printf("%s -> %s\n", in, out);
        fflush(stdout); /* each line as its file is done, into a pipe or a log too */
    }
    const int sig = cna_cli_interrupted();
    if (sig) {
        if (tty && done < list.count) printf("\n");
        printf("interrupted by %s: %zu of %zu files converted, %zu not tried\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
               done - failed, list.count, list.count - done);
    } else {
        printf("%zu of %zu files converted\n", list.count - failed, list.count);
    }
    for (size_t i = 0; i < list.count; i++) free(list.paths[i]);
    free(list.paths);
    if (sig) cna_cli_end_interrupted();
    return failed ? CNA_CLI_EXIT_FAILURE : CNA_CLI_EXIT_OK;
}

/* "wrote PATH (N bytes)" on stdout (stderr when PATH is stdout) for a file
 * just written; a pipe or a device has no size to give. */
static void print_written(const char *path)
{
    struct stat st;
    FILE *f = cna_cli_report_stream(path);
    if (cna_cli_is_regular_output(path) && stat(path, &st) == 0)
        fprintf(f, "wrote %s (%lld bytes)\n", path, (long long)st.st_size);
    else
        fprintf(f, "wrote %s\n", path);
}

/* true when the last component of `path` has an extension (a '.' after its
 * first character) other than `ext` (compared ignoring ASCII case). */
static bool has_other_extension(const char *path, const char *ext)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base && strcasecmp(dot, ext) != 0;
}

static int convert(const cna_cli_command *cmd, const convert_args *a)
{
    struct stat st;
    if (stat(a->in, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (a->skeleton)
            return cna_cli_usage_error(cmd, "--skeleton applies to one file, not a directory");
        if (a->marker_count)
            return cna_cli_usage_error(cmd, "--marker applies to one file, not a directory");
        if (mkdir(a->out, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "error: %s: %s\n", a->out, strerror(errno));
            return CNA_CLI_EXIT_FAILURE;
        }
        return convert_directory(a);
    }
    if (cna_cli_probe_file(a->in, false) == CNA_CLI_FILE_UNUSABLE) return CNA_CLI_EXIT_FAILURE;
    if (cna_cli_refuse_directory("-o", a->out) || (a->skeleton && cna_cli_refuse_directory("--skeleton", a->skeleton)))
        return CNA_CLI_EXIT_FAILURE;
    bool misnamed = false;
    if (!convert_file(a, a->in, a->out, a->skeleton, &misnamed)) return CNA_CLI_EXIT_FAILURE;
    if (misnamed) {
        /* A name with another extension (x.png) is refused, as cna render
         * does; one without (a device such as /dev/stdout) is written as
         * asked. Checked after the inputs are known, so that an output
         * naming one of them says so first. */
        if (has_other_extension(a->out, ".cnb"))
            return cna_cli_usage_error(cmd, "-o: '%s': only .cnb outputs are written", a->out);
        return cna_cli_usage_error(cmd, "--skeleton: '%s': only .cnj outputs are written", a->skeleton);
    }
    print_written(a->out);
    if (a->skeleton) print_written(a->skeleton);
    return CNA_CLI_EXIT_OK;
}

int cna_cli_convert_run(int argc, char **argv)
{
    const cna_cli_command *cmd = cna_cli_find("convert");
    for (int i = 1; i < argc; i++) {
        if (cna_cli_is_help(argv[i])) {
            cna_cli_convert_help(stdout);
            return CNA_CLI_EXIT_OK;
        }
    }
    convert_args a;
    int u = parse_args(cmd, argc, argv, &a);
    int r = u >= 0 ? u : convert(cmd, &a);
    free(a.markers);
    return r;
}
