#ifndef ROQUA_CLOADED_SHIM_H
#define ROQUA_CLOADED_SHIM_H
// C libraries loaded by the commands that use them, not linked into every command's start:
// PROJ (users' layers in another CRS; libproj brings about 35 shared libraries — curl, gnutls,
// tiff, krb5… — and its dynamic loading was about 10 ms of every `roqua` command), libzip
// (`.zip`/`.kmz` archives; it brings libcrypto and libbz2, about 3 ms more) and libheif (the
// previews of HEIC and AVIF photos; it brings libx265, libaom, libdav1d and libde265: 3 ms and
// 3 MB more). Each library's functions Roqua calls are listed once below and looked up into a
// struct, each typed as the library's own header declares it; only RoquaProjection, RoquaIO's
// ZipArchive and RoquaPhotos' PhotoThumbnail use them.
#include <dlfcn.h>
#include <limits.h>
#include <malloc.h>
#include <proj.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <libheif/heif.h>

#define ROQUA_PROJ_FUNCTIONS(F) F(proj_, context_create) F(proj_, context_destroy) F(proj_, context_set_enable_network) \
    F(proj_, context_errno) F(proj_, context_errno_string) F(proj_, log_level) F(proj_, create) F(proj_, destroy) \
    F(proj_, is_crs) F(proj_, get_type) F(proj_, get_name) F(proj_, is_equivalent_to_with_ctx) \
    F(proj_, create_crs_to_crs_from_pj) F(proj_, normalize_for_visualization) F(proj_, trans_generic) \
    F(proj_, context_set_fileapi) F(proj_, info) F(proj_, as_projjson)

#define ROQUA_ZIP_FUNCTIONS(F) F(zip_, open) F(zip_, discard) F(zip_, error_init_with_code) F(zip_, error_strerror) \
    F(zip_, error_fini) F(zip_, get_num_entries) F(zip_, stat_index) F(zip_, fopen_index) F(zip_, fread) \
    F(zip_, fclose) F(zip_, strerror) F(zip_, file_strerror)

#define ROQUA_HEIF_FUNCTIONS(F) F(heif_, init) F(heif_, deinit) F(heif_, context_alloc) F(heif_, context_free) \
    F(heif_, context_set_maximum_image_size_limit) F(heif_, context_read_from_memory_without_copy) \
    F(heif_, context_get_primary_image_handle) F(heif_, image_handle_get_list_of_thumbnail_IDs) \
    F(heif_, image_handle_get_thumbnail) F(heif_, image_handle_get_width) F(heif_, image_handle_get_height) \
    F(heif_, image_handle_release) F(heif_, decode_image) F(heif_, image_get_plane_readonly) F(heif_, image_get_width) \
    F(heif_, image_get_height) F(heif_, image_release)

#define ROQUA_FIELD(prefix, name) __typeof__(&prefix##name) _Nonnull name;
typedef struct RoquaProj { ROQUA_PROJ_FUNCTIONS(ROQUA_FIELD) } RoquaProj;
typedef struct RoquaZip { ROQUA_ZIP_FUNCTIONS(ROQUA_FIELD) } RoquaZip;
typedef struct RoquaHeif { ROQUA_HEIF_FUNCTIONS(ROQUA_FIELD) } RoquaHeif;
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

static inline const char *roqua_heif_load(RoquaHeif *table) {
    void *library = roqua_open_library("libheif.so.1", "libheif.so");
    if (library == NULL) return "";
    ROQUA_HEIF_FUNCTIONS(ROQUA_LOAD)
    return NULL;
}
#undef ROQUA_LOAD

// The previews of HEIC and AVIF photos, through libheif's functions in `heif` (`roqua_heif_load`):
// the container's thumbnail image when it has one (a phone stores one of about 320×240), else the
// picture itself, decoded to RGB with the container's rotation and mirroring applied. libheif
// returns its errors; nothing is printed. The RGB is freed with `free`.
// Largest picture decoded (pixels, and pixels a side).
#define ROQUA_HEIF_MAX_PIXELS (200L * 1000 * 1000)
#define ROQUA_HEIF_MAX_SIDE 32768

