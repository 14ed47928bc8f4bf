#ifndef ROQUA_CLOADED_SHIM_H
#define ROQUA_CLOADED_SHIM_H
// C libraries loaded by the commands that use them, not linked into every command's start:
// PROJ (users' layers in another CRS; libproj brings about 35 shared libraries — curl, gnutls,
// tiff, krb5… — and its dynamic loading was about 10 ms of every `roqua` command) and libzip
// (`.zip`/`.kmz` archives; it brings libcrypto and libbz2, about 3 ms more). Each library's
// functions Roqua calls are listed once below and looked up into a struct, each typed as the
// library's own header declares it; only RoquaProjection and RoquaIO's ZipArchive use them.
#include <dlfcn.h>
#include <limits.h>
#include <malloc.h>
#include <proj.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#define ROQUA_PROJ_FUNCTIONS(F) F(proj_, context_create) F(proj_, context_destroy) F(proj_, context_set_enable_network) \
    F(proj_, context_errno) F(proj_, context_errno_string) F(proj_, log_level) F(proj_, create) F(proj_, destroy) \
    F(proj_, is_crs) F(proj_, get_type) F(proj_, get_name) F(proj_, is_equivalent_to_with_ctx) \
    F(proj_, create_crs_to_crs_from_pj) F(proj_, normalize_for_visualization) F(proj_, trans_generic) \
    F(proj_, context_set_fileapi) F(proj_, info) F(proj_, as_projjson)

#define ROQUA_ZIP_FUNCTIONS(F) F(zip_, open) F(zip_, discard) F(zip_, error_init_with_code) F(zip_, error_strerror) \
    F(zip_, error_fini) F(zip_, get_num_entries) F(zip_, stat_index) F(zip_, fopen_index) F(zip_, fread) \
    F(zip_, fclose) F(zip_, strerror) F(zip_, file_strerror)

#define ROQUA_FIELD(prefix, name) __typeof__(&prefix##name) _Nonnull name;
typedef struct RoquaProj { ROQUA_PROJ_FUNCTIONS(ROQUA_FIELD) } RoquaProj;
typedef struct RoquaZip { ROQUA_ZIP_FUNCTIONS(ROQUA_FIELD) } RoquaZip;
#undef ROQUA_FIELD

// `soname`, else the development link `fallback`; NULL when neither loads.
static inline void *roqua_open_library(const char *soname, const char *fallback) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    return library != NULL ? library : dlopen(fallback, RTLD_NOW | RTLD_LOCAL);
}

