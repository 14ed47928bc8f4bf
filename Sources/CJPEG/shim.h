#ifndef ROQUA_CJPEG_SHIM_H
#define ROQUA_CJPEG_SHIM_H
// libjpeg(-turbo) for photo thumbnails: a JPEG decoded to RGB at 1/2, 1/4 or 1/8 of its size by
// the library's own DCT scaling, RGB reduced and turned (no libjpeg), RGB encoded. libjpeg reports
// an error by calling `error_exit`, which must not return: here it jumps back to the `setjmp` of
// the function that called the library, which frees what it holds and returns the library's
// message. Nothing is printed. Buffers handed out are freed with `free`.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf back;
    char message[JMSG_LENGTH_MAX];
} roqua_jpeg_error;

static void roqua_jpeg_exit(j_common_ptr info) {
    roqua_jpeg_error *error = (roqua_jpeg_error *)info->err;
    error->manager.format_message(info, error->message);
    longjmp(error->back, 1);
}

// Warnings (a truncated file, extraneous bytes) are passed over: what decodes is shown.
static void roqua_jpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

static inline void roqua_jpeg_errors(roqua_jpeg_error *error) {
    jpeg_std_error(&error->manager);
    error->manager.error_exit = roqua_jpeg_exit;
    error->manager.emit_message = roqua_jpeg_quiet;
    error->message[0] = 0;
}

// Largest picture decoded (pixels), and memory libjpeg may use (a progressive picture keeps every
// coefficient of the whole picture).
#define ROQUA_JPEG_MAX_PIXELS (200L * 1000 * 1000)
#define ROQUA_JPEG_MAX_MEMORY (160L * 1024 * 1024)

// The JPEG `data` (`size` bytes) as RGB in `*rgb` (`*width`×`*height`×3 bytes), decoded at the
// smallest of 1/1, 1/2, 1/4, 1/8 of its size that keeps both sides at least `longest` pixels
// (0: full size). 0 on success; else 1 and the reason in `message`.
static inline int roqua_jpeg_decode(
    const unsigned char *data, unsigned long size, int longest, unsigned char **rgb, int *width, int *height,
    char message[JMSG_LENGTH_MAX]) {
    struct jpeg_decompress_struct in;
    roqua_jpeg_error error;
    unsigned char *volatile pixels = NULL;  // read after a longjmp back into this frame
    *rgb = NULL;
    *width = *height = 0;
    message[0] = 0;
    if (size == 0) {
        strcpy(message, "an empty file");
        return 1;
    }
    memset(&in, 0, sizeof in);
    in.err = &error.manager;
    roqua_jpeg_errors(&error);
    if (setjmp(error.back)) {
        memcpy(message, error.message, JMSG_LENGTH_MAX);
        message[JMSG_LENGTH_MAX - 1] = 0;
        jpeg_destroy_decompress(&in);
        free((void *)pixels);
        return 1;
    }
    jpeg_create_decompress(&in);
    in.mem->max_memory_to_use = ROQUA_JPEG_MAX_MEMORY;
    jpeg_mem_src(&in, data, size);
    jpeg_read_header(&in, TRUE);
    if ((long)in.image_width * (long)in.image_height > ROQUA_JPEG_MAX_PIXELS) {
        snprintf(error.message, sizeof error.message, "a picture of %u x %u pixels is too large to decode",
                 in.image_width, in.image_height);
        longjmp(error.back, 1);
    }
    unsigned int shorter = in.image_width < in.image_height ? in.image_width : in.image_height;
    in.scale_num = 1;
    in.scale_denom = 1;
    while (longest > 0 && in.scale_denom < 8 && shorter / (in.scale_denom * 2) >= (unsigned int)longest) in.scale_denom *= 2;
    in.out_color_space = JCS_RGB;
    jpeg_start_decompress(&in);
    if (in.output_width < 1 || in.output_height < 1 || in.output_components != 3) {
        strcpy(error.message, "no picture to decode");
        longjmp(error.back, 1);
    }
    pixels = malloc((size_t)in.output_width * in.output_height * 3);
    if (pixels == NULL) {
        strcpy(error.message, "out of memory");
        longjmp(error.back, 1);
    }
    while (in.output_scanline < in.output_height) {
        JSAMPROW row = pixels + (size_t)in.output_scanline * in.output_width * 3;
        jpeg_read_scanlines(&in, &row, 1);
    }
    jpeg_finish_decompress(&in);
    *width = (int)in.output_width;
    *height = (int)in.output_height;
    jpeg_destroy_decompress(&in);
    *rgb = pixels;
    return 0;
}