static inline void roqua_heif_message(const struct heif_error error, char message[256]) {
    strncpy(message, error.message != NULL ? error.message : "libheif failed", 255);
    message[255] = 0;
}

// The HEIF/AVIF `data` (`size` bytes) as RGB in `*rgb` (`*width`×`*height`×3 bytes): its
// thumbnail with the longest side of at least `longest` pixels, or its largest thumbnail, or
// (none) its primary picture. 0 on success; else 1 and the reason in `message`.
static inline int roqua_heif_decode(
    const RoquaHeif *heif, const unsigned char *data, unsigned long size, int longest, unsigned char **rgb, int *width, int *height,
    char message[256]) {
    struct heif_context *context = NULL;
    struct heif_image_handle *primary = NULL, *chosen = NULL;
    struct heif_image *image = NULL;
    struct heif_error error;
    int status = 1;
    *rgb = NULL;
    *width = *height = 0;
    message[0] = 0;
    heif->init(NULL);
    context = heif->context_alloc();
    if (context == NULL) {
        strcpy(message, "out of memory");
        goto done;
    }
    heif->context_set_maximum_image_size_limit(context, ROQUA_HEIF_MAX_SIDE);
    error = heif->context_read_from_memory_without_copy(context, data, size, NULL);
    if (error.code != heif_error_Ok) {
        roqua_heif_message(error, message);
        goto done;
    }
    error = heif->context_get_primary_image_handle(context, &primary);
    if (error.code != heif_error_Ok) {
        roqua_heif_message(error, message);
        goto done;
    }
    heif_item_id thumbnails[8];
    int count = heif->image_handle_get_list_of_thumbnail_IDs(primary, thumbnails, 8);
    int best_side = 0;
    for (int i = 0; i < count; i++) {
        struct heif_image_handle *thumbnail = NULL;
        if (heif->image_handle_get_thumbnail(primary, thumbnails[i], &thumbnail).code != heif_error_Ok) continue;
        int w = heif->image_handle_get_width(thumbnail), h = heif->image_handle_get_height(thumbnail);
        int side = w > h ? w : h;
        // The smallest one of at least `longest`, else the largest.
        int better = chosen == NULL || (best_side < longest ? side > best_side : (side >= longest && side < best_side));
        if (better) {
            if (chosen != NULL) heif->image_handle_release(chosen);
            chosen = thumbnail;
            best_side = side;
        } else {
            heif->image_handle_release(thumbnail);
        }
    }
    struct heif_image_handle *source = chosen != NULL ? chosen : primary;
    long w = heif->image_handle_get_width(source), h = heif->image_handle_get_height(source);
    if (w < 1 || h < 1 || w > ROQUA_HEIF_MAX_SIDE || h > ROQUA_HEIF_MAX_SIDE || w * h > ROQUA_HEIF_MAX_PIXELS) {
        strcpy(message, "the picture is too large to decode");
        goto done;
    }
    error = heif->decode_image(source, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    if (error.code != heif_error_Ok) {
        roqua_heif_message(error, message);
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = heif->image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int iw = heif->image_get_width(image, heif_channel_interleaved), ih = heif->image_get_height(image, heif_channel_interleaved);
    if (plane == NULL || iw < 1 || ih < 1 || stride < iw * 3) {
        strcpy(message, "no picture to decode");
        goto done;
    }
    unsigned char *out = malloc((size_t)iw * ih * 3);
    if (out == NULL) {
        strcpy(message, "out of memory");
        goto done;
    }
    for (int y = 0; y < ih; y++) memcpy(out + (size_t)y * iw * 3, plane + (size_t)y * stride, (size_t)iw * 3);
    *rgb = out;
    *width = iw;
    *height = ih;
    status = 0;
done:
    if (image != NULL) heif->image_release(image);
    if (chosen != NULL) heif->image_handle_release(chosen);
    if (primary != NULL) heif->image_handle_release(primary);
    if (context != NULL) heif->context_free(context);
    heif->deinit();
    return status;
}
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
