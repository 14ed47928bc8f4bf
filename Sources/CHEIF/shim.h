#ifndef ROQUA_CHEIF_SHIM_H
#define ROQUA_CHEIF_SHIM_H
// libheif for the previews of HEIC and AVIF photos: the container's thumbnail image when it has
// one (a phone stores one of about 320×240), else the picture itself, decoded to RGB with the
// container's rotation and mirroring applied. libheif returns its errors; nothing is printed.
// Buffers handed out are freed with `free`.
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

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
    const unsigned char *data, unsigned long size, int longest, unsigned char **rgb, int *width, int *height, char message[256]) {
    struct heif_context *context = NULL;
    struct heif_image_handle *primary = NULL, *chosen = NULL;
    struct heif_image *image = NULL;
    struct heif_error error;
    int status = 1;
    *rgb = NULL;
    *width = *height = 0;
    message[0] = 0;
    heif_init(NULL);
    context = heif_context_alloc();
    if (context == NULL) {
        strcpy(message, "out of memory");
        goto done;
    }
    heif_context_set_maximum_image_size_limit(context, ROQUA_HEIF_MAX_SIDE);
    error = heif_context_read_from_memory_without_copy(context, data, size, NULL);
    if (error.code != heif_error_Ok) {
        roqua_heif_message(error, message);
        goto done;
    }
    error = heif_context_get_primary_image_handle(context, &primary);
    if (error.code != heif_error_Ok) {
        roqua_heif_message(error, message);
        goto done;
    }
    heif_item_id thumbnails[8];
    int count = heif_image_handle_get_list_of_thumbnail_IDs(primary, thumbnails, 8);
    int best_side = 0;
    for (int i = 0; i < count; i++) {
        struct heif_image_handle *thumbnail = NULL;
        if (heif_image_handle_get_thumbnail(primary, thumbnails[i], &thumbnail).code != heif_error_Ok) continue;
        int w = heif_image_handle_get_width(thumbnail), h = heif_image_handle_get_height(thumbnail);
        int side = w > h ? w : h;
        // The smallest one of at least `longest`, else the largest.
        int better = chosen == NULL || (best_side < longest ? side > best_side : (side >= longest && side < best_side));
        if (better) {
            if (chosen != NULL) heif_image_handle_release(chosen);
            chosen = thumbnail;
            best_side = side;
        } else {
            heif_image_handle_release(thumbnail);
        }
    }
    struct heif_image_handle *source = chosen != NULL ? chosen : primary;
    long w = heif_image_handle_get_width(source), h = heif_image_handle_get_height(source);
    if (w < 1 || h < 1 || w > ROQUA_HEIF_MAX_SIDE || h > ROQUA_HEIF_MAX_SIDE || w * h > ROQUA_HEIF_MAX_PIXELS) {
        strcpy(message, "the picture is too large to decode");
        goto done;
    }
    error = heif_decode_image(source, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    if (error.code != heif_error_Ok) {
        roqua_heif_message(error, message);
        goto done;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int iw = heif_image_get_width(image, heif_channel_interleaved), ih = heif_image_get_height(image, heif_channel_interleaved);
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
    if (image != NULL) heif_image_release(image);
    if (chosen != NULL) heif_image_handle_release(chosen);
    if (primary != NULL) heif_image_handle_release(primary);
    if (context != NULL) heif_context_free(context);
    heif_deinit();
    return status;
}
#endif