// RGB `rgb` (`width`×`height`) reduced by averaging to at most `longest` pixels a side and turned
// upright by the EXIF `orientation` (1–8; anything else is 1), in `*out` (`*out_width`×
// `*out_height`: orientations 5–8 swap the sides). 0 on success, 1 when out of memory.
static inline int roqua_rgb_reduce(
    const unsigned char *rgb, int width, int height, int longest, int orientation, unsigned char **out, int *out_width,
    int *out_height) {
    int wide = width > height ? width : height;
    double scale = longest > 0 && wide > longest ? (double)wide / longest : 1.0;
    int w = (int)(width / scale + 0.5), h = (int)(height / scale + 0.5);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    if (orientation < 1 || orientation > 8) orientation = 1;
    int ow = orientation >= 5 ? h : w, oh = orientation >= 5 ? w : h;
    unsigned char *small = malloc((size_t)ow * oh * 3);
    if (small == NULL) return 1;
    for (int y = 0; y < h; y++) {
        int y0 = (int)((long)y * height / h), y1 = (int)((long)(y + 1) * height / h);
        if (y1 <= y0) y1 = y0 + 1;
        for (int x = 0; x < w; x++) {
            int x0 = (int)((long)x * width / w), x1 = (int)((long)(x + 1) * width / w);
            if (x1 <= x0) x1 = x0 + 1;
            unsigned long sum[3] = {0, 0, 0}, count = 0;
            for (int j = y0; j < y1; j++) {
                const unsigned char *p = rgb + ((size_t)j * width + x0) * 3;
                for (int i = x0; i < x1; i++, p += 3, count++) {
                    sum[0] += p[0];
                    sum[1] += p[1];
                    sum[2] += p[2];
                }
            }
            // Where stored pixel x, y goes in the upright picture.
            int tx, ty;
            switch (orientation) {
            case 2: tx = w - 1 - x; ty = y; break;
            case 3: tx = w - 1 - x; ty = h - 1 - y; break;
            case 4: tx = x; ty = h - 1 - y; break;
            case 5: tx = y; ty = x; break;
            case 6: tx = h - 1 - y; ty = x; break;
            case 7: tx = h - 1 - y; ty = w - 1 - x; break;
            case 8: tx = y; ty = w - 1 - x; break;
            default: tx = x; ty = y; break;
            }
            unsigned char *q = small + ((size_t)ty * ow + tx) * 3;
            for (int c = 0; c < 3; c++) q[c] = (unsigned char)((sum[c] + count / 2) / count);
        }
    }
    *out = small;
    *out_width = ow;
    *out_height = oh;
    return 0;
}

// RGB `rgb` (`width`×`height`) as a JPEG of `quality` in `*out` (`*out_size` bytes). 0 on success;
// else 1 and the reason in `message`.
static inline int roqua_jpeg_encode(
    const unsigned char *rgb, int width, int height, int quality, unsigned char **out, unsigned long *out_size,
    char message[JMSG_LENGTH_MAX]) {
    struct jpeg_compress_struct encoder;
    roqua_jpeg_error error;
    // Written by libjpeg through its address: in memory, not a register, after a longjmp.
    unsigned char *encoded = NULL;
    unsigned long encoded_size = 0;
    *out = NULL;
    *out_size = 0;
    message[0] = 0;
    memset(&encoder, 0, sizeof encoder);
    encoder.err = &error.manager;
    roqua_jpeg_errors(&error);
    if (setjmp(error.back)) {
        memcpy(message, error.message, JMSG_LENGTH_MAX);
        message[JMSG_LENGTH_MAX - 1] = 0;
        jpeg_destroy_compress(&encoder);
        free(encoded);
        return 1;
    }
    jpeg_create_compress(&encoder);
    jpeg_mem_dest(&encoder, &encoded, &encoded_size);
    encoder.image_width = (JDIMENSION)width;
    encoder.image_height = (JDIMENSION)height;
    encoder.input_components = 3;
    encoder.in_color_space = JCS_RGB;
    jpeg_set_defaults(&encoder);
    jpeg_set_quality(&encoder, quality, TRUE);
    jpeg_start_compress(&encoder, TRUE);
    while (encoder.next_scanline < encoder.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)encoder.next_scanline * width * 3);
        jpeg_write_scanlines(&encoder, &row, 1);
    }
    jpeg_finish_compress(&encoder);
    jpeg_destroy_compress(&encoder);
    *out = encoded;
    *out_size = encoded_size;
    return 0;
}
#endif