// Each loader fills its struct. It returns NULL when every function was found, "" when the
// library is not installed, else the name of the first function it lacks (too old a version).
#define ROQUA_LOAD(prefix, name) \
    if ((table->name = (__typeof__(table->name))dlsym(library, #prefix #name)) == NULL) return #prefix #name;

static inline const char *roqua_proj_load(RoquaProj *table) {
    void *library = roqua_open_library("libproj.so.25", "libproj.so");
    if (library == NULL) return "";
    ROQUA_PROJ_FUNCTIONS(ROQUA_LOAD)
    return NULL;
}

static inline const char *roqua_zip_load(RoquaZip *table) {
    void *library = roqua_open_library("libzip.so.4", "libzip.so");
    if (library == NULL) return "";
    ROQUA_ZIP_FUNCTIONS(ROQUA_LOAD)
    return NULL;
}
#undef ROQUA_LOAD

// PROJ's files, through a file API that opens only files lying directly in one of the
// directories of `allowed` (a NULL-terminated list of real paths: PROJ's own data directories),
// read-only. A CRS definition comes from a layer's files (a .prj, a GeoJSON's `crs`, a
// GeoPackage's SRS table), and PROJ opens what it names: `+init=/any/file:key`,
// `+nadgrids=@/any/file`, WKT `PARAMETERFILE["…","../../any/file"]`. With this API those opens
// fail, while proj.db, the grids of proj-data and init files found by name there still open.
static inline const char *roqua_proj_allowed_path(const char *name, const char *const *allowed, char resolved[PATH_MAX]) {
    if (name == NULL || realpath(name, resolved) == NULL) return NULL;
    const char *slash = strrchr(resolved, '/');
    if (slash == NULL) return NULL;
    size_t length = (size_t)(slash - resolved);
    for (; allowed != NULL && *allowed != NULL; allowed++) {
        if (strlen(*allowed) == length && strncmp(*allowed, resolved, length) == 0) return resolved;
    }
    return NULL;
}

static inline PROJ_FILE_HANDLE *roqua_proj_open(PJ_CONTEXT *ctx, const char *name, PROJ_OPEN_ACCESS access, void *allowed) {
    (void)ctx;
    char resolved[PATH_MAX];
    if (access != PROJ_OPEN_ACCESS_READ_ONLY || roqua_proj_allowed_path(name, (const char *const *)allowed, resolved) == NULL) return NULL;
    return (PROJ_FILE_HANDLE *)fopen(resolved, "rbe");
}

static inline size_t roqua_proj_read(PJ_CONTEXT *ctx, PROJ_FILE_HANDLE *file, void *buffer, size_t size, void *allowed) {
    (void)ctx; (void)allowed;
    return fread(buffer, 1, size, (FILE *)file);
}

static inline size_t roqua_proj_write(PJ_CONTEXT *ctx, PROJ_FILE_HANDLE *file, const void *buffer, size_t size, void *allowed) {
    (void)ctx; (void)file; (void)buffer; (void)size; (void)allowed;
    return 0;
}

static inline int roqua_proj_seek(PJ_CONTEXT *ctx, PROJ_FILE_HANDLE *file, long long offset, int whence, void *allowed) {
    (void)ctx; (void)allowed;
    return fseeko((FILE *)file, (off_t)offset, whence) == 0;
}

static inline unsigned long long roqua_proj_tell(PJ_CONTEXT *ctx, PROJ_FILE_HANDLE *file, void *allowed) {
    (void)ctx; (void)allowed;
    off_t position = ftello((FILE *)file);
    return position < 0 ? 0 : (unsigned long long)position;
}

static inline void roqua_proj_close(PJ_CONTEXT *ctx, PROJ_FILE_HANDLE *file, void *allowed) {
    (void)ctx; (void)allowed;
    fclose((FILE *)file);
}

static inline int roqua_proj_exists(PJ_CONTEXT *ctx, const char *name, void *allowed) {
    (void)ctx;
    char resolved[PATH_MAX];
    return roqua_proj_allowed_path(name, (const char *const *)allowed, resolved) != NULL;
}

// Nothing is created, removed or renamed (PROJ would for its grid cache; the network is off).
static inline int roqua_proj_refuse(PJ_CONTEXT *ctx, const char *name, void *allowed) {
    (void)ctx; (void)name; (void)allowed;
    return 0;
}

static inline int roqua_proj_refuse_rename(PJ_CONTEXT *ctx, const char *from, const char *to, void *allowed) {
    (void)ctx; (void)from; (void)to; (void)allowed;
    return 0;
}

// The file API above, for `proj_context_set_fileapi(ctx, roqua_proj_file_api(), allowed)`;
// `allowed` must outlive the context.
static inline const PROJ_FILE_API *roqua_proj_file_api(void) {
    static const PROJ_FILE_API api = {
        1, roqua_proj_open, roqua_proj_read, roqua_proj_write, roqua_proj_seek, roqua_proj_tell, roqua_proj_close,
        roqua_proj_exists, roqua_proj_refuse, roqua_proj_refuse, roqua_proj_refuse_rename,
    };
    return &api;
}
// One malloc arena for the process. glibc gives each thread that meets a busy arena one of its
// own (up to 8 per core), and a command's few worker threads each keep theirs: a ten-year import
// ended 17 MB higher with a timeline thread added, and 2 MB lower than before it with one arena,
// at the same speed (docs/benchmarks.md). Called first thing, before any thread starts.
static inline void roqua_single_malloc_arena(void) { mallopt(M_ARENA_MAX, 1); }
#endif
