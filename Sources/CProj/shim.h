#ifndef ROQUA_CPROJ_SHIM_H
#define ROQUA_CPROJ_SHIM_H
// PROJ's C API (proj.h): contexts, CRS objects and transformations. Roqua uses it only behind
// RoquaProjection, one context per `Reprojection`, with the network turned off.
//
// PROJ is loaded when a reprojection is first made, not linked: libproj brings about 35 shared
// libraries with it (curl, gnutls, tiff, krb5…), and the dynamic loader's work for them was about
// 14 ms of every `roqua` command's start, including the many that never reproject. The functions
// Roqua calls are looked up once into `RoquaProj`, each typed as proj.h declares it.
#include <dlfcn.h>
#include <stddef.h>
#include <proj.h>

typedef struct RoquaProj {
    __typeof__(&proj_context_create) _Nonnull context_create;
    __typeof__(&proj_context_destroy) _Nonnull context_destroy;
    __typeof__(&proj_context_set_enable_network) _Nonnull context_set_enable_network;
    __typeof__(&proj_context_errno) _Nonnull context_errno;
    __typeof__(&proj_context_errno_string) _Nonnull context_errno_string;
    __typeof__(&proj_log_level) _Nonnull log_level;
    __typeof__(&proj_create) _Nonnull create;
    __typeof__(&proj_destroy) _Nonnull destroy;
    __typeof__(&proj_is_crs) _Nonnull is_crs;
    __typeof__(&proj_get_type) _Nonnull get_type;
    __typeof__(&proj_get_name) _Nonnull get_name;
    __typeof__(&proj_is_equivalent_to_with_ctx) _Nonnull is_equivalent_to_with_ctx;
    __typeof__(&proj_create_crs_to_crs_from_pj) _Nonnull create_crs_to_crs_from_pj;
    __typeof__(&proj_normalize_for_visualization) _Nonnull normalize_for_visualization;
    __typeof__(&proj_trans_generic) _Nonnull trans_generic;
} RoquaProj;

// Fills `proj` from the installed PROJ (the runtime library of PROJ 6–9, else the development
// link). NULL when every function was found; otherwise what is missing, as a text to show.
static inline const char *roqua_proj_load(RoquaProj *proj) {
    static const char *const names[] = {"libproj.so.25", "libproj.so"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && library == NULL; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        return "the PROJ library (libproj.so.25) is not installed: apt-get install libproj25";
    }
#define ROQUA_PROJ_LOAD(field) \
    if ((proj->field = (__typeof__(proj->field))dlsym(library, "proj_" #field)) == NULL) { \
        return "the installed PROJ library has no proj_" #field " (PROJ 6.3 or later is needed)"; \
    }
    ROQUA_PROJ_LOAD(context_create)
    ROQUA_PROJ_LOAD(context_destroy)
    ROQUA_PROJ_LOAD(context_set_enable_network)
    ROQUA_PROJ_LOAD(context_errno)
    ROQUA_PROJ_LOAD(context_errno_string)
    ROQUA_PROJ_LOAD(log_level)
    ROQUA_PROJ_LOAD(create)
    ROQUA_PROJ_LOAD(destroy)
    ROQUA_PROJ_LOAD(is_crs)
    ROQUA_PROJ_LOAD(get_type)
    ROQUA_PROJ_LOAD(get_name)
    ROQUA_PROJ_LOAD(is_equivalent_to_with_ctx)
    ROQUA_PROJ_LOAD(create_crs_to_crs_from_pj)
    ROQUA_PROJ_LOAD(normalize_for_visualization)
    ROQUA_PROJ_LOAD(trans_generic)
#undef ROQUA_PROJ_LOAD
    return NULL;
}
#endif
