#ifndef ROQUA_CLOADED_SHIM_H
#define ROQUA_CLOADED_SHIM_H
// C libraries loaded by the commands that use them, not linked into every command's start:
// PROJ (users' layers in another CRS; libproj brings about 35 shared libraries — curl, gnutls,
// tiff, krb5… — and its dynamic loading was about 10 ms of every `roqua` command) and libzip
// (`.zip`/`.kmz` archives; it brings libcrypto and libbz2, about 3 ms more). Each library's
// functions Roqua calls are listed once below and looked up into a struct, each typed as the
// library's own header declares it; only RoquaProjection and RoquaIO's ZipArchive use them.
#include <dlfcn.h>
#include <proj.h>
#include <zip.h>

#define ROQUA_PROJ_FUNCTIONS(F) F(proj_, context_create) F(proj_, context_destroy) F(proj_, context_set_enable_network) \
    F(proj_, context_errno) F(proj_, context_errno_string) F(proj_, log_level) F(proj_, create) F(proj_, destroy) \
    F(proj_, is_crs) F(proj_, get_type) F(proj_, get_name) F(proj_, is_equivalent_to_with_ctx) \
    F(proj_, create_crs_to_crs_from_pj) F(proj_, normalize_for_visualization) F(proj_, trans_generic)

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
#endif
