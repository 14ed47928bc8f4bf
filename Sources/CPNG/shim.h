// PNG pictures decoded for photo thumbnails (RoquaPhotos' PhotoThumbnail), through libpng's
// simplified API: it keeps libpng's setjmp/longjmp error handling inside libpng and reports a
// failure as a return value and a message.
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Largest picture decoded: a PNG has no reduced decode, so its full size is held as RGB (90 MB).
#define ROQUA_PNG_MAX_PIXELS (30L * 1000 * 1000)
#define ROQUA_PNG_MESSAGE_LENGTH 128

// PNG `data` (`size` bytes) as 8-bit sRGB rows in `*rgb` (`*width`×`*height`, malloc'd: the caller
// frees it), transparency composed onto white. 0 on success; else 1, the reason in `message`.
static inline int roqua_png_decode(const unsigned char *data, unsigned long size, unsigned char **rgb, int *width,
                                   int *height, char message[ROQUA_PNG_MESSAGE_LENGTH]) {
    png_image image;
    *rgb = NULL;
    *width = *height = 0;
    message[0] = 0;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        snprintf(message, ROQUA_PNG_MESSAGE_LENGTH, "%s", image.message);
        png_image_free(&image);
        return 1;
    }
    if (image.width < 1 || image.height < 1 || (long)image.width * (long)image.height > ROQUA_PNG_MAX_PIXELS) {
        snprintf(message, ROQUA_PNG_MESSAGE_LENGTH, "a picture of %u x %u pixels is too large to decode", image.width,
                 image.height);
        png_image_free(&image);
        return 1;
    }
    image.format = PNG_FORMAT_RGB;
    unsigned char *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (pixels == NULL) {
        snprintf(message, ROQUA_PNG_MESSAGE_LENGTH, "out of memory");
        png_image_free(&image);
        return 1;
    }
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, pixels, 0, NULL)) {
        snprintf(message, ROQUA_PNG_MESSAGE_LENGTH, "%s", image.message);
        png_image_free(&image);
        free(pixels);
        return 1;
    }
    png_image_free(&image);  // nothing left to free after a finished read: harmless
    *width = (int)image.width;
    *height = (int)image.height;
    *rgb = pixels;
    return 0;
}
